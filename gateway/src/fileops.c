/*
 * fileops.c
 *		The bounded wait for a file operation (fileops.h): one LISTEN
 *		connection per gateway on mcp_notes_fileops and a registry of the
 *		requests waiting, keyed by operation id.  A waiter registers before
 *		it first asks the database, so a notification cannot fall between
 *		the question and the wait; while no LISTEN is in place (reconnecting,
 *		stdio mode) a waiter asks again every POLL_MS instead.
 */
#include "fileops.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libpq-fe.h>

#include "clock.h"
#include "log.h"

#define POLL_MS				250
#define RECONNECT_MIN_MS	100
#define RECONNECT_MAX_MS	5000
#define MAX_KEY				64

struct waiter
{
	char		key[MAX_KEY + 1];
	bool		woken;
	pthread_cond_t cv;
	struct waiter *next;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct waiter *waiters;	/* guarded by reg_mu */
static atomic_bool connected;

static pthread_t listener;
static bool started;
static int	stop_pipe[2] = {-1, -1};

/* key NULL: every waiter (after a reconnect a notification may be lost) */
static void
wake(const char *key)
{
	pthread_mutex_lock(&reg_mu);
	for (struct waiter *w = waiters; w; w = w->next)
		if (key == NULL || strcmp(w->key, key) == 0)
		{
			w->woken = true;
			pthread_cond_signal(&w->cv);
		}
	pthread_mutex_unlock(&reg_mu);
}

static PGconn *
subscribe(void)
{
	struct db_error err = {0};
	PGconn	   *pg = db_connect_dedicated(&err);
	PGresult   *res;
	bool		ok;

	if (pg == NULL)
		return NULL;
	PQclear(PQexec(pg, "SELECT pg_catalog.set_config('application_name', "
				   "pg_catalog.left(pg_catalog.current_setting('application_name'), 50) || ' fileops', false)"));
	res = PQexec(pg, "LISTEN " FILEOPS_CHANNEL);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		log_event(GW_LOG_WARN, "fileops_listen", "LISTEN " FILEOPS_CHANNEL " failed: %s", PQresultErrorMessage(res));
	PQclear(res);
	if (!ok)
	{
		PQfinish(pg);
		return NULL;
	}
	return pg;
}

/* false when asked to stop */
static bool
wait_input(PGconn *pg, int timeout_ms)
{
	struct pollfd pfd[2] = {{stop_pipe[0], POLLIN, 0}, {pg ? PQsocket(pg) : -1, POLLIN, 0}};

	while (poll(pfd, pg ? 2 : 1, timeout_ms) < 0)
		if (errno != EINTR)
			return false;
	return pfd[0].revents == 0;
}

static void *
listener_main(void *arg)
{
	PGconn	   *pg = NULL;
	int			backoff_ms = RECONNECT_MIN_MS;

	(void) arg;
	for (;;)
	{
		PGnotify   *n;

		if (pg == NULL && (pg = subscribe()) != NULL)
		{
			backoff_ms = RECONNECT_MIN_MS;
			atomic_store(&connected, true);
			wake(NULL);
		}
		if (pg == NULL)
		{
			if (!wait_input(NULL, backoff_ms))
				break;
			backoff_ms = backoff_ms * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : backoff_ms * 2;
			continue;
		}
		if (!wait_input(pg, -1))
			break;
		if (!PQconsumeInput(pg) || PQstatus(pg) != CONNECTION_OK)
		{
			atomic_store(&connected, false);
			log_event(GW_LOG_WARN, "fileops_listen", "lost the " FILEOPS_CHANNEL " listener connection: reconnecting");
			PQfinish(pg);
			pg = NULL;
			continue;
		}
		while ((n = PQnotifies(pg)) != NULL)
		{
			wake(n->extra);
			PQfreemem(n);
		}
	}
	atomic_store(&connected, false);
	PQfinish(pg);
	return NULL;
}

int
fileops_start(void)
{
	if (pipe(stop_pipe) != 0)
		return -1;
	fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
	if (pthread_create(&listener, NULL, listener_main, NULL) != 0)
		return -1;
	started = true;
	return 0;
}

void
fileops_stop(void)
{
	if (!started)
		return;
	if (write(stop_pipe[1], "x", 1) != 1)
		log_event(GW_LOG_WARN, "fileops_listen", "cannot signal the listener thread: %s", strerror(errno));
	pthread_join(listener, NULL);
	started = false;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
}

/* The "await" of an outcome on our channel: its key and bound. */
static bool
await_of(const char *text, char *key, long *ms)
{
	json_tokener *tok;
	json_object *root = NULL;
	json_object *aw, *v;
	bool		ok = false;

	if (text == NULL || strstr(text, "\"await\"") == NULL)
		return false;			/* the common case: no parse */
	tok = json_tokener_new_ex(32);
	if (tok)
		root = json_tokener_parse_ex(tok, text, (int) strlen(text));
	json_tokener_free(tok);
	if (root && json_object_object_get_ex(root, "await", &aw) && json_object_is_type(aw, json_type_object) &&
		json_object_object_get_ex(aw, "channel", &v) && json_object_is_type(v, json_type_string) &&
		strcmp(json_object_get_string(v), FILEOPS_CHANNEL) == 0 &&
		json_object_object_get_ex(aw, "key", &v) && json_object_is_type(v, json_type_string) &&
		json_object_get_string_len(v) > 0 && json_object_get_string_len(v) <= MAX_KEY)
	{
		snprintf(key, MAX_KEY + 1, "%s", json_object_get_string(v));
		*ms = json_object_object_get_ex(aw, "ms", &v) && json_object_is_type(v, json_type_int)
			? (long) json_object_get_int64(v) : 0;
		if (*ms < 0)
			*ms = 0;
		if (*ms > FILEOPS_MAX_WAIT_MS)
			*ms = FILEOPS_MAX_WAIT_MS;
		ok = true;
	}
	json_object_put(root);
	return ok;
}

enum answer
{
	ANSWER_FINAL,				/* a result that is not pending */
	ANSWER_PENDING,				/* result.structuredContent.pending is true */
	ANSWER_UNUSABLE				/* an error, or nothing */
};

static enum answer
answer_of(const char *text)
{
	json_tokener *tok = text ? json_tokener_new_ex(64) : NULL;
	json_object *root = NULL;
	json_object *result, *sc, *pending;
	enum answer a = ANSWER_UNUSABLE;

	if (tok)
		root = json_tokener_parse_ex(tok, text, (int) strlen(text));
	json_tokener_free(tok);
	if (root && json_object_object_get_ex(root, "result", &result) && json_object_is_type(result, json_type_object))
		a = json_object_object_get_ex(result, "structuredContent", &sc) &&
			json_object_object_get_ex(sc, "pending", &pending) && json_object_get_boolean(pending)
			? ANSWER_PENDING : ANSWER_FINAL;
	json_object_put(root);
	return a;
}

/* file_op_outcome(_as): the outcome as text, or NULL (logged) */
static char *
ask(bool dev, const char *credential, const char *key)
{
	const char *values[2] = {credential, key};
	struct db_error err = {0};
	char	   *json = NULL;

	if (db_call(dev ? "SELECT mcp_notes.file_op_outcome_as($1::text, $2::text)::text"
				: "SELECT mcp_notes.file_op_outcome($1::text, $2::text)::text", 2, values, &json, &err) != OUT_OK)
	{
		log_event(GW_LOG_WARN, "fileops_outcome", "asking for file operation %s failed: %s", key, err.message);
		free(json);
		return NULL;
	}
	return json;
}

/* Until the deadline, or woken; without a listener, at most POLL_MS. */
static void
wait_woken(struct waiter *w, int64_t deadline_ns)
{
	pthread_mutex_lock(&reg_mu);
	while (!w->woken)
	{
		int64_t		left_ms = (deadline_ns - clock_mono_ns()) / 1000000;
		struct timespec until;

		if (left_ms <= 0)
			break;
		if (!atomic_load(&connected) && left_ms > POLL_MS)
			left_ms = POLL_MS;
		until = clock_deadline((long) left_ms);
		if (pthread_cond_timedwait(&w->cv, &reg_mu, &until) == ETIMEDOUT && !atomic_load(&connected))
			break;				/* no listener: ask again */
	}
	w->woken = false;
	pthread_mutex_unlock(&reg_mu);
}

/* The final outcome in place of the pending one, if it comes in time. */
static void
settle(bool dev, const char *credential, const char *key, long ms, char **json)
{
	struct waiter w = {.woken = false};
	int64_t		deadline = clock_mono_ns() + (int64_t) ms * 1000000;
	char	   *answer = NULL;
	enum answer a = ANSWER_UNUSABLE;

	snprintf(w.key, sizeof(w.key), "%s", key);
	if (clock_cond_init(&w.cv) != 0)
		return;
	pthread_mutex_lock(&reg_mu);
	w.next = waiters;
	waiters = &w;
	pthread_mutex_unlock(&reg_mu);
	for (;;)
	{
		free(answer);
		answer = ask(dev, credential, key);
		a = answer_of(answer);
		if (a != ANSWER_PENDING || clock_mono_ns() >= deadline)
			break;
		wait_woken(&w, deadline);
	}
	pthread_mutex_lock(&reg_mu);
	for (struct waiter **p = &waiters; *p; p = &(*p)->next)
		if (*p == &w)
		{
			*p = w.next;
			break;
		}
	pthread_mutex_unlock(&reg_mu);
	pthread_cond_destroy(&w.cv);
	if (a == ANSWER_FINAL)
	{
		free(*json);
		*json = answer;
	}
	else
		free(answer);
}

enum outcome_kind
fileops_handle(bool dev, const char *credential, const char *request, char **json, int *retries,
			   struct db_error *err)
{
	enum outcome_kind k = db_handle(dev, credential, request, json, retries, err);
	char		key[MAX_KEY + 1];
	long		ms;

	if (k == OUT_OK && await_of(*json, key, &ms))
		settle(dev, credential, key, ms, json);
	return k;
}
