/*
 * watchstream.c
 *		Streams of change notifications and their fan-out (watchstream.h).
 *
 * Each stream is a worker thread writing an sse_stream, as a 2025-era
 * tools/call that waits for an answer is (legacystream.c): it sleeps in
 * sse_wait and wakes when the notify thread marks one of its keys changed
 * or its id renewed, when the client leaves (a comment every second finds
 * out), and at its renewal time.  The notify thread only marks and wakes:
 * it never writes to a client nor calls the database.  After a LISTEN
 * reconnect every stream is told every URI it watches, since what was
 * notified meanwhile is lost: over-notifying is safe (the client reads the
 * resource again), missing a change is not.
 *
 * Lock order: reg_mu, then a stream's own lock (sse_notify).
 */
#include "watchstream.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "clock.h"
#include "config.h"
#include "db.h"
#include "extension.h"
#include "jsonrpc.h"
#include "log.h"
#include "notify.h"
#include "sse.h"
#include "text.h"
#include "work.h"

#define TICK_MS			1000
#define MAX_WATCH		100		/* the extension honours at most 100 URIs a stream */
#define KEY_LEN			32		/* hex of 16 bytes */
#define META_SUB_ID		"io.modelcontextprotocol/subscriptionId"

struct watch
{
	char		key[KEY_LEN + 1];
	char	   *uri;			/* as the client sent it */
	bool		due;			/* changed since last told (reg_mu) */
};

struct wstream
{
	long long	stream_id;
	struct sse_stream *s;
	struct watch w[MAX_WATCH];	/* reg_mu */
	int			n;
	bool		renew_now;		/* reg_mu */
	json_object *rpc_id;		/* NULL: a 2025 GET stream */
	json_object *honored;
	bool		dev;
	char	   *credential;
	char	   *session;
	int			renew_after_ms;
	struct wstream *next;		/* reg_mu */
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct wstream *streams;	/* reg_mu */
static atomic_int n_streams;
static atomic_bool draining;

/* ---------- the registry, fed by the notify thread ---------- */

static void
mark_key(const char *key, size_t len)
{
	bool		all = len == 1 && key[0] == '*';

	for (struct wstream *t = streams; t; t = t->next)
	{
		bool		hit = false;

		for (int i = 0; i < t->n; i++)
			if (all || (len == KEY_LEN && memcmp(t->w[i].key, key, KEY_LEN) == 0))
				hit = t->w[i].due = true;
		if (hit)
			sse_notify(t->s);
	}
}

/* payload: watch keys separated by spaces, or "*" (anything may have changed) */
static void
on_change(const char *payload, void *cls)
{
	(void) cls;
	pthread_mutex_lock(&reg_mu);
	for (const char *p = payload; *p;)
	{
		size_t		len = strcspn(p, " ");

		if (len > 0)
			mark_key(p, len);
		p += len;
		p += *p == ' ';
	}
	pthread_mutex_unlock(&reg_mu);
}

/* payload: stream ids separated by spaces: those must be renewed now */
static void
on_stream(const char *payload, void *cls)
{
	(void) cls;
	pthread_mutex_lock(&reg_mu);
	for (const char *p = payload; *p;)
	{
		char	   *end;
		long long	id = strtoll(p, &end, 10);

		if (end == p)
			break;
		for (struct wstream *t = streams; t; t = t->next)
			if (t->stream_id == id)
			{
				t->renew_now = true;
				sse_notify(t->s);
			}
		p = end + (*end == ' ');
	}
	pthread_mutex_unlock(&reg_mu);
}

/* after a reconnect: every URI of every stream, and every lease re-checked */
static void
on_state(bool listening, void *cls)
{
	(void) cls;
	if (!listening)
		return;
	pthread_mutex_lock(&reg_mu);
	mark_key("*", 1);
	for (struct wstream *t = streams; t; t = t->next)
		t->renew_now = true;
	pthread_mutex_unlock(&reg_mu);
}

static const char *
change_channel(void)
{
	struct db_error err = {0};

	return features_ensure(&err) == OUT_OK ? features_change_channel() : NULL;
}

static const char *
stream_channel(void)
{
	struct db_error err = {0};

	return features_ensure(&err) == OUT_OK ? features_stream_channel() : NULL;
}

static const struct notify_sub change_sub = {change_channel, on_change, on_state, NULL};
static const struct notify_sub stream_sub = {stream_channel, on_stream, NULL, NULL};

int
watch_stream_init(void)
{
	return notify_register(&change_sub) == 0 && notify_register(&stream_sub) == 0 ? 0 : -1;
}

bool
watch_stream_room(void)
{
	return atomic_load(&n_streams) < gw_cfg.max_listen_streams;
}

int
watch_stream_count(void)
{
	return atomic_load(&n_streams);
}

void
watch_stream_drain(void)
{
	atomic_store(&draining, true);
	pthread_mutex_lock(&reg_mu);
	for (struct wstream *t = streams; t; t = t->next)
		sse_notify(t->s);
	pthread_mutex_unlock(&reg_mu);
}

/* ---------- one stream ---------- */

/* t's watched URIs := watch [{key, uri}] (reg_mu held, or t not registered yet) */
static void
set_watch(struct wstream *t, json_object *watch)
{
	size_t		n = json_object_is_type(watch, json_type_array) ? json_object_array_length(watch) : 0;

	for (int i = 0; i < t->n; i++)
		free(t->w[i].uri);
	t->n = 0;
	for (size_t i = 0; i < n && t->n < MAX_WATCH; i++)
	{
		json_object *e = json_object_array_get_idx(watch, i);
		json_object *key = NULL;
		json_object *uri = NULL;

		if (!json_object_object_get_ex(e, "key", &key) || !json_object_object_get_ex(e, "uri", &uri) ||
			!json_object_is_type(key, json_type_string) || !json_object_is_type(uri, json_type_string) ||
			json_object_get_string_len(key) != KEY_LEN || (t->w[t->n].uri = strdup(json_object_get_string(uri))) == NULL)
			continue;
		str_copy(t->w[t->n].key, sizeof(t->w[t->n].key), json_object_get_string(key));
		t->w[t->n++].due = false;
	}
}

static void
send_json(struct wstream *t, json_object *msg)
{
	char	   *text = jsonrpc_serialize(msg);

	json_object_put(msg);
	if (text)
		sse_send(t->s, text);
	free(text);
}

/* {"_meta": {subscriptionId}} for a listen's frames, or an empty object */
static json_object *
tagged_params(struct wstream *t)
{
	json_object *params = json_object_new_object();

	if (t->rpc_id)
	{
		json_object *meta = json_object_new_object();

		json_object_object_add(meta, META_SUB_ID, json_object_get(t->rpc_id));
		json_object_object_add(params, "_meta", meta);
	}
	return params;
}

static void
send_notification(struct wstream *t, const char *method, json_object *params)
{
	json_object *msg = json_object_new_object();

	json_object_object_add(msg, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(msg, "method", json_object_new_string(method));
	json_object_object_add(msg, "params", params);
	send_json(t, msg);
}

/* the graceful end of a listen: its result (a GET stream just ends) */
static void
send_final(struct wstream *t)
{
	json_object *msg;
	json_object *result;

	if (t->rpc_id == NULL)
		return;
	msg = json_object_new_object();
	result = tagged_params(t);
	json_object_object_add(result, "resultType", json_object_new_string("complete"));
	json_object_object_add(msg, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(msg, "id", json_object_get(t->rpc_id));
	json_object_object_add(msg, "result", result);
	send_json(t, msg);
}

/* notifications/resources/updated for each URI marked since last time */
static void
send_updates(struct wstream *t)
{
	char	   *due[MAX_WATCH];
	int			n_due = 0;

	pthread_mutex_lock(&reg_mu);
	for (int i = 0; i < t->n; i++)
		if (t->w[i].due)
		{
			t->w[i].due = false;
			if ((due[n_due] = strdup(t->w[i].uri)) != NULL)
				n_due++;
		}
	pthread_mutex_unlock(&reg_mu);
	for (int i = 0; i < n_due; i++)
	{
		json_object *params = tagged_params(t);

		json_object_object_add(params, "uri", json_object_new_string(due[i]));
		send_notification(t, "notifications/resources/updated", params);
		free(due[i]);
	}
}

/* one internal method of the stream (renew, close): the outcome, or NULL when the call failed */
static json_object *
call_stream(struct wstream *t, const char *method)
{
	json_object *req = json_object_new_object();
	json_object *params = json_object_new_object();
	json_object *outcome = NULL;
	char	   *body;
	char	   *text = NULL;
	struct db_error err = {0};
	int			retries = 0;

	json_object_object_add(params, "streamId", json_object_new_int64(t->stream_id));
	json_object_object_add(req, "method", json_object_new_string(method));
	json_object_object_add(req, "params", params);
	json_object_object_add(req, "gatewayId", json_object_new_string(gw_cfg.gateway_id));
	if (t->session)
		json_object_object_add(req, "session", json_object_new_string(t->session));
	body = jsonrpc_serialize(req);
	json_object_put(req);
	if (body && db_handle(t->dev, t->credential, body, &text, &retries, &err) == OUT_OK)
		outcome = text ? json_tokener_parse(text) : NULL;
	else
		log_event(GW_LOG_WARN, "listen_db", "%s: %s", method, err.message);
	free(body);
	free(text);
	return outcome;
}

/*
 * Renew the lease: false when the stream must end (the extension closed it,
 * or answered with an error: the token no longer authenticates).  A failed
 * call keeps the stream: the lease outlives a few missed renewals.
 */
static bool
renew(struct wstream *t, bool *db_failed)
{
	json_object *outcome = call_stream(t, "mcp_notes/listen/renew");
	json_object *result = NULL;
	json_object *v;
	bool		live = true;

	*db_failed = outcome == NULL;
	if (outcome && !json_object_object_get_ex(outcome, "result", &result))
		live = false;
	else if (result && json_object_object_get_ex(result, "closed", &v) && json_object_get_boolean(v))
		live = false;
	else if (result && json_object_object_get_ex(result, "watch", &v))
	{
		pthread_mutex_lock(&reg_mu);
		set_watch(t, v);
		pthread_mutex_unlock(&reg_mu);
	}
	json_object_put(outcome);
	return live;
}

/* wait, deliver, renew, until the client leaves, the extension ends it or the gateway drains */
static void
serve(struct wstream *t)
{
	double		renew_at = clock_mono() + t->renew_after_ms / 1000.0;
	bool		failed = false;

	for (;;)
	{
		enum sse_wake w = sse_wait(t->s, TICK_MS);
		bool		now;

		if (w == SSE_CLOSED)
			break;
		if (atomic_load(&draining))
		{
			send_final(t);
			break;
		}
		send_updates(t);
		pthread_mutex_lock(&reg_mu);
		now = t->renew_now;
		t->renew_now = false;
		pthread_mutex_unlock(&reg_mu);
		if (now || clock_mono() >= renew_at)
		{
			if (!renew(t, &failed))
			{
				send_final(t);
				return;			/* the extension ended it: nothing to close */
			}
			renew_at = clock_mono() + (failed ? 5.0 : t->renew_after_ms / 1000.0);
		}
		if (w == SSE_TICK && !sse_comment(t->s))
			break;
	}
	json_object_put(call_stream(t, "mcp_notes/listen/close"));
}

static void
unregister(struct wstream *t)
{
	pthread_mutex_lock(&reg_mu);
	for (struct wstream **p = &streams; *p; p = &(*p)->next)
		if (*p == t)
		{
			*p = t->next;
			break;
		}
	pthread_mutex_unlock(&reg_mu);
	atomic_fetch_sub(&n_streams, 1);
}

static void
stream_free(struct wstream *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->w[i].uri);
	json_object_put(t->rpc_id);
	json_object_put(t->honored);
	if (t->credential)
		explicit_bzero(t->credential, strlen(t->credential));
	free(t->credential);
	free(t->session);
	free(t);
}

static void
run(void *arg)
{
	struct wstream *t = arg;

	if (t->rpc_id)
	{
		json_object *params = tagged_params(t);

		json_object_object_add(params, "notifications",
							   t->honored ? json_object_get(t->honored) : json_object_new_object());
		send_notification(t, "notifications/subscriptions/acknowledged", params);
	}
	else
		sse_comment(t->s);		/* the headers go out now: the client sees the stream open */
	serve(t);
	unregister(t);
	sse_release(t->s);
	stream_free(t);
}

static int
start(void *cls, struct sse_stream *s)
{
	struct wstream *t = cls;

	t->s = s;
	atomic_fetch_add(&n_streams, 1);
	pthread_mutex_lock(&reg_mu);
	t->next = streams;
	streams = t;				/* registered before the acknowledgment: no change is missed */
	pthread_mutex_unlock(&reg_mu);
	if (work_submit(run, t) == 0)
		return 0;
	unregister(t);				/* no database call on an event thread: the lease lapses */
	stream_free(t);
	sse_release(s);
	return -1;
}

static void
discard(void *cls)
{
	stream_free(cls);			/* the lease lapses (an event thread calls no database) */
}

struct reply_producer
watch_stream_producer(json_object *stream, json_object *rpc_id, bool dev, const char *credential,
					  const char *session)
{
	struct wstream *t = calloc(1, sizeof(*t));
	json_object *v;

	if (t == NULL)
		return (struct reply_producer) {0};
	t->stream_id = json_object_object_get_ex(stream, "streamId", &v) ? json_object_get_int64(v) : 0;
	t->renew_after_ms = json_object_object_get_ex(stream, "renewAfterMs", &v) ? json_object_get_int(v) : 60000;
	if (t->renew_after_ms < 1000)
		t->renew_after_ms = 1000;
	if (json_object_object_get_ex(stream, "honored", &v))
		t->honored = json_object_get(v);
	if (json_object_object_get_ex(stream, "watch", &v))
		set_watch(t, v);
	t->rpc_id = rpc_id ? json_object_get(rpc_id) : NULL;
	t->dev = dev;
	t->credential = credential ? strdup(credential) : NULL;
	t->session = session ? strdup(session) : NULL;
	return (struct reply_producer) {start, discard, t};
}
