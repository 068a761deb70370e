-- Sealed tokens across the 1.3 -> 1.4 upgrade (released gateways and
-- in-flight states while a fleet upgrades): a notes_delete state, a
-- notes_list cursor and a resources/list cursor sealed by 1.3 -- no purpose
-- in the seal, the cursors' expiry in their claims (until), the seal's own
-- exp ignored for them -- open under 1.4 exactly as 1.3 opened them.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.3';
RESET client_min_messages;
SET default_transaction_isolation = serializable;
SELECT mcp_notes.add_workspace('file:///t/stu'), mcp_notes.grant_workspace('ula', 'file:///t/stu');
SELECT mcp_notes.add_note('file:///t/stu/target.md', 'upgrade target') AS target \gset
SELECT mcp_notes.add_note('file:///t/stu/short.md', 'short lived') AS short \gset
SELECT count(mcp_notes.add_note(format('file:///t/stu/p/n%s.md', lpad(i::text, 3, '0')), 'page ' || i))
FROM generate_series(1, 120) i;
CREATE FUNCTION t.list(cursor text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('ula', jsonb_build_object('method', 'tools/call', 'params', jsonb_build_object(
        'name', 'notes_list', 'arguments', jsonb_strip_nulls(jsonb_build_object('workspaceUri', 'file:///t/stu/p',
                                                                                 'cursor', cursor)))))
$$;
CREATE FUNCTION t.resources(cursor text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('ula', jsonb_build_object('method', 'resources/list',
                                                         'params', jsonb_strip_nulls(jsonb_build_object('cursor', cursor))))
$$;

-- Sealed by 1.3: each kind of token, and, with a state_ttl of 1 s, a
-- delete state and a cursor whose seal expires at once.
SELECT t.state(t.call('ula', 'file:///t/stu', 'upgrade target')) AS delete_state,
       t.list(NULL) #>> '{result,structuredContent,nextCursor}' AS list_cursor,
       t.resources(NULL) #>> '{result,nextCursor}' AS resources_cursor \gset
SET mcp_notes.state_ttl = 1;
SELECT t.state(t.call('ula', 'file:///t/stu', 'short lived')) AS short_state,
       t.list(NULL) #>> '{result,structuredContent,nextCursor}' AS short_cursor \gset
RESET mcp_notes.state_ttl;
SELECT pg_sleep(1.5);
ALTER EXTENSION mcp_notes UPDATE TO '1.4';
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';

-- What they carry: no purpose in the seal.
SELECT label, mcp_notes._open_state(tok) ? 'purpose' AS purpose_in_seal, mcp_notes._open_state(tok) #>> '{claims,purpose}' AS claimed
FROM (VALUES ('delete state', :'delete_state'), ('list cursor', :'list_cursor'),
             ('resources cursor', :'resources_cursor')) v(label, tok);
-- The delete state deletes, once; the short one expired as in 1.3.
SELECT t.outcome(t.call('ula', 'file:///t/stu', 'upgrade target', t.accept(:'target'), :'delete_state')) AS accept,
       t.outcome(t.call('ula', 'file:///t/stu', 'upgrade target', t.accept(:'target'), :'delete_state')) AS replay,
       t.outcome(t.call('ula', 'file:///t/stu', 'short lived', t.accept(:'short'), :'short_state')) AS short_state;
SELECT count(*) FILTER (WHERE note_id = :'target') AS target_left, count(*) FILTER (WHERE note_id = :'short') AS short_left
FROM mcp_notes.notes;
-- The cursors continue; the one whose seal expired lives until its claims
-- say, as 1.3 read it.
SELECT jsonb_array_length(t.list(:'list_cursor') #> '{result,structuredContent,notes}') AS list_page_2,
       t.list(:'list_cursor') #>> '{result,structuredContent,notes,0,uri}' AS list_page_2_starts,
       t.list(:'short_cursor') #>> '{result,structuredContent,notes,0,uri}' AS short_cursor_page_2,
       jsonb_array_length(t.resources(:'resources_cursor') #> '{result,resources}') AS resources_page_2;
-- Still bound as 1.3 bound them: a 1.3 cursor is no delete state, a 1.3
-- delete state no cursor, and the claims' purpose decides which.
SELECT t.outcome(t.call('ula', 'file:///t/stu', 'upgrade target', t.answer('decline'), :'list_cursor')) AS cursor_as_state,
       t.list(:'delete_state') #>> '{result,content,0,text}' AS state_as_cursor,
       t.resources(:'list_cursor') #>> '{error,data,reason}' AS list_cursor_as_resources_cursor;
-- New tokens carry their purpose and lifetime in the seal.
SELECT mcp_notes._open_state(t.list(NULL) #>> '{result,structuredContent,nextCursor}') ->> 'purpose' AS new_cursor_purpose,
       mcp_notes._open_state(t.state(t.call('ula', 'file:///t/stu', 'short lived'))) ->> 'purpose' AS new_state_purpose;
