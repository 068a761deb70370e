/*
 * The steps of a delete that touch the disk (docs/file-workspaces.md):
 *
 *   F1  fsd_trash_move: the confirmed file, checked against the identity the
 *       database recorded, is renamed into <root>/.mcp-trash/<op id> with
 *       RENAME_NOREPLACE, and the entry is checked again there; anything else
 *       that got swapped in is put back and the move is refused.
 *   F2  fsd_trash_unlink: after the database has recorded the delete, the
 *       entry is unlinked from the trash.
 *
 * Nothing outside the trash is ever unlinked, and a trash entry only after
 * its identity was verified, so a race can at worst move a symlink or
 * another file into the trash for a moment (a rename never follows a link).
 */
#ifndef FSD_TRASH_H
#define FSD_TRASH_H

#include <stdbool.h>

#include "root.h"
#include "status.h"

/* An operation id from the database is a trash entry's name: 1 to 64
 * characters of [A-Za-z0-9_-]. */
bool fsd_op_id_ok(const char *op_id);

/* F1.  FSD_OK: the file is in the trash and both directories are synced.
 * FSD_CHANGED: the file at rel is not the expected one (before the move, or
 * found after it: then it was put back, or, if its name was taken
 * meanwhile, kept in the trash as "conflict-<op id>"; *held tells which).
 * FSD_NOT_FOUND, FSD_SYMLINK, FSD_OUTSIDE, FSD_NOT_REGULAR, FSD_HARD_LINK,
 * FSD_BAD_PATH: nothing was moved.  FSD_EXISTS: a trash entry of this id
 * exists already (look at it with fsd_trash_stat).  FSD_ERROR: try again. */
enum fsd_status fsd_trash_move(struct fsd_root *root, const char *rel, const struct fsd_ident *expected,
							   const char *op_id, bool *held);

/* The identity of the trash entry of op_id (FSD_NOT_FOUND when there is
 * none), with the same policy as a note (regular, one name). */
enum fsd_status fsd_trash_stat(struct fsd_root *root, const char *op_id, struct fsd_ident *ident);

/* Puts the trash entry of op_id back at rel (RENAME_NOREPLACE), for a
 * recovery that finds an entry whose identity is not the expected one. */
enum fsd_status fsd_trash_put_back(struct fsd_root *root, const char *op_id, const char *rel, bool *held);

/* F2.  FSD_OK also when the entry is already gone (F2 is redone after a
 * crash). */
enum fsd_status fsd_trash_unlink(struct fsd_root *root, const char *op_id);

#endif
