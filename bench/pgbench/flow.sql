-- The SQL floor of one notes_delete flow: exactly the two statements a
-- gateway sends (step 1, then step 2 with the state and the note step 1
-- offered), each its own transaction, serializable by the gateway role's
-- default_transaction_isolation, over the extended protocol (-M extended,
-- unnamed statements, as PQexecParams).  The JSON extraction around call_tool
-- stands in for the gateway's json-c parse.
--
-- Variables: tok (bearer token), run (run number), k (note counter, -D k=0).
-- Notes titled 'r<run> c<client> n<k>|' exist beforehand (bench/run.py).
\set k :k + 1
SELECT r #>> '{result,requestState}' AS state,
       r #>> '{result,inputRequests,delete_choice,params,requestedSchema,properties,note_id,oneOf,0,const}' AS note
FROM (SELECT mcp_notes.call_tool(:tok::text, 'notes_delete',
        format('{"workspaceUri":"file:///bench/flow","title":"r%s c%s n%s|"}', :run::int, :client_id::int, :k::int)::jsonb,
        NULL, NULL, '{"elicitation":{}}'::jsonb, '1',
        '{"name":"mcp-notes-bench","version":"1.0"}'::jsonb, 'pgbench')::text::jsonb AS r) s
\gset
SELECT (r #>> '{result,structuredContent,deleted}') = 'true'
       AND (r #>> '{result,structuredContent,noteId}') = :note::text AS ok
FROM (SELECT mcp_notes.call_tool(:tok::text, 'notes_delete',
        format('{"workspaceUri":"file:///bench/flow","title":"r%s c%s n%s|"}', :run::int, :client_id::int, :k::int)::jsonb,
        jsonb_build_object('delete_choice', jsonb_build_object('action', 'accept',
            'content', jsonb_build_object('note_id', :note::text, 'confirm', true))),
        :state::text, '{"elicitation":{}}'::jsonb, '2',
        '{"name":"mcp-notes-bench","version":"1.0"}'::jsonb, 'pgbench')::text::jsonb AS r) s
\gset
-- a wrong answer is an error, not a success
\if :ok
\else
SELECT 1 / 0 AS wrong_answer;
\endif
