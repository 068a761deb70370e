#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"

static const char *
errno_name(int err)
{
	switch (err)
	{
		case ENOSYS: return "ENOSYS";
		case EPERM: return "EPERM";
		case E2BIG: return "E2BIG";
		case EINVAL: return "EINVAL";
		case EACCES: return "EACCES";
		default: return "an unexpected error";
	}
}

bool
fsd_probe_openat2(char *why, size_t why_size)
{
	int fd = fsd_openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY, 0, true);
	int escaped;

	/* "/" from AT_FDCWD under RESOLVE_BENEATH is itself an escape: EXDEV
	 * says the call exists and enforces the flag; anything else is judged. */
	if (fd >= 0)
	{
		close(fd);
		snprintf(why, why_size,
				 "openat2 opened \"/\" despite RESOLVE_BENEATH: the kernel does not enforce it");
		return false;
	}
	if (errno != EXDEV)
	{
		int err = errno;

		snprintf(why, why_size,
				 "openat2 is unavailable (%s: %s); file-backed workspaces need it, "
				 "and there is no fallback",
				 errno_name(err), strerror(err));
		return false;
	}
	fd = fsd_openat2(AT_FDCWD, ".", O_PATH | O_DIRECTORY, 0, true);
	if (fd < 0)
	{
		int err = errno;

		snprintf(why, why_size, "openat2 could not open the current directory (%s: %s)", errno_name(err),
				 strerror(err));
		return false;
	}
	escaped = fsd_openat2(fd, "..", O_PATH | O_DIRECTORY, 0, true);
	close(fd);
	if (escaped >= 0 || errno != EXDEV)
	{
		if (escaped >= 0)
			close(escaped);
		snprintf(why, why_size, "openat2 let \"..\" leave the directory despite RESOLVE_BENEATH");
		return false;
	}
	snprintf(why, why_size, "openat2 with RESOLVE_BENEATH, NO_SYMLINKS, NO_MAGICLINKS and NO_XDEV works");
	return true;
}
