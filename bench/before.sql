-- The 1.2 candidate search (planner statistics: reltuples, the MCELEM slot
-- of the trigram index, an EXPLAIN of the workspace range), over the 1.3
-- schema: `run.py --variant before` applies it to its throw-away databases
-- only, for the before/after numbers of docs/performance.md.
DROP INDEX mcp_notes.notes_title_keys;
SET search_path = mcp_notes, pg_temp;
CREATE OR REPLACE FUNCTION _title_trigrams(title text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    t text := lower(title);
    grams text[] := '{}';
BEGIN
    FOR i IN 1 .. length(t) - 2 LOOP
        grams := grams || substr(t, i, 3);
    END LOOP;
    RETURN grams;
END;
$$;
COMMENT ON FUNCTION _title_trigrams(text) IS
'Internal: the three-character substrings of lower(title), for the title index (a title that contains a text has all of its trigrams)';
-- fastupdate = off: a pending list would be scanned linearly by every search
-- until the next vacuum; notes are added far less often than searched.
CREATE INDEX notes_title_trigrams ON notes USING gin (_title_trigrams(title)) WITH (fastupdate = off);
-- Which trigrams of a searched text to look up in notes_title_trigrams.  A
-- frequent trigram ("the", " #0") costs a long posting list and narrows
-- little: with a million notes, looking up all 23 trigrams of a title takes
-- ~9 ms, its three rarest ~0.5 ms.  So on a large table the keys are the
-- trigrams rarer than 1% by the index's statistics (most_common_elems, a
-- sorted array: width_bucket() is a binary search), at least the three
-- rarest, at most eight; the rest are checked by strpos() on the few rows
-- found.  Small tables, texts with few trigrams and tables never analyzed
-- use every trigram.  Any subset of the text's trigrams is a necessary
-- condition, so the choice changes speed, never the answer.
CREATE FUNCTION _title_search_keys(title_text text) RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    grams text[] := ARRAY(SELECT DISTINCT g FROM unnest(_title_trigrams(title_text)) AS g);
    table_rows real;
    elems text[];
    freqs real[];
    ranked text[];
    rare text[];
BEGIN
    IF cardinality(grams) <= 3 THEN
        RETURN grams;
    END IF;
    SELECT c.reltuples INTO table_rows FROM pg_class c WHERE c.oid = 'mcp_notes.notes'::regclass;
    IF table_rows < 100000 THEN
        RETURN grams;
    END IF;
    -- pg_statistic slot of kind 4 (STATISTIC_KIND_MCELEM) of the index expression
    SELECT CASE 4 WHEN st.stakind1 THEN st.stavalues1 WHEN st.stakind2 THEN st.stavalues2
                  WHEN st.stakind3 THEN st.stavalues3 WHEN st.stakind4 THEN st.stavalues4
                  WHEN st.stakind5 THEN st.stavalues5 END::text::text[],
           CASE 4 WHEN st.stakind1 THEN st.stanumbers1 WHEN st.stakind2 THEN st.stanumbers2
                  WHEN st.stakind3 THEN st.stanumbers3 WHEN st.stakind4 THEN st.stanumbers4
                  WHEN st.stakind5 THEN st.stanumbers5 END
      INTO elems, freqs
    FROM pg_statistic st
    WHERE st.starelid = 'mcp_notes.notes_title_trigrams'::regclass AND st.staattnum = 1
      AND NOT st.stainherit;
    IF elems IS NULL THEN
        RETURN grams;
    END IF;
    SELECT array_agg(x.g ORDER BY x.f, x.g), array_agg(x.g ORDER BY x.f, x.g) FILTER (WHERE x.f < 0.01)
      INTO ranked, rare
    FROM (SELECT u.g, CASE WHEN elems[u.i] = u.g THEN freqs[u.i] ELSE 0 END AS f
          FROM (SELECT g, width_bucket(g, elems) AS i FROM unnest(grams) AS g) u) x;
    IF cardinality(rare) >= 3 THEN
        RETURN rare[1:8];
    END IF;
    RETURN ranked[1:3];
END;
$$;
COMMENT ON FUNCTION _title_search_keys(text) IS
'Internal: the trigrams of a searched title to look up in notes_title_trigrams (the rarest, by statistics, on a large table)';

-- Candidate notes: inside the workspace by whole components, title contains
-- the text (uri_contains() and strpos() decide; the indexes only narrow).
-- Two ways to find them, chosen by the size of the workspace:
--  - a small workspace (the planner expects fewer than small_workspace notes
--    in its range) is read through its range of notes_uri_bytewise: cost
--    bounded by its size, whatever the title;
--  - a larger one is searched through notes_title_trigrams: cost grows with
--    the notes (anywhere) that have the text's rarest trigrams, not with the
--    workspace, and the serializable transaction reads (and predicate-locks)
--    only those rows instead of the whole workspace.  A text shorter than
--    three characters has no trigram and always takes the range.
-- The size comes from the planner's statistics (EXPLAIN, about 40 us), not
-- from counting rows, which would predicate-lock them.  With stale
-- statistics a grown workspace may take the range: slower, still right.
-- Each search is a MATERIALIZED CTE, planned for all its rows: a LIMIT in
-- the same query level would tempt the planner into "scan in some order
-- until max_rows match", a full scan when few match.  Which max_rows rows
-- come back is unspecified: the caller only asks whether there are more
-- than it can offer, and sorts what it keeps.
CREATE OR REPLACE FUNCTION _candidates(workspace text, title_text text, max_rows integer) RETURNS SETOF notes
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    small_workspace constant integer := 2000;
    prefix text := CASE WHEN right(workspace, 1) = '/' THEN workspace ELSE workspace || '/' END;
    keys text[];
    plan json;
    expected bigint := 0;
BEGIN
    IF length(lower(title_text)) >= 3 THEN
        -- EXPLAIN is why this function is VOLATILE
        EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM mcp_notes.notes n '
                'WHERE n.uri COLLATE "C" >= $1 AND n.uri COLLATE "C" < $2'
            INTO plan USING prefix, left(prefix, -1) || '0';
        expected := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
    END IF;
    IF expected < small_workspace THEN
        RETURN QUERY
        WITH found AS MATERIALIZED (
            SELECT n.*
            FROM notes n
            WHERE (n.uri = workspace
                   OR (n.uri COLLATE "C" >= prefix AND n.uri COLLATE "C" < left(prefix, -1) || '0'))
              AND uri_contains(workspace, n.uri)
              AND strpos(lower(n.title), lower(title_text)) > 0)
        SELECT * FROM found LIMIT max_rows;
    ELSE
        keys := _title_search_keys(title_text);
        RETURN QUERY
        WITH found AS MATERIALIZED (
            SELECT n.*
            FROM notes n
            WHERE _title_trigrams(n.title) @> keys
              AND uri_contains(workspace, n.uri)
              AND strpos(lower(n.title), lower(title_text)) > 0)
        SELECT * FROM found LIMIT max_rows;
    END IF;
END;
$$;
COMMENT ON FUNCTION _candidates(text, text, integer) IS
'Internal: up to max_rows notes inside a workspace whose title contains the text (through the title trigram index unless the workspace is small)';

RESET search_path;
