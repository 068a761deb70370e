#include "pg.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* A serialization failure means nothing was done: trying again is right.
 * The bound keeps a pathological workload from spinning. */
enum
{
	QUERY_ATTEMPTS = 20
};

bool
fsd_pg_connect(struct fsd_pg *pg, const char *conninfo, const char *volume)
{
	char app[128];
	const char *keys[] = {"dbname", "application_name", "fallback_application_name", NULL};
	const char *values[] = {conninfo, app, "mcp-notes-fsd", NULL};
	PGresult *res;
	bool ok;

	snprintf(app, sizeof app, "mcp-notes-fsd %.60s", volume);
	pg->conn = PQconnectdbParams(keys, values, 1);
	if (PQstatus(pg->conn) != CONNECTION_OK)
	{
		fsd_log(FSD_LOG_WARN, "db_connect", "cannot connect to the database: %s", PQerrorMessage(pg->conn));
		fsd_pg_close(pg);
		return false;
	}
	res = PQexec(pg->conn, "SET default_transaction_isolation = serializable; LISTEN " FSD_CHANNEL);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		fsd_log(FSD_LOG_WARN, "db_connect", "setting up the session failed: %s", PQresultErrorMessage(res));
	PQclear(res);
	if (!ok)
		fsd_pg_close(pg);
	return ok;
}

void
fsd_pg_close(struct fsd_pg *pg)
{
	if (pg->conn)
		PQfinish(pg->conn);
	pg->conn = NULL;
}

bool
fsd_pg_ok(const struct fsd_pg *pg)
{
	return pg->conn && PQstatus(pg->conn) == CONNECTION_OK;
}

PGresult *
fsd_pg_query(struct fsd_pg *pg, const char *sql, int n, const char *const *values, char sqlstate[6])
{
	if (sqlstate)
		sqlstate[0] = '\0';
	for (int attempt = 1; fsd_pg_ok(pg); attempt++)
	{
		PGresult *res = PQexecParams(pg->conn, sql, n, NULL, values, NULL, NULL, 0);
		ExecStatusType status = PQresultStatus(res);
		const char *code = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK)
			return res;
		if (code && (strcmp(code, "40001") == 0 || strcmp(code, "40P01") == 0) && attempt < QUERY_ATTEMPTS)
		{
			PQclear(res);
			usleep((useconds_t) (1000 * attempt));
			continue;
		}
		if (sqlstate)
			snprintf(sqlstate, 6, "%s", code ? code : "");
		fsd_log(FSD_LOG_WARN, "db_error", "%.80s: %s", sql, PQresultErrorMessage(res));
		PQclear(res);
		return NULL;
	}
	return NULL;
}

int
fsd_pg_wait(struct fsd_pg *pg, int timeout_ms, int stop_fd)
{
	struct pollfd pfd[2] = {{stop_fd, POLLIN, 0}, {PQsocket(pg->conn), POLLIN, 0}};
	PGnotify *note;
	int notified = 0, rc;

	/* a notification may have arrived with an earlier result */
	if ((note = PQnotifies(pg->conn)) != NULL)
	{
		PQfreemem(note);
		notified = 1;
	}
	if (!notified)
	{
		while ((rc = poll(pfd, 2, timeout_ms)) < 0 && errno == EINTR)
			;
		if (rc > 0 && pfd[0].revents)
			return -2;
		if (rc > 0 && !PQconsumeInput(pg->conn))
			return -1;
	}
	while ((note = PQnotifies(pg->conn)) != NULL)
	{
		PQfreemem(note);
		notified = 1;
	}
	return PQstatus(pg->conn) == CONNECTION_OK ? notified : -1;
}
