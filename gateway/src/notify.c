/*
 * notify.c
 *		The LISTEN connection and its channel table (notify.h).
 *
 * One thread, one connection: it resolves each subscriber's channel,
 * LISTENs on all of them in one statement (so pg_stat_activity shows every
 * channel of the gateway on its one listener), then waits in poll() on the
 * connection's socket and a stop pipe.  A lost connection is reopened with
 * a doubling backoff (100 ms .. 5 s); subscribers hear each change.  The
 * table is written only before the thread starts and read only by it.
 */
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "db.h"
#include "log.h"
#include "text.h"

#define RECONNECT_MIN_MS	100
#define RECONNECT_MAX_MS	5000

static const struct notify_sub *subs[NOTIFY_MAX_SUBSCRIBERS];
static char channels[NOTIFY_MAX_SUBSCRIBERS][64];	/* what each listens on now; "" = nothing */
static int	n_subs;

static pthread_t listener;
static bool started;			/* only main() touches it */
static int	stop_pipe[2] = {-1, -1};

int
notify_register(const struct notify_sub *sub)
{
	if (started || n_subs >= NOTIFY_MAX_SUBSCRIBERS)
		return -1;
	subs[n_subs++] = sub;
	return 0;
}

static void
tell_state(bool listening)
{
	for (int i = 0; i < n_subs; i++)
		if (subs[i]->on_state)
			subs[i]->on_state(listening && channels[i][0] != '\0', subs[i]->cls);
}

/* "LISTEN a; LISTEN b" for the channels the subscribers name now; false when none */
static bool
listen_statement(PGconn *pg, char *sql, size_t n)
{
	size_t		used = 0;

	sql[0] = '\0';
	for (int i = 0; i < n_subs; i++)
	{
		const char *ch = subs[i]->channel();
		char	   *ident;

		channels[i][0] = '\0';
		if (ch == NULL || strlen(ch) >= sizeof(channels[i]) || (ident = PQescapeIdentifier(pg, ch, strlen(ch))) == NULL)
			continue;
		if (used + strlen(ident) + 10 < n)
		{
			used += (size_t) snprintf(sql + used, n - used, "%sLISTEN %s", used ? "; " : "", ident);
			str_copy(channels[i], sizeof(channels[i]), ch);
		}
		PQfreemem(ident);
	}
	return used > 0;
}

static PGconn *
subscribe(void)
{
	struct db_error err = {0};
	PGconn	   *pg = db_connect_dedicated(&err);
	PGresult   *res;
	char		sql[1024];
	bool		ok;

	if (pg == NULL)
		return NULL;
	if (!listen_statement(pg, sql, sizeof(sql)))
	{
		PQfinish(pg);
		return NULL;
	}
	res = PQexec(pg, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		log_event(GW_LOG_WARN, "notify_listen", "%s failed: %s", sql, PQresultErrorMessage(res));
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
dispatch(PGconn *pg)
{
	PGnotify   *n;

	while ((n = PQnotifies(pg)) != NULL)
	{
		for (int i = 0; i < n_subs; i++)
			if (channels[i][0] && strcmp(channels[i], n->relname) == 0)
				subs[i]->on_notify(n->extra, subs[i]->cls);
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
			tell_state(true);
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
			log_event(GW_LOG_WARN, "notify_lost", "lost the LISTEN connection: reconnecting");
			PQfinish(pg);
			pg = NULL;
			tell_state(false);
			continue;
		}
		dispatch(pg);
	}
	PQfinish(pg);
	memset(channels, 0, sizeof(channels));
	tell_state(false);
	return NULL;
}

int
notify_start(void)
{
	if (n_subs == 0)
		return 0;
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
notify_stop(void)
{
	if (!started)
		return;
	if (write(stop_pipe[1], "x", 1) != 1)
		log_event(GW_LOG_WARN, "notify", "cannot signal the listener thread: %s", strerror(errno));
	pthread_join(listener, NULL);
	started = false;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
}
