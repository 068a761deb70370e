/*
 * listen.c
 *		The mcp_notes_legacy listener and the registry of waiting streams
 *		(listen.h).  A notification names a pending request; the stream
 *		waiting for it (if this gateway holds it) is woken and takes the
 *		answer from the database itself, so a notification carries nothing
 *		but an id, and one lost (listener reconnecting) is made good by
 *		waking every waiter after each reconnect.
 *
 * Lock order: reg_mu, then a stream's own lock (sse_notify).
 */
#include "listen.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "db.h"
#include "log.h"
#include "sse.h"

#define RECONNECT_MIN_MS	100
#define RECONNECT_MAX_MS	5000

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

static pthread_t listener;
static bool started;			/* only main() touches it */
static int	stop_pipe[2] = {-1, -1};

void
listen_add(long long pending_id, struct sse_stream *s)
{
	struct waiter *w = malloc(sizeof(*w));

	if (w == NULL)
		return;					/* the waiter then polls: see stream.c */
	w->pending_id = pending_id;
	w->stream = s;
	pthread_mutex_lock(&reg_mu);
	w->next = waiters;
	waiters = w;
	pthread_mutex_unlock(&reg_mu);
}

void
listen_remove(long long pending_id)
{
	pthread_mutex_lock(&reg_mu);
	for (struct waiter **p = &waiters; *p; p = &(*p)->next)
		if ((*p)->pending_id == pending_id)
		{
			struct waiter *gone = *p;

			*p = gone->next;
			free(gone);
			break;
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

bool
listen_connected(void)
{
	return atomic_load(&connected);
}

void
listen_drain(void)
{
	atomic_store(&draining, true);
	wake(-1);
}

bool
listen_draining(void)
{
	return atomic_load(&draining);
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
	/* told apart from the token cache's listener in pg_stat_activity */
	PQclear(PQexec(pg, "SELECT pg_catalog.set_config('application_name', "
				   "pg_catalog.left(pg_catalog.current_setting('application_name'), 50) || ' legacy', false)"));
	res = PQexec(pg, "LISTEN " LEGACY_CHANNEL);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		log_event(GW_LOG_WARN, "legacy_listen", "LISTEN " LEGACY_CHANNEL " failed: %s", PQresultErrorMessage(res));
	PQclear(res);
	if (!ok)
	{
		PQfinish(pg);
		return NULL;
	}
	return pg;
}

/* wait for input on pg or the stop pipe; false when asked to stop */
static bool
wait_input(PGconn *pg, int timeout_ms)
{
	struct pollfd pfd[2] = {{stop_pipe[0], POLLIN, 0}, {pg ? PQsocket(pg) : -1, POLLIN, 0}};

	while (poll(pfd, pg ? 2 : 1, timeout_ms) < 0)
		if (errno != EINTR)
			return false;
	return pfd[0].revents == 0;
}

static void
drain_notifies(PGconn *pg)
{
	PGnotify   *n;

	while ((n = PQnotifies(pg)) != NULL)
	{
		char	   *end;
		long long	id = strtoll(n->extra, &end, 10);

		if (end != n->extra && *end == '\0' && id > 0)
			wake(id);
		PQfreemem(n);
	}
}

static void *
listener_main(void *arg)
{
	PGconn	   *pg = NULL;
	int			backoff_ms = RECONNECT_MIN_MS;

	(void) arg;
	for (;;)
	{
		if (pg == NULL && (pg = subscribe()) != NULL)
		{
			backoff_ms = RECONNECT_MIN_MS;
			atomic_store(&connected, true);
			wake(-1);			/* answers given while nobody listened */
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
			log_event(GW_LOG_WARN, "legacy_listen", "lost the " LEGACY_CHANNEL " listener connection: reconnecting");
			PQfinish(pg);
			pg = NULL;
			continue;
		}
		drain_notifies(pg);
	}
	atomic_store(&connected, false);
	PQfinish(pg);
	return NULL;
}

int
listen_start(void)
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
listen_stop(void)
{
	if (!started)
		return;
	if (write(stop_pipe[1], "x", 1) != 1)
		log_event(GW_LOG_WARN, "legacy_listen", "cannot signal the listener thread: %s", strerror(errno));
	pthread_join(listener, NULL);
	started = false;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
}
