-- Candidate search: _candidates must give exactly what a brute-force scan
-- gives (uri_contains, and case-insensitive contains, or equality for a text
-- shorter than three characters), for random titles in nested folders,
-- before and after moves, retitles and deletes, never analyzed; the keys of
-- a note (C) must be the keys a search computes (SQL); a key's postings must
-- hold only notes inside its folder; the counts must never understate.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

-- The keys as _candidates computes them for one folder, for every folder a
-- note is in: the reference for the C function.
CREATE FUNCTION pg_temp.reference_keys(uri text, title text) RETURNS bigint[] LANGUAGE sql AS $$
    SELECT ARRAY(SELECT DISTINCT hashtextextended(s.scope || ' ' || g, 0)
                 FROM (SELECT 'file:///' AS scope
                       UNION ALL
                       SELECT 'file:///' || array_to_string(p.parts[1:k], '/')
                       FROM (SELECT string_to_array(substr(uri, 9), '/') AS parts) p,
                            generate_series(1, least(cardinality(p.parts) - 1, 16)) k) s,
                      unnest(mcp_notes._title_grams(title)) g
                 ORDER BY 1)
$$;

SELECT setseed(0.42);
-- Random titles over a small alphabet (so texts match several notes) with
-- case pairs, non-ASCII letters whose lower case differs, space and %.
CREATE FUNCTION pg_temp.random_title(n integer) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN btrim(t) = '' THEN 'blank' ELSE t END
    FROM (SELECT string_agg(substr('aAbBcéÉßStraSSe %_\', 1 + floor(random() * 19)::integer, 1), '') AS t
          FROM generate_series(1, n)) s
$$;
-- Folders: nested workspaces, a sibling whose name extends one, a path
-- deeper than the 16 indexed levels, non-ASCII (percent-encoded) names.
CREATE TEMP TABLE folders (uri text);
INSERT INTO folders VALUES ('file:///t/cand/a'), ('file:///t/cand/a/b'), ('file:///t/cand/a/b/c'),
    ('file:///t/cand/a-evil'), ('file:///t/cand/%C3%A9t%C3%A9'), ('file:///t/other'),
    ('file:///t/cand/deep/' || array_to_string(ARRAY(SELECT 'd' || i FROM generate_series(1, 20) i), '/'));
SELECT count(*) AS notes FROM (
    SELECT mcp_notes.add_note(format('%s/n%s.md', f.uri, i), pg_temp.random_title(1 + (i % 9)))
    FROM folders f, generate_series(1, 60) i) s;
-- a note at a workspace's own URI, and titles shorter than three characters
SELECT mcp_notes.add_note('file:///t/cand/a/b', 'Ab note') IS NOT NULL AS added;
SELECT count(*) AS short_titles FROM (
    SELECT mcp_notes.add_note(format('file:///t/cand/a/b/s%s.md', i), (ARRAY['Q', 'q', 'zz', 'ZZ', 'é', '%'])[i])
    FROM generate_series(1, 6) i) s;

-- C keys = SQL keys, for every note (including the deep ones)
SELECT count(*) AS notes_checked,
       count(*) FILTER (WHERE mcp_notes._title_keys(uri, title) <> pg_temp.reference_keys(uri, title)) AS keys_differ
FROM mcp_notes.notes;
-- linear: a 20,000-character title has 19,998 trigrams, in well under a second
SELECT cardinality(mcp_notes._title_trigrams(repeat('abcdé', 4000))) AS trigrams;

CREATE FUNCTION pg_temp.brute(ws text, t text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT note_id FROM mcp_notes.notes
    WHERE mcp_notes.uri_contains(ws, uri)
      AND CASE WHEN length(lower(t)) < 3 THEN lower(title) = lower(t) ELSE strpos(lower(title), lower(t)) > 0 END
$$;
-- Workspaces: the root, folders at each depth, spellings that normalize to
-- them, a note's own URI, a deep one, a malformed one.
CREATE TEMP TABLE spaces (ws text);
INSERT INTO spaces VALUES ('file:///'), ('file:///t'), ('file:///t/cand/a'), ('file:///t/cand/a/'),
    ('FILE://localhost/t/cand/a/b'), ('file:///t/cand/a/b/c'), ('file:///t/cand/a/b/c/n7.md'),
    ('file:///t/cand/%c3%a9t%c3%a9'), ('file:///t/cand/a-evil'), ('file:///t/nothing'), ('not a uri'),
    ('file:///t/cand/deep/' || array_to_string(ARRAY(SELECT 'd' || i FROM generate_series(1, 18) i), '/'));
-- Texts: pieces of titles (1 to 6 characters, any case), and fixed ones.
CREATE TEMP TABLE texts (t text);
INSERT INTO texts
SELECT DISTINCT CASE WHEN random() < 0.3 THEN upper(x.piece) ELSE x.piece END
FROM (SELECT substr(n.title, 1 + floor(random() * length(n.title))::integer, 1 + floor(random() * 6)::integer) AS piece
      FROM mcp_notes.notes n, generate_series(1, 2)) x
WHERE x.piece <> '';
INSERT INTO texts VALUES ('Q'), ('ZZ'), ('É'), ('%'), ('ab note'), ('STRASSE'), ('straße'), ('xyzzy'), ('%_\');

-- Every workspace with every text: the same set (limit above any answer)
-- and, at a limit of 3, as many as brute force up to 3, all of them right.
CREATE FUNCTION pg_temp.check_all() RETURNS TABLE (cases bigint, with_matches bigint, wrong_sets bigint,
                                                    wrong_limited bigint)
LANGUAGE sql AS $$
    SELECT count(*), count(*) FILTER (WHERE r.expected > 0),
           count(*) FILTER (WHERE r.found IS DISTINCT FROM r.brute),
           count(*) FILTER (WHERE r.limited <> least(r.expected, 3) OR r.limited_wrong > 0)
    FROM (SELECT ARRAY(SELECT c.note_id FROM mcp_notes._candidates(s.ws, x.t, 1000) c ORDER BY 1) AS found,
                 ARRAY(SELECT b FROM pg_temp.brute(s.ws, x.t) b ORDER BY 1) AS brute,
                 (SELECT count(*) FROM pg_temp.brute(s.ws, x.t)) AS expected,
                 (SELECT count(*) FROM mcp_notes._candidates(s.ws, x.t, 3)) AS limited,
                 (SELECT count(*) FROM mcp_notes._candidates(s.ws, x.t, 3) c
                   WHERE c.note_id NOT IN (SELECT pg_temp.brute(s.ws, x.t))) AS limited_wrong
          FROM spaces s, texts x) r
$$;
SELECT * FROM pg_temp.check_all();

-- The counts never understate how many notes have a key.
CREATE FUNCTION pg_temp.understated() RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*)
    FROM (SELECT k, count(*) AS notes FROM mcp_notes.notes n, unnest(mcp_notes._title_keys(n.uri, n.title)) k
          GROUP BY k) a
    LEFT JOIN (SELECT title_key, sum(notes) AS notes FROM mcp_notes.title_key_counts GROUP BY 1) c
           ON c.title_key = a.k
    WHERE coalesce(c.notes, 0) < a.notes
$$;
SELECT pg_temp.understated() AS understated_keys;

-- A key's postings hold only notes inside its folder: what a search in
-- file:///t/cand/a reads says nothing of file:///t/other.
SELECT count(*) AS outside_notes_in_postings
FROM texts x, unnest(mcp_notes._title_grams(x.t)) g, mcp_notes.notes n
WHERE mcp_notes._title_keys(n.uri, n.title) @> ARRAY[hashtextextended('file:///t/cand/a ' || g, 0)]
  AND NOT mcp_notes.uri_contains('file:///t/cand/a', n.uri);

-- Moves (within, out of and into workspaces), retitles, deletes: the same
-- answers afterwards.
SELECT count(*) AS moved FROM (
    SELECT mcp_notes.move_note(n.note_id, replace(n.uri, '/t/cand/a/b/', '/t/cand/a-evil/moved/'))
    FROM mcp_notes.notes n WHERE n.uri LIKE 'file:///t/cand/a/b/c/%' AND random() < 0.5) s;
SELECT count(*) AS moved_in FROM (
    SELECT mcp_notes.move_note(n.note_id, replace(n.uri, '/t/other/', '/t/cand/a/b/from-other/'))
    FROM mcp_notes.notes n WHERE n.uri LIKE 'file:///t/other/%' AND random() < 0.5) s;
UPDATE mcp_notes.notes SET title = pg_temp.random_title(4) WHERE random() < 0.2;
UPDATE mcp_notes.notes SET title = 'zz' WHERE uri = 'file:///t/cand/a/b/c/n1.md';
DELETE FROM mcp_notes.notes WHERE random() < 0.2;
SELECT * FROM pg_temp.check_all();
SELECT pg_temp.understated() AS understated_keys;
-- after a recount they are exact
SELECT mcp_notes.recount_title_keys() > 0 AS recounted;
SELECT count(*) AS inexact_keys
FROM (SELECT k, count(*) AS notes FROM mcp_notes.notes n, unnest(mcp_notes._title_keys(n.uri, n.title)) k
      GROUP BY k) a
FULL JOIN (SELECT title_key, sum(notes) AS notes FROM mcp_notes.title_key_counts GROUP BY 1) c ON c.title_key = a.k
WHERE a.notes IS DISTINCT FROM c.notes;

-- The table was never analyzed, and the plan is the bitmap scan anyway.
SELECT c.reltuples < 0 AS never_analyzed FROM pg_class c WHERE c.oid = 'mcp_notes.notes'::regclass;

-- Limits: 500 characters of title, 1 MiB of body, for add_note and for any
-- other writer (the trigger notes_size).
\set VERBOSITY default
SELECT mcp_notes.add_note('file:///t/cand/limits/a.md', repeat('é', 500), repeat('x', 1048576)) IS NOT NULL AS at_the_limits;
SELECT mcp_notes.add_note('file:///t/cand/limits/b.md', repeat('é', 501));
SELECT mcp_notes.add_note('file:///t/cand/limits/c.md', 'ok', repeat('x', 1048577));
SELECT mcp_notes.add_note('file:///t/cand/limits/d.md', '   ');
\set VERBOSITY terse
INSERT INTO mcp_notes.notes (uri, title) VALUES ('file:///t/cand/limits/e.md', repeat('x', 501));
\set VERBOSITY default
SELECT mcp_notes._check_note_title(repeat('x', 501));
SELECT mcp_notes._check_note_body(NULL) AS null_body_passes;
