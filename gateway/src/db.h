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

enum db_status
{
	DB_OK = 0,
	DB_UNAVAILABLE,				/* cannot connect / connection lost (HTTP 503) */
	DB_BUSY,					/* no pooled connection within the acquire timeout (503) */
	DB_RETRIES_EXHAUSTED,		/* 40001/40P01 on every attempt (503) */
	DB_INVALID_INPUT,			/* SQLSTATE class 22: the request's values (-32602) */
	DB_INTERNAL,				/* anything else (500) */
	DB_SHUTTING_DOWN			/* pool closing (503) */
};

struct db_error
{
	enum db_status status;
	char		sqlstate[6];
	char		message[256];	/* for logs; never contains parameter values */
};

extern int	db_init(void);

/* Refuse new acquisitions and cancel statements still running. */
extern void db_shutdown_begin(void);

/* Close every connection (after all request threads have finished). */
extern void db_close(void);

/*
 * A connection outside the pool, with the pool's parameters, for a thread
 * that keeps it (the token cache's LISTEN); NULL when the database is down.
 */
struct pg_conn;
extern struct pg_conn *db_connect_dedicated(struct db_error *err);

/* /readyz: a pooled connection runs SELECT 1 */
extern bool db_ping(int timeout_ms, struct db_error *err);

/* mcp_notes.authenticate(token): *principal is NULL when the token is not valid */
extern enum db_status db_authenticate(const char *token, char **principal, struct db_error *err);

/* mcp_notes.tool_descriptors()::text */
extern enum db_status db_tool_descriptors(char **json, struct db_error *err);

/*
 * mcp_notes.call_tool($1..$9), or call_tool_as when dev is true (then
 * args[0] is the principal instead of the token).  args are text values or
 * NULL for SQL NULL: token/principal, tool, arguments, input_responses,
 * request_state, client_capabilities, request_id, client_info, gateway_id.
 * Retried on 40001/40P01 up to tool_call_attempts; *retries counts the extra
 * attempts.
 */
extern enum db_status db_call_tool(bool dev, const char *const args[9], char **json,
								   int *retries, struct db_error *err);

#endif							/* GW_DB_H */
