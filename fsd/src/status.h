/*
 * What a file operation of mcp-notes-fsd came to.  Every operation ends in
 * exactly one of these; the daemon reports it to the database by name
 * (fsd_status_name), and the database maps it to the state of the intent.
 */
#ifndef FSD_STATUS_H
#define FSD_STATUS_H

#include <stdbool.h>
#include <stdint.h>

enum fsd_status
{
	FSD_OK = 0,
	FSD_BAD_PATH,    /* refused before the kernel: empty, hidden, ".." as the leaf, too long */
	FSD_OUTSIDE,     /* EXDEV: resolution would leave the root or cross a mount */
	FSD_SYMLINK,     /* ELOOP: a symlink on the way or as the final component */
	FSD_NOT_FOUND,   /* ENOENT or ENOTDIR */
	FSD_NOT_REGULAR, /* a directory, FIFO, device or socket where a note should be */
	FSD_HARD_LINK,   /* a regular file with more than one name */
	FSD_CHANGED,     /* not the file identity the database expected */
	FSD_EXISTS,      /* a create or a move found its target name taken */
	FSD_TOO_LARGE,   /* larger than a note may be */
	FSD_ERROR        /* any other failure (EIO, EMFILE, ...): transient, try again */
};

/* What identifies one version of one file: which inode, and its size and
 * modification time.  The sealed state of a delete binds each candidate to it. */
struct fsd_ident
{
	uint64_t dev;
	uint64_t ino;
	int64_t size;
	int64_t mtime_ns;
};

const char *fsd_status_name(enum fsd_status status);

/* The status a failed system call's errno means for a path operation. */
enum fsd_status fsd_status_of_errno(int err);

bool fsd_ident_equal(const struct fsd_ident *a, const struct fsd_ident *b);

#endif
