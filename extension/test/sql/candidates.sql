-- Candidate search: the range path (small workspace) and the title-trigram
-- path (large workspace) must give exactly what a brute-force scan gives.
\set ECHO none
\i test/fixture.sql
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/cand/big');
SELECT mcp_notes.add_workspace('file:///t/cand/small');
SELECT count(*) FROM (
    SELECT mcp_notes.add_note(format('file:///t/cand/big/n%s.md', i),
                              format('Report %s %s', i, (ARRAY['Straße', 'café', '100% done', 'snake_case', 'back\slash', 'MiXeD'])[i % 6 + 1]))
    FROM generate_series(1, 3000) i) s;
SELECT count(*) FROM (
    SELECT mcp_notes.add_note(format('file:///t/cand/small/n%s.md', i), format('Report %s café', i))
    FROM generate_series(1, 50) i) s;
-- a sibling whose name extends the workspace's must never be offered
SELECT mcp_notes.add_note('file:///t/cand/big-evil/x.md', 'Report 1 café') IS NOT NULL AS added;
ANALYZE mcp_notes.notes;
-- _candidates takes the trigram path when the planner expects 2,000 notes
-- or more in the workspace's range: make sure "big" qualifies and "small" not.
CREATE FUNCTION pg_temp.expected_rows(prefix text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM mcp_notes.notes n '
            'WHERE n.uri COLLATE "C" >= $1 AND n.uri COLLATE "C" < $2'
        INTO plan USING prefix, left(prefix, -1) || '0';
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
END $$;
SELECT pg_temp.expected_rows('file:///t/cand/big/') >= 2000 AS big_takes_the_trigram_path,
       pg_temp.expected_rows('file:///t/cand/small/') < 2000 AS small_takes_the_range;

CREATE FUNCTION pg_temp.brute(ws text, t text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT note_id FROM mcp_notes.notes
    WHERE mcp_notes.uri_contains(ws, uri) AND strpos(lower(title), lower(t)) > 0
$$;

-- For each workspace and text: same set of notes (up to the limit of 26).
SELECT ws, t,
       (SELECT count(*) FROM mcp_notes._candidates(ws, t, 26)) AS found,
       least((SELECT count(*) FROM pg_temp.brute(ws, t)), 26) AS expected,
       (SELECT count(*) FROM mcp_notes._candidates(ws, t, 26) c
         WHERE c.note_id NOT IN (SELECT pg_temp.brute(ws, t))) AS wrong
FROM unnest(ARRAY['file:///t/cand/big', 'file:///t/cand/small']) ws,
     unnest(ARRAY['report 1 ', 'REPORT 2999', 'straSSe', 'straße', 'CAFÉ', '100% d', 'snake_c', 'e_c',
                  'back\sl', 'mixed', 'xyz', 'rt 12', 'ré', 'é']) t
ORDER BY 1, 2;
