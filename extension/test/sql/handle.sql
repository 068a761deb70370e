-- Contract 2 (docs/contract.md): handle(), handle_as(), features(), the
-- outcome kinds, the tool registry, and that the 1.1 entry points answer
-- as they did.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/handle');
SELECT mcp_notes.grant_workspace('hana', 'file:///t/handle');
SELECT mcp_notes.add_note('file:///t/handle/a.md', 'handle note') AS note \gset
SELECT mcp_notes.issue_token('hana') AS tok \gset

-- features(): the version comes from pg_extension.
SELECT jsonb_pretty(mcp_notes.features() - 'publicResults' - 'instructions') AS features;
SELECT mcp_notes.features() ->> 'extensionVersion' = extversion AS version_from_catalog
FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.features() #> '{publicResults,tools/list}' = mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {}}') -> 'result'
       AS public_result_is_the_result;
-- every method features() lists is answered
SELECT m AS method, mcp_notes.handle_as('hana', jsonb_build_object('method', m, 'params', '{}'::jsonb)) #>> '{error,kind}' AS error_kind
FROM jsonb_array_elements_text(mcp_notes.features() -> 'methods') m;

-- tools/list: one page
SELECT (mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {}}') -> 'result') - 'tools' AS tools_list;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {}}') #> '{result,tools}' = mcp_notes.tool_descriptors() AS same_descriptors;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {"cursor": "x"}}');
-- members tools/list does not know are ignored, and so is a null cursor
SELECT mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {"other": 1}}') -> 'result'
       = mcp_notes.features() -> 'publicResults' -> 'tools/list' AS unknown_member_ignored;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {"cursor": null}}') -> 'result'
       = mcp_notes.features() -> 'publicResults' -> 'tools/list' AS null_cursor_ignored;

-- each kind
SELECT mcp_notes.handle('mcpn_nope', '{"method": "tools/list", "params": {}}');
SELECT mcp_notes.handle(NULL, '{"method": "tools/list", "params": {}}');
SELECT mcp_notes.handle(:'tok', '{"method": "resources/subscribe", "params": {}}');
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": []}');
SELECT mcp_notes.handle(:'tok', '[]');
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": 7}}');
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {}}');
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_delete", "requestState": 5}}');
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_delete", "requestState": null}}');
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_rm"}}');
-- the unknown name is quoted back printable (ESC, a bidi override) and bounded
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'params',
         jsonb_build_object('name', 'x' || chr(27) || '[2J' || chr(8238) || repeat('y', 300)))) #>> '{error,message}' AS message;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_delete",
    "arguments": {"workspaceUri": "file:///t/handle", "title": "handle"}}}');
SELECT mcp_notes.handle_as('no such principal!', '{"method": "tools/list", "params": {}}');

-- The whole flow through handle(): ask, accept.
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_delete",
    "arguments": {"workspaceUri": "file:///t/handle", "title": "handle"}},
    "clientCapabilities": {"elicitation": {"form": {}}}, "requestId": 41, "gatewayId": "gw-h",
    "clientInfo": {"name": "regress"}}') AS r \gset
SELECT t.outcome(:'r');
SELECT (mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'params', jsonb_build_object(
    'name', 'notes_delete', 'arguments', '{"workspaceUri": "file:///t/handle", "title": "handle"}'::jsonb,
    'inputResponses', t.accept(:'note'), 'requestState', t.state(:'r')),
    'clientCapabilities', '{}'::jsonb, 'requestId', 'req-42', 'gatewayId', 'gw-h')) #> '{result,structuredContent}') - 'noteId' AS accepted;
SELECT principal, outcome, request_id, gateway_id, client_info FROM mcp_notes.delete_audit ORDER BY audit_id;

-- The 1.1 entry points give 1.1's answers.
SELECT mcp_notes.call_tool('mcpn_nope', 'notes_delete', NULL, NULL, NULL, NULL, '1', NULL, 'gw');
SELECT mcp_notes.call_tool(:'tok', NULL, NULL, NULL, NULL, NULL, '1', NULL, 'gw');
SELECT mcp_notes.call_tool(:'tok', 'notes_rm', NULL, NULL, NULL, NULL, '1', NULL, 'gw');
SELECT mcp_notes.call_tool(:'tok', 'notes_delete', '{"workspaceUri": "file:///t/handle", "title": "x"}', NULL, NULL, NULL, '1', NULL, 'gw');
SELECT mcp_notes.call_tool(:'tok', 'notes_delete', 'null', 'null', NULL, NULL, '1', NULL, 'gw');
SELECT mcp_notes.call_tool_as('hana', 'notes_delete', '{"workspaceUri": "file:///t/handle", "title": "gone"}',
                              NULL, 'v1.1.e30.AAAA', '{"elicitation": {}}', '1', NULL, 'gw');

-- The registry: one row per tool, each handler (principal text, request jsonb) -> jsonb.
SELECT name, position, handler, descriptor ->> 'title' AS title,
       to_regprocedure('mcp_notes.' || handler || '(text, jsonb)') IS NOT NULL AS handler_exists,
       (SELECT p.prorettype::regtype FROM pg_proc p
        WHERE p.oid = to_regprocedure('mcp_notes.' || handler || '(text, jsonb)')) AS returns
FROM mcp_notes.tools ORDER BY position;
SELECT p.provolatile AS tool_descriptors_volatility FROM pg_proc p WHERE p.oid = 'mcp_notes.tool_descriptors()'::regprocedure;

-- Adding a tool is one function and one row: tools/list, tools/call and
-- features() follow.  (In a release the two live in the source script and
-- its upgrade script; here a test tool is added and removed again.)
CREATE FUNCTION mcp_notes._tool_notes_echo(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = mcp_notes, pg_temp
AS $$ SELECT jsonb_build_object('result', jsonb_build_object('resultType', 'complete',
        'content', jsonb_build_array(jsonb_build_object('type', 'text',
            'text', principal || ': ' || (request #>> '{params,arguments,text}'))))) $$;
INSERT INTO mcp_notes.tools (name, position, descriptor, handler)
VALUES ('notes_echo', 99, '{"name": "notes_echo", "inputSchema": {"type": "object"}}', '_tool_notes_echo');
SELECT jsonb_path_query_array(mcp_notes.features(), '$.publicResults."tools/list".tools[*].name') AS listed;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_echo",
    "arguments": {"text": "hi"}}, "clientCapabilities": {}, "requestId": 1, "gatewayId": "gw"}') #> '{result,content,0,text}' AS echoed;
-- a row can only name the _tool_ function of its own name
INSERT INTO mcp_notes.tools (name, position, descriptor, handler)
VALUES ('notes_evil', 98, '{"name": "notes_evil"}', 'authenticate');
INSERT INTO mcp_notes.tools (name, position, descriptor, handler)
VALUES ('notes_evil', 98, '{"name": "other"}', '_tool_notes_evil');
DELETE FROM mcp_notes.tools WHERE name = 'notes_echo';
DROP FUNCTION mcp_notes._tool_notes_echo(text, jsonb);
SELECT jsonb_path_query_array(mcp_notes.features(), '$.publicResults."tools/list".tools[*].name') AS listed;
