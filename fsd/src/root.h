/*
 * A workspace root: the directory whose regular files are the notes of one
 * file-backed workspace.  It is opened once, O_PATH | O_DIRECTORY, beneath
 * the daemon's base directory and without following symlinks; its device
 * and inode are remembered, and every access below it is relative to that
 * descriptor (beneath.h).  Renaming the directory or putting a symlink in
 * its place later changes nothing for the daemon: it keeps acting on the
 * directory it opened.
 */
#ifndef FSD_ROOT_H
#define FSD_ROOT_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct fsd_root
{
	int fd;       /* O_PATH | O_DIRECTORY */
	int trash_fd; /* <root>/.mcp-trash, O_RDONLY | O_DIRECTORY, or -1 until opened */
	uint64_t dev;
	uint64_t ino;
};

/* Opens rel (relative to basefd; "." is the base itself) as a root.  Mount
 * points may be crossed on the way to the root (an operator may mount each
 * workspace as its own volume), symlinks may not. */
enum fsd_status fsd_root_open(int basefd, const char *rel, struct fsd_root *root);

/* Opens <root>/.mcp-trash, making it (0700) when missing: a real directory
 * on the root's own filesystem (a symlink or a mount there is refused), so
 * a rename into it is atomic and never leaves the filesystem. */
enum fsd_status fsd_root_open_trash(struct fsd_root *root);

/* The marker file <root>/.mcp-workspace holds the workspace's marker (a
 * random id the database gave it at registration): it tells the directory
 * registered from an empty or different one mounted in its place (a new
 * volume after a failover, a restore into another directory), which must
 * never be taken for "every note was removed". */
#define FSD_MARKER_FILE ".mcp-workspace"

/* The marker, NUL-terminated in buf; FSD_NOT_FOUND when there is none. */
enum fsd_status fsd_root_read_marker(const struct fsd_root *root, char *buf, size_t size);

/* Writes the marker: a new file, fsynced, renamed into place (in place of
 * an older marker: the database asks for this only for a root it has not
 * attached yet, or since reattach_file_workspace). */
enum fsd_status fsd_root_write_marker(const struct fsd_root *root, const char *marker);

void fsd_root_close(struct fsd_root *root);

#endif
