/*
 * tick.c
 *		The audit chain's periodic step (tick.h).
 *
 * One thread, one dedicated connection, opened on first use and reopened
 * after a failure.  The connection runs read committed whatever the role's
 * default: audit_tick() refuses serializable, where its reads of the audit
 * queue would take part in the writers' conflict checks.  A database whose
 * extension has no audit_tick() (before 1.4) is told once, and the thread
 * stops ticking.
 */
#include "tick.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "config.h"
#include "db.h"
#include "log.h"
#include "text.h"

static pthread_t ticker;
static bool started;			/* only main() touches it */
static int	stop_pipe[2] = {-1, -1};

/* sleep ms or until asked to stop; false when asked to stop */
static bool
wait_tick(long ms)
{
	struct pollfd pfd = {stop_pipe[0], POLLIN, 0};
	int			rc;

	while ((rc = poll(&pfd, 1, (int) ms)) < 0)
		if (errno != EINTR)
			return false;
	return rc == 0;
}

static PGconn *
tick_connect(void)
{
	struct db_error err = {0};
	PGconn	   *pg = db_connect_dedicated(&err);
	PGresult   *res;
	bool		ok;

	if (pg == NULL)
	{
		log_event(GW_LOG_WARN, "audit_tick", "cannot connect: %s", err.message);
		return NULL;
	}
	res = PQexec(pg, "SET default_transaction_isolation = 'read committed'");
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	if (!ok)
	{
		PQfinish(pg);
		return NULL;
	}
	return pg;
}

/*
 * One tick.  Returns false when the extension has no audit_tick() (stop
 * ticking); *pg is closed (NULL) after any other failure.
 */
static bool
tick_once(PGconn **pg, char *last_seq, size_t last_seq_len)
{
	PGresult   *res = PQexec(*pg, "SELECT seq, head, chained FROM mcp_notes.audit_tick()");
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	bool		go_on = true;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
	{
		if (strcmp(PQgetvalue(res, 0, 0), last_seq) != 0)
			log_event(GW_LOG_INFO, "audit_head", "audit chain head seq=%s head=%s chained=%s",
					  PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1),
					  PQgetisnull(res, 0, 2) ? "busy" : PQgetvalue(res, 0, 2));
		str_copy(last_seq, last_seq_len, PQgetvalue(res, 0, 0));
	}
	else if (state != NULL && strcmp(state, "42883") == 0)
	{
		log_event(GW_LOG_WARN, "audit_tick_unavailable",
				  "the extension has no mcp_notes.audit_tick() (installed before 1.4): the audit chain is not ticked by this gateway");
		go_on = false;
	}
	else
	{
		log_event(GW_LOG_WARN, "audit_tick", "audit_tick() failed: %s", PQresultErrorMessage(res));
		PQfinish(*pg);
		*pg = NULL;
	}
	PQclear(res);
	return go_on;
}

static void *
ticker_main(void *arg)
{
	PGconn	   *pg = NULL;
	char		last_seq[32] = "";
	bool		ticking = true;

	(void) arg;
	while (wait_tick(gw_cfg.audit_tick_ms))
	{
		if (!ticking)
			continue;
		if (pg == NULL && (pg = tick_connect()) == NULL)
			continue;
		ticking = tick_once(&pg, last_seq, sizeof(last_seq));
	}
	PQfinish(pg);
	return NULL;
}

int
tick_start(void)
{
	if (gw_cfg.audit_tick_ms <= 0)
		return 0;
	if (pipe(stop_pipe) != 0)
		return -1;
	fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
	if (pthread_create(&ticker, NULL, ticker_main, NULL) != 0)
		return -1;
	started = true;
	return 0;
}

void
tick_stop(void)
{
	if (!started)
		return;
	if (write(stop_pipe[1], "x", 1) != 1)
		log_event(GW_LOG_WARN, "audit_tick", "cannot signal the tick thread: %s", strerror(errno));
	pthread_join(ticker, NULL);
	started = false;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
}
