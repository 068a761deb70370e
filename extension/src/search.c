/*
 * search.c
 *		The keys of the title index: one per (folder containing the note,
 *		gram of its title), see _title_keys in sql/src/020_title_keys.sql.
 *
 * In C because every insert computes them twice (the index and the counts
 * trigger): about 40 keys a note, linear in the title's length.  The SQL
 * side (_candidates) computes the key of one folder and gram with
 * hashtextextended(folder || ' ' || gram, 0), which for the database's
 * (deterministic) collation is hash_any_extended of those bytes: the same
 * value as here.  test/sql/candidates.sql checks both against each other.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "mcp_notes.h"

PG_FUNCTION_INFO_V1(mcp_notes_title_keys);

#define SCOPES_MAX		17		/* the root and 16 levels of folders */
#define ROOT			"file:///"
#define ROOT_LEN		8

/* A gram: bytes of the lowered title. */
typedef struct
{
	const char *start;
	int			len;
} gram;

static int
key_cmp(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/*
 * The grams of a lowered title: its trigrams (as characters of the database
 * encoding), or the whole text when it is shorter than three characters.
 * Duplicates are removed later, with the keys.
 */
static gram *
title_grams(const char *s, int len, int *n)
{
	int			chars = pg_mbstrlen_with_len(s, len);
	int		   *offset = palloc((chars + 1) * sizeof(int));
	gram	   *grams;
	int			pos = 0;

	for (int i = 0; i < chars; i++)
	{
		offset[i] = pos;
		pos += pg_mblen(s + pos);
	}
	offset[chars] = len;
	if (chars < 3)
	{
		grams = palloc(sizeof(gram));
		grams[0].start = s;
		grams[0].len = len;
		*n = 1;
		return grams;
	}
	*n = chars - 2;
	grams = palloc(*n * sizeof(gram));
	for (int i = 0; i < *n; i++)
	{
		grams[i].start = s + offset[i];
		grams[i].len = offset[i + 3] - offset[i];
	}
	return grams;
}

/*
 * The folders a note URI is in, as prefix lengths of the URI: the root
 * ("file:///"), then the URI up to each later "/", at most 16 of them.
 */
static int
uri_scopes(const char *uri, int len, int *scope_len)
{
	int			n = 0;

	scope_len[n++] = ROOT_LEN;
	for (int i = ROOT_LEN; i < len && n < SCOPES_MAX; i++)
		if (uri[i] == '/')
			scope_len[n++] = i;
	return n;
}

/*
 * The distinct title keys of a note, sorted: hashtextextended(folder || ' '
 * || gram, 0) for every folder of the URI (root first, spelled "file:///")
 * and every gram of lower(title).  *nkeys says how many; palloc'd.
 */
int64 *
mcpn_title_keys(text *uri, Datum title, int *nkeys)
{
	text	   *lowered = DatumGetTextPP(DirectFunctionCall1Coll(lower, DEFAULT_COLLATION_OID, title));
	const char *u = VARDATA_ANY(uri);
	int			scope_len[SCOPES_MAX];
	int			nscopes = uri_scopes(u, VARSIZE_ANY_EXHDR(uri), scope_len);
	int			ngrams;
	gram	   *grams = title_grams(VARDATA_ANY(lowered), VARSIZE_ANY_EXHDR(lowered), &ngrams);
	int64	   *keys = palloc(sizeof(int64) * nscopes * ngrams);
	int			n = 0;
	int			distinct = 0;
	StringInfoData buf;

	initStringInfo(&buf);
	for (int s = 0; s < nscopes; s++)
		for (int g = 0; g < ngrams; g++)
		{
			resetStringInfo(&buf);
			if (s == 0)
				appendBinaryStringInfo(&buf, ROOT, ROOT_LEN);
			else
				appendBinaryStringInfo(&buf, u, scope_len[s]);
			appendStringInfoChar(&buf, ' ');
			appendBinaryStringInfo(&buf, grams[g].start, grams[g].len);
			keys[n++] = (int64) DatumGetUInt64(hash_any_extended((unsigned char *) buf.data, buf.len, 0));
		}
	qsort(keys, n, sizeof(int64), key_cmp);
	for (int i = 0; i < n; i++)
		if (distinct == 0 || keys[i] != keys[distinct - 1])
			keys[distinct++] = keys[i];
	pfree(buf.data);
	*nkeys = distinct;
	return keys;
}

/*
 * _title_keys(uri text, title text) returns bigint[]
 *		The keys of mcpn_title_keys, as an array.
 */
Datum
mcp_notes_title_keys(PG_FUNCTION_ARGS)
{
	int			nkeys;
	int64	   *keys = mcpn_title_keys(PG_GETARG_TEXT_PP(0), PG_GETARG_DATUM(1), &nkeys);
	Datum	   *datums = palloc(sizeof(Datum) * Max(nkeys, 1));

	for (int i = 0; i < nkeys; i++)
		datums[i] = Int64GetDatum(keys[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(datums, nkeys, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}
