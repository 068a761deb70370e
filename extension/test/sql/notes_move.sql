-- notes_move, the tool added by nothing but its file (src/216_notes_move.sql)
-- and its tests, as DEVELOPING.md "Adding a tool" says: in tools/list and
-- features() from the registry, its arguments checked by its inputSchema,
-- a move inside the granted workspace only, never over another note,
-- expectedUpdatedAt, audited as action move; a delete confirmation shown
-- before the move no longer deletes.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/mv');
SELECT mcp_notes.add_workspace('file:///t/mv-evil');
SELECT mcp_notes.grant_workspace('mia', 'file:///t/mv');
SELECT mcp_notes.grant_workspace('eve', 'file:///t/mv-evil');
SELECT mcp_notes.add_note('file:///t/mv/drafts/idea.md', 'Idea', 'body') AS idea \gset
SELECT mcp_notes.add_note('file:///t/mv/taken.md', 'Taken') AS taken \gset
SELECT mcp_notes.add_note('file:///t/mv-evil/secret.md', 'Secret') AS secret \gset

CREATE FUNCTION t.move(principal text, args jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as(principal, jsonb_build_object('method', 'tools/call',
        'params', jsonb_build_object('name', 'notes_move', 'arguments', args),
        'requestId', 'mv-1', 'gatewayId', 'regress-gw', 'clientInfo', '{"name": "regress", "version": "1"}'::jsonb))
$$;
CREATE FUNCTION t.mv(principal text, note_id text, uri text, ws text DEFAULT 'file:///t/mv', expected text DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
    SELECT regexp_replace(regexp_replace(CASE
                WHEN r ? 'error' THEN format('error %s: %s', r #>> '{error,data,reason}', r #>> '{error,message}')
                WHEN (r #>> '{result,isError}')::boolean THEN 'tool error: ' || (r #>> '{result,content,0,text}')
                ELSE 'ok ' || ((r #> '{result,structuredContent}') - 'noteId' - 'updatedAt')::text END,
                '\d{4}-\d\d-\d\dT[0-9:.]+Z', '<time>', 'g'),
                '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', 'g')
    FROM t.move(principal, jsonb_strip_nulls(jsonb_build_object('workspaceUri', ws, 'noteId', note_id, 'uri', uri,
                                                                'expectedUpdatedAt', expected))) r
$$;
CREATE FUNCTION t.version(note_id text) RETURNS text LANGUAGE sql AS $$
    SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM mcp_notes.notes n WHERE n.note_id = $1
$$;

-- In the registry like every tool: tools/list, features(), its descriptor.
SELECT d ->> 'title' AS title, d -> 'annotations' AS annotations, d #> '{inputSchema,required}' AS required,
       d #> '{inputSchema,properties,noteId,maxLength}' AS note_id_max, d #> '{inputSchema,properties,uri,maxLength}' AS uri_max
FROM jsonb_array_elements(mcp_notes.handle_as('mia', '{"method": "tools/list", "params": {}}') #> '{result,tools}') d
WHERE d ->> 'name' = 'notes_move';
SELECT mcp_notes.features() #> '{publicResults,tools/list,tools}' @> '[{"name": "notes_move"}]' AS in_features;

-- A move inside the workspace: the new uri (normalized), a newer version,
-- one audit row.
SELECT t.version(:'idea') AS v0 \gset
SELECT t.mv('mia', :'idea', 'FILE://localhost/t/mv/archive/./idea.md') AS moved;
SELECT uri, title, body, t.version(:'idea') > :'v0' AS newer FROM mcp_notes.notes WHERE note_id = :'idea';
SELECT principal, workspace_uri, note_uri, title, action, fields, request_id, gateway_id,
       updated_at = (SELECT n.updated_at FROM mcp_notes.notes n WHERE n.note_id = :'idea') AS version_recorded
FROM mcp_notes.change_audit WHERE note_id = :'idea' ORDER BY audit_id;
-- the same move again changes nothing, writes nothing (idempotent)
SELECT t.version(:'idea') AS v1 \gset
SELECT t.mv('mia', :'idea', 'file:///t/mv/archive/idea.md') AS again;
SELECT t.version(:'idea') = :'v1' AS not_written,
       (SELECT count(*) FROM mcp_notes.change_audit WHERE note_id = :'idea') AS audit_rows;

-- Refused, and nothing moves: a target outside the workspace (look-alike,
-- traversal raw and encoded, the workspace itself, another scheme,
-- malformed), an occupied target, a note outside or unknown, a workspace
-- not granted, a stale version, bad arguments.
SELECT u AS target, t.mv('mia', :'idea', u) AS outcome
FROM unnest(ARRAY['file:///t/mv-evil/x.md', 'file:///t/mvx.md', 'file:///t/mv/../mv-evil/x.md',
                  'file:///t/mv/%2e%2e/mv-evil/x.md', 'file:///t/mv', 'http://example.com/t/mv/x.md',
                  'file:///t/mv/a%2Fb.md', 'file:///t/mv/taken.md', 'file:///t/mv/./taken.md']) u;
SELECT t.mv('mia', :'secret', 'file:///t/mv/stolen.md') AS note_outside,
       t.mv('mia', 'no-such-id', 'file:///t/mv/x.md') AS no_such_note;
SELECT t.mv('mia', :'secret', 'file:///t/mv-evil/x.md', 'file:///t/mv-evil') AS not_granted,
       t.mv('eve', :'idea', 'file:///t/mv-evil/x.md', 'file:///t/mv') AS eve;
SELECT t.mv('mia', :'idea', 'file:///t/mv/later.md', 'file:///t/mv', :'v0') AS stale_version;
SELECT t.mv('mia', :'idea', 'file:///t/mv/later.md', 'file:///t/mv', :'v1') AS current_version;
SELECT a AS arguments, t.move('mia', a) #>> '{result,content,0,text}' AS refusal
FROM unnest(ARRAY['{"workspaceUri": "file:///t/mv", "noteId": "x"}',
                  '{"workspaceUri": "file:///t/mv", "noteId": "x", "uri": "file:///t/mv/y.md", "title": "y"}',
                  '{"workspaceUri": "file:///t/mv", "noteId": 1, "uri": "file:///t/mv/y.md"}']::jsonb[]) a;
SELECT t.move('mia', jsonb_build_object('workspaceUri', 'file:///t/mv', 'noteId', :'idea',
                                        'uri', 'file:///t/mv/' || repeat('u', 4100))) #>> '{result,content,0,text}' AS long_uri;
SELECT uri FROM mcp_notes.notes WHERE note_id IN (:'idea', :'taken', :'secret') ORDER BY uri;
-- a write outside a serializable transaction is refused before it writes
\set VERBOSITY terse
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT t.mv('mia', :'idea', 'file:///t/mv/rc.md');
ROLLBACK;
\set VERBOSITY default

-- A delete confirmation shown before the move does not delete the note
-- after it: the state bound the URI the form showed.
SELECT t.call('mia', 'file:///t/mv', 'Idea') AS r \gset
SELECT t.mv('mia', :'idea', 'file:///t/mv/moved-again.md') AS moved_after_the_form;
SELECT t.outcome(t.call('mia', 'file:///t/mv', 'Idea', t.accept(:'idea'), t.state(:'r'))) AS accept_after_move;
SELECT count(*) AS idea_still_there FROM mcp_notes.notes WHERE note_id = :'idea';
SELECT action, fields, note_uri FROM mcp_notes.change_audit WHERE note_id = :'idea' ORDER BY audit_id;

-- A file-backed workspace (docs/file-workspaces.md): its notes are files,
-- moved on disk, so notes_move refuses a move out of one or into one (a
-- tool error, not the trigger's exception), and nothing moves.
CREATE ROLE regress_mv_daemon;
SELECT mcp_notes.add_file_volume('mvvol', 'regress_mv_daemon');
SELECT mcp_notes.add_file_workspace('file:///t/mvf', 'mvvol', 'mvf') AS file_workspace;
SELECT mcp_notes.grant_workspace('mia', 'file:///t/mvf');
SELECT mcp_notes.add_workspace('file:///t');
SELECT mcp_notes.grant_workspace('mia', 'file:///t');
SELECT mcp_notes.add_note('file:///t/mvf/a.md', 'File note') AS filed \gset
SELECT mcp_notes.add_note('file:///t/mvn/b.md', 'Plain note') AS plain \gset
SELECT t.mv('mia', :'filed', 'file:///t/mvf/renamed.md', 'file:///t/mvf') AS file_note_within,
       t.mv('mia', :'filed', 'file:///t/mvf/sub/x.md', 'file:///t') AS file_note_out;
SELECT t.mv('mia', :'plain', 'file:///t/mvf/b.md', 'file:///t') AS into_file_workspace;
SELECT uri FROM mcp_notes.notes WHERE note_id IN (:'filed', :'plain') ORDER BY uri;
SELECT mcp_notes.revoke_workspace('mia', 'file:///t');
DELETE FROM mcp_notes.file_notes;
DELETE FROM mcp_notes.notes WHERE uri LIKE 'file:///t/mvf/%';
DROP OWNED BY regress_mv_daemon;
DROP ROLE regress_mv_daemon;
