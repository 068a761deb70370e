/*
 * store.c
 *		The database side of mcp-notes-jwks: one libpq connection that
 *		LISTENs on mcp_notes_jwks and calls the three functions its role may
 *		execute (mcp_notes.grant_jwks_fetcher): jwks_issuers(), jwks_store()
 *		and jwks_failed().  Every value is a bind parameter.
 */
#include "jwks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

static PGconn *conn;

static void
log_db_error(const char *what, PGresult *res)
{
	const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
	char		line[400];

	snprintf(line, sizeof(line), "%s", msg ? msg : "");
	line[strcspn(line, "\n")] = '\0';
	jlog(JLOG_ERROR, "database_error", "call", what, "detail", line, NULL);
}

int
store_connect(void)
{
	PGresult   *res;

	store_disconnect();
	conn = PQconnectdb(jwks_cfg.db);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		log_db_error("connect", NULL);
		store_disconnect();
		return -1;
	}
	res = PQexec(conn, "LISTEN " JWKS_CHANNEL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		log_db_error("LISTEN", res);
		PQclear(res);
		store_disconnect();
		return -1;
	}
	PQclear(res);
	return 0;
}

void
store_disconnect(void)
{
	if (conn)
		PQfinish(conn);
	conn = NULL;
}

bool
store_connected(void)
{
	return conn != NULL && PQstatus(conn) == CONNECTION_OK;
}

int
store_socket(void)
{
	return conn ? PQsocket(conn) : -1;
}

/* one call with text parameters; NULL (logged) unless it returned tuples */
static PGresult *
call(const char *what, const char *sql, int n, const char *const *values)
{
	PGresult   *res = PQexecParams(conn, sql, n, NULL, values, NULL, NULL, 0);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		log_db_error(what, res);
		PQclear(res);
		return NULL;
	}
	return res;
}

int
store_issuers(struct issuer **out, int *n)
{
	PGresult   *res = call("jwks_issuers", "SELECT issuer, metadata_url FROM mcp_notes.jwks_issuers()", 0, NULL);
	int			rows;

	*out = NULL;
	*n = 0;
	if (res == NULL)
		return -1;
	rows = PQntuples(res) < JWKS_MAX_ISSUERS ? PQntuples(res) : JWKS_MAX_ISSUERS;
	*out = calloc((size_t) rows + 1, sizeof(struct issuer));
	for (int i = 0; *out && i < rows; i++)
	{
		(*out)[i].issuer = strdup(PQgetvalue(res, i, 0));
		(*out)[i].metadata_url = strdup(PQgetvalue(res, i, 1));
		(*n)++;
	}
	PQclear(res);
	return *out ? 0 : -1;
}

void
store_free_issuers(struct issuer *list, int n)
{
	for (int i = 0; i < n; i++)
	{
		free(list[i].issuer);
		free(list[i].metadata_url);
	}
	free(list);
}

int
store_keys(const char *issuer, const char *jwks_uri, const char *jwks_text)
{
	const char *values[3] = {issuer, jwks_uri, jwks_text};
	PGresult   *res = call("jwks_store", "SELECT mcp_notes.jwks_store($1, $2, $3::jsonb)", 3, values);
	int			kept;

	if (res == NULL)
		return -1;
	kept = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return kept;
}

void
store_failure(const char *issuer, const char *problem)
{
	const char *values[2] = {issuer, problem};
	PGresult   *res = call("jwks_failed", "SELECT mcp_notes.jwks_failed($1, $2)", 2, values);

	PQclear(res);
}

int
store_notifications(char **names, int max, int *n, bool *all)
{
	PGnotify   *note;

	if (!PQconsumeInput(conn))
	{
		log_db_error("listen", NULL);
		return -1;
	}
	while ((note = PQnotifies(conn)) != NULL)
	{
		if (note->extra == NULL || note->extra[0] == '\0')
			*all = true;
		else if (*n < max)
		{
			bool		seen = false;

			for (int i = 0; i < *n; i++)
				seen |= strcmp(names[i], note->extra) == 0;
			if (!seen)
				names[(*n)++] = strdup(note->extra);
		}
		else
			*all = true;		/* more than we keep: refresh everyone due */
		PQfreemem(note);
	}
	return 0;
}
