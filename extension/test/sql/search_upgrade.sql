-- Title search across the 1.2 -> 1.3 upgrade: notes written under 1.2 are
-- back-filled into the folder-scoped index and its counts, and found; a
-- title longer than the 1.3 limit stays as it was; notes_delete with a text
-- shorter than three characters finds the note with that title, or says to
-- give more of it.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.2';
RESET client_min_messages;
SELECT mcp_notes.add_workspace('file:///t/su'), mcp_notes.grant_workspace('sue', 'file:///t/su');
SELECT count(*) AS notes_in_1_2 FROM (
    SELECT mcp_notes.add_note(format('file:///t/su/d%s/n%s.md', i % 7, i), format('Upgrade report %s', i))
    FROM generate_series(1, 500) i) s;
SELECT mcp_notes.add_note('file:///t/su/long.md', repeat('long ', 200)) IS NOT NULL AS long_title_in_1_2;
SELECT mcp_notes.add_note('file:///t/su/q.md', 'Q') IS NOT NULL AS short_title_in_1_2;
ALTER EXTENSION mcp_notes UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';

-- every key of every note is counted exactly
SELECT count(*) AS inexact_keys
FROM (SELECT k, count(*) AS notes FROM mcp_notes.notes n, unnest(mcp_notes._title_keys(n.uri, n.title)) k
      GROUP BY k) a
FULL JOIN (SELECT title_key, sum(notes) AS notes FROM mcp_notes.title_key_counts GROUP BY 1) c ON c.title_key = a.k
WHERE a.notes IS DISTINCT FROM c.notes;
-- and found, by the workspace and by a folder inside it
SELECT (SELECT count(*) FROM mcp_notes._candidates('file:///t/su', 'upgrade REPORT 123', 26)) AS found_123,
       (SELECT count(*) FROM mcp_notes._candidates('file:///t/su/d3', 'report 1', 500)) AS found_in_d3,
       (SELECT count(*) FROM mcp_notes.notes WHERE uri LIKE 'file:///t/su/d3/%' AND title LIKE '%report 1%') AS expected_in_d3,
       (SELECT count(*) FROM mcp_notes._candidates('file:///t/su', 'long long', 26)) AS found_long;
-- the old long title may stay; a new write of it may not
SELECT mcp_notes.move_note(note_id, 'file:///t/su/long-moved.md') FROM mcp_notes.notes WHERE uri = 'file:///t/su/long.md';
\set VERBOSITY terse
SELECT mcp_notes.add_note('file:///t/su/long2.md', repeat('long ', 200));
\set VERBOSITY default

-- notes_delete with a short text
SELECT t.outcome(t.call('sue', 'file:///t/su', 'q'));
SELECT t.call('sue', 'file:///t/su', 'zz') #>> '{result,content,0,text}' AS short_none;
SELECT t.call('sue', 'file:///t/su', 'zz') #>> '{result,isError}' AS short_none_is_error;
