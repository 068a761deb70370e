-- The candidate search of mcp_notes 1.0 before the performance work (git
-- history of extension/sql/mcp_notes--1.0.sql), for `bench/run.py --variant
-- baseline`: a range scan of the whole workspace, no title index.  Applied
-- as superuser to the throw-away benchmark database only.
DROP INDEX IF EXISTS mcp_notes.notes_title_trigrams, mcp_notes.notes_title_keys;
CREATE OR REPLACE FUNCTION mcp_notes._candidates(workspace text, title_text text, max_rows integer)
RETURNS SETOF mcp_notes.notes
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH bounds AS (
        SELECT CASE WHEN right(workspace, 1) = '/' THEN workspace ELSE workspace || '/' END AS prefix
    )
    SELECT n.*
    FROM notes n, bounds b
    WHERE (n.uri = workspace
           OR (n.uri COLLATE "C" >= b.prefix AND n.uri COLLATE "C" < left(b.prefix, -1) || '0'))
      AND uri_contains(workspace, n.uri)
      AND strpos(lower(n.title), lower(title_text)) > 0
    ORDER BY n.uri, n.note_id
    LIMIT max_rows
$$;
