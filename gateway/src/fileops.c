/*
 * fileops.c
 *		The bounded wait for a file operation (fileops.h): a subscriber of
 *		the gateway's one LISTEN connection (notify.c) on the channel
 *		features() names for FILEOPS_METHOD, and a registry of the requests
 *		waiting, keyed by operation id.  A waiter registers before it first
 *		asks the database, so a notification cannot fall between the
 *		question and the wait; while no LISTEN is in place (reconnecting,
 *		stdio mode) a waiter asks again every POLL_MS instead.
 */
#include "fileops.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "clock.h"
#include "extension.h"
#include "log.h"
#include "notify.h"

#define POLL_MS				250
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

/* key NULL: every waiter (what was notified while nobody listened is lost) */
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

/* the channel features() names for the outcome of a file operation (NULL:
 * an extension without file workspaces, nothing to listen for) */
static const char *
outcome_channel(void)
{
	struct db_error err = {0};

	if (features_ensure(&err) != OUT_OK)
		return NULL;
	return features_internal_channel(FILEOPS_METHOD);
}

static void
on_notify(const char *payload, void *cls)
{
	(void) cls;
	wake(payload);
}

static void
on_state(bool listening, void *cls)
{
	(void) cls;
	atomic_store(&connected, listening);
	if (listening)
		wake(NULL);
}

static const struct notify_sub subscription = {outcome_channel, on_notify, on_state, NULL};

int
fileops_init(void)
{
	return notify_register(&subscription);
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
		features_internal_channel(FILEOPS_METHOD) != NULL &&
		strcmp(json_object_get_string(v), features_internal_channel(FILEOPS_METHOD)) == 0 &&
		json_object_object_get_ex(aw, "key", &v) && json_object_is_type(v, json_type_string) &&
		json_object_get_string_len(v) > 0 && json_object_get_string_len(v) <= MAX_KEY &&
		strspn(json_object_get_string(v), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
			== (size_t) json_object_get_string_len(v))
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

/* The internal method FILEOPS_METHOD through handle(): the outcome as text, or NULL (logged). */
static char *
ask(bool dev, const char *credential, const char *key)
{
	char		request[160];
	struct db_error err = {0};
	char	   *json = NULL;
	int			retries = 0;

	/* key is an operation id the database gave (checked: at most MAX_KEY of [A-Za-z0-9_-]) */
	snprintf(request, sizeof(request), "{\"method\":\"%s\",\"params\":{\"operationId\":\"%s\"}}",
			 FILEOPS_METHOD, key);
	if (db_handle(dev, credential, request, &json, &retries, &err) != OUT_OK)
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
