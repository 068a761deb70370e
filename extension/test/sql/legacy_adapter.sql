-- The 2025 era through handle(): a request object naming a session is one
-- statement that finds and renews the session, takes its capabilities, and
-- records the input requests an input_required outcome asks for; the retry
-- takes the answers; the internal methods; the caps on waiting requests
-- (per session and per principal); what a session keeps of initialize's
-- capabilities; a revoked token's and a closed session's waits end, told
-- on the channel the waiting gateway listens to.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/la'), mcp_notes.grant_workspace('lara', 'file:///t/la');
SELECT mcp_notes.add_note('file:///t/la/a.md', 'alpha') AS note \gset
SELECT mcp_notes.issue_token('lara') AS tok \gset
SELECT mcp_notes.issue_token('lara') AS tok2 \gset
SELECT mcp_notes.issue_token('mallory') AS other \gset

-- initialize keeps only elicitation, sampling, roots and tasks
SELECT mcp_notes.handle(:'tok', '{"method": "mcp_notes/session/open", "params": {"protocolVersion": "2025-11-25",
    "capabilities": {"elicitation": {}, "experimental": {"x": 1}, "roots": {"listChanged": true}, "sampling": true},
    "clientInfo": {"name": "regress", "version": "1", "extra": "dropped"}, "ttlSeconds": 3600}}')
    #>> '{result,sessionId}' AS sid \gset
SELECT client_capabilities, client_info FROM mcp_notes.legacy_sessions;
-- an oversized initialize is refused, whatever keys it uses
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/session/open', 'params',
    jsonb_build_object('protocolVersion', '2025-11-25', 'capabilities',
                       jsonb_build_object('experimental', repeat('x', 20000)))))
    -> 'error' AS too_large;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/session/open', 'params',
    jsonb_build_object('protocolVersion', '2025-11-25', 'capabilities',
                       jsonb_build_object('elicitation', jsonb_build_object('x', repeat('x', 5000))))))
    #>> '{error,data,reason}' AS kept_too_large;
SELECT count(*) AS sessions FROM mcp_notes.legacy_sessions;

-- a session request: the session's capabilities, never the request's
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'ping', 'params', '{}'::jsonb, 'session', :'sid')) AS ping;
SELECT mcp_notes.handle(:'other', jsonb_build_object('method', 'ping', 'params', '{}'::jsonb, 'session', :'sid')) #>> '{error,kind}' AS foreign;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'ping', 'params', '{}'::jsonb, 'session', 'made-up')) #>> '{error,kind}' AS unknown;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'ping', 'params', '{}'::jsonb, 'session', 7)) #>> '{error,kind}' AS not_a_string;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'server/discover', 'params', '{}'::jsonb, 'session', :'sid')) #>> '{error,kind}' AS not_a_method;

-- step 1 records the input request as pending, bound to the token, in the same statement
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid', 'inputWaitMs', 60000,
    'clientCapabilities', '{}', 'requestId', 1, 'gatewayId', 'regress',
    'params', jsonb_build_object('name', 'notes_delete', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'alpha')))) AS step1 \gset
SELECT :'step1'::jsonb #>> '{result,resultType}' AS step1_type,
       :'step1'::jsonb #>> '{pending,delete_choice,id}' ~ '^mcpn-[0-9a-f]{16}$' AS rpc_id_made_here,
       (SELECT count(*) FROM mcp_notes.legacy_pending p
        WHERE p.pending_id = (:'step1'::jsonb #>> '{pending,delete_choice,pendingId}')::bigint
          AND p.opened_by = mcp_notes._token_hash(:'tok')
          AND p.expires_at > clock_timestamp() + interval '50 seconds') AS recorded;
SELECT :'step1'::jsonb #>> '{pending,delete_choice,pendingId}' AS pid, :'step1'::jsonb #> '{pending,delete_choice,id}' AS rid,
       t.state(:'step1'::jsonb) AS state \gset
-- the retry before the answer: nothing happens
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid',
    'inputFrom', jsonb_build_object('delete_choice', :pid),
    'params', jsonb_build_object('name', 'notes_delete', 'requestState', :'state', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'alpha')))) #>> '{error,kind}' AS too_early;
-- the answer (another principal's lands nowhere), then the retry takes it and deletes
SELECT mcp_notes.handle(:'other', jsonb_build_object('method', 'mcp_notes/pending/answer', 'session', :'sid', 'params',
    jsonb_build_object('response', jsonb_build_object('jsonrpc', '2.0', 'id', :'rid'::jsonb, 'result', '{}')))) #>> '{error,kind}' AS foreign_answer;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/pending/answer', 'session', :'sid', 'params',
    jsonb_build_object('response', jsonb_build_object('jsonrpc', '2.0', 'id', :'rid'::jsonb, 'result',
        jsonb_build_object('action', 'accept', 'content', jsonb_build_object('note_id', :'note', 'confirm', true))))))
    #>> '{result,pendingId}' = :'pid' AS answered;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid', 'requestId', 2,
    'inputFrom', jsonb_build_object('delete_choice', :pid),
    'params', jsonb_build_object('name', 'notes_delete', 'requestState', :'state', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'alpha'))))
    #> '{result,structuredContent}' = jsonb_build_object('noteId', :'note', 'deleted', true) AS retried;
SELECT count(*) AS pending_left FROM mcp_notes.legacy_pending;
SELECT outcome, client_info FROM mcp_notes.delete_audit;
-- taken once: a second retry finds nothing
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid',
    'inputFrom', jsonb_build_object('delete_choice', :pid),
    'params', jsonb_build_object('name', 'notes_delete', 'requestState', :'state'))) #>> '{error,kind}' AS taken_twice;

-- the caps: at most 4 waiting in a session, 8 for a principal
SELECT mcp_notes.add_note('file:///t/la/b.md', 'beta') IS NOT NULL AS added;
CREATE TEMP TABLE opened AS
SELECT i, mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid',
    'params', jsonb_build_object('name', 'notes_delete', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'beta')))) AS o
FROM generate_series(1, 5) AS i;
SELECT i, coalesce(o #>> '{result,resultType}', '') AS type, o #>> '{result,isError}' AS is_error,
       left(o #>> '{result,content,0,text}', 40) AS text FROM opened ORDER BY i;
SELECT mcp_notes.handle(:'tok', '{"method": "mcp_notes/session/open", "params": {"protocolVersion": "2025-11-25",
    "capabilities": {"elicitation": {}}}}') #>> '{result,sessionId}' AS sid2 \gset
SELECT mcp_notes.handle(:'tok', '{"method": "mcp_notes/session/open", "params": {"protocolVersion": "2025-11-25",
    "capabilities": {"elicitation": {}}}}') #>> '{result,sessionId}' AS sid3 \gset
SELECT count(*) FILTER (WHERE mcp_notes.handle(:'tok2', jsonb_build_object('method', 'tools/call', 'session', s.sid,
    'params', jsonb_build_object('name', 'notes_delete', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'beta'))))
    #>> '{result,resultType}' = 'input_required') AS more_asked
FROM (VALUES (:'sid2'), (:'sid2'), (:'sid2'), (:'sid3'), (:'sid3')) AS s(sid);
SELECT count(*) AS waiting FROM mcp_notes.legacy_pending;
-- a 1.3 entry point is capped too
SELECT mcp_notes.legacy_pending_open(:'tok', :'sid3', '"x"', '1 minute') #>> '{error,data,reason}' AS capped_1_3;

-- revoking a token ends what it opened (and only that)
SELECT mcp_notes.revoke_token(:'tok2') AS revoked;
SELECT count(*) AS waiting FROM mcp_notes.legacy_pending;
SELECT count(*) FILTER (WHERE opened_by = mcp_notes._token_hash(:'tok')) AS of_tok FROM mcp_notes.legacy_pending;
-- closing a session ends its waits
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/session/close', 'params', '{}'::jsonb, 'session', :'sid')) AS closed;
SELECT count(*) AS waiting FROM mcp_notes.legacy_pending;

-- an answer as a 2025 client may send it: an error response is a cancel
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid3', 'inputWaitMs', 60000,
    'params', jsonb_build_object('name', 'notes_delete', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'beta')))) AS s1 \gset
SELECT :'s1'::jsonb #>> '{pending,delete_choice,pendingId}' AS pid, :'s1'::jsonb #> '{pending,delete_choice,id}' AS rid,
       t.state(:'s1'::jsonb) AS state \gset
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/pending/answer', 'session', :'sid3', 'params',
    jsonb_build_object('response', jsonb_build_object('jsonrpc', '2.0', 'id', :'rid'::jsonb,
        'error', jsonb_build_object('code', -1, 'message', 'closed'))))) ? 'result' AS answered;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid3',
    'inputFrom', jsonb_build_object('delete_choice', :pid),
    'params', jsonb_build_object('name', 'notes_delete', 'requestState', :'state', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'beta'))))
    #> '{result,structuredContent}' AS cancelled;
-- giving up: an unanswered request goes, and the retry says so
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid3',
    'params', jsonb_build_object('name', 'notes_delete', 'arguments',
                                 jsonb_build_object('workspaceUri', 'file:///t/la', 'title', 'beta')))) AS s2 \gset
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'sid3', 'giveUp', true,
    'inputFrom', jsonb_build_object('delete_choice', (:'s2'::jsonb #>> '{pending,delete_choice,pendingId}')::bigint),
    'params', jsonb_build_object('name', 'notes_delete', 'requestState', t.state(:'s2'::jsonb))))
    #> '{error,data}' AS gave_up;
SELECT count(*) AS waiting FROM mcp_notes.legacy_pending WHERE session_hash = mcp_notes._legacy_session_hash(:'sid3');
-- an internal method that needs a session, without one
SELECT mcp_notes.handle(:'tok', '{"method": "mcp_notes/pending/answer", "params": {}}') #>> '{error,kind}' AS no_session;
SELECT mcp_notes.handle(:'tok', '{"method": "mcp_notes/nothing", "params": {}}') #>> '{error,kind}' AS no_session_either;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/nothing', 'params', '{}'::jsonb, 'session', :'sid3')) #>> '{error,kind}' AS unknown_internal;
