#include "sync.h"

#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "json.h"
#include "log.h"
#include "scan.h"

/* A batch is sent when it holds this many entries or bytes. */
enum
{
	BATCH_ENTRIES = 200,
	BATCH_BYTES = 4 * 1024 * 1024
};

struct batch
{
	struct fsd_buf json; /* [{...}, ...] */
	size_t n;
	struct fsd_file *sent; /* rel and ident of each entry, for the refusals */
};

static bool
refused_same(const struct fsd_workspace *ws, const char *rel, const struct fsd_ident *ident)
{
	for (size_t i = 0; i < ws->n_refused; i++)
		if (strcmp(ws->refused[i].rel, rel) == 0 && fsd_ident_equal(&ws->refused[i].ident, ident))
			return true;
	return false;
}

static void
remember_refused(struct fsd_workspace *ws, const char *rel, const struct fsd_ident *ident)
{
	struct fsd_file *r;

	for (size_t i = 0; i < ws->n_refused; i++)
		if (strcmp(ws->refused[i].rel, rel) == 0)
		{
			ws->refused[i].ident = *ident;
			return;
		}
	r = realloc(ws->refused, (ws->n_refused + 1) * sizeof *r);
	if (!r)
		return;
	ws->refused = r;
	r[ws->n_refused].rel = strdup(rel);
	r[ws->n_refused].ident = *ident;
	r[ws->n_refused].has_ident = true;
	if (r[ws->n_refused].rel)
		ws->n_refused++;
}

static void
batch_entry_start(struct batch *b, const char *rel, const struct fsd_ident *ident)
{
	struct fsd_file *sent = realloc(b->sent, (b->n + 1) * sizeof *sent);

	if (!sent)
	{
		b->json.oom = true;
		return;
	}
	b->sent = sent;
	sent[b->n].rel = strdup(rel);
	sent[b->n].has_ident = ident != NULL;
	if (ident)
		sent[b->n].ident = *ident;
	fsd_buf_add(&b->json, b->n ? ",{\"path\":" : "[{\"path\":");
	fsd_buf_json_str(&b->json, rel);
	b->n++;
}

/* A new or changed file: read it (its identity is the one read) and add it. */
static void
batch_add_file(struct batch *b, struct fsd_workspace *ws, const char *rel)
{
	struct fsd_ident ident;
	char *data;
	size_t len;
	enum fsd_status st = fsd_read_note(&ws->root, rel, &data, &len, &ident);

	if (st != FSD_OK)
	{
		if (st == FSD_TOO_LARGE)
			fsd_log(FSD_LOG_WARN, "file_refused", "workspace %s: %s is larger than a note may be", ws->uri,
					rel);
		return; /* changed or gone meanwhile: the next scan looks again */
	}
	if (refused_same(ws, rel, &ident))
	{
		free(data);
		return;
	}
	if (!fsd_text_ok(data, len))
	{
		fsd_log(FSD_LOG_WARN, "file_refused", "workspace %s: %s is not UTF-8 text", ws->uri, rel);
		remember_refused(ws, rel, &ident);
		free(data);
		return;
	}
	batch_entry_start(b, rel, &ident);
	fsd_buf_add(&b->json, ",\"dev\":");
	fsd_buf_int(&b->json, (int64_t) ident.dev);
	fsd_buf_add(&b->json, ",\"ino\":");
	fsd_buf_int(&b->json, (int64_t) ident.ino);
	fsd_buf_add(&b->json, ",\"size\":");
	fsd_buf_int(&b->json, ident.size);
	fsd_buf_add(&b->json, ",\"mtime\":");
	fsd_buf_int(&b->json, ident.mtime_ns);
	fsd_buf_add(&b->json, ",\"body\":");
	fsd_buf_json_strn(&b->json, data, len);
	fsd_buf_add(&b->json, "}");
	free(data);
}

static void
batch_add_gone(struct batch *b, const char *rel)
{
	batch_entry_start(b, rel, NULL);
	fsd_buf_add(&b->json, ",\"gone\":true}");
}

static void
batch_reset(struct batch *b)
{
	fsd_buf_free(&b->json);
	for (size_t i = 0; i < b->n; i++)
		free(b->sent[i].rel);
	free(b->sent);
	memset(b, 0, sizeof *b);
}

/* Sends the batch; its refusals are remembered.  -1 when it failed. */
static long
batch_send(struct batch *b, struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, bool *changed)
{
	const char *values[3] = {volume, ws->uri, NULL};
	PGresult *res;
	long sent = (long) b->n;

	if (b->n == 0)
		return 0;
	fsd_buf_add(&b->json, "]");
	if (b->json.oom)
	{
		batch_reset(b);
		return -1;
	}
	values[2] = b->json.data;
	res = fsd_pg_query(pg, "SELECT rel_path, outcome, detail FROM mcp_notes.fsd_sync($1, $2, $3::jsonb)", 3,
					   values, NULL);
	for (int i = 0; res && i < PQntuples(res); i++)
	{
		const char *rel = PQgetvalue(res, i, 0), *outcome = PQgetvalue(res, i, 1);

		if (strcmp(outcome, "refused") == 0)
		{
			fsd_log(FSD_LOG_WARN, "file_refused", "workspace %s: %s: %s", ws->uri, rel,
					PQgetvalue(res, i, 2));
			for (size_t j = 0; j < b->n; j++)
				if (b->sent[j].has_ident && strcmp(b->sent[j].rel, rel) == 0)
					remember_refused(ws, rel, &b->sent[j].ident);
		}
		else if (strcmp(outcome, "unchanged") != 0 && strcmp(outcome, "deferred") != 0)
			*changed = true;
	}
	if (!res)
		sent = -1;
	PQclear(res);
	batch_reset(b);
	return sent;
}

long
fsd_sync_workspace(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, size_t max_files)
{
	struct fsd_scan scan;
	struct batch b = {0};
	size_t i = 0, k = 0;
	long total = 0, sent = 0;
	bool changed = false, removals;

	if (!ws->known_loaded && !fsd_workspace_load_known(ws, pg, volume))
		return -1;
	if (fsd_scan(&ws->root, max_files, &scan) != FSD_OK)
		return -1;
	removals = !scan.partial && !scan.truncated;
	while (i < scan.n || k < ws->n_known)
	{
		int cmp = i == scan.n ? 1 : k == ws->n_known ? -1 : strcmp(scan.items[i].rel, ws->known[k].rel);

		if (cmp < 0)
			batch_add_file(&b, ws, scan.items[i++].rel);
		else if (cmp > 0)
		{
			if (removals && ws->known[k].has_ident)
				batch_add_gone(&b, ws->known[k].rel);
			k++;
		}
		else
		{
			if (!ws->known[k].has_ident || !fsd_ident_equal(&scan.items[i].ident, &ws->known[k].ident))
				batch_add_file(&b, ws, scan.items[i].rel);
			i++, k++;
		}
		if (b.n >= BATCH_ENTRIES || b.json.len >= BATCH_BYTES)
		{
			if ((sent = batch_send(&b, pg, volume, ws, &changed)) < 0)
				break;
			total += sent;
		}
	}
	if (sent >= 0)
		sent = batch_send(&b, pg, volume, ws, &changed);
	batch_reset(&b);
	total = sent < 0 ? -1 : total + sent;
	fsd_scan_free(&scan);
	if (changed)
		ws->known_loaded = false; /* reloaded before the next comparison */
	return total;
}
