-- Least privilege: a gateway role can run the API and nothing else.
\set ECHO none
\i test/fixture.sql
\set ECHO all
CREATE ROLE regress_gateway LOGIN;
CREATE ROLE regress_dev_gateway LOGIN;
SELECT mcp_notes.grant_gateway('regress_gateway');
SELECT mcp_notes.grant_dev_gateway('regress_dev_gateway');
SELECT r.rolname, s.setconfig
FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
WHERE r.rolname LIKE 'regress\_%gateway' ORDER BY 1;

SELECT mcp_notes.add_workspace('file:///t/priv');
SELECT mcp_notes.grant_workspace('dave', 'file:///t/priv');
SELECT mcp_notes.add_note('file:///t/priv/todo.md', 'todo') IS NOT NULL AS added;
GRANT USAGE ON SCHEMA t TO regress_gateway;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA t TO regress_gateway;
SELECT mcp_notes.issue_token('dave') AS tok \gset

SET default_transaction_isolation = serializable;
SET ROLE regress_gateway;
-- What it may do.
SELECT mcp_notes.authenticate(:'tok') AS principal;
SELECT jsonb_path_query_array(mcp_notes.tool_descriptors(), '$[*].name') AS tools;
SELECT mcp_notes.features() ->> 'contract' AS contract;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {}}') #> '{result,tools,0,name}' AS listed;
SELECT t_outcome FROM (SELECT mcp_notes.call_tool(:'tok', 'notes_delete', '{"workspaceUri": "file:///t/priv", "title": "todo"}',
                                                  NULL, NULL, '{"elicitation": {}}', '1', NULL, 'gw') #>> '{result,resultType}' AS t_outcome) v;
SELECT mcp_notes.call_tool(:'tok', 'notes_delete', '{"workspaceUri": "file:///t/priv", "title": "todo"}',
                           NULL, NULL, '{"elicitation": {}}', '2', NULL, 'gw') AS r \gset
SELECT mcp_notes.call_tool(:'tok', 'notes_delete', '{"workspaceUri": "file:///t/priv", "title": "todo"}',
                           jsonb_build_object('delete_choice', jsonb_build_object('action', 'accept', 'content',
                               jsonb_build_object('note_id', (t.choices(:'r'))[1], 'confirm', true))),
                           t.state(:'r'), '{"elicitation": {}}', '3', NULL, 'gw') #> '{result,structuredContent,deleted}' AS deleted_through_the_api;
-- What it may not.
SELECT * FROM mcp_notes.state_keys;
SELECT * FROM mcp_notes.tokens;
SELECT * FROM mcp_notes.notes;
SELECT * FROM mcp_notes.grants;
SELECT * FROM mcp_notes.spent_states;
SELECT * FROM mcp_notes.delete_audit;
DELETE FROM mcp_notes.notes;
INSERT INTO mcp_notes.spent_states VALUES ('x', now(), now(), 'accept');
TRUNCATE mcp_notes.delete_audit;
SELECT mcp_notes._seal_state('{}');
SELECT mcp_notes._open_state('v1.1.e30.AAAA');
SELECT mcp_notes._random_bytes(32);
SELECT mcp_notes.call_tool_as('dave', 'notes_delete', '{}', NULL, NULL, '{}', '1', NULL, 'gw');
SELECT mcp_notes.handle_as('dave', '{"method": "tools/list", "params": {}}');
SELECT mcp_notes._handle('dave', '{"method": "tools/list", "params": {}}');
SELECT * FROM mcp_notes.tools;
SELECT mcp_notes.issue_token('dave');
SELECT mcp_notes.grant_workspace('dave', 'file:///t');
SELECT mcp_notes.add_note('file:///t/priv/x.md', 'x');
SELECT mcp_notes.rotate_state_key();
SELECT mcp_notes._tool_notes_delete('dave', '{}');
CREATE FUNCTION mcp_notes.authenticate(token text, extra int) RETURNS text LANGUAGE sql AS 'SELECT NULL';
-- The pure URI functions are for everyone.
SELECT mcp_notes.normalize_uri('file:///t/priv/../x'), mcp_notes.uri_contains('file:///t', 'file:///t/x');
RESET ROLE;

-- The development entry point only for the role granted it.
SET ROLE regress_dev_gateway;
SELECT mcp_notes.call_tool_as('dave', 'notes_delete', '{"workspaceUri": "file:///t/priv", "title": "todo"}',
                              NULL, NULL, '{"elicitation": {}}', '1', NULL, 'gw') #>> '{result,resultType}' AS dev_call;
SELECT mcp_notes.handle_as('dave', '{"method": "tools/call", "params": {"name": "notes_delete",
    "arguments": {"workspaceUri": "file:///t/priv", "title": "todo"}}, "clientCapabilities": {"elicitation": {}}}')
    #>> '{result,resultType}' AS dev_handle;
SELECT * FROM mcp_notes.notes;
RESET ROLE;
SELECT count(*) AS notes_left FROM mcp_notes.notes WHERE uri LIKE 'file:///t/priv/%';

-- Clean up the cluster-wide roles.
DROP OWNED BY regress_gateway, regress_dev_gateway;
DROP ROLE regress_gateway, regress_dev_gateway;
