/*
 * fileops.h
 *		notes_delete of a file-backed note (docs/file-workspaces.md): the
 *		database records the delete as an intent and answers with an
 *		outcome that carries "await": {"channel", "key", "ms"}.  The file
 *		itself is moved aside by mcp-notes-fsd, which the gateway never
 *		talks to; the database notifies the channel that features() names
 *		for the internal method FILEOPS_METHOD, with the operation's id, once
 *		the file is in the trash (or nothing was removed).  The gateway waits
 *		for that, bounded and without holding a database connection, then
 *		asks handle() (FILEOPS_METHOD) for the final answer; after the bound
 *		it answers the pending result as it is ("recorded, removal pending",
 *		with the operation id).
 */
#ifndef GW_FILEOPS_H
#define GW_FILEOPS_H

#include <stdbool.h>

#include "db.h"

#define FILEOPS_METHOD		"mcp_notes/fileop/outcome"
#define FILEOPS_MAX_WAIT_MS	10000	/* whatever an outcome asks for */

/* Subscribe to the notifications (before notify_start; HTTP mode). 0 on success. */
extern int	fileops_init(void);

/*
 * db_handle, then, for an outcome that says "await", the bounded wait and
 * the final outcome in place of the pending one (*json replaced).  The
 * same arguments and results as db_handle.
 */
extern enum outcome_kind fileops_handle(bool dev, const char *credential, const char *request,
										char **json, int *retries, struct db_error *err);

#endif							/* GW_FILEOPS_H */
