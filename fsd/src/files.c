#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "trash.h"

/* The whole of an open regular file, if it stays the same while read. */
static enum fsd_status
read_all(int fd, const struct stat *before, char **data, size_t *len)
{
	size_t size = (size_t) before->st_size, got = 0;
	char *buf = malloc(size + 1);
	struct stat after;

	if (!buf)
		return FSD_ERROR;
	while (got < size)
	{
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t) n;
	}
	if (got != size || fstat(fd, &after) != 0 || after.st_size != before->st_size ||
		after.st_mtim.tv_sec != before->st_mtim.tv_sec || after.st_mtim.tv_nsec != before->st_mtim.tv_nsec)
	{
		free(buf);
		return FSD_CHANGED; /* written to while read: the next scan sees it settled */
	}
	buf[size] = '\0';
	*data = buf;
	*len = size;
	return FSD_OK;
}

enum fsd_status
fsd_read_note(const struct fsd_root *root, const char *rel, char **data, size_t *len, struct fsd_ident *ident)
{
	const char *leaf;
	struct stat st;
	enum fsd_status status;
	int parentfd, fd;

	*data = NULL;
	*len = 0;
	if ((status = fsd_open_parent(root->fd, rel, false, &parentfd, &leaf)) != FSD_OK)
		return status;
	/* O_NONBLOCK: a FIFO put where a note was must not hang the daemon */
	fd = fsd_openat2(parentfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0, false);
	status = fd < 0 ? fsd_status_of_errno(errno) : FSD_OK;
	close(parentfd);
	if (status != FSD_OK)
		return status;
	if (fstat(fd, &st) != 0)
		status = FSD_ERROR;
	else if (!S_ISREG(st.st_mode))
		status = FSD_NOT_REGULAR;
	else if (st.st_nlink != 1)
		status = FSD_HARD_LINK;
	else if (st.st_size > FSD_MAX_NOTE_BYTES)
		status = FSD_TOO_LARGE;
	else if ((status = read_all(fd, &st, data, len)) == FSD_OK)
		fsd_ident_of_stat(&st, ident);
	close(fd);
	return status;
}

/* A temporary file of this tag left by an earlier attempt that died may
 * hold someone else's file (one that was being exchanged back): it goes to
 * the trash, never to unlink. */
static enum fsd_status
set_aside_leftover(struct fsd_root *root, int parentfd, const char *tmp, const char *tmp_tag)
{
	char kept[96];
	enum fsd_status st = fsd_root_open_trash(root);

	if (st != FSD_OK)
		return st;
	snprintf(kept, sizeof kept, "leftover-%s", tmp_tag);
	if (renameat2(parentfd, tmp, root->trash_fd, kept, RENAME_NOREPLACE) != 0)
		return fsd_status_of_errno(errno) == FSD_NOT_FOUND ? FSD_OK : FSD_ERROR;
	return fsync(root->trash_fd) == 0 ? FSD_OK : FSD_ERROR;
}

/* data into a new hidden file parentfd/tmp, fsynced; its identity. */
static enum fsd_status
write_temp(int parentfd, const char *tmp, const char *data, size_t len, mode_t mode, struct fsd_ident *ident)
{
	struct stat st;
	size_t done = 0;
	int fd = fsd_openat2(parentfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode, false);

	if (fd < 0)
		return fsd_status_of_errno(errno);
	while (done < len)
	{
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t) n;
	}
	if (done != len || fchmod(fd, mode) != 0 || fsync(fd) != 0 || fstat(fd, &st) != 0)
	{
		close(fd);
		unlinkat(parentfd, tmp, 0); /* still ours: nothing was renamed */
		return FSD_ERROR;
	}
	close(fd);
	fsd_ident_of_stat(&st, ident);
	return FSD_OK;
}

/* The new file at tmp takes the place of the expected one at leaf.  After
 * the exchange, tmp holds what was at leaf: the expected file, unlinked, or
 * someone else's, exchanged back (and tmp, ours again, unlinked).  tmp is
 * unlinked only while it is known to hold our file or the expected one. */
static enum fsd_status
replace_expected(int parentfd, const char *tmp, const char *leaf, const struct fsd_ident *expected)
{
	struct fsd_ident out;
	struct stat raw;

	if (fsd_race_hook)
		fsd_race_hook(parentfd, leaf);
	if (renameat2(parentfd, tmp, parentfd, leaf, RENAME_EXCHANGE) != 0)
	{
		enum fsd_status st = fsd_status_of_errno(errno);

		unlinkat(parentfd, tmp, 0);
		return st;
	}
	if (fstatat(parentfd, tmp, &raw, AT_SYMLINK_NOFOLLOW) == 0)
	{
		fsd_ident_of_stat(&raw, &out);
		if (S_ISREG(raw.st_mode) && raw.st_nlink == 1 && fsd_ident_equal(&out, expected))
			return unlinkat(parentfd, tmp, 0) == 0 ? FSD_OK : FSD_ERROR;
	}
	if (renameat2(parentfd, tmp, parentfd, leaf, RENAME_EXCHANGE) != 0)
		return FSD_ERROR; /* the next attempt sets tmp aside (set_aside_leftover) */
	unlinkat(parentfd, tmp, 0);
	return FSD_CHANGED;
}

enum fsd_status
fsd_write_note(struct fsd_root *root, const char *rel, const char *data, size_t len,
			   const struct fsd_ident *expected, const char *tmp_tag, struct fsd_ident *written)
{
	struct fsd_ident now;
	char tmp[96];
	const char *leaf;
	mode_t mode = 0644;
	int parentfd;
	enum fsd_status st;

	if (!fsd_op_id_ok(tmp_tag))
		return FSD_BAD_PATH;
	if (len > FSD_MAX_NOTE_BYTES)
		return FSD_TOO_LARGE;
	snprintf(tmp, sizeof tmp, ".mcp-tmp-%s", tmp_tag);
	if ((st = fsd_open_parent(root->fd, rel, expected == NULL, &parentfd, &leaf)) != FSD_OK)
		return st;
	st = fsd_stat_leaf(parentfd, leaf, &now, &mode);
	if (expected == NULL)
		st = st == FSD_NOT_FOUND ? FSD_OK : FSD_EXISTS;
	else if (st == FSD_OK && !fsd_ident_equal(&now, expected))
		st = FSD_CHANGED;
	if (st == FSD_OK)
		st = set_aside_leftover(root, parentfd, tmp, tmp_tag);
	if (st == FSD_OK)
		st = write_temp(parentfd, tmp, data, len, expected ? mode : 0644, written);
	if (st == FSD_OK && expected == NULL)
	{
		if (renameat2(parentfd, tmp, parentfd, leaf, RENAME_NOREPLACE) != 0)
		{
			st = fsd_status_of_errno(errno);
			unlinkat(parentfd, tmp, 0);
		}
	}
	else if (st == FSD_OK)
		st = replace_expected(parentfd, tmp, leaf, expected);
	if (st == FSD_OK && fsync(parentfd) != 0)
		st = FSD_ERROR;
	close(parentfd);
	return st;
}
