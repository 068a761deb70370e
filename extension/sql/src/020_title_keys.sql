-------------------------------------------------------------------------------
-- Title search keys and their counts
-------------------------------------------------------------------------------

-- Title search is "contains, case-insensitive", which no btree can answer.
-- notes_title_keys, a GIN index (core array_ops: no contrib module needed),
-- holds one key per (folder that contains the note, trigram of its title):
-- the postings of a key hold only notes inside that folder, so a search in
-- a workspace reads nothing of the notes outside it, and its latency says
-- nothing about them.  title_key_counts, kept by triggers, says how many
-- notes were given each key, so a search looks up the rarest keys of its
-- text without planner statistics.  The index only narrows: uri_contains()
-- and strpos() decide.  See _candidates() and docs/performance.md.

-- One pass over the characters (the window functions read each once), so
-- the cost is linear in the title's length.
CREATE OR REPLACE FUNCTION _title_trigrams(title text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(array_agg(s.gram ORDER BY s.i), '{}')
    FROM (SELECT u.i, u.c || lead(u.c, 1) OVER w || lead(u.c, 2) OVER w AS gram
          FROM unnest(regexp_split_to_array(lower(title), '')) WITH ORDINALITY AS u(c, i)
          WINDOW w AS (ORDER BY u.i)) s
    WHERE s.gram IS NOT NULL
$$;
COMMENT ON FUNCTION _title_trigrams(text) IS
'Internal: the three-character substrings of lower(title), in order (a title that contains a text has all of its trigrams)';

-- A text of three characters or more is looked up by its trigrams; a
-- shorter one has none, so it stands for itself: it finds the notes whose
-- whole title it is (case-insensitive), which one key per short title
-- answers at the cost of any other key.
CREATE OR REPLACE FUNCTION _title_grams(title text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN length(lower(title)) < 3 THEN ARRAY[lower(title)]
                ELSE ARRAY(SELECT DISTINCT g FROM unnest(_title_trigrams(title)) AS g ORDER BY g) END
$$;
COMMENT ON FUNCTION _title_grams(text) IS
'Internal: the distinct trigrams of lower(title), or lower(title) itself when it is shorter than three characters';

-- The keys of a note: a 64-bit hash of (folder, gram), for the root and
-- each folder above the note down to 16 levels (_candidates reads a deeper
-- workspace by its URI range) and each of _title_grams(title).  Not the note's own URI: a
-- workspace equal to a note's URI is looked up by URI.  A collision only
-- lets a note of another folder into a posting list, where uri_contains()
-- drops it.  In C (src/search.c): every insert computes them twice.
CREATE OR REPLACE FUNCTION _title_keys(uri text, title text) RETURNS bigint[]
AS 'MODULE_PATHNAME', 'mcp_notes_title_keys'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _title_keys(text, text) IS
'Internal: the title index keys of a note: hashtextextended(folder || '' '' || gram, 0) for each folder it is in (root, then 16 levels) and gram of _title_grams(title)';

-- Counting at commit, once per key and transaction: a row updated many
-- times in one transaction leaves a chain of versions that each later
-- update walks, so counting each note as it comes would make a bulk import
-- in one transaction quadratic.  The row trigger adds the keys of a note
-- written (and takes those of the title and URI it had) to sums kept in
-- the backend's memory (src/title_counts.c), and the first deferred
-- trigger at commit writes them into title_key_counts.  Not in a table of
-- the session's, such as a temporary table: the session may be a
-- gateway's, which could create it first with code of its own for the
-- owner's trigger to run.
CREATE OR REPLACE FUNCTION _note_title_keys_written() RETURNS trigger
AS 'MODULE_PATHNAME', 'mcp_notes_title_keys_written'
LANGUAGE C;
COMMENT ON FUNCTION _note_title_keys_written() IS
'Internal: row trigger on notes (insert, or URI or title changed): adds the note''s title keys to this transaction''s sums and takes the old ones, for _count_title_keys at commit';

CREATE OR REPLACE FUNCTION _title_key_deltas_pending() RETURNS boolean
AS 'MODULE_PATHNAME', 'mcp_notes_title_key_deltas_pending'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION _title_key_deltas_pending() IS
'Internal: whether this transaction has title key sums not yet written to title_key_counts';

CREATE OR REPLACE FUNCTION _title_key_deltas(OUT title_key bigint, OUT shard smallint, OUT delta bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'mcp_notes_title_key_deltas'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION _title_key_deltas() IS
'Internal: this transaction''s title key sums not yet written (a row per nesting level and key), forgotten once returned';

-- Adds deltas (one per key and shard) to the counts, keys in order (two
-- writers lock shared rows in the same order); a count that reaches zero
-- goes, so the table holds the keys notes have and no more.
CREATE OR REPLACE FUNCTION _apply_title_key_deltas(keys bigint[], shards smallint[], deltas bigint[]) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    INSERT INTO title_key_counts AS c (title_key, shard, notes)
    SELECT d.k, d.s, d.n FROM unnest(keys, shards, deltas) AS d(k, s, n) ORDER BY 1, 2
    ON CONFLICT (title_key, shard) DO UPDATE SET notes = c.notes + excluded.notes;
    DELETE FROM title_key_counts c
    USING unnest(keys, shards, deltas) AS d(k, s, n)
    WHERE d.n < 0 AND c.title_key = d.k AND c.shard = d.s AND c.notes <= 0;
END;
$$;
COMMENT ON FUNCTION _apply_title_key_deltas(bigint[], smallint[], bigint[]) IS
'Internal: adds one delta per (title key, shard) to title_key_counts, in key order, and removes the counts that reach zero';

-- Writes this transaction's sums: at commit (_count_title_keys), or early
-- when a transaction has written very many keys (src/title_counts.c).
CREATE OR REPLACE FUNCTION _count_title_keys_now() RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    keys bigint[];
    shards smallint[];
    deltas bigint[];
BEGIN
    SELECT array_agg(d.title_key ORDER BY d.title_key, d.shard), array_agg(d.shard ORDER BY d.title_key, d.shard),
           array_agg(d.delta ORDER BY d.title_key, d.shard)
      INTO keys, shards, deltas
    FROM (SELECT x.title_key, x.shard, sum(x.delta)::bigint AS delta FROM _title_key_deltas() x
          GROUP BY 1, 2 HAVING sum(x.delta) <> 0) d;
    IF keys IS NOT NULL THEN
        PERFORM _apply_title_key_deltas(keys, shards, deltas);
    END IF;
END;
$$;
COMMENT ON FUNCTION _count_title_keys_now() IS
'Internal: writes this transaction''s title key sums (_title_key_deltas) into title_key_counts';

-- One event per written row fires at commit: the first writes the sums,
-- the others find none.  As the owner: a deferred trigger fires at COMMIT,
-- after the SECURITY DEFINER entry point has returned, as the gateway role,
-- which may not touch the counts.
CREATE OR REPLACE FUNCTION _count_title_keys() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF _title_key_deltas_pending() THEN
        PERFORM _count_title_keys_now();
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _count_title_keys() IS
'Internal: deferred trigger: writes the title key sums this transaction''s notes added up to (_count_title_keys_now), once';

-- A delete does not count down at once: two deletes of notes in one folder
-- share keys, and counting down then would make them update the same count
-- rows, so that one of them failed to serialize.  A deleted note's keys go
-- to title_key_decrements instead (an insert, which conflicts with
-- nothing); prune_spent_states() takes them from the counts later
-- (_fold_title_key_decrements).  Until then a count only overstates.
CREATE OR REPLACE FUNCTION _note_title_keys_deleted() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    INSERT INTO title_key_decrements (shard, title_keys)
    VALUES ((hashtext(OLD.note_id) & 7)::smallint, _title_keys(OLD.uri, OLD.title));
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _note_title_keys_deleted() IS
'Internal: row trigger on notes (delete): records the deleted note''s title keys in title_key_decrements, to be taken from the counts by prune_spent_states()';

-- Takes the recorded deletes from the counts, up to max_notes of them,
-- oldest first; returns how many.  Not a writer of notes' job (it would
-- read what concurrent deletes insert, and make them fail to serialize):
-- the operator's periodic prune_spent_states() runs it.
CREATE OR REPLACE FUNCTION _fold_title_key_decrements(max_notes integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    folded bigint;
    keys bigint[];
    shards smallint[];
    deltas bigint[];
BEGIN
    -- one folder at a time: two would take the same rows
    PERFORM pg_advisory_xact_lock(hashtext('mcp_notes.title_key_decrements'));
    WITH taken AS (
        DELETE FROM title_key_decrements d
        WHERE d.decrement_id IN (SELECT x.decrement_id FROM title_key_decrements x
                                 ORDER BY x.decrement_id LIMIT max_notes)
        RETURNING d.shard, d.title_keys),
    sums AS (
        SELECT k.key AS title_key, t.shard, -count(*) AS delta
        FROM taken t, unnest(t.title_keys) AS k(key) GROUP BY 1, 2)
    SELECT array_agg(s.title_key ORDER BY s.title_key, s.shard), array_agg(s.shard ORDER BY s.title_key, s.shard),
           array_agg(s.delta ORDER BY s.title_key, s.shard), (SELECT count(*) FROM taken)
      INTO keys, shards, deltas, folded
    FROM sums s;
    IF keys IS NOT NULL THEN
        PERFORM _apply_title_key_deltas(keys, shards, deltas);
    END IF;
    RETURN coalesce(folded, 0);
END;
$$;
COMMENT ON FUNCTION _fold_title_key_decrements(integer) IS
'Internal: takes up to max_notes recorded deletes (title_key_decrements, oldest first) from title_key_counts; returns how many';

-- Recounting from the notes themselves: the upgrade's back-fill and the end
-- of a bulk load made with the counting triggers disabled (much faster).
CREATE OR REPLACE FUNCTION recount_title_keys() RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    keys bigint;
BEGIN
    LOCK TABLE notes IN SHARE MODE;
    PERFORM pg_advisory_xact_lock(hashtext('mcp_notes.title_key_decrements'));
    DELETE FROM title_key_decrements;
    DELETE FROM title_key_counts;
    INSERT INTO title_key_counts (title_key, shard, notes)
    SELECT k.key, (hashtext(n.note_id) & 7)::smallint, count(*)
    FROM notes n, unnest(_title_keys(n.uri, n.title)) AS k(key)
    GROUP BY 1, 2;
    GET DIAGNOSTICS keys = ROW_COUNT;
    RETURN keys;
END;
$$;
COMMENT ON FUNCTION recount_title_keys() IS
'Recounts title_key_counts from the notes (after a bulk load with the counting triggers disabled); returns the number of count rows';
