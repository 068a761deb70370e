/*
 * title_counts.c
 *		The title key counts a transaction's writes of notes add up to, kept
 *		in this backend's memory until the transaction writes them.
 *
 * A note written adds one to the count of each of its title keys (in its
 * shard); a changed title or URI also takes one from each old key.  Counting
 * row by row would update the same count rows once per note, and in one
 * transaction every update of a row walks the versions the earlier ones left
 * behind, so a bulk import in one transaction would be quadratic.  So the
 * row trigger (_note_title_keys_written) only adds the keys to sums held
 * here, and the first deferred trigger at commit writes them
 * (_count_title_keys, through _title_key_deltas()).
 *
 * The sums live in backend memory, not in a table: a temporary table
 * belongs to the session, and the session may be a gateway's, which could
 * create such a table first, with a default or a trigger of its own, and
 * have the owner's trigger run it.  Nothing here is reachable from SQL but
 * through the functions below.
 *
 * Subtransactions: each nesting level that wrote notes has sums of its own;
 * a level that aborts is dropped with its rows, one that commits is added to
 * its parent.  A transaction that writes a great many distinct keys writes
 * its sums early (at MAX_ENTRIES), so memory stays bounded.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_collation.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "mcp_notes.h"

PG_FUNCTION_INFO_V1(mcp_notes_title_keys_written);
PG_FUNCTION_INFO_V1(mcp_notes_title_key_deltas);
PG_FUNCTION_INFO_V1(mcp_notes_title_key_deltas_pending);

#define SHARDS_MASK		7			/* 8 shards, by note id */
#define MAX_ENTRIES		262144		/* sums held before they are written early */

/* one count row: two int64 so that the hash key has no padding */
typedef struct
{
	int64		title_key;
	int64		shard;
} count_key;

typedef struct
{
	count_key	key;
	int64		delta;
} count_delta;

typedef struct level
{
	int			nest;			/* transaction nesting level of these sums */
	HTAB	   *sums;
	struct level *parent;
} level;

static MemoryContext sums_context = NULL;	/* in TopTransactionContext */
static level *levels = NULL;	/* the innermost level first */
static long entries = 0;		/* over all levels */

static void
forget_all(void)
{
	/* the memory goes with TopTransactionContext */
	sums_context = NULL;
	levels = NULL;
	entries = 0;
}

static void
drop_level(void)
{
	level	   *top = levels;

	entries -= hash_get_num_entries(top->sums);
	levels = top->parent;
	hash_destroy(top->sums);
	pfree(top);
}

static HTAB *
new_sums(void)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(count_key);
	ctl.entrysize = sizeof(count_delta);
	ctl.hcxt = sums_context;
	return hash_create("mcp_notes title key sums", 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
add(HTAB *sums, const count_key *key, int64 delta)
{
	bool		found;
	count_delta *d = hash_search(sums, key, HASH_ENTER, &found);

	if (!found)
	{
		d->delta = 0;
		entries++;
	}
	d->delta += delta;
}

/* the sums of the current nesting level, made when it first writes */
static HTAB *
current_sums(void)
{
	int			nest = GetCurrentTransactionNestLevel();

	if (sums_context == NULL)
		sums_context = AllocSetContextCreate(TopTransactionContext, "mcp_notes title key sums",
											 ALLOCSET_DEFAULT_SIZES);
	if (levels == NULL || levels->nest < nest)
	{
		level	   *l = MemoryContextAlloc(sums_context, sizeof(level));

		l->nest = nest;
		l->sums = new_sums();
		l->parent = levels;
		levels = l;
	}
	return levels->sums;
}

static void
on_subxact(SubXactEvent event, SubTransactionId sub, SubTransactionId parent_sub, void *arg)
{
	int			nest = GetCurrentTransactionNestLevel();

	if (levels == NULL || levels->nest < nest)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		while (levels != NULL && levels->nest >= nest)
			drop_level();
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		level	   *top = levels;

		if (top->parent == NULL || top->parent->nest < nest - 1)
			top->nest = nest - 1;	/* the parent wrote nothing: these become its sums */
		else
		{
			HASH_SEQ_STATUS seq;
			count_delta *d;

			hash_seq_init(&seq, top->sums);
			while ((d = hash_seq_search(&seq)) != NULL)
				add(top->parent->sums, &d->key, d->delta);
			drop_level();
		}
	}
}

static void
on_xact(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			forget_all();
			break;
		default:
			break;
	}
}

void
mcpn_title_counts_init(void)
{
	RegisterXactCallback(on_xact, NULL);
	RegisterSubXactCallback(on_subxact, NULL);
}

/* adds sign to the count of every title key of the note in tuple */
static void
count_note(TupleDesc desc, HeapTuple tuple, int64 sign)
{
	bool		null_id,
				null_uri,
				null_title;
	Datum		id = heap_getattr(tuple, 1, desc, &null_id);
	Datum		uri = heap_getattr(tuple, 2, desc, &null_uri);
	Datum		title = heap_getattr(tuple, 3, desc, &null_title);
	HTAB	   *sums;
	count_key	key;
	int			nkeys;
	int64	   *keys;

	if (null_id || null_uri || null_title)
		return;
	keys = mcpn_title_keys(DatumGetTextPP(uri), title, &nkeys);
	key.shard = DatumGetInt32(DirectFunctionCall1Coll(hashtext, DEFAULT_COLLATION_OID, id)) & SHARDS_MASK;
	sums = current_sums();
	for (int i = 0; i < nkeys; i++)
	{
		key.title_key = keys[i];
		add(sums, &key, sign);
	}
	pfree(keys);
}

/* many distinct keys: the sums are written now rather than at commit */
static void
write_early(void)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT mcp_notes._count_title_keys_now()", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "_count_title_keys_now() failed");
	SPI_finish();
}

/*
 * _note_title_keys_written() trigger
 *		AFTER INSERT or UPDATE OF uri, title, FOR EACH ROW on notes: adds the
 *		new row's keys to the sums and, for an update, takes the old row's.
 *		The columns are notes' first three: note_id, uri, title.
 */
Datum
mcp_notes_title_keys_written(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TupleDesc	desc;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		elog(ERROR, "_note_title_keys_written must be an AFTER ... FOR EACH ROW trigger");
	desc = RelationGetDescr(trigdata->tg_relation);
	if (desc->natts < 3 || TupleDescAttr(desc, 0)->atttypid != TEXTOID ||
		TupleDescAttr(desc, 1)->atttypid != TEXTOID || TupleDescAttr(desc, 2)->atttypid != TEXTOID)
		elog(ERROR, "_note_title_keys_written is a trigger of mcp_notes.notes only");
	if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
		count_note(desc, trigdata->tg_trigtuple, 1);
	else if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		count_note(desc, trigdata->tg_trigtuple, -1);
		count_note(desc, trigdata->tg_newtuple, 1);
	}
	else
		elog(ERROR, "_note_title_keys_written fires on INSERT and UPDATE only");
	if (entries >= MAX_ENTRIES)
		write_early();
	return PointerGetDatum(NULL);
}

/*
 * _title_key_deltas_pending() returns boolean
 *		Whether this transaction has sums not yet written.
 */
Datum
mcp_notes_title_key_deltas_pending(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(entries > 0);
}

/*
 * _title_key_deltas() returns TABLE (title_key bigint, shard smallint, delta bigint)
 *		The sums of every level (one row per level and key: the caller adds
 *		them up), and forgets them.
 */
Datum
mcp_notes_title_key_deltas(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	while (levels != NULL)
	{
		HASH_SEQ_STATUS seq;
		count_delta *d;

		hash_seq_init(&seq, levels->sums);
		while ((d = hash_seq_search(&seq)) != NULL)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			if (d->delta == 0)
				continue;
			values[0] = Int64GetDatum(d->key.title_key);
			values[1] = Int16GetDatum((int16) d->key.shard);
			values[2] = Int64GetDatum(d->delta);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		drop_level();
	}
	return (Datum) 0;
}
