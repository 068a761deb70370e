#include "ops.h"

#include <stdlib.h>
#include <string.h>

#include "failpoint.h"
#include "files.h"
#include "log.h"
#include "trash.h"

/* One row of fsd_pending. */
struct op
{
	const char *op_id, *kind, *status, *workspace, *rel, *note_id, *seq, *content;
	size_t content_len;
	struct fsd_ident ident;
	bool has_ident;
};

static void
read_op(PGresult *res, int i, struct op *op)
{
	op->op_id = PQgetvalue(res, i, 0);
	op->kind = PQgetvalue(res, i, 1);
	op->status = PQgetvalue(res, i, 2);
	op->workspace = PQgetvalue(res, i, 3);
	op->rel = PQgetvalue(res, i, 4);
	op->has_ident = !PQgetisnull(res, i, 5);
	if (op->has_ident)
	{
		op->ident.dev = (uint64_t) strtoll(PQgetvalue(res, i, 5), NULL, 10);
		op->ident.ino = (uint64_t) strtoll(PQgetvalue(res, i, 6), NULL, 10);
		op->ident.size = strtoll(PQgetvalue(res, i, 7), NULL, 10);
		op->ident.mtime_ns = strtoll(PQgetvalue(res, i, 8), NULL, 10);
	}
	op->content = PQgetvalue(res, i, 9);
	op->content_len = (size_t) PQgetlength(res, i, 9);
	op->note_id = PQgetvalue(res, i, 10);
	op->seq = PQgetvalue(res, i, 11);
}

/* An entry point that returns nothing the daemon needs: true when it ran. */
static bool
call(struct fsd_pg *pg, const char *sql, int n, const char *const *values)
{
	PGresult *res = fsd_pg_query(pg, sql, n, values, NULL);

	PQclear(res);
	return res != NULL;
}

static bool
report_failed(struct fsd_pg *pg, const char *volume, const struct op *op, const char *outcome,
			  const char *detail)
{
	const char *values[4] = {volume, op->op_id, outcome, detail};

	fsd_log(FSD_LOG_WARN, "delete_refused", "op %s (%s in %s): %s, %s; nothing was removed", op->op_id,
			op->rel, op->workspace, outcome, detail);
	return call(pg, "SELECT mcp_notes.fsd_failed($1, $2, $3, $4)", 4, values);
}

/* T2, then F2 and done: the file is in the trash with the confirmed identity. */
static bool
finish_delete(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, const struct op *op)
{
	const char *values[2] = {volume, op->op_id};
	enum fsd_status st;

	if (strcmp(op->status, "intent") == 0)
	{
		if (!call(pg, "SELECT mcp_notes.fsd_trashed($1, $2)", 2, values))
			return false;
		fsd_failpoint("after-T2");
	}
	st = fsd_trash_unlink(&ws->root, op->op_id);
	if (st != FSD_OK)
	{
		fsd_log(FSD_LOG_WARN, "unlink_failed", "op %s: unlinking from the trash failed (%s)", op->op_id,
				fsd_status_name(st));
		return false;
	}
	fsd_failpoint("after-F2");
	if (!call(pg, "SELECT mcp_notes.fsd_done($1, $2)", 2, values))
		return false;
	fsd_failpoint("after-done");
	fsd_log(FSD_LOG_INFO, "deleted", "op %s: %s removed from %s", op->op_id, op->rel, op->workspace);
	return true;
}

/* An intent: F1 unless a trash entry shows it happened before a crash. */
static bool
run_intent(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, struct op *op)
{
	struct fsd_ident in_trash;
	enum fsd_status st = fsd_trash_stat(&ws->root, op->op_id, &in_trash);
	bool held = false;

	if (!op->has_ident)
		return report_failed(pg, volume, op, "conflict", "no file identity was recorded");
	if (st == FSD_OK && fsd_ident_equal(&in_trash, &op->ident))
		return finish_delete(pg, volume, ws, op);
	if (st != FSD_NOT_FOUND && st != FSD_ERROR)
	{
		/* an entry that is not the confirmed file (a crash between the
		 * rename and its check): back where it came from */
		st = fsd_trash_put_back(&ws->root, op->op_id, op->rel, &held);
		return st == FSD_CHANGED &&
			   report_failed(pg, volume, op, "conflict",
							 held ? "another file was in its place; kept in the trash as conflict-<op id>"
								  : "the file in the trash was not the confirmed one; put back");
	}
	if (st == FSD_ERROR)
		return false;
	fsd_failpoint("before-F1");
	st = fsd_trash_move(&ws->root, op->rel, &op->ident, op->op_id, &held);
	switch (st)
	{
		case FSD_OK: fsd_failpoint("after-F1"); return finish_delete(pg, volume, ws, op);
		case FSD_NOT_FOUND: return report_failed(pg, volume, op, "missing", "no file at that path");
		case FSD_CHANGED:
			return report_failed(
				pg, volume, op, "conflict",
				held ? "the file was replaced; the replacement is kept in the trash as conflict-<op id>"
					 : "the file at that path is not the one confirmed (changed, replaced or moved)");
		case FSD_SYMLINK:
		case FSD_OUTSIDE:
		case FSD_NOT_REGULAR:
		case FSD_HARD_LINK:
		case FSD_BAD_PATH: return report_failed(pg, volume, op, "conflict", fsd_status_name(st));
		default:
			fsd_log(FSD_LOG_WARN, "delete_retry", "op %s: %s; tried again later", op->op_id,
					fsd_status_name(st));
			return false;
	}
}

static bool
run_write(struct fsd_pg *pg, const char *volume, struct fsd_workspace *ws, struct op *op)
{
	struct fsd_ident w;
	enum fsd_status st = fsd_write_note(&ws->root, op->rel, op->content, op->content_len,
										op->has_ident ? &op->ident : NULL, op->op_id, &w);
	char dev[24], ino[24], size[24], mtime[24];
	const char *values[8] = {volume, op->note_id, op->seq, dev, ino, size, mtime, fsd_status_name(st)};

	if (st == FSD_OK)
	{
		ws->known_loaded = false; /* the scan compares with the new identity */
		fsd_i64_text(dev, sizeof dev, w.dev);
		fsd_i64_text(ino, sizeof ino, w.ino);
		fsd_i64_text(size, sizeof size, (uint64_t) w.size);
		fsd_i64_text(mtime, sizeof mtime, (uint64_t) w.mtime_ns);
		return call(pg,
					"SELECT mcp_notes.fsd_written($1, $2, $3::bigint, $4::bigint, $5::bigint, $6::bigint, "
					"$7::bigint)",
					7, values);
	}
	if (st == FSD_ERROR || st == FSD_TOO_LARGE)
	{
		fsd_log(FSD_LOG_WARN, "write_retry", "note %s (%s): %s; tried again later", op->note_id, op->rel,
				fsd_status_name(st));
		return false;
	}
	fsd_log(FSD_LOG_WARN, "write_conflict", "note %s (%s in %s): %s; the file on disk is kept", op->note_id,
			op->rel, op->workspace, fsd_status_name(st));
	values[3] = fsd_status_name(st);
	return call(pg, "SELECT mcp_notes.fsd_write_failed($1, $2, $3::bigint, $4)", 4, values);
}

int
fsd_run_pending(struct fsd_pg *pg, struct fsd_volume *v)
{
	const char *values[1] = {v->name};
	PGresult *res = fsd_pg_query(pg,
								 "SELECT op_id, kind, status, workspace, rel_path, dev, ino, size, mtime_ns, "
								 "content, note_id, seq FROM mcp_notes.fsd_pending($1)",
								 1, values, NULL);
	int left = 0;

	if (!res)
		return -1;
	for (int i = 0; i < PQntuples(res) && fsd_pg_ok(pg); i++)
	{
		struct op op;
		struct fsd_workspace *ws;
		bool done;

		read_op(res, i, &op);
		ws = fsd_volume_find(v, op.workspace);
		if (!ws || !ws->usable)
			done = false; /* its root is not attached: nothing can be done there */
		else if (strcmp(op.kind, "write") == 0)
			done = run_write(pg, v->name, ws, &op);
		else if (strcmp(op.status, "trashed") == 0)
			done = finish_delete(pg, v->name, ws, &op);
		else
			done = run_intent(pg, v->name, ws, &op);
		left += !done;
	}
	PQclear(res);
	return left;
}
