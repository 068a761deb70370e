-- Legacy-era sessions and pending server requests: a session is bound to
-- the principal that opened it, expires, can be closed; an answer is stored
-- only for a pending request of the same session and principal, once, and
-- notified; the waiting gateway takes it once.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

SELECT mcp_notes.issue_token('lena') AS tok \gset
SELECT mcp_notes.issue_token('mallory') AS other \gset

-- a bad token opens nothing
SELECT mcp_notes.legacy_session_open('nope', '2025-11-25', '{}', NULL, '1 hour') #>> '{error,kind}' AS bad_token;
SELECT mcp_notes.legacy_session_open(:'tok', '2025-11-25', '[]', NULL, '1 hour') #>> '{error,kind}' AS caps_not_object;

SELECT mcp_notes.legacy_session_open(:'tok', '2025-11-25', '{"elicitation": {}}',
                                     '{"name": "regress", "version": "1"}', '1 hour') ->> 'sessionId' AS sid \gset
SELECT length(:'sid') AS sid_length, :'sid' ~ '^[A-Za-z0-9_-]+$' AS url_safe;
-- stored hashed, never in clear
SELECT count(*) AS rows, bool_and(session_hash <> convert_to(:'sid', 'UTF8')) AS hashed,
       bool_and(principal = 'lena') AS bound
FROM mcp_notes.legacy_sessions;

SELECT mcp_notes.legacy_session_check(:'tok', :'sid') AS checked;
-- another principal's token, a made-up id, a bad token
SELECT mcp_notes.legacy_session_check(:'other', :'sid') #>> '{error,kind}' AS foreign;
SELECT mcp_notes.legacy_session_check(:'tok', 'made-up') #>> '{error,kind}' AS unknown;
SELECT mcp_notes.legacy_session_check('nope', :'sid') #>> '{error,kind}' AS bad_token;

-- a pending request, its answer from another principal (refused), the
-- right one (stored once), and the take
SELECT mcp_notes.legacy_pending_open(:'tok', :'sid', '"el-1"', '1 minute') ->> 'pendingId' AS pid \gset
SELECT mcp_notes.legacy_pending_take(:'tok', :'pid', false) AS not_yet;
SELECT mcp_notes.legacy_answer(:'other', :'sid', '{"jsonrpc": "2.0", "id": "el-1", "result": {"action": "decline"}}') #>> '{error,kind}' AS foreign_answer;
SELECT mcp_notes.legacy_answer(:'tok', :'sid', '{"jsonrpc": "2.0", "id": "el-2", "result": {"action": "decline"}}') #>> '{error,data,reason}' AS wrong_id;
SELECT (mcp_notes.legacy_answer(:'tok', :'sid', '{"jsonrpc": "2.0", "id": "el-1", "result": {"action": "decline"}}') ->> 'pendingId') = :'pid' AS answered;
SELECT mcp_notes.legacy_answer(:'tok', :'sid', '{"jsonrpc": "2.0", "id": "el-1", "result": {"action": "accept"}}') #>> '{error,data,reason}' AS answered_twice;
SELECT mcp_notes.legacy_pending_take(:'other', :'pid', true) AS foreign_take;
SELECT mcp_notes.legacy_pending_take(:'tok', :'pid', false) AS taken;
SELECT mcp_notes.legacy_pending_take(:'tok', :'pid', false) AS taken_again;
-- give_up ends an unanswered request
SELECT mcp_notes.legacy_pending_open(:'tok', :'sid', '7', '1 minute') ->> 'pendingId' AS pid2 \gset
SELECT mcp_notes.legacy_pending_take(:'tok', :'pid2', true) AS given_up;
SELECT count(*) AS pending_rows FROM mcp_notes.legacy_pending;

-- close: ends the session and its pending requests; a second close and
-- any later check are not found
SELECT mcp_notes.legacy_pending_open(:'tok', :'sid', '8', '1 minute') ? 'pendingId' AS opened;
SELECT mcp_notes.legacy_session_close(:'other', :'sid') #>> '{error,kind}' AS foreign_close;
SELECT mcp_notes.legacy_session_close(:'tok', :'sid') AS closed;
SELECT mcp_notes.legacy_session_close(:'tok', :'sid') #>> '{error,kind}' AS closed_again;
SELECT mcp_notes.legacy_session_check(:'tok', :'sid') #>> '{error,kind}' AS after_close;
SELECT count(*) AS pending_rows FROM mcp_notes.legacy_pending;

-- expiry: a session whose time passed is not found, and pruning removes it
SELECT mcp_notes.legacy_session_open(:'tok', '2025-06-18', '{}', NULL, '1 second') ->> 'sessionId' AS short \gset
UPDATE mcp_notes.legacy_sessions SET expires_at = clock_timestamp() - interval '1 second';
SELECT mcp_notes.legacy_session_check(:'tok', :'short') #>> '{error,kind}' AS expired;
SELECT mcp_notes.prune_legacy_sessions() AS pruned, (SELECT count(*) FROM mcp_notes.legacy_sessions) AS sessions;

-- the ttl is clamped: at most a day
SELECT mcp_notes.legacy_session_open(:'tok', '2025-11-25', '{}', NULL, '1 year') ? 'sessionId' AS opened;
SELECT ttl FROM mcp_notes.legacy_sessions;

-- a principal keeps at most 100 sessions: the oldest go
SELECT count(*) FILTER (WHERE mcp_notes.legacy_session_open(:'tok', '2025-11-25', '{}', NULL, '1 hour') ? 'sessionId') AS opened
FROM generate_series(1, 120);
SELECT count(*) AS sessions FROM mcp_notes.legacy_sessions;

-- the development entry points: a principal by name, the same rules
SELECT mcp_notes.legacy_session_open_as('dev', '2025-11-25', '{}', NULL, '1 hour') ->> 'sessionId' AS dev_sid \gset
SELECT mcp_notes.legacy_session_check_as('dev', :'dev_sid') ->> 'protocolVersion' AS dev_checked;
SELECT mcp_notes.legacy_session_check_as('lena', :'dev_sid') #>> '{error,kind}' AS dev_foreign;
SELECT mcp_notes.legacy_session_check(:'tok', :'dev_sid') #>> '{error,kind}' AS dev_foreign_token;
SELECT mcp_notes.legacy_pending_open_as('dev', :'dev_sid', '1', '1 minute') ->> 'pendingId' AS dev_pid \gset
SELECT mcp_notes.legacy_answer_as('dev', :'dev_sid', '{"jsonrpc": "2.0", "id": 1, "result": {}}') ? 'pendingId' AS dev_answered;
SELECT mcp_notes.legacy_pending_take_as('dev', :'dev_pid', false) AS dev_taken;
SELECT mcp_notes.legacy_session_close_as('dev', :'dev_sid') AS dev_closed;
SELECT mcp_notes.legacy_session_open_as('not a principal!', '2025-11-25', '{}', NULL, '1 hour');

-- inside a transaction block the entry points refuse to act
BEGIN;
SELECT mcp_notes.legacy_session_check(:'tok', 'x');
ROLLBACK;
