#include "sync.h"

#include <stdint.h>
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

/* A new or changed file: read it (its identity is the one read) and add
 * it; from names the known path it was renamed from. */
static void
batch_add_file(struct batch *b, struct fsd_workspace *ws, const char *rel, const char *from)
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
	if (from)
	{
		fsd_buf_add(&b->json, ",\"from\":");
		fsd_buf_json_str(&b->json, from);
	}
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
	}
	/* whatever came back, the known files are to be read again: even an
	 * "unchanged" says the list this batch was made from was out of date */
	if (!res)
		sent = -1;
	else
		*changed = true;
	PQclear(res);
	batch_reset(b);
	return sent;
}

/* What the comparison of a scan with the known files found. */
struct diff
{
	size_t *added; /* scan indexes: paths the database does not know */
	size_t n_added;
	size_t *changed; /* scan indexes: known paths whose identity changed */
	size_t n_changed;
	size_t *gone; /* known indexes: paths the scan did not find */
	size_t n_gone;
};

static bool
push(size_t **list, size_t *n, size_t v)
{
	size_t *grown = realloc(*list, (*n + 1) * sizeof **list);

	if (!grown)
		return false;
	grown[(*n)++] = v;
	*list = grown;
	return true;
}

static bool
compare(const struct fsd_scan *scan, const struct fsd_workspace *ws, struct diff *d)
{
	size_t i = 0, k = 0;
	bool ok = true;

	while (ok && (i < scan->n || k < ws->n_known))
	{
		int cmp = i == scan->n ? 1 : k == ws->n_known ? -1 : strcmp(scan->items[i].rel, ws->known[k].rel);

		if (cmp < 0)
			ok = push(&d->added, &d->n_added, i++);
		else if (cmp > 0)
			ok = push(&d->gone, &d->n_gone, k++);
		else
		{
			if (!ws->known[k].has_ident || !fsd_ident_equal(&scan->items[i].ident, &ws->known[k].ident))
				ok = push(&d->changed, &d->n_changed, i);
			i++, k++;
		}
	}
	return ok;
}

/* A file at a new path with the device and inode of a known file that is
 * gone from its path is that file, renamed (a file has one name: it cannot
 * be at both).  The known index, or SIZE_MAX. */
static size_t
moved_from(const struct fsd_workspace *ws, struct diff *d, const struct fsd_ident *ident)
{
	for (size_t g = 0; g < d->n_gone; g++)
	{
		const struct fsd_file *f = &ws->known[d->gone[g]];

		if (f->has_ident && f->ident.dev == ident->dev && f->ident.ino == ident->ino)
		{
			size_t k = d->gone[g];

			d->gone[g] = d->gone[--d->n_gone];
			return k;
		}
	}
	return SIZE_MAX;
}

/* Sends the batch when it is full; false when sending failed. */
static bool
flush_if_full(struct batch *b, struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, bool *changed,
			  long *total)
{
	long sent;

	if (b->n < BATCH_ENTRIES && b->json.len < BATCH_BYTES)
		return true;
	if ((sent = batch_send(b, pg, volume, ws, changed)) < 0)
		return false;
	*total += sent;
	return true;
}

static long
send_diff(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, const struct fsd_scan *scan,
		  struct diff *d, bool removals, bool *changed)
{
	struct batch b = {0};
	long total = 0, sent;
	bool ok = true;

	for (size_t j = 0; ok && j < d->n_changed; j++)
	{
		batch_add_file(&b, ws, scan->items[d->changed[j]].rel, NULL);
		ok = flush_if_full(&b, pg, volume, ws, changed, &total);
	}
	for (size_t j = 0; ok && j < d->n_added; j++)
	{
		const struct fsd_scan_entry *e = &scan->items[d->added[j]];
		size_t from = moved_from(ws, d, &e->ident);

		batch_add_file(&b, ws, e->rel, from == SIZE_MAX ? NULL : ws->known[from].rel);
		ok = flush_if_full(&b, pg, volume, ws, changed, &total);
	}
	for (size_t j = 0; ok && removals && j < d->n_gone; j++)
	{
		if (ws->known[d->gone[j]].has_ident)
			batch_add_gone(&b, ws->known[d->gone[j]].rel);
		ok = flush_if_full(&b, pg, volume, ws, changed, &total);
	}
	sent = ok ? batch_send(&b, pg, volume, ws, changed) : -1;
	batch_reset(&b);
	return sent < 0 ? -1 : total + sent;
}

long
fsd_sync_workspace(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, size_t max_files)
{
	struct fsd_scan scan;
	struct diff d = {0};
	long total;
	bool changed = false;

	if (!ws->known_loaded && !fsd_workspace_load_known(ws, pg, volume))
		return -1;
	if (fsd_scan(&ws->root, max_files, &scan) != FSD_OK)
		return -1;
	/* a scan that could not see everything reports no removals: what it
	 * did not see is unknown, not gone */
	total = compare(&scan, ws, &d)
				? send_diff(pg, volume, ws, &scan, &d, !scan.partial && !scan.truncated, &changed)
				: -1;
	free(d.added);
	free(d.changed);
	free(d.gone);
	fsd_scan_free(&scan);
	if (changed)
		ws->known_loaded = false; /* reloaded before the next comparison */
	return total;
}
