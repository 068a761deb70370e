/*
 * db.h
 *		The bounded libpq connection pool and the gateway's SQL calls.
 *
 * Every call below makes exactly one statement round trip on one pooled
 * connection (tools/call: one per attempt).
 */
#ifndef GW_DB_H
#define GW_DB_H

#include <stdbool.h>

#include "outcome.h"

struct db_error
{
	enum outcome_kind kind;		/* OUT_OK, or how the call failed (outcome.h) */
	char		sqlstate[6];
	char		message[256];	/* for logs; never contains parameter values */
};

extern int	db_init(void);

/* The pool's size, connections taken and requests waiting now (for /metrics). */
extern void db_pool_stats(int *size, int *in_use, int *waiting);

/* Refuse new acquisitions and cancel statements still running. */
extern void db_shutdown_begin(void);

/* Close every connection (after all request threads have finished). */
extern void db_close(void);

/*
 * A connection outside the pool, with the pool's parameters, for a thread
 * that keeps it (the one LISTEN connection, notify.c); NULL when the database is down.
 */
struct pg_conn;
extern struct pg_conn *db_connect_dedicated(struct db_error *err);

/* /readyz: a pooled connection runs SELECT 1 */
extern bool db_ping(int timeout_ms, struct db_error *err);

/* mcp_notes.authenticate(token): *principal is NULL when the token is not valid */
extern enum outcome_kind db_authenticate(const char *token, char **principal, struct db_error *err);

/* mcp_notes.features()::text */
extern enum outcome_kind db_features(char **json, struct db_error *err);

/* the installed version of mcp_notes (pg_extension), NULL when not installed */
extern enum outcome_kind db_extension_version(char **version, struct db_error *err);

/*
 * SELECT mcp_notes.handle($1::text, $2::jsonb), or handle_as when dev is
 * true (then credential is the principal instead of the token): one
 * statement, retried on 40001/40P01 up to tool_call_attempts; *retries
 * counts the extra attempts.
 */
extern enum outcome_kind db_handle(bool dev, const char *credential, const char *request,
								   char **json, int *retries, struct db_error *err);

#endif							/* GW_DB_H */
