#include "root.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"

enum fsd_status
fsd_root_open(int basefd, const char *rel, struct fsd_root *root)
{
	struct stat st;

	root->fd = root->trash_fd = -1;
	if (rel[0] == '\0')
		return FSD_BAD_PATH;
	if (!(rel[0] == '.' && rel[1] == '\0') && fsd_path_ok(rel) != FSD_OK)
		return FSD_BAD_PATH;
	root->fd = fsd_openat2(basefd, rel, O_PATH | O_DIRECTORY, 0, true);
	if (root->fd < 0)
		return fsd_status_of_errno(errno);
	if (fstat(root->fd, &st) != 0)
	{
		int err = errno;

		fsd_root_close(root);
		return fsd_status_of_errno(err);
	}
	root->dev = (uint64_t) st.st_dev;
	root->ino = (uint64_t) st.st_ino;
	return FSD_OK;
}

enum fsd_status
fsd_root_open_trash(struct fsd_root *root)
{
	struct stat st;
	int fd;

	if (root->trash_fd >= 0)
		return FSD_OK;
	if (mkdirat(root->fd, FSD_TRASH_DIR, 0700) != 0 && errno != EEXIST)
		return fsd_status_of_errno(errno);
	fd = fsd_openat2(root->fd, FSD_TRASH_DIR, O_RDONLY | O_DIRECTORY, 0, false);
	if (fd < 0)
		return fsd_status_of_errno(errno);
	if (fstat(fd, &st) != 0 || (uint64_t) st.st_dev != root->dev)
	{
		close(fd);
		return FSD_OUTSIDE;
	}
	root->trash_fd = fd;
	return FSD_OK;
}

enum fsd_status
fsd_root_read_marker(const struct fsd_root *root, char *buf, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd = fsd_openat2(root->fd, FSD_MARKER_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0, false);

	if (fd < 0)
		return fsd_status_of_errno(errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		close(fd);
		return FSD_NOT_REGULAR;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return FSD_ERROR;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return FSD_OK;
}

enum fsd_status
fsd_root_write_marker(const struct fsd_root *root, const char *marker)
{
	static const char tmp[] = FSD_MARKER_FILE ".new";
	size_t len = strlen(marker);
	int dirfd, fd;
	bool ok;

	dirfd = fsd_openat2(root->fd, ".", O_RDONLY | O_DIRECTORY, 0, false);
	if (dirfd < 0)
		return fsd_status_of_errno(errno);
	unlinkat(dirfd, tmp, 0); /* ours: a hidden name no note can have */
	fd = fsd_openat2(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644, false);
	ok = fd >= 0 && write(fd, marker, len) == (ssize_t) len && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
	if (fd >= 0)
		close(fd);
	if (ok && renameat(dirfd, tmp, dirfd, FSD_MARKER_FILE) != 0)
	{
		enum fsd_status st = fsd_status_of_errno(errno);

		unlinkat(dirfd, tmp, 0);
		close(dirfd);
		return st;
	}
	if (!ok)
		unlinkat(dirfd, tmp, 0);
	ok = ok && fsync(dirfd) == 0;
	close(dirfd);
	return ok ? FSD_OK : FSD_ERROR;
}

void
fsd_root_close(struct fsd_root *root)
{
	if (root->trash_fd >= 0)
		close(root->trash_fd);
	if (root->fd >= 0)
		close(root->fd);
	root->fd = root->trash_fd = -1;
}
