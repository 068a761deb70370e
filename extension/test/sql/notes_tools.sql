-- The notes tools: notes_create, notes_read, notes_update, notes_list and
-- notes_search through handle_as, as a gateway calls them: every tool,
-- every refusal, containment look-alikes, cursors (tampered, foreign,
-- another query, expired) and paging while notes are inserted; every
-- length an inputSchema declares, enforced before anything else; titles
-- printable wherever they label a note, exact in notes_read.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///work/notes');
SELECT mcp_notes.add_workspace('file:///work/notes-evil');
SELECT mcp_notes.grant_workspace('alice', 'file:///work/notes');
SELECT mcp_notes.grant_workspace('bob', 'file:///work/notes');
SELECT mcp_notes.grant_workspace('eve', 'file:///work/notes-evil');

-- One tools/call as a gateway sends it.
CREATE FUNCTION t.tool(principal text, name text, args jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as(principal, jsonb_build_object('method', 'tools/call',
        'params', jsonb_strip_nulls(jsonb_build_object('name', name, 'arguments', args)),
        'clientCapabilities', '{}'::jsonb, 'requestId', 'nt-1', 'gatewayId', 'regress-gw',
        'clientInfo', '{"name": "regress", "version": "1"}'::jsonb))
$$;
-- An outcome in one stable line: ids, times and cursors are random.  A
-- complete result must carry its structuredContent serialized as its text.
CREATE FUNCTION t.show(r jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT regexp_replace(regexp_replace(regexp_replace(CASE
        WHEN r ? 'error' THEN format('error %s %s: %s', r #>> '{error,kind}', r #>> '{error,data,reason}', r #>> '{error,message}')
        WHEN (r #>> '{result,isError}')::boolean THEN 'tool error: ' || (r #>> '{result,content,0,text}')
        WHEN (r #>> '{result,content,0,text}')::jsonb IS DISTINCT FROM r #> '{result,structuredContent}' THEN 'TEXT IS NOT THE STRUCTURED CONTENT'
        ELSE 'ok ' || (r #> '{result,structuredContent}')::text END,
        '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', 'g'),
        '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z', '<time>', 'g'),
        '"v1\.[^"]*"', '"<cursor>"', 'g')
$$;
CREATE FUNCTION t.create(principal text, uri text, title text, body text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
    SELECT t.tool(principal, 'notes_create', jsonb_strip_nulls(jsonb_build_object(
        'workspaceUri', 'file:///work/notes', 'uri', uri, 'title', title, 'body', body)))
$$;
CREATE FUNCTION t.sc(r jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT r #> '{result,structuredContent}' $$;
CREATE FUNCTION t.text(r jsonb) RETURNS text LANGUAGE sql AS $$ SELECT r #>> '{result,content,0,text}' $$;

-- tools/list: the six tools in order, each with title, description, both
-- schemas (JSON Schema 2020-12) and honest annotations.
SELECT d ->> 'name' AS name, d ->> 'title' AS title, d -> 'annotations' AS annotations,
       d #>> '{inputSchema,$schema}' = 'https://json-schema.org/draft/2020-12/schema'
         AND d #>> '{inputSchema,type}' = 'object' AS input_schema,
       d #> '{inputSchema,required}' AS required,
       d #>> '{outputSchema,$schema}' IS NOT DISTINCT FROM d #>> '{inputSchema,$schema}' AS output_schema,
       length(d ->> 'description') > 40 AS described
FROM jsonb_array_elements(mcp_notes.handle_as('alice', '{"method": "tools/list", "params": {}}') #> '{result,tools}') d;

-------------------------------------------------------------------------------
-- notes_create
-------------------------------------------------------------------------------

SELECT t.create('alice', 'file:///work/notes/a.md', 'Alpha', 'first body') AS a \gset
SELECT t.show(:'a');
SELECT n.uri, n.title, n.body FROM mcp_notes.notes n WHERE n.note_id = t.sc(:'a') ->> 'noteId';
-- body is optional; the uri is normalized
SELECT t.show(t.create('alice', 'FILE://localhost/work/notes/sub/./b%2emd', 'Beta'));
SELECT uri, body = '' AS empty_body FROM mcp_notes.notes WHERE title = 'Beta';
-- never over an existing note (any spelling of its uri)
SELECT t.show(t.create('alice', 'file:///work/notes/x/../a.md', 'Again'));
-- outside the workspace: a prefix look-alike, traversal (raw and encoded),
-- the workspace itself, another scheme, malformed
SELECT u AS uri, t.show(t.create('alice', u, 'Outside')) AS outcome
FROM unnest(ARRAY['file:///work/notes-evil/x.md', 'file:///work/notesx.md', 'file:///work/notes/../notes-evil/x.md',
                  'file:///work/notes/%2e%2e/notes-evil/x.md', 'file:///work/notes/.%2E/.%2e/etc/passwd',
                  'file:///work/notes', 'file:///work/notes/', 'http://example.com/work/notes/x.md',
                  'file:///work/notes/a b.md', 'file:///work/notes/a%2Fb.md', 'file:///work/notes/%',
                  '/work/notes/x.md']) u;
SELECT count(*) AS notes_outside FROM mcp_notes.notes WHERE NOT mcp_notes.uri_contains('file:///work/notes', uri);
-- a workspace not granted and one that does not exist: the same answer
SELECT t.show(t.tool('alice', 'notes_create', '{"workspaceUri": "file:///work/notes-evil", "uri": "file:///work/notes-evil/x.md", "title": "x"}'));
SELECT t.show(t.tool('alice', 'notes_create', '{"workspaceUri": "file:///work/nowhere", "uri": "file:///work/nowhere/x.md", "title": "x"}'));
SELECT t.show(t.tool('alice', 'notes_create', '{"workspaceUri": "file:///work", "uri": "file:///work/notes-evil/x.md", "title": "x"}'));
-- a folder inside a granted workspace is a workspace too
SELECT t.show(t.tool('alice', 'notes_create', '{"workspaceUri": "file:///work/notes/sub", "uri": "file:///work/notes/sub/c.md", "title": "Gamma"}'));
SELECT t.show(t.tool('alice', 'notes_create', '{"workspaceUri": "file:///work/notes/sub", "uri": "file:///work/notes/d.md", "title": "Delta"}'));
-- argument errors a model can correct are tool errors; arguments that are
-- not an object make the request malformed
SELECT a AS arguments, t.show(t.tool('alice', 'notes_create', a)) AS outcome
FROM unnest(ARRAY['{"workspaceUri": "file:///work/notes", "uri": "file:///work/notes/e.md"}',
                  '{"uri": "file:///work/notes/e.md", "title": "t"}',
                  '{"workspaceUri": "file:///work/notes", "uri": "file:///work/notes/e.md", "title": 7}',
                  '{"workspaceUri": "file:///work/notes", "uri": "file:///work/notes/e.md", "title": null}',
                  '{"workspaceUri": ["file:///work/notes"], "uri": "file:///work/notes/e.md", "title": "t"}',
                  '{"workspaceUri": "file:///work/notes", "uri": "file:///work/notes/e.md", "title": "t", "body": false}',
                  '{"workspaceUri": "file:///work/notes", "uri": "file:///work/notes/e.md", "title": "t", "noteId": "x"}',
                  '{"workspaceUri": "file:///work/notes", "uri": "file:///work/notes/e.md", "title": "  "}',
                  '{"workspaceUri": "not a uri", "uri": "file:///work/notes/e.md", "title": "t"}',
                  '[]', '"x"']::jsonb[]) a;
SELECT t.show(t.tool('alice', 'notes_create', NULL));
-- size limits: the schema's lengths (_tool_arguments), then the bytes of
-- the body (_check_note_body through _note_limits_problem)
SELECT t.show(t.create('alice', 'file:///work/notes/big.md', repeat('t', 501)));
SELECT t.show(t.create('alice', 'file:///work/notes/big.md', 'Big', repeat('b', 1048577)));
SELECT t.show(t.create('alice', 'file:///work/notes/big.md', repeat('t', 500), repeat('é', 524288)));
-- a write outside a serializable transaction is refused before it writes
\set VERBOSITY terse
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT t.create('alice', 'file:///work/notes/rc.md', 'Read committed');
ROLLBACK;
\set VERBOSITY default
-- control characters in an unknown argument name come back visible
SELECT t.show(t.tool('alice', 'notes_create', jsonb_build_object('workspaceUri', 'file:///work/notes', 'x' || chr(8238) || chr(27), 1)));

-------------------------------------------------------------------------------
-- notes_read
-------------------------------------------------------------------------------

SELECT t.sc(:'a') ->> 'noteId' AS a_id \gset
SELECT mcp_notes.add_note('file:///work/notes-evil/secret.md', 'Secret', 'outside') AS evil_id \gset
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'a_id')));
SELECT t.sc(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'a_id'))) ->> 'updatedAt'
       = to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at_is_the_row
FROM mcp_notes.notes WHERE note_id = :'a_id';
-- a note outside the workspace and a note that does not exist: one answer
-- (but for the id the caller gave)
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'evil_id')));
SELECT replace(t.text(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'evil_id'))), :'evil_id', 'ID')
     = replace(t.text(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', 'no-such-id'))), 'no-such-id', 'ID')
       AS outside_same_as_missing;
-- the workspace is the scope: a folder that does not hold the note
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes/sub', 'noteId', :'a_id')));
-- a workspace not granted, whether the note is there or not
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes-evil', 'noteId', :'evil_id')));
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes-evil', 'noteId', 'no-such-id')));
-- eve, granted notes-evil, reads her note; not alice's
SELECT t.show(t.tool('eve', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes-evil', 'noteId', :'evil_id')));
SELECT t.show(t.tool('eve', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes-evil', 'noteId', :'a_id')));
SELECT t.show(t.tool('alice', 'notes_read', '{"workspaceUri": "file:///work/notes", "noteId": 5}'));
SELECT t.show(t.tool('alice', 'notes_read', '{"workspaceUri": "file:///work/notes"}'));
-- an id longer than the schema's maxLength is refused before any lookup
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', chr(8238) || repeat('z', 300))));
-- reading needs no serializable transaction
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'a_id')));
ROLLBACK;

-------------------------------------------------------------------------------
-- notes_update
-------------------------------------------------------------------------------

CREATE FUNCTION t.update(principal text, note_id text, title text, body text, expected text DEFAULT NULL,
                         ws text DEFAULT 'file:///work/notes') RETURNS jsonb LANGUAGE sql AS $$
    SELECT t.tool(principal, 'notes_update', jsonb_strip_nulls(jsonb_build_object(
        'workspaceUri', ws, 'noteId', note_id, 'title', title, 'body', body, 'expectedUpdatedAt', expected)))
$$;
CREATE FUNCTION t.version(note_id text) RETURNS text LANGUAGE sql AS $$
    SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM mcp_notes.notes n WHERE n.note_id = $1
$$;
SELECT t.version(:'a_id') AS v0 \gset
SELECT t.show(t.update('alice', :'a_id', 'Alpha 2', NULL, :'v0')) AS title_only;
SELECT t.sc(t.update('alice', :'a_id', NULL, 'second body', NULL)) ->> 'updatedAt' AS v2 \gset
SELECT :'v2' = t.version(:'a_id') AS returned_version_is_the_row, :'v2' > :'v0' AS moved_forward;
SELECT title, body FROM mcp_notes.notes WHERE note_id = :'a_id';
-- a stale expectedUpdatedAt writes nothing and names the current version
SELECT t.show(t.update('alice', :'a_id', 'Lost', 'lost body', :'v0'));
SELECT t.text(t.update('alice', :'a_id', 'Lost', NULL, :'v0')) LIKE '%' || :'v2' || '%' AS names_current_version;
SELECT t.show(t.update('alice', :'a_id', 'Lost', NULL, 'yesterday'));
SELECT title, body FROM mcp_notes.notes WHERE note_id = :'a_id';
-- the current version: written
SELECT t.show(t.update('alice', :'a_id', 'Alpha 3', 'third body', :'v2'));
-- a call that would change nothing writes nothing, whatever the version
-- it expects (so repeating a call is harmless)
SELECT t.version(:'a_id') AS v3 \gset
SELECT t.sc(t.update('alice', :'a_id', 'Alpha 3', 'third body', :'v0')) ->> 'updatedAt' = :'v3' AS unchanged_version;
SELECT t.version(:'a_id') = :'v3' AS not_written;
-- refusals
SELECT t.show(t.update('alice', :'a_id', NULL, NULL));
SELECT t.show(t.update('alice', :'a_id', '', NULL));
SELECT t.show(t.update('alice', :'a_id', repeat('t', 501), NULL));
SELECT t.show(t.update('alice', :'evil_id', 'Mine now', NULL));
SELECT t.show(t.update('alice', 'no-such-id', 'Mine now', NULL));
SELECT t.show(t.update('alice', :'evil_id', 'Mine now', NULL, NULL, 'file:///work/notes-evil'));
SELECT t.show(t.update('alice', :'a_id', 'x', NULL, NULL, 'file:///work/notes/../notes-evil'));
SELECT t.show(t.tool('alice', 'notes_update', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'a_id', 'expectedUpdatedAt', 1, 'title', 'x')));
SELECT title FROM mcp_notes.notes WHERE note_id = :'evil_id';
\set VERBOSITY terse
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT t.update('alice', :'a_id', 'Repeatable', NULL);
ROLLBACK;
\set VERBOSITY default

-- The audit: who, what, when, from which gateway; refusals are not in it.
SELECT principal, workspace_uri, note_uri, left(title, 20) AS title, action, fields, request_id, gateway_id, client_info,
       updated_at = (SELECT n.updated_at FROM mcp_notes.notes n WHERE n.note_id = c.note_id)
         OR action = 'create' OR note_id = :'a_id' AS version_recorded
FROM mcp_notes.change_audit c ORDER BY audit_id;
SELECT count(*) FILTER (WHERE c.updated_at = n.updated_at) AS latest_version_audited
FROM mcp_notes.change_audit c JOIN mcp_notes.notes n USING (note_id) WHERE c.note_id = :'a_id';
\set VERBOSITY terse
UPDATE mcp_notes.change_audit SET title = 'rewritten';
UPDATE mcp_notes.delete_audit SET title = 'rewritten';
\set VERBOSITY default

-------------------------------------------------------------------------------
-- notes_list
-------------------------------------------------------------------------------

-- 120 notes in file:///work/notes/p, and look-alikes beside it
INSERT INTO mcp_notes.notes (uri, title)
SELECT format('file:///work/notes/p/n%s.md', lpad(i::text, 3, '0')), format('Page note %s', i) FROM generate_series(1, 120) i;
SELECT mcp_notes.add_note('file:///work/notes/p-evil/x.md', 'Look-alike') IS NOT NULL AS added,
       mcp_notes.add_note('file:///work/notes/p%2Dx.md', 'Encoded look-alike') IS NOT NULL AS added;
CREATE FUNCTION t.list(principal text, ws text, cursor text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
    SELECT t.tool(principal, 'notes_list', jsonb_strip_nulls(jsonb_build_object('workspaceUri', ws, 'cursor', cursor)))
$$;
SELECT t.list('alice', 'file:///work/notes/p') AS p1 \gset
SELECT jsonb_array_length(t.sc(:'p1') -> 'notes') AS page1, t.sc(:'p1') -> 'notes' -> 0 ->> 'uri' AS first,
       t.sc(:'p1') -> 'notes' -> 49 ->> 'uri' AS last, length(t.sc(:'p1') ->> 'nextCursor') < 1000 AS cursor_small;
SELECT t.sc(:'p1') ->> 'nextCursor' AS c1 \gset
-- while the client pages: a note before the cursor, one after it, one in
-- the last page, and the first page's last note deleted
INSERT INTO mcp_notes.notes (uri, title) VALUES ('file:///work/notes/p/n000.md', 'Inserted before'),
    ('file:///work/notes/p/n050a.md', 'Inserted after'), ('file:///work/notes/p/n999.md', 'Inserted last');
DELETE FROM mcp_notes.notes WHERE uri = 'file:///work/notes/p/n050.md';
SELECT t.list('alice', 'file:///work/notes/p', :'c1') AS p2 \gset
SELECT t.list('alice', 'file:///work/notes/p', t.sc(:'p2') ->> 'nextCursor') AS p3 \gset
SELECT jsonb_array_length(t.sc(:'p2') -> 'notes') AS page2, jsonb_array_length(t.sc(:'p3') -> 'notes') AS page3,
       t.sc(:'p3') ? 'nextCursor' AS more;
-- every note that was there throughout is seen exactly once; in byte order
WITH seen AS (
    SELECT e ->> 'uri' AS uri, e ->> 'title' AS title
    FROM jsonb_array_elements((t.sc(:'p1') -> 'notes') || (t.sc(:'p2') -> 'notes') || (t.sc(:'p3') -> 'notes')) e)
SELECT (SELECT count(*) FROM seen) AS seen, (SELECT count(DISTINCT uri) FROM seen) AS distinct_seen,
       (SELECT count(*) FROM generate_series(1, 120) i
        WHERE i <> 50 AND NOT EXISTS (SELECT 1 FROM seen s WHERE s.uri = format('file:///work/notes/p/n%s.md', lpad(i::text, 3, '0'))))
         AS missed,
       (SELECT string_agg(title, ', ' ORDER BY uri COLLATE "C") FROM seen WHERE title LIKE 'Inserted%') AS inserted_seen,
       (SELECT count(*) FROM seen WHERE uri NOT LIKE 'file:///work/notes/p/%') AS outside;
SELECT t.show(t.list('alice', 'file:///work/notes/sub'));
SELECT t.show(t.list('alice', 'file:///work/notes-evil'));
SELECT t.show(t.list('eve', 'file:///work/notes-evil'));
SELECT t.show(t.list('alice', 'file:///work/notes/empty'));
-- cursors: altered, another principal, another query, another tool, a
-- delete state, expired, not a string
SELECT t.show(t.list('alice', 'file:///work/notes/p', :'c1' || 'x')) AS appended;
SELECT t.show(t.list('alice', 'file:///work/notes/p', overlay(:'c1' placing 'A' from 40 for 1))) AS payload_changed;
SELECT t.show(t.list('alice', 'file:///work/notes/p', 'garbage')) AS garbage;
SELECT t.show(t.list('bob', 'file:///work/notes/p', :'c1')) AS other_principal;
SELECT t.show(t.list('alice', 'file:///work/notes', :'c1')) AS other_workspace;
SELECT t.show(t.tool('alice', 'notes_search', jsonb_build_object('workspaceUri', 'file:///work/notes/p', 'query', 'note', 'cursor', :'c1'))) AS other_tool;
SELECT t.show(t.list('alice', 'file:///work/notes/p', mcp_notes._seal_state(jsonb_build_object(
    'principal', 'alice', 'method', 'tools/call', 'tool', 'notes_delete', 'phase', 'confirm_delete')))) AS delete_state;
-- the cursor's claims sealed for another purpose (a delete state's)
SELECT t.show(t.list('alice', 'file:///work/notes/p', mcp_notes._seal_state(
    mcp_notes._open_state(:'c1') -> 'claims'))) AS other_purpose;
-- the seal's own expiry is the cursor's: one sealed to live 1 s, whatever
-- its claims say, is expired after 1.5 s
SELECT mcp_notes._seal('cursor', (mcp_notes._open_state(:'c1') -> 'claims') || '{"until": 9999999999}', 1) AS short_cursor \gset
SELECT (o ->> 'exp')::bigint - (o ->> 'iat')::bigint AS short_cursor_lifetime, o ->> 'purpose' AS purpose
FROM mcp_notes._open_state(:'short_cursor') o;
SELECT pg_sleep(1.5);
SELECT t.show(t.list('alice', 'file:///work/notes/p', :'short_cursor')) AS expired;
SELECT (mcp_notes._open_state(:'c1') ->> 'exp')::bigint - (mcp_notes._open_state(:'c1') ->> 'iat')::bigint AS cursor_lifetime_s,
       mcp_notes._open_state(:'c1') ->> 'purpose' AS cursor_purpose;
SELECT t.show(t.tool('alice', 'notes_list', '{"workspaceUri": "file:///work/notes/p", "cursor": 3}')) AS not_a_string;
-- a cursor is never a delete state
SELECT t.outcome(t.call('alice', 'file:///work/notes/p', 'note', t.answer('decline'), :'c1')) AS cursor_as_state;
-- an absent and a null cursor are the first page
SELECT t.show(t.tool('alice', 'notes_list', '{"workspaceUri": "file:///work/notes/p", "cursor": null}')) LIKE 'ok {"notes": [%' AS null_cursor_first_page;

-------------------------------------------------------------------------------
-- notes_search
-------------------------------------------------------------------------------

SELECT count(mcp_notes.add_note(u, ti)) AS added FROM (VALUES
    ('file:///work/notes/s/1.md', 'my plan'), ('file:///work/notes/s/2.md', 'PLANET'),
    ('file:///work/notes/s/3.md', 'plan'), ('file:///work/notes/s/4.md', 'Plan B'),
    ('file:///work/notes/s/5.md', 'airplane'), ('file:///work/notes/s/6.md', 'unrelated'),
    ('file:///work/notes-evil/plan.md', 'plan')) v(u, ti);
CREATE FUNCTION t.search(principal text, ws text, query text, cursor text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
    SELECT t.tool(principal, 'notes_search', jsonb_strip_nulls(jsonb_build_object('workspaceUri', ws, 'query', query, 'cursor', cursor)))
$$;
-- best first: exact, then prefix, then contains, each by uri
SELECT e ->> 'title' AS title, e ->> 'uri' AS uri
FROM jsonb_array_elements(t.sc(t.search('alice', 'file:///work/notes/s', 'PLAN')) -> 'notes') e;
SELECT t.show(t.search('alice', 'file:///work/notes/s', 'plan')) LIKE 'ok {"notes": [%' AND NOT t.sc(t.search('alice', 'file:///work/notes/s', 'plan')) ? 'nextCursor' AS one_page;
SELECT t.show(t.search('alice', 'file:///work/notes/s', 'nothing like it'));
SELECT t.show(t.search('alice', 'file:///work/notes/s', '   '));
SELECT t.show(t.search('alice', 'file:///work/notes/s', repeat('q', 201)));
SELECT t.show(t.search('alice', 'file:///work/notes-evil', 'plan'));
SELECT t.show(t.tool('alice', 'notes_search', '{"workspaceUri": "file:///work/notes/s"}'));
-- paging through 120 matches while notes are inserted: each once, best first
SELECT t.search('alice', 'file:///work/notes/p', 'page note') AS s1 \gset
INSERT INTO mcp_notes.notes (uri, title) VALUES ('file:///work/notes/p/m1.md', 'page note'),
    ('file:///work/notes/p/z1.md', 'Page note inserted'), ('file:///work/notes/p/a1.md', 'a page note');
SELECT t.search('alice', 'file:///work/notes/p', 'page note', t.sc(:'s1') ->> 'nextCursor') AS s2 \gset
SELECT t.search('alice', 'file:///work/notes/p', 'page note', t.sc(:'s2') ->> 'nextCursor') AS s3 \gset
WITH seen AS (
    SELECT e ->> 'uri' AS uri, e ->> 'title' AS title, ord
    FROM jsonb_array_elements((t.sc(:'s1') -> 'notes') || (t.sc(:'s2') -> 'notes') || (t.sc(:'s3') -> 'notes'))
         WITH ORDINALITY AS x(e, ord)),
ranked AS (
    SELECT s.*, CASE WHEN lower(title) = 'page note' THEN 0 WHEN lower(title) LIKE 'page note%' THEN 1 ELSE 2 END AS rank FROM seen s)
SELECT (SELECT count(*) FROM seen) AS seen, (SELECT count(DISTINCT uri) FROM seen) AS distinct_seen,
       (SELECT count(*) FROM mcp_notes.notes n WHERE n.title ILIKE 'page note %' AND n.uri LIKE 'file:///work/notes/p/n%'
        AND n.title <> 'Page note inserted' AND NOT EXISTS (SELECT 1 FROM seen s WHERE s.uri = n.uri)) AS missed,
       (SELECT string_agg(title, ', ' ORDER BY ord) FROM seen WHERE uri ~ '/[amz]1\.md$') AS inserted_seen,
       (SELECT array_agg(ord ORDER BY ord) = array_agg(ord ORDER BY rank, uri COLLATE "C") FROM ranked) AS best_first,
       t.sc(:'s3') ? 'nextCursor' AS more;
-- the search cursor is bound to its query
SELECT t.show(t.search('alice', 'file:///work/notes/p', 'page', t.sc(:'s1') ->> 'nextCursor')) AS other_query;
SELECT t.show(t.search('bob', 'file:///work/notes/p', 'page note', t.sc(:'s1') ->> 'nextCursor')) AS other_principal;
SELECT t.show(t.list('alice', 'file:///work/notes/p', t.sc(:'s1') ->> 'nextCursor')) AS list_with_search_cursor;
-- more than 1000 matches: refused, not cut
INSERT INTO mcp_notes.notes (uri, title)
SELECT format('file:///work/notes/many/%s.md', i), 'many ' || i FROM generate_series(1, 1001) i;
SELECT t.show(t.search('alice', 'file:///work/notes/many', 'many'));
SELECT jsonb_array_length(t.sc(t.search('alice', 'file:///work/notes/many', 'many 1')) -> 'notes') AS narrower;

-- The 1.1 entry point (gateways of the previous version) reaches the tools too.
SELECT t.show(mcp_notes.call_tool_as('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'a_id'),
                                     NULL, NULL, '{}', '1', NULL, 'gw-1.1'));

-------------------------------------------------------------------------------
-- Every length an inputSchema declares is enforced first
-------------------------------------------------------------------------------

-- For every argument of every registered tool that declares a maxLength:
-- one character more is refused, naming the argument, before any other
-- check (the other arguments are valid); exactly the maximum passes the
-- length check.
CREATE FUNCTION t.valid_args(d jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_object_agg(r, CASE WHEN r = 'workspaceUri' THEN 'file:///work/notes'
                                    WHEN r = 'uri' THEN 'file:///work/notes/len.md' ELSE 'x' END)
    FROM jsonb_array_elements_text(d #> '{inputSchema,required}') r
$$;
-- (and the first of anyOf's alternatives, so that only the length is wrong)
CREATE OR REPLACE FUNCTION t.valid_args(d jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_object_agg(r, CASE WHEN r = 'workspaceUri' THEN 'file:///work/notes'
                                    WHEN r = 'uri' THEN 'file:///work/notes/len.md' ELSE 'x' END)
    FROM (SELECT jsonb_array_elements_text(d #> '{inputSchema,required}')
          UNION SELECT jsonb_array_elements_text(coalesce(d #> '{inputSchema,anyOf,0,required}', '[]'))) x(r)
$$;
SELECT d ->> 'name' AS tool, p.key AS argument, (p.value ->> 'maxLength')::integer AS max_length,
       t.show(t.tool('alice', d ->> 'name', t.valid_args(d) || jsonb_build_object(p.key,
              repeat('x', (p.value ->> 'maxLength')::integer + 1)))) AS one_more,
       t.show(t.tool('alice', d ->> 'name', t.valid_args(d) || jsonb_build_object(p.key,
              repeat('x', (p.value ->> 'maxLength')::integer)))) NOT LIKE '%must be at most%' AS maximum_passes
FROM jsonb_array_elements(mcp_notes.tool_descriptors()) d, jsonb_each(d #> '{inputSchema,properties}') p
WHERE p.value ? 'maxLength'
ORDER BY 1, 2;
-- A 400 KB argument costs what its length costs: the answer quotes none of
-- it, and an unknown argument's name is quoted printable and bounded.
SELECT t.show(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes',
              'noteId', chr(8238) || repeat('z', 400000)))) AS huge_note_id;
SELECT length(t.text(x)) < 400 AS bounded, left(t.text(x), 60) AS message
FROM t.tool('alice', 'notes_list', jsonb_build_object('workspaceUri', 'file:///work/notes',
            chr(8238) || repeat('k', 400000), 1, 'a', 2, 'b', 3, 'c', 4, 'd', 5, 'e', 6, 'f', 7)) x;
-- Types and the other keywords, from the schema too.
SELECT a AS arguments, t.show(t.tool('alice', 'notes_update', a)) AS outcome
FROM unnest(ARRAY['{"workspaceUri": "file:///work/notes", "noteId": "x", "title": ""}',
                  '{"workspaceUri": "file:///work/notes", "noteId": ["x"], "title": "t"}',
                  '{"workspaceUri": "file:///work/notes", "noteId": "x", "expectedUpdatedAt": {}, "body": ""}',
                  '{"workspaceUri": "file:///work/notes", "noteId": null, "title": "t"}']::jsonb[]) a;

-------------------------------------------------------------------------------
-- Titles: printable wherever they label a note, exact in notes_read
-------------------------------------------------------------------------------

CREATE FUNCTION t.invisible(s text) RETURNS boolean LANGUAGE sql AS $$
    SELECT s ~ '[\u0001-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF]'
$$;
SELECT t.sc(t.create('alice', 'file:///work/notes/bidi/invoice.md',
                     E'invoice \u202Egpj.exe\u202C line\nbreak esc\u001b[2J zw\u200Bsp')) ->> 'noteId' AS bidi_id \gset
SELECT t.list('alice', 'file:///work/notes/bidi') AS listed \gset
SELECT t.search('alice', 'file:///work/notes/bidi', 'invoice') AS searched \gset
SELECT label, x ->> 'title' AS title, t.invisible(x ->> 'title') AS has_invisible,
       t.invisible(t.text(r)) AS text_has_invisible, t.show(r) LIKE 'ok %' AS text_is_structured
FROM (VALUES ('notes_list', :'listed'::jsonb), ('notes_search', :'searched'::jsonb)) v(label, r),
     LATERAL (SELECT t.sc(r) -> 'notes' -> 0) AS n(x);
-- notes_read returns the note as stored, so a client can write it back
SELECT t.sc(t.tool('alice', 'notes_read', jsonb_build_object('workspaceUri', 'file:///work/notes', 'noteId', :'bidi_id'))) ->> 'title'
       = (SELECT title FROM mcp_notes.notes WHERE note_id = :'bidi_id') AS read_is_exact,
       t.invisible((SELECT title FROM mcp_notes.notes WHERE note_id = :'bidi_id')) AS stored_has_invisible;
-- the title as a list shows it finds the note (a model copies what it saw)
SELECT jsonb_array_length(t.sc(t.search('alice', 'file:///work/notes/bidi', t.sc(:'listed') -> 'notes' -> 0 ->> 'title')) -> 'notes')
       AS found_by_its_label,
       t.sc(t.search('alice', 'file:///work/notes/bidi', t.sc(:'listed') -> 'notes' -> 0 ->> 'title')) -> 'notes' -> 0 ->> 'noteId'
       = :'bidi_id' AS the_same_note;
-- the audit keeps the title as labels show it
SELECT action, title, t.invisible(title) AS has_invisible FROM mcp_notes.change_audit WHERE note_id = :'bidi_id';
