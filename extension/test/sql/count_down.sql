-- The title key counts hold what the notes have and no more: an update
-- takes the old title's keys off (counts at zero go), a delete is recorded
-- and taken off by prune_spent_states(), a rolled-back savepoint counts
-- nothing, and a transaction with very many keys writes them early without
-- losing any.  (Before 1.4 the table only grew: every new title added rows,
-- nothing ever removed them.)
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

-- exact: the counts are what the notes have, key by key and shard by shard
CREATE FUNCTION pg_temp.counts_exact() RETURNS boolean LANGUAGE sql AS $$
    WITH exact AS (SELECT k AS title_key, (hashtext(n.note_id) & 7)::smallint AS shard, count(*) AS notes
                   FROM mcp_notes.notes n, unnest(mcp_notes._title_keys(n.uri, n.title)) k GROUP BY 1, 2)
    SELECT NOT EXISTS (SELECT * FROM exact EXCEPT SELECT * FROM mcp_notes.title_key_counts)
       AND NOT EXISTS (SELECT * FROM mcp_notes.title_key_counts EXCEPT SELECT * FROM exact)
$$;
-- never below: every key counted at least as often as notes have it
CREATE FUNCTION pg_temp.counts_cover() RETURNS boolean LANGUAGE sql AS $$
    SELECT NOT EXISTS (
        SELECT 1 FROM (SELECT k, count(*) AS notes FROM mcp_notes.notes n, unnest(mcp_notes._title_keys(n.uri, n.title)) k
                       GROUP BY k) a
        LEFT JOIN (SELECT title_key, sum(notes) AS notes FROM mcp_notes.title_key_counts GROUP BY 1) c ON c.title_key = a.k
        WHERE coalesce(c.notes, 0) < a.notes)
$$;

SELECT mcp_notes.add_workspace('file:///t/count'), mcp_notes.grant_workspace('carl', 'file:///t/count');
SET default_transaction_isolation = serializable;

-- One deeply nested note retitled 100 times with 500-character titles, as
-- notes_update does it: the table keeps the keys of one title.
SELECT mcp_notes.add_note('file:///t/count/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/deep.md', 'first title') AS deep \gset
SELECT count(*) AS retitled FROM (
    SELECT mcp_notes.handle_as('carl', jsonb_build_object('method', 'tools/call', 'params', jsonb_build_object(
               'name', 'notes_update', 'arguments', jsonb_build_object(
                   'workspaceUri', 'file:///t/count', 'noteId', :'deep',
                   'title', left(repeat(md5(i::text), 16), 500)))))
    FROM generate_series(1, 100) i) s;
SELECT pg_temp.counts_exact() AS exact_after_retitles,
       (SELECT count(*) FROM mcp_notes.title_key_counts)
     = (SELECT cardinality(mcp_notes._title_keys(n.uri, n.title)) FROM mcp_notes.notes n WHERE n.note_id = :'deep')
       AS one_title_of_rows;

-- A savepoint rolled back counts nothing; one released counts once.
BEGIN;
SELECT mcp_notes.add_note('file:///t/count/kept.md', 'kept in the transaction') IS NOT NULL AS added;
SAVEPOINT s1;
SELECT mcp_notes.add_note('file:///t/count/gone.md', 'rolled back entirely') IS NOT NULL AS added;
SAVEPOINT s2;
SELECT mcp_notes.add_note('file:///t/count/gone2.md', 'rolled back nested') IS NOT NULL AS added;
RELEASE SAVEPOINT s2;
ROLLBACK TO SAVEPOINT s1;
SAVEPOINT s3;
SELECT mcp_notes.add_note('file:///t/count/inner.md', 'released savepoint') IS NOT NULL AS added;
RELEASE SAVEPOINT s3;
COMMIT;
SELECT pg_temp.counts_exact() AS exact_after_savepoints;

-- A delete is recorded, not counted down at once (two deletes in a folder
-- would update the same rows); prune_spent_states() takes it off.
SELECT count(*) AS count_rows FROM mcp_notes.title_key_counts \gset
DELETE FROM mcp_notes.notes WHERE uri = 'file:///t/count/kept.md';
SELECT (SELECT count(*) FROM mcp_notes.title_key_counts) = :count_rows AS counts_untouched_by_the_delete,
       (SELECT count(*) FROM mcp_notes.title_key_decrements) AS deletes_recorded,
       pg_temp.counts_cover() AS still_never_below;
SELECT mcp_notes.prune_spent_states() >= 1 AS pruned;
SELECT pg_temp.counts_exact() AS exact_after_prune,
       (SELECT count(*) FROM mcp_notes.title_key_decrements) AS deletes_left;

-- 100 creates and deletes at ever new places: bounded by the recorded
-- deletes until the prune, then exactly the notes that are left.
SELECT count(*) AS cycles FROM (
    SELECT mcp_notes.add_note(format('file:///t/count/cycle/%s/n.md', i), 'cycle ' || md5(i::text)) FROM generate_series(1, 100) i) s;
DELETE FROM mcp_notes.notes WHERE uri LIKE 'file:///t/count/cycle/%';
SELECT (SELECT count(*) FROM mcp_notes.title_key_decrements) AS deletes_recorded, pg_temp.counts_cover() AS never_below;
SELECT mcp_notes.prune_spent_states() >= 100 AS pruned;
SELECT pg_temp.counts_exact() AS exact_after_cycles,
       (SELECT count(*) FROM mcp_notes.title_key_decrements) AS deletes_left;

-- Very many distinct keys in one transaction (40 titles of 500 different
-- characters, deeply nested: about 340,000 keys, more than the 262,144 sums
-- held in memory) are written early, and none is lost.
BEGIN;
SELECT count(*) AS long_titles FROM (
    SELECT mcp_notes.add_note(format('file:///t/count/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/long%s.md', i),
                              (SELECT string_agg(chr(256 + (i * 7919 + j * 104729) % 20000), '' ORDER BY j)
                               FROM generate_series(1, 500) j))
    FROM generate_series(1, 40) i) s;
SELECT (SELECT count(*) FROM mcp_notes.title_key_counts) > :count_rows AS written_before_commit;
COMMIT;
SELECT pg_temp.counts_exact() AS exact_after_a_large_transaction;

-- recount_title_keys() starts over from the notes, the recorded deletes too.
DELETE FROM mcp_notes.notes WHERE uri LIKE 'file:///t/count/a/b/c/%long%';
SELECT mcp_notes.recount_title_keys() > 0 AS recounted;
SELECT pg_temp.counts_exact() AS exact_after_recount,
       (SELECT count(*) FROM mcp_notes.title_key_decrements) AS deletes_left;
