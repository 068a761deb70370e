/*
 * stream.c
 *		elicit.c's asker over an SSE stream (stream.h).
 *
 * Per server request: a legacy_pending row (so any gateway can take the
 * answer), then the request on the stream, then a wait that wakes when the
 * listener hears the row answered, when the client leaves, every second to
 * send a comment (the only way to notice a client that left while the
 * connection is suspended), and at --legacy-wait-ms.  Without a LISTEN in
 * place the waiter asks the database every POLL_TICKS seconds instead.
 */
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "clock.h"
#include "config.h"
#include "db.h"
#include "elicit.h"
#include "jsonrpc.h"
#include "legacywire.h"
#include "listen.h"
#include "log.h"
#include "sse.h"
#include "work.h"

#define TICK_MS		1000
#define POLL_TICKS	5

struct stream_ctx
{
	struct elicit_job *job;
	struct sse_stream *s;
	bool		finished;		/* the final message was sent */
};

/* a legacy_* entry point's jsonb, parsed; NULL on failure (logged) */
static json_object *
call(const char *sql, int n, const char *const *values)
{
	struct db_error err = {0};
	char	   *text = NULL;
	json_object *o = NULL;

	if (db_call(sql, n, values, &text, &err) == OUT_OK && text)
		o = json_tokener_parse(text);
	else
		log_event(GW_LOG_WARN, "legacy_db", "%s", err.message);
	free(text);
	return o;
}

/* legacy_pending_open: the pending id, or 0 */
static long long
pending_open(struct stream_ctx *c, json_object *request_id)
{
	char		wait[32];
	const char *id_text = json_object_to_json_string_ext(request_id, JSON_C_TO_STRING_PLAIN);
	const char *v[4] = {c->job->credential, c->job->session_id, id_text, wait};
	json_object *o;
	json_object *pid;
	long long	id = 0;

	snprintf(wait, sizeof(wait), "%.3f", (double) gw_cfg.legacy_wait_ms / 1000.0 + 5.0);
	o = call(LEGACY_SQL("legacy_pending_open", "$1::text, $2::text, $3::jsonb, "
						"make_interval(secs => $4::double precision)"), 4, v);
	if (json_object_object_get_ex(o, "pendingId", &pid))
		id = json_object_get_int64(pid);
	json_object_put(o);
	return id;
}

/* legacy_pending_take: the answer (a response object) or NULL */
static json_object *
pending_take(struct stream_ctx *c, long long pending_id, bool give_up)
{
	char		id[24];
	const char *v[3] = {c->job->credential, id, give_up ? "true" : "false"};
	json_object *o;
	json_object *answer = NULL;

	snprintf(id, sizeof(id), "%lld", pending_id);
	o = call(LEGACY_SQL("legacy_pending_take", "$1::text, $2::bigint, $3::boolean"), 3, v);
	if (json_object_object_get_ex(o, "answer", &answer) && json_object_is_type(answer, json_type_object))
		answer = json_object_get(answer);
	else
		answer = NULL;
	json_object_put(o);
	return answer;
}

static void
notify(void *cls, json_object *message)
{
	struct stream_ctx *c = cls;
	char	   *text = jsonrpc_serialize(message);

	json_object_put(message);
	if (text)
		sse_send(c->s, text);
	free(text);
}

static void
finish(void *cls, json_object *response)
{
	struct stream_ctx *c = cls;

	notify(c, response);
	c->finished = true;
}

/* wait for pending_id's answer; ELICIT_GONE after sending the final message itself when stopping */
static enum elicit_wait
wait_answer(struct stream_ctx *c, long long pending_id, json_object **answer)
{
	double		deadline = clock_mono() + (double) gw_cfg.legacy_wait_ms / 1000.0;

	for (int tick = 1; clock_mono() < deadline; tick++)
	{
		double		left_ms = (deadline - clock_mono()) * 1000.0;
		enum sse_wake w = sse_wait(c->s, left_ms < TICK_MS ? (int) left_ms + 1 : TICK_MS);

		if (listen_draining())
		{
			finish(c, legacy_error(c->job->rpc_id, -32603,
								   "The gateway is shutting down: nothing was done. Call the tool again.", NULL));
			return ELICIT_GONE;
		}
		if (w == SSE_CLOSED)
			return ELICIT_GONE;
		if ((w == SSE_NOTIFIED || (!listen_connected() && tick % POLL_TICKS == 0)) &&
			(*answer = pending_take(c, pending_id, false)) != NULL)
			return ELICIT_ANSWERED;
		if (w == SSE_TICK && !sse_comment(c->s))
			return ELICIT_GONE;
	}
	*answer = pending_take(c, pending_id, true);	/* an answer may have come at the last moment */
	return *answer ? ELICIT_ANSWERED : ELICIT_TIMEOUT;
}

static enum elicit_wait
ask(void *cls, json_object *request_id, json_object *request, json_object **answer)
{
	struct stream_ctx *c = cls;
	long long	pending_id = pending_open(c, request_id);
	char	   *text = jsonrpc_serialize(request);
	enum elicit_wait w = ELICIT_GONE;

	json_object_put(request);
	*answer = NULL;
	if (pending_id == 0 || text == NULL)
	{
		free(text);
		finish(c, legacy_error(c->job->rpc_id, -32603,
							   "Internal error: the request for input could not be recorded", NULL));
		return ELICIT_GONE;
	}
	/* registered before the client can see the request, so its answer cannot come first */
	listen_add(pending_id, c->s);
	if (sse_send(c->s, text))
		w = wait_answer(c, pending_id, answer);
	listen_remove(pending_id);
	if (w == ELICIT_GONE)
		json_object_put(pending_take(c, pending_id, true));
	free(text);
	return w;
}

static void
run(void *arg)
{
	struct stream_ctx *c = arg;
	struct elicit_asker asker = {ask, finish, c, notify};

	elicit_run(c->job, &asker);
	elicit_job_free(c->job);
	sse_release(c->s);
	free(c);
}

int
stream_start(struct elicit_job *job, struct sse_stream *s)
{
	struct stream_ctx *c = calloc(1, sizeof(*c));

	if (c != NULL)
	{
		c->job = job;
		c->s = s;
		if (work_submit(run, c) == 0)
			return 0;
	}
	free(c);
	elicit_job_free(job);
	sse_release(s);
	return -1;
}
