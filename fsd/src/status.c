#include "status.h"

#include <errno.h>

const char *
fsd_status_name(enum fsd_status status)
{
	switch (status)
	{
		case FSD_OK: return "ok";
		case FSD_BAD_PATH: return "bad_path";
		case FSD_OUTSIDE: return "outside";
		case FSD_SYMLINK: return "symlink";
		case FSD_NOT_FOUND: return "not_found";
		case FSD_NOT_REGULAR: return "not_regular";
		case FSD_HARD_LINK: return "hard_link";
		case FSD_CHANGED: return "changed";
		case FSD_EXISTS: return "exists";
		case FSD_TOO_LARGE: return "too_large";
		case FSD_ERROR: return "error";
	}
	return "error";
}

enum fsd_status
fsd_status_of_errno(int err)
{
	switch (err)
	{
		case EXDEV: return FSD_OUTSIDE;
		case ELOOP: return FSD_SYMLINK;
		case ENOENT:
		case ENOTDIR: return FSD_NOT_FOUND;
		case EEXIST:
		case ENOTEMPTY: return FSD_EXISTS;
		case EISDIR: return FSD_NOT_REGULAR;
		case ENAMETOOLONG: return FSD_BAD_PATH;
		case EFBIG: return FSD_TOO_LARGE;
		default: return FSD_ERROR;
	}
}

bool
fsd_ident_equal(const struct fsd_ident *a, const struct fsd_ident *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}
