/*
 * Path resolution below a workspace root, by the kernel only.
 *
 * Every open below a root goes through openat2(2) with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV, relative
 * to a directory descriptor: the kernel refuses, atomically, any walk that
 * would leave that directory, follow a symlink (on the way or at the end)
 * or cross a mount.  Names are then acted on one component at a time,
 * relative to the parent directory's descriptor (unlinkat, renameat2,
 * fstatat with AT_SYMLINK_NOFOLLOW): a name containing '/' passed to those
 * calls would be resolved normally, outside that protection, so
 * fsd_open_parent hands out a single checked leaf only.
 */
#ifndef FSD_BENEATH_H
#define FSD_BENEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "status.h"

/* The resolve flags of every access below a root. */
#define FSD_RESOLVE_FLAGS_BENEATH 0x0Fu /* checked against <linux/openat2.h> in beneath.c */

#define FSD_TRASH_DIR ".mcp-trash"

/* openat2(dirfd, path, flags | O_CLOEXEC, mode) with the resolve flags above
 * (all of them, or without RESOLVE_NO_XDEV when cross_mounts).  Retries the
 * kernel's EAGAIN (a rename raced a ".." walk) a bounded number of times.
 * Returns the descriptor, or -1 with errno set. */
int fsd_openat2(int dirfd, const char *path, int flags, mode_t mode, bool cross_mounts);

/* True when name may be the last component of a note's path: not empty,
 * no '/', not "." or "..", not hidden (a leading '.': the trash, temporary
 * files, editors' swap files, .git), at most NAME_MAX bytes. */
bool fsd_leaf_ok(const char *name);

/* Lexical checks of a relative path before the kernel sees it: at most
 * PATH_MAX bytes, no empty component, no hidden component ("." and ".."
 * pass: the kernel keeps ".." beneath the root), a valid leaf. */
enum fsd_status fsd_path_ok(const char *rel);

/* Opens the directory that holds rel (O_RDONLY | O_DIRECTORY, so it can be
 * fsynced) beneath rootfd and points *leaf at rel's last component.  With
 * create_dirs, missing directories on the way are made (0755), one
 * component at a time, each relative to the descriptor of the one before.
 * FSD_OK and *parentfd, or the status and *parentfd = -1. */
enum fsd_status fsd_open_parent(int rootfd, const char *rel, bool create_dirs, int *parentfd,
								const char **leaf);

/* The identity of an open regular file, from fstat. */
void fsd_ident_of_stat(const struct stat *st, struct fsd_ident *ident);

/* fstatat(parentfd, leaf, AT_SYMLINK_NOFOLLOW) and the policy for notes: a
 * regular file with exactly one name.  FSD_OK fills *ident (and *mode when
 * not NULL). */
enum fsd_status fsd_stat_leaf(int parentfd, const char *leaf, struct fsd_ident *ident, mode_t *mode);

/* Called, when set, between a check of a name and the rename that the
 * check guards (trash.c, files.c): the tests use it to swap the name at the
 * worst moment.  NULL in the daemon. */
extern void (*fsd_race_hook)(int dirfd, const char *name);

#endif
