#include "volume.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void
fsd_i64_text(char *buf, size_t size, uint64_t v)
{
	snprintf(buf, size, "%" PRId64, (int64_t) v);
}

/* Asks the database what to make of the marker found (NULL: none): "ok";
 * "marker M" for a root never attached (write M, then ask again); or the
 * sentence refusing the root, to log. */
static char *
root_seen(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, const char *found)
{
	char dev[24], ino[24];
	const char *values[5] = {volume, ws->uri, found, dev, ino};
	PGresult *res;
	char *answer = NULL;

	fsd_i64_text(dev, sizeof dev, ws->root.dev);
	fsd_i64_text(ino, sizeof ino, ws->root.ino);
	res = fsd_pg_query(pg, "SELECT mcp_notes.fsd_root_seen($1, $2, $3, $4::bigint, $5::bigint)", 5, values,
					   NULL);
	if (res && PQntuples(res) == 1)
		answer = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return answer;
}

/* Opens a workspace's root and settles its marker with the database. */
static void
open_workspace(struct fsd_volume *v, struct fsd_pg *pg, struct fsd_workspace *ws)
{
	char marker[128];
	enum fsd_status st = fsd_root_open(v->basefd, ws->root_path, &ws->root);
	char *answer;

	if (st != FSD_OK)
	{
		fsd_log(FSD_LOG_ERROR, "root_refused", "workspace %s: root %s cannot be opened below the base (%s)",
				ws->uri, ws->root_path, fsd_status_name(st));
		return;
	}
	st = fsd_root_read_marker(&ws->root, marker, sizeof marker);
	answer = root_seen(pg, v->name, ws, st == FSD_OK ? marker : NULL);
	if (answer && strncmp(answer, "marker ", 7) == 0)
	{
		snprintf(marker, sizeof marker, "%s", answer + 7);
		free(answer);
		st = fsd_root_write_marker(&ws->root, marker);
		answer = st == FSD_OK ? root_seen(pg, v->name, ws, marker) : NULL;
		if (st != FSD_OK)
			fsd_log(FSD_LOG_ERROR, "root_refused", "workspace %s: cannot write the marker (%s)", ws->uri,
					fsd_status_name(st));
	}
	ws->usable = answer && strcmp(answer, "ok") == 0;
	if (answer && !ws->usable)
		fsd_log(FSD_LOG_ERROR, "root_refused", "workspace %s: %s", ws->uri, answer);
	else if (ws->usable)
		fsd_log(FSD_LOG_INFO, "root_attached", "workspace %s: root %s", ws->uri, ws->root_path);
	free(answer);
	if (!ws->usable)
		fsd_root_close(&ws->root);
}

static struct fsd_workspace *
add_workspace(struct fsd_volume *v, const char *uri, const char *root_path)
{
	struct fsd_workspace *ws = realloc(v->ws, (v->n + 1) * sizeof *ws);

	if (!ws)
		return NULL;
	v->ws = ws;
	ws = &v->ws[v->n++];
	memset(ws, 0, sizeof *ws);
	ws->root.fd = ws->root.trash_fd = -1;
	ws->uri = strdup(uri);
	ws->root_path = strdup(root_path);
	return ws;
}

bool
fsd_volume_attach(struct fsd_volume *v, struct fsd_pg *pg, char sqlstate[6])
{
	const char *values[1] = {v->name};
	PGresult *res =
		fsd_pg_query(pg, "SELECT workspace, root_path FROM mcp_notes.fsd_attach($1)", 1, values, sqlstate);

	if (!res)
		return false;
	for (int i = 0; i < PQntuples(res); i++)
	{
		const char *uri = PQgetvalue(res, i, 0), *root_path = PQgetvalue(res, i, 1);
		struct fsd_workspace *ws = fsd_volume_find(v, uri);

		if (ws && strcmp(ws->root_path, root_path) != 0)
		{
			fsd_root_close(&ws->root); /* re-registered elsewhere */
			ws->usable = false;
			free(ws->root_path);
			ws->root_path = strdup(root_path);
		}
		if (!ws)
			ws = add_workspace(v, uri, root_path);
		if (ws && ws->uri && ws->root_path && !ws->usable)
			open_workspace(v, pg, ws);
	}
	PQclear(res);
	return true;
}

struct fsd_workspace *
fsd_volume_find(struct fsd_volume *v, const char *uri)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->ws[i].uri && strcmp(v->ws[i].uri, uri) == 0)
			return &v->ws[i];
	return NULL;
}

static int
by_rel(const void *a, const void *b)
{
	return strcmp(((const struct fsd_file *) a)->rel, ((const struct fsd_file *) b)->rel);
}

bool
fsd_workspace_load_known(struct fsd_workspace *ws, struct fsd_pg *pg, const char *volume)
{
	const char *values[2] = {volume, ws->uri};
	PGresult *res = fsd_pg_query(
		pg, "SELECT rel_path, dev, ino, size, mtime_ns FROM mcp_notes.fsd_known($1, $2)", 2, values, NULL);
	int n;

	if (!res)
		return false;
	fsd_files_free(&ws->known, &ws->n_known);
	n = PQntuples(res);
	ws->known = calloc((size_t) n + 1, sizeof *ws->known);
	for (int i = 0; ws->known && i < n; i++)
	{
		struct fsd_file *f = &ws->known[ws->n_known];

		f->rel = strdup(PQgetvalue(res, i, 0));
		if (!f->rel)
			break;
		f->has_ident = !PQgetisnull(res, i, 1);
		if (f->has_ident)
		{
			f->ident.dev = (uint64_t) strtoll(PQgetvalue(res, i, 1), NULL, 10);
			f->ident.ino = (uint64_t) strtoll(PQgetvalue(res, i, 2), NULL, 10);
			f->ident.size = strtoll(PQgetvalue(res, i, 3), NULL, 10);
			f->ident.mtime_ns = strtoll(PQgetvalue(res, i, 4), NULL, 10);
		}
		ws->n_known++;
	}
	PQclear(res);
	if (ws->known)
		qsort(ws->known, ws->n_known, sizeof *ws->known, by_rel);
	ws->known_loaded = ws->known != NULL && ws->n_known == (size_t) n;
	return ws->known_loaded;
}

void
fsd_files_free(struct fsd_file **files, size_t *n)
{
	for (size_t i = 0; *files && i < *n; i++)
		free((*files)[i].rel);
	free(*files);
	*files = NULL;
	*n = 0;
}

void
fsd_volume_free(struct fsd_volume *v)
{
	for (size_t i = 0; i < v->n; i++)
	{
		fsd_root_close(&v->ws[i].root);
		fsd_files_free(&v->ws[i].known, &v->ws[i].n_known);
		fsd_files_free(&v->ws[i].refused, &v->ws[i].n_refused);
		free(v->ws[i].uri);
		free(v->ws[i].root_path);
	}
	free(v->ws);
	v->ws = NULL;
	v->n = 0;
}
