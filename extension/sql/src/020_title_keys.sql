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
-- each folder above the note down to 16 levels (a deeper workspace is
-- searched through its ancestor 16 levels down: the same answer, a wider
-- posting list) and each of _title_grams(title).  Not the note's own URI: a
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
-- in one transaction quadratic.  Each written note's keys are appended to a
-- temporary table (this session's, invisible to others, outside the
-- serializable checks), and the first of the deferred triggers at commit
-- adds them up into title_key_counts.  Both run as the extension's owner:
-- a deferred trigger fires at COMMIT, after the SECURITY DEFINER entry
-- point has returned, as the gateway role, which may not touch the counts.
CREATE OR REPLACE FUNCTION _note_title_keys_written() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF to_regclass('pg_temp.title_keys_written') IS NULL THEN
        CREATE TEMPORARY TABLE title_keys_written (title_key bigint NOT NULL, shard smallint NOT NULL);
    END IF;
    INSERT INTO pg_temp.title_keys_written (title_key, shard)
    SELECT k.key, (hashtext(NEW.note_id) & 7)::smallint FROM unnest(_title_keys(NEW.uri, NEW.title)) AS k(key);
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _note_title_keys_written() IS
'Internal: trigger that notes the title keys of a written note (inserted, or URI or title changed) for _count_title_keys at commit';

CREATE OR REPLACE FUNCTION _count_title_keys() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    -- One event per written row fires at commit; the first adds up every
    -- row and truncates, the others find the table empty and stop here
    -- (before a TRUNCATE, whose check of pending trigger events would make
    -- a commit of n rows cost n squared).
    IF to_regclass('pg_temp.title_keys_written') IS NULL THEN
        RETURN NULL;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_temp.title_keys_written) THEN
        RETURN NULL;
    END IF;
    -- keys in order: two writers lock shared rows in the same order
    INSERT INTO title_key_counts AS c (title_key, shard, notes)
    SELECT w.title_key, w.shard, count(*) FROM pg_temp.title_keys_written w
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (title_key, shard) DO UPDATE SET notes = c.notes + excluded.notes;
    -- TRUNCATE, not DELETE: the deferred triggers after this one scan the
    -- table again, and deleted rows would stay in it until commit
    TRUNCATE pg_temp.title_keys_written;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _count_title_keys() IS
'Internal: deferred trigger: adds the title keys this transaction wrote (_note_title_keys_written) to title_key_counts, once per key';

-- Recounting from the notes themselves: the upgrade's back-fill, the end of
-- a bulk load made with the counting trigger disabled (much faster), and a
-- way to bring the counts down after many deletes (never needed for answers).
CREATE OR REPLACE FUNCTION recount_title_keys() RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    keys bigint;
BEGIN
    LOCK TABLE notes IN SHARE MODE;
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
'Recounts title_key_counts from the notes (after many deletes the counts only overstate); returns the number of count rows';
