/*
 * Changes made on disk reach the database: each scan of a root (scan.h) is
 * compared with what the database knows of its files (fsd_known); new and
 * changed files are read and sent with their identity and content, files
 * gone are sent as gone (only after a complete scan: a directory that could
 * not be read never looks like removed notes), in batches of bounded size,
 * to fsd_sync, which creates, updates, moves (same inode at a new path) or
 * removes the notes.  The cost of a scan is one fstatat per entry; only
 * files whose identity changed are read.
 */
#ifndef FSD_SYNC_H
#define FSD_SYNC_H

#include <stddef.h>

#include "pg.h"
#include "volume.h"

/* One scan and sync of a usable workspace: the number of files sent, or -1
 * when the database could not be told (tried again at the next scan). */
long fsd_sync_workspace(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, size_t max_files);

#endif
