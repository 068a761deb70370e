-- A workspace's search reads its own notes only, at any depth.  The title
-- keys cover 16 folder levels; before 1.4 a deeper workspace was searched
-- through its 16-level ancestor's keys, whose postings held the notes of
-- every sibling under that ancestor, granted or not: 12,000 hidden matching
-- notes made step 1 five times slower (a timing oracle).  Counted here not
-- in time but in index entries read, from the transaction's own statistics.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

-- 16 levels of folders, then the granted workspace two levels further down
\set ancestor 'file:///t/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/d13/d14/d15/d16/d17'
SELECT :'ancestor' || '/d18/ws' AS ws, :'ancestor' || '/d18/hidden' AS hidden \gset
SELECT cardinality(string_to_array(substr(:'ws', 9), '/')) AS workspace_depth;
SELECT mcp_notes.add_workspace(:'ws'), mcp_notes.grant_workspace('deb', :'ws');
SELECT count(*) AS own_notes FROM (
    SELECT mcp_notes.add_note(format('%s/n%s.md', :'ws', i), 'quarterly report ' || i) FROM generate_series(1, 3) i) s;

-- Index entries one _candidates call reads, over the indexes of notes
CREATE FUNCTION pg_temp.entries_read(ws text, text_ text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    before bigint;
    found bigint;
BEGIN
    SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid)) INTO before
    FROM pg_index i WHERE i.indrelid = 'mcp_notes.notes'::regclass;
    SELECT count(*) INTO found FROM mcp_notes._candidates(ws, text_, 26);
    RETURN (SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid)) FROM pg_index i
            WHERE i.indrelid = 'mcp_notes.notes'::regclass) - before;
END;
$$;

BEGIN;
SELECT count(*) AS found FROM mcp_notes._candidates(:'ws', 'quarterly', 26);
SELECT pg_temp.entries_read(:'ws', 'quarterly') AS entries_without_hidden_notes \gset
COMMIT;

-- 2,000 matching notes in an ungranted sibling under the same ancestor
SELECT count(*) AS hidden_notes FROM (
    SELECT mcp_notes.add_note(format('%s/h%s.md', :'hidden', i), 'quarterly report hidden ' || i)
    FROM generate_series(1, 2000) i) s;

BEGIN;
SELECT count(*) AS found FROM mcp_notes._candidates(:'ws', 'quarterly', 26);
SELECT pg_temp.entries_read(:'ws', 'quarterly') = :entries_without_hidden_notes AS entries_unchanged_by_hidden_notes,
       pg_temp.entries_read(:'ws', 'quarterly') <= 3 + 1 AS at_most_its_own_notes;
COMMIT;

-- the answers are right, inside and below the deep workspace, short texts too
SELECT count(*) AS found_below FROM mcp_notes._candidates(:'ws' || '/', 'REPORT 2', 26);
SELECT mcp_notes.add_note(:'ws' || '/sub/q.md', 'Q') IS NOT NULL AS added;
SELECT c.uri = :'ws' || '/sub/q.md' AS short_title_found FROM mcp_notes._candidates(:'ws' || '/sub', 'q', 26) c;
SELECT count(*) AS nothing_outside FROM mcp_notes._candidates(:'ws', 'hidden', 26);
-- the hidden folder's own search finds its notes (and stops at max_rows)
SELECT count(*) AS hidden_found FROM mcp_notes._candidates(:'hidden', 'quarterly', 26);
-- a workspace at exactly 16 levels still uses its keys
SELECT cardinality(string_to_array(substr(:'ancestor', 9), '/')) AS ancestor_depth,
       count(*) AS found_through_keys FROM mcp_notes._candidates(:'ancestor', 'report hidden 1999', 26);

-- through the tool, as a gateway calls it
SET default_transaction_isolation = serializable;
SELECT jsonb_array_length(mcp_notes.handle_as('deb', jsonb_build_object('method', 'tools/call', 'params',
           jsonb_build_object('name', 'notes_search', 'arguments', jsonb_build_object(
               'workspaceUri', :'ws', 'query', 'quarterly'))))
           #> '{result,structuredContent,notes}') AS searched;
RESET default_transaction_isolation;
