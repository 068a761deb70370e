#include "trash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"

bool
fsd_op_id_ok(const char *op_id)
{
	size_t n = strlen(op_id);

	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
	{
		char c = op_id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			  c == '_'))
			return false;
	}
	return true;
}

/* Directory entries are durable only once their directory is synced. */
static enum fsd_status
sync_dirs(int a, int b)
{
	if (fsync(a) != 0 || (b >= 0 && b != a && fsync(b) != 0))
		return FSD_ERROR;
	return FSD_OK;
}

/* The trash entry op_id is not what was expected: back to parentfd/leaf,
 * or, when that name is taken now, kept in the trash under another name so
 * that nothing ever unlinks it. */
static enum fsd_status
put_back(struct fsd_root *root, const char *op_id, int parentfd, const char *leaf, bool *held)
{
	char kept[96];

	*held = false;
	if (renameat2(root->trash_fd, op_id, parentfd, leaf, RENAME_NOREPLACE) == 0)
		return sync_dirs(parentfd, root->trash_fd) == FSD_OK ? FSD_CHANGED : FSD_ERROR;
	if (errno != EEXIST)
		return FSD_ERROR;
	snprintf(kept, sizeof kept, "conflict-%s", op_id);
	if (renameat2(root->trash_fd, op_id, root->trash_fd, kept, RENAME_NOREPLACE) != 0)
		return FSD_ERROR;
	*held = true;
	return sync_dirs(root->trash_fd, -1) == FSD_OK ? FSD_CHANGED : FSD_ERROR;
}

enum fsd_status
fsd_trash_stat(struct fsd_root *root, const char *op_id, struct fsd_ident *ident)
{
	enum fsd_status st = fsd_root_open_trash(root);

	if (st != FSD_OK)
		return st;
	if (!fsd_op_id_ok(op_id))
		return FSD_BAD_PATH;
	return fsd_stat_leaf(root->trash_fd, op_id, ident, NULL);
}

/* What both moves start with: a valid op id, the trash, and the parent of
 * rel opened beneath the root (made, with create_dirs). */
static enum fsd_status
begin(struct fsd_root *root, const char *op_id, const char *rel, bool create_dirs, int *parentfd,
	  const char **leaf, bool *held)
{
	enum fsd_status st;

	*held = false;
	*parentfd = -1;
	if (!fsd_op_id_ok(op_id))
		return FSD_BAD_PATH;
	if ((st = fsd_root_open_trash(root)) != FSD_OK)
		return st;
	return fsd_open_parent(root->fd, rel, create_dirs, parentfd, leaf);
}

enum fsd_status
fsd_trash_move(struct fsd_root *root, const char *rel, const struct fsd_ident *expected, const char *op_id,
			   bool *held)
{
	struct fsd_ident now;
	const char *leaf;
	int parentfd;
	enum fsd_status st;

	if ((st = begin(root, op_id, rel, false, &parentfd, &leaf, held)) != FSD_OK)
		return st;
	st = fsd_stat_leaf(parentfd, leaf, &now, NULL);
	if (st == FSD_OK && !fsd_ident_equal(&now, expected))
		st = FSD_CHANGED;
	if (st == FSD_OK && fsd_race_hook)
		fsd_race_hook(parentfd, leaf);
	if (st == FSD_OK && renameat2(parentfd, leaf, root->trash_fd, op_id, RENAME_NOREPLACE) != 0)
		st = fsd_status_of_errno(errno);
	if (st == FSD_OK)
	{
		/* The name may have been swapped between the check and the rename:
		 * what arrived in the trash is checked, not what was looked at. */
		enum fsd_status arrived = fsd_stat_leaf(root->trash_fd, op_id, &now, NULL);

		if (arrived == FSD_NOT_FOUND)
			st = FSD_ERROR; /* cannot happen: the trash is ours */
		else if (arrived != FSD_OK || !fsd_ident_equal(&now, expected))
			st = put_back(root, op_id, parentfd, leaf, held);
		else
			st = sync_dirs(parentfd, root->trash_fd);
	}
	close(parentfd);
	return st;
}

enum fsd_status
fsd_trash_put_back(struct fsd_root *root, const char *op_id, const char *rel, bool *held)
{
	const char *leaf;
	int parentfd;
	enum fsd_status st;

	if ((st = begin(root, op_id, rel, true, &parentfd, &leaf, held)) != FSD_OK)
		return st;
	st = put_back(root, op_id, parentfd, leaf, held);
	close(parentfd);
	return st;
}

enum fsd_status
fsd_trash_unlink(struct fsd_root *root, const char *op_id)
{
	enum fsd_status st;

	if (!fsd_op_id_ok(op_id))
		return FSD_BAD_PATH;
	if ((st = fsd_root_open_trash(root)) != FSD_OK)
		return st;
	if (unlinkat(root->trash_fd, op_id, 0) != 0 && errno != ENOENT)
		return fsd_status_of_errno(errno);
	return sync_dirs(root->trash_fd, -1);
}
