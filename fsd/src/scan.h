/*
 * Finding the notes of a root on disk: a walk of the tree below it that
 * lists every file that may be a note, with its identity, so that changes
 * made outside (an editor, a git pull) reach the database.
 *
 * A note is a regular file with exactly one name, whose name ends in ".md"
 * and is valid UTF-8 without control characters, in a directory that is
 * neither hidden nor on another mount, at most FSD_SCAN_MAX_DEPTH below the
 * root.  Symlinks are never followed or listed; hidden names (".git",
 * ".mcp-trash", editors' swap files) are skipped.  Each directory is opened
 * with openat2 relative to its parent's descriptor, as every access is.
 */
#ifndef FSD_SCAN_H
#define FSD_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "root.h"
#include "status.h"

#define FSD_SCAN_MAX_DEPTH 32

struct fsd_scan_entry
{
	char *rel; /* relative to the root, components joined by '/' */
	struct fsd_ident ident;
};

struct fsd_scan
{
	struct fsd_scan_entry *items; /* sorted by rel, byte-wise */
	size_t n, cap;
	size_t skipped; /* symlinks, other files, hard links, foreign mounts, bad names */
	bool truncated; /* more than max_files notes: the rest are not listed */
	bool partial;   /* a directory could not be read (not for a policy reason):
					 * what is below it is unknown, not gone */
};

/* True when name is something the database can hold as a URI component:
 * valid UTF-8 (shortest forms, no surrogates), no control characters. */
bool fsd_name_ok(const char *name);

/* True when a file of this name may be a note (ends in ".md"). */
bool fsd_note_name(const char *name);

/* Lists the notes below root, at most max_files.  FSD_OK, or the status of
 * opening the root itself (a subdirectory that cannot be read is skipped). */
enum fsd_status fsd_scan(const struct fsd_root *root, size_t max_files, struct fsd_scan *out);

void fsd_scan_free(struct fsd_scan *scan);

#endif
