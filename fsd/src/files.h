/*
 * Reading and writing notes that are files, below a root (beneath.h).
 *
 * A read opens the file itself beneath the root (a symlink anywhere on the
 * path, the final component included, is refused by the kernel) and takes
 * the identity from that descriptor, so the content and the identity
 * reported belong to the same file.  A write never modifies a file in
 * place: the new content goes to a hidden temporary file in the same
 * directory, is fsynced, and is renamed over the old name (or, for a new
 * note, to a name that must still be free); then the directory is synced.
 */
#ifndef FSD_FILES_H
#define FSD_FILES_H

#include <stddef.h>

#include "root.h"
#include "status.h"

/* Upper bound of a note file: the body limit of the extension (1 MiB) plus
 * room for the title line. */
#define FSD_MAX_NOTE_BYTES (1048576 + 4096)

/* Reads rel into a malloc'd buffer (NUL-terminated, *len bytes).  FSD_OK,
 * FSD_TOO_LARGE, or what resolution and the note policy say. */
enum fsd_status fsd_read_note(const struct fsd_root *root, const char *rel, char **data, size_t *len,
							  struct fsd_ident *ident);

/* Writes data atomically at rel.  expected NULL: a new note, rel must not
 * exist (FSD_EXISTS); missing directories are made.  Otherwise the file at
 * rel must be the expected one (FSD_CHANGED, FSD_NOT_FOUND): the new file
 * is exchanged with it (RENAME_EXCHANGE) and what came out is checked
 * again, so a file put there by someone else in between is put back, not
 * overwritten.  tmp_tag names the temporary file (".mcp-tmp-<tag>").
 * FSD_OK fills *written with the new file's identity. */
enum fsd_status fsd_write_note(struct fsd_root *root, const char *rel, const char *data, size_t len,
							   const struct fsd_ident *expected, const char *tmp_tag,
							   struct fsd_ident *written);

#endif
