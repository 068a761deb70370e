/*
 * legacystream.c
 *		legacyask.c's asker over an SSE stream, and the waiters (legacystream.h).
 *
 * Per round: the server requests go out on the stream with the ids the
 * database gave their pending rows, then the stream waits.  It wakes when
 * the notify thread hears one of its pending ids (answered, or ended), when
 * the client leaves, every second to send a comment (the only way to notice
 * a client that left while the connection is suspended), and at
 * --legacy-wait-ms.  Each wake that may mean an answer costs one handle()
 * statement: the retry naming the pending rows (inputFrom), which takes the
 * answers and acts in one transaction, or says input_pending and changes
 * nothing.  Without a LISTEN in place the waiter retries every POLL_TICKS
 * seconds instead, and every waiter is woken after each reconnect, so a
 * lost notification delays an answer but never loses it.
 *
 * Lock order: reg_mu, then a stream's own lock (sse_notify).
 */
#include "legacystream.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <json-c/json.h>

#include "clock.h"
#include "config.h"
#include "extension.h"
#include "jsonrpc.h"
#include "legacyask.h"
#include "legacywire.h"
#include "log.h"
#include "notify.h"
#include "sse.h"
#include "work.h"

#define TICK_MS		1000
#define POLL_TICKS	5
#define MAX_ASKED	8			/* input requests of one round (the database allows 4 per session) */

struct waiter
{
	long long	pending_id;
	struct sse_stream *stream;
	struct waiter *next;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct waiter *waiters;	/* guarded by reg_mu */
static atomic_bool connected;
static atomic_bool draining;

struct stream_ctx
{
	struct legacy_job *job;
	struct sse_stream *s;
	long long	ids[MAX_ASKED];	/* this round's pending ids */
	int			n_ids;
};

static void
waiter_add(long long pending_id, struct sse_stream *s)
{
	struct waiter *w = malloc(sizeof(*w));

	if (w == NULL)
		return;					/* the waiter then only polls */
	w->pending_id = pending_id;
	w->stream = s;
	pthread_mutex_lock(&reg_mu);
	w->next = waiters;
	waiters = w;
	pthread_mutex_unlock(&reg_mu);
}

static void
waiter_remove(struct sse_stream *s)
{
	pthread_mutex_lock(&reg_mu);
	for (struct waiter **p = &waiters; *p;)
	{
		struct waiter *w = *p;

		if (w->stream == s)
		{
			*p = w->next;
			free(w);
		}
		else
			p = &w->next;
	}
	pthread_mutex_unlock(&reg_mu);
}

/* pending_id < 0: every waiter */
static void
wake(long long pending_id)
{
	pthread_mutex_lock(&reg_mu);
	for (struct waiter *w = waiters; w; w = w->next)
		if (pending_id < 0 || w->pending_id == pending_id)
			sse_notify(w->stream);
	pthread_mutex_unlock(&reg_mu);
}

static const char *
answer_channel(void)
{
	struct db_error err = {0};

	if (features_ensure(&err) != OUT_OK)
		return NULL;
	return features_internal_channel("mcp_notes/pending/answer");
}

static void
on_notify(const char *payload, void *cls)
{
	char	   *end;
	long long	id = strtoll(payload, &end, 10);

	(void) cls;
	if (end != payload && *end == '\0' && id > 0)
		wake(id);
}

/* answers given while nobody listened: every waiter looks */
static void
on_state(bool listening, void *cls)
{
	(void) cls;
	atomic_store(&connected, listening);
	if (listening)
		wake(-1);
}

static const struct notify_sub subscription = {answer_channel, on_notify, on_state, NULL};

int
legacy_stream_init(void)
{
	return notify_register(&subscription);
}

void
legacy_stream_drain(void)
{
	atomic_store(&draining, true);
	wake(-1);
}

static void
send_message(struct stream_ctx *c, json_object *message)
{
	char	   *text = jsonrpc_serialize(message);

	json_object_put(message);
	if (text)
		sse_send(c->s, text);
	free(text);
}

static void
notify_cb(void *cls, json_object *message)
{
	send_message(cls, message);
}

static void
finish(void *cls, json_object *response)
{
	send_message(cls, response);
}

/* the round's requests on the stream, their pending ids in c->ids; false when that failed */
static bool
send_requests(struct stream_ctx *c)
{
	json_object *requests = NULL;

	c->n_ids = 0;
	if (!json_object_object_get_ex(c->job->asking, "inputRequests", &requests) ||
		!json_object_is_type(requests, json_type_object) || c->job->pending == NULL)
		return false;
	json_object_object_foreach(requests, key, entry)
	{
		json_object *p = NULL;
		json_object *id = NULL;
		json_object *pid = NULL;

		if (c->n_ids >= MAX_ASKED || !json_object_object_get_ex(c->job->pending, key, &p) ||
			!json_object_object_get_ex(p, "id", &id) || !json_object_object_get_ex(p, "pendingId", &pid))
			return false;
		c->ids[c->n_ids++] = json_object_get_int64(pid);
		/* registered before the client can see the request, so its answer cannot come first */
		waiter_add(json_object_get_int64(pid), c->s);
		send_message(c, legacy_server_request(id, entry));
	}
	return c->n_ids > 0;
}

/* the retry that takes this round's answers; OUT_INPUT_PENDING while one is missing */
static enum outcome_kind
take_and_retry(struct stream_ctx *c, bool give_up, char **outcome, struct db_error *err)
{
	json_object *from = json_object_new_object();
	json_object *add = json_object_new_object();
	json_object *requests = NULL;
	struct legacy_outcome out;
	enum outcome_kind kind;
	int			i = 0;

	json_object_object_get_ex(c->job->asking, "inputRequests", &requests);
	json_object_object_foreach(requests, key, entry)
	{
		(void) entry;
		if (i < c->n_ids)
			json_object_object_add(from, key, json_object_new_int64(c->ids[i++]));
	}
	json_object_object_add(add, "inputFrom", from);
	if (give_up)
		json_object_object_add(add, "giveUp", json_object_new_boolean(1));
	if (legacy_retry(c->job, NULL, add, outcome, err) != OUT_OK)
		return err->kind;
	legacy_outcome_read(*outcome, &out);
	kind = out.kind;
	legacy_outcome_free(&out);
	if (kind != OUT_INPUT_PENDING)
		return OUT_OK;
	free(*outcome);
	*outcome = NULL;
	return OUT_INPUT_PENDING;
}

/* the client left or the gateway stops: this round's pending rows go (one statement each) */
static void
give_up(struct stream_ctx *c)
{
	for (int i = 0; i < c->n_ids; i++)
	{
		char		body[160];
		char	   *text = NULL;
		struct db_error err = {0};
		int			retries = 0;

		snprintf(body, sizeof(body), "{\"method\":\"mcp_notes/pending/take\",\"params\":{\"pendingId\":%lld,"
				 "\"giveUp\":true}}", c->ids[i]);
		if (db_handle(c->job->dev, c->job->credential, body, &text, &retries, &err) != OUT_OK)
			log_event(GW_LOG_WARN, "legacy_db", "%s", err.message);
		free(text);
	}
}

/* wait for the answers; the retry's outcome when they came */
static enum legacy_wait
wait_answers(struct stream_ctx *c, char **outcome, struct db_error *err)
{
	double		deadline = clock_mono() + (double) gw_cfg.legacy_wait_ms / 1000.0;

	for (int tick = 1; clock_mono() < deadline; tick++)
	{
		double		left_ms = (deadline - clock_mono()) * 1000.0;
		enum sse_wake w = sse_wait(c->s, left_ms < TICK_MS ? (int) left_ms + 1 : TICK_MS);

		if (atomic_load(&draining))
		{
			finish(c, legacy_error(c->job->rpc_id, RPC_INTERNAL_ERROR,
								   "The gateway is shutting down: nothing was done. Call the tool again.", NULL));
			return LEGACY_GONE;
		}
		if (w == SSE_CLOSED)
			return LEGACY_GONE;
		if ((w == SSE_NOTIFIED || (!atomic_load(&connected) && tick % POLL_TICKS == 0)) &&
			take_and_retry(c, false, outcome, err) != OUT_INPUT_PENDING)
			return LEGACY_ANSWERED;
		if (w == SSE_TICK && !sse_comment(c->s))
			return LEGACY_GONE;
	}
	/* an answer may have come at the last moment: it is still used */
	return take_and_retry(c, true, outcome, err) == OUT_INPUT_PENDING ? LEGACY_TIMEOUT : LEGACY_ANSWERED;
}

static enum legacy_wait
ask(void *cls, struct legacy_job *job, char **outcome, struct db_error *err)
{
	struct stream_ctx *c = cls;
	enum legacy_wait w = LEGACY_GONE;

	(void) job;
	if (!send_requests(c))
		finish(c, legacy_error(c->job->rpc_id, RPC_INTERNAL_ERROR,
							   "Internal error: the request for input could not be sent", NULL));
	else
		w = wait_answers(c, outcome, err);
	waiter_remove(c->s);
	if (w == LEGACY_GONE)
		give_up(c);
	return w;
}

static void
run(void *arg)
{
	struct stream_ctx *c = arg;
	struct legacy_asker asker = {ask, finish, notify_cb, c};

	legacy_ask_run(c->job, &asker);
	legacy_job_free(c->job);
	sse_release(c->s);
	free(c);
}

static int
start(void *cls, struct sse_stream *s)
{
	struct stream_ctx *c = calloc(1, sizeof(*c));

	if (c != NULL)
	{
		c->job = cls;
		c->s = s;
		if (work_submit(run, c) == 0)
			return 0;
	}
	free(c);
	legacy_job_free(cls);
	sse_release(s);
	return -1;
}

static void
discard(void *cls)
{
	legacy_job_free(cls);
}

struct reply_producer
legacy_stream_producer(struct legacy_job *job)
{
	return (struct reply_producer) {start, discard, job};
}
