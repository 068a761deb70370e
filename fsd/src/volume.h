/*
 * The workspaces of the volume this daemon serves, as the database lists
 * them (fsd_attach), each with its root opened once and checked against its
 * marker (root.h) before anything below it is scanned or changed.
 */
#ifndef FSD_VOLUME_H
#define FSD_VOLUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg.h"
#include "root.h"
#include "status.h"

/* A file the database knows for a workspace (fsd_known), or one the
 * database refused to take (kept so the next scans do not read it again
 * while it stays the same). */
struct fsd_file
{
	char *rel;
	struct fsd_ident ident;
	bool has_ident; /* false: a note whose file is still to be written */
};

struct fsd_workspace
{
	char *uri;
	char *root_path;
	struct fsd_root root;
	bool usable;            /* root open and its marker confirmed */
	struct fsd_file *known; /* sorted by rel */
	size_t n_known;
	bool known_loaded;
	struct fsd_file *refused;
	size_t n_refused;
};

struct fsd_volume
{
	const char *name;
	int basefd;
	struct fsd_workspace *ws;
	size_t n;
};

/* Asks the database for the volume's workspaces (and the volume's lock: a
 * second daemon for one volume is refused, SQLSTATE 55P03) and opens the
 * roots not yet open.  False when the database call failed (*sqlstate). */
bool fsd_volume_attach(struct fsd_volume *v, struct fsd_pg *pg, char sqlstate[6]);

struct fsd_workspace *fsd_volume_find(struct fsd_volume *v, const char *uri);

/* Loads (again) what the database knows of a workspace's files. */
bool fsd_workspace_load_known(struct fsd_workspace *ws, struct fsd_pg *pg, const char *volume);

void fsd_files_free(struct fsd_file **files, size_t *n);

void fsd_volume_free(struct fsd_volume *v);

/* int64 text of a 64-bit identity field, as the database stores it
 * (bit for bit in a bigint). */
void fsd_i64_text(char *buf, size_t size, uint64_t v);

#endif
