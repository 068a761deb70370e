#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(FSD_RESOLVE_FLAGS_BENEATH ==
				   (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV),
			   "the resolve flags of every access below a root");

/* EAGAIN means a concurrent rename may have moved a directory while the
 * kernel walked "..": the answer is to try again, not to give up on the
 * protection.  A handful of tries is plenty outside an attack. */
enum
{
	OPENAT2_TRIES = 16
};

void (*fsd_race_hook)(int dirfd, const char *name);

int
fsd_openat2(int dirfd, const char *path, int flags, mode_t mode, bool cross_mounts)
{
	struct open_how how;

	memset(&how, 0, sizeof how);
	how.flags = (uint64_t) (flags | O_CLOEXEC);
	how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
	how.resolve = FSD_RESOLVE_FLAGS_BENEATH;
	if (cross_mounts)
		how.resolve &= ~(uint64_t) RESOLVE_NO_XDEV;
	for (int i = 0; i < OPENAT2_TRIES; i++)
	{
		long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);

		if (fd >= 0 || errno != EAGAIN)
			return (int) fd;
	}
	return -1;
}

bool
fsd_leaf_ok(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= NAME_MAX && name[0] != '.' && strchr(name, '/') == NULL;
}

enum fsd_status
fsd_path_ok(const char *rel)
{
	size_t len = strlen(rel);
	const char *p = rel;

	if (len == 0 || len >= PATH_MAX)
		return FSD_BAD_PATH;
	if (*p == '/')
		p++; /* absolute: the kernel answers it (EXDEV) */
	for (;;)
	{
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t) (slash - p) : strlen(p);

		if (n == 0 || n > NAME_MAX)
			return FSD_BAD_PATH;
		if (p[0] == '.' && !(n == 1 || (n == 2 && p[1] == '.')))
			return FSD_BAD_PATH; /* hidden: reserved for the trash, temp files, .git */
		if (!slash)
			break;
		p = slash + 1;
	}
	return FSD_OK;
}

/* One step of a walk: dirfd/name as a directory, made first when missing
 * and create is set. */
static int
open_dir_step(int dirfd, const char *name, bool create)
{
	int fd = fsd_openat2(dirfd, name, O_RDONLY | O_DIRECTORY, 0, false);

	if (fd < 0 && errno == ENOENT && create)
	{
		if (mkdirat(dirfd, name, 0755) != 0 && errno != EEXIST)
			return -1;
		fd = fsd_openat2(dirfd, name, O_RDONLY | O_DIRECTORY, 0, false);
	}
	return fd;
}

/* The directories of dir (a relative path, modified in place) made and
 * opened one component at a time. */
static int
open_dirs_creating(int rootfd, char *dir)
{
	int fd = fsd_openat2(rootfd, ".", O_RDONLY | O_DIRECTORY, 0, false);
	char *save = NULL;

	for (char *c = strtok_r(dir, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save))
	{
		int next = open_dir_step(fd, c, true);
		int err = errno;

		close(fd);
		fd = next;
		errno = err;
	}
	return fd;
}

enum fsd_status
fsd_open_parent(int rootfd, const char *rel, bool create_dirs, int *parentfd, const char **leaf)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	enum fsd_status st = fsd_path_ok(rel);
	int fd;

	*parentfd = -1;
	*leaf = slash ? slash + 1 : rel;
	if (st != FSD_OK)
		return st;
	if (!fsd_leaf_ok(*leaf))
		return FSD_BAD_PATH;
	if (!slash)
		strcpy(dir, ".");
	else if (slash == rel)
		strcpy(dir, "/");
	else
	{
		memcpy(dir, rel, (size_t) (slash - rel));
		dir[slash - rel] = '\0';
	}
	if (create_dirs && dir[0] != '/')
		fd = open_dirs_creating(rootfd, dir);
	else
		fd = fsd_openat2(rootfd, dir, O_RDONLY | O_DIRECTORY, 0, false);
	if (fd < 0)
		return fsd_status_of_errno(errno);
	*parentfd = fd;
	return FSD_OK;
}

void
fsd_ident_of_stat(const struct stat *st, struct fsd_ident *ident)
{
	ident->dev = (uint64_t) st->st_dev;
	ident->ino = (uint64_t) st->st_ino;
	ident->size = (int64_t) st->st_size;
	ident->mtime_ns = (int64_t) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

enum fsd_status
fsd_stat_leaf(int parentfd, const char *leaf, struct fsd_ident *ident, mode_t *mode)
{
	struct stat st;

	if (!fsd_leaf_ok(leaf))
		return FSD_BAD_PATH;
	if (fstatat(parentfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return fsd_status_of_errno(errno);
	if (S_ISLNK(st.st_mode))
		return FSD_SYMLINK;
	if (!S_ISREG(st.st_mode))
		return FSD_NOT_REGULAR;
	if (st.st_nlink != 1)
		return FSD_HARD_LINK;
	fsd_ident_of_stat(&st, ident);
	if (mode)
		*mode = st.st_mode & 07777;
	return FSD_OK;
}
