/*
 * The daemon's one database connection: its own least-privileged role (it
 * can execute the fsd_* entry points of the extension and nothing else),
 * SERIALIZABLE like every writer of notes, LISTENing on mcp_notes_fsd, on
 * which the extension says that there is work (an intent, a write, a new
 * workspace).  Serialization failures and deadlocks are retried here; any
 * other failure is logged and left to the caller.
 */
#ifndef FSD_PG_H
#define FSD_PG_H

#include <stdbool.h>

#include <libpq-fe.h>

#define FSD_CHANNEL "mcp_notes_fsd"

struct fsd_pg
{
	PGconn *conn;
};

/* Connects with conninfo (empty: libpq's environment); false when it
 * cannot (logged). */
bool fsd_pg_connect(struct fsd_pg *pg, const char *conninfo, const char *volume);

void fsd_pg_close(struct fsd_pg *pg);

bool fsd_pg_ok(const struct fsd_pg *pg);

/* One statement with text parameters (NULL values are SQL NULL).  The
 * result when it returned tuples or a command status, else NULL (logged;
 * sqlstate, when not NULL, receives the five-character code or ""). */
PGresult *fsd_pg_query(struct fsd_pg *pg, const char *sql, int n, const char *const *values,
					   char sqlstate[6]);

/* Waits up to timeout_ms for a notification, or for input on stop_fd.
 * 1: notified, 0: timed out, -1: the connection is broken, -2: stop. */
int fsd_pg_wait(struct fsd_pg *pg, int timeout_ms, int stop_fd);

#endif
