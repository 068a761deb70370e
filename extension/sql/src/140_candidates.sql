-- Candidate notes: inside the workspace by whole components, title contains
-- the text (uri_contains() and strpos() decide; the index only narrows).  A
-- text shorter than three characters finds the notes whose whole title it
-- is (_title_grams).  The keys looked up are the text's three rarest in the
-- workspace's folder by title_key_counts, so the cost follows the notes
-- inside the workspace that have them, whatever the rest of the table holds
-- and whether or not it was ever analyzed; it is at most the workspace's
-- own posting lists, and stops at max_rows rows.  The planner is left no
-- plan but the bitmap scan of notes_title_keys (no sequential or plain
-- index scan), since without statistics it might guess "scan in some order
-- until max_rows match", a full scan when few match.  Which max_rows rows
-- come back is unspecified: the caller only asks whether there are more
-- than it can offer, and sorts what it keeps.  A workspace deeper than the
-- 16 folder levels the keys cover is read by its URI range instead: still
-- nothing but its own notes.
CREATE OR REPLACE FUNCTION _candidates(workspace text, title_text text, max_rows integer) RETURNS SETOF notes
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
SET enable_seqscan = off
SET enable_indexscan = off
AS $$
DECLARE
    short constant boolean := length(lower(title_text)) < 3;
    folder text;
    keys bigint[];
BEGIN
    IF _uri_problem(workspace) IS NOT NULL THEN
        RETURN;     -- uri_contains() is false for every note
    END IF;
    folder := normalize_uri(workspace);
    IF cardinality(string_to_array(substr(folder, 9), '/')) > 16 THEN
        -- Deeper than the title keys reach (their postings are those of an
        -- ancestor, notes outside the workspace among them): the folder's
        -- own notes by URI range, so the cost follows them alone.
        RETURN QUERY
        SELECT n.* FROM notes n
        WHERE (n.uri = folder OR (n.uri COLLATE "C" >= folder || '/' AND n.uri COLLATE "C" < folder || '0'))
          AND uri_contains(workspace, n.uri)
          AND CASE WHEN short THEN lower(n.title) = lower(title_text)
                   ELSE strpos(lower(n.title), lower(title_text)) > 0 END
        LIMIT max_rows;
        RETURN;
    END IF;
    SELECT array_agg(r.key ORDER BY r.notes, r.key) INTO keys
    FROM (SELECT k.key, (SELECT coalesce(sum(c.notes), 0) FROM title_key_counts c
                         WHERE c.title_key = k.key) AS notes
          FROM unnest(_title_grams(title_text)) AS g(gram),
               LATERAL (SELECT hashtextextended(folder || ' ' || g.gram, 0)) AS k(key)) r;
    RETURN QUERY
    SELECT n.* FROM notes n
    WHERE n.uri = folder
      AND CASE WHEN short THEN lower(n.title) = lower(title_text)
               ELSE strpos(lower(n.title), lower(title_text)) > 0 END
    UNION ALL
    (SELECT n.* FROM notes n
     WHERE _title_keys(n.uri, n.title) @> keys[1:3]
       AND n.uri <> folder
       AND uri_contains(workspace, n.uri)
       AND CASE WHEN short THEN lower(n.title) = lower(title_text)
                ELSE strpos(lower(n.title), lower(title_text)) > 0 END
     LIMIT max_rows)
    LIMIT max_rows;
END;
$$;
COMMENT ON FUNCTION _candidates(text, text, integer) IS
'Internal: up to max_rows notes inside a workspace whose title contains the text (equals it, below three characters), through the workspace''s own title keys';
