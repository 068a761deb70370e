-- The entry points and what they store: tokens judged at the time of the
-- act, audit rows timed by the clock, self-reported data bounded, cancels
-- and declines unable to flood the audit, triggers that fire in replica
-- mode, and what PUBLIC can call.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/entry');
SELECT mcp_notes.grant_workspace('erin', 'file:///t/entry');
SELECT mcp_notes.add_note('file:///t/entry/a.md', 'entry note') IS NOT NULL AS added;
SELECT mcp_notes.issue_token('erin') AS tok \gset

-- A request as a gateway sends it, with a client_info of the caller's choice.
CREATE FUNCTION t.req(state text, responses jsonb, client_info jsonb, gateway_id text DEFAULT 'gw-entry')
RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_strip_nulls(jsonb_build_object(
        'method', 'tools/call', 'requestId', 'entry-1', 'gatewayId', gateway_id, 'clientInfo', client_info,
        'clientCapabilities', '{"elicitation": {}}'::jsonb,
        'params', jsonb_build_object('name', 'notes_delete', 'requestState', state, 'inputResponses', responses,
                                     'arguments', '{"workspaceUri": "file:///t/entry", "title": "entry"}'::jsonb)))
$$;
CREATE FUNCTION t.ask() RETURNS text LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('erin', t.req(NULL, NULL, NULL)) #>> '{result,requestState}'
$$;

-- Inside a transaction block the token-taking entry points refuse to act
-- (the block's snapshot may predate a revocation); handle_as does not take
-- a token and still works there.
BEGIN;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/list", "params": {}}') #>> '{result,resultType}' AS in_block;
ROLLBACK;
BEGIN;
SELECT mcp_notes.authenticate(:'tok') AS in_block;
ROLLBACK;
BEGIN;
SELECT mcp_notes.call_tool(:'tok', 'notes_delete', '{}', NULL, NULL, NULL, '1', NULL, 'gw') AS in_block;
ROLLBACK;
BEGIN;
SELECT mcp_notes.handle_as('erin', '{"method": "tools/list", "params": {}}') #>> '{result,resultType}' AS handle_as_in_block;
ROLLBACK;
-- A statement nested in another (a DO block) that began long before: its
-- snapshot is as old as the outer statement.
DO $$ BEGIN PERFORM pg_sleep(5.5); PERFORM mcp_notes.authenticate('mcpn_x'); END $$;
SELECT mcp_notes.authenticate(:'tok') AS own_statement;

-- Expiry is judged by the clock at the time of the call, not the
-- transaction's start.
SELECT mcp_notes.issue_token('erin', '3 seconds') AS short_tok \gset
SELECT pg_sleep(3.2), mcp_notes.authenticate(:'short_tok') AS after_expiry_same_statement;

-- The audit row and the spent state are timed when they are written.
SELECT t.ask() AS state \gset
SELECT pg_sleep(1.1) AS slept,
       mcp_notes.handle_as('erin', t.req(:'state', t.answer('decline'), NULL)) #>> '{result,structuredContent,deleted}' AS deleted,
       now() AS started \gset
SELECT :'deleted' AS deleted,
       a.at - :'started'::timestamptz >= interval '1 second' AS audit_timed_at_the_act,
       s.spent_at - :'started'::timestamptz >= interval '1 second' AS spent_timed_at_the_act,
       a.at = s.spent_at AS one_time_for_the_act
FROM mcp_notes.delete_audit a, mcp_notes.spent_states s
WHERE a.outcome = 'decline' AND s.outcome = 'decline';

-- So is a revocation, so it compares with the audit's times.
SELECT mcp_notes.issue_token('erin') AS tok_r \gset
SELECT pg_sleep(1.1) AS slept, mcp_notes.revoke_token(:'tok_r') AS revoked, now() AS started \gset
SELECT :'revoked' AS revoked, t.revoked_at - :'started'::timestamptz >= interval '1 second' AS revoked_at_timed_at_the_act
FROM mcp_notes.tokens t WHERE t.token_hash = mcp_notes._token_hash(:'tok_r');

-- What a client says about itself is stored bounded: name and version when
-- they are strings, each cut to 100 characters, control characters escaped;
-- anything else is dropped.  A gateway id is bounded the same way.
DELETE FROM mcp_notes.delete_audit;
SELECT t.ask() AS state \gset
SELECT mcp_notes.handle_as('erin', t.req(:'state', t.answer('cancel'),
           jsonb_build_object('name', repeat('n', 300), 'version', E'1.0\n\u0007\\x', 'huge', repeat('x', 1000000)),
           E'gw\r\n' || repeat('g', 300))) #>> '{result,structuredContent,cancelled}' AS cancelled;
SELECT length(a.client_info ->> 'name') AS name_length, a.client_info ->> 'version' AS version,
       a.client_info ? 'huge' AS kept_huge, pg_column_size(a.client_info) < 400 AS small,
       left(a.gateway_id, 10) AS gateway_id, length(a.gateway_id) AS gateway_id_length
FROM mcp_notes.delete_audit a;
SELECT v, mcp_notes.handle_as('erin', t.req(t.ask(), t.answer('decline'), c)) #>> '{result,structuredContent,deleted}' AS deleted
FROM (VALUES (1, '"just a string"'::jsonb), (2, '{"name": 7, "version": ["1"], "other": "x"}'),
             (3, '[1, 2]'), (4, '{"version": "2"}')) x(v, c) ORDER BY v;
SELECT a.outcome, a.client_info FROM mcp_notes.delete_audit a ORDER BY a.audit_id;

-- A cancel spends nothing, so the same state can be cancelled again and
-- again: it is audited once.
DELETE FROM mcp_notes.delete_audit;
SELECT t.ask() AS state \gset
SELECT count(*) FILTER (WHERE r #>> '{result,structuredContent,cancelled}' = 'true') AS cancels_answered
FROM generate_series(1, 50) i,
     mcp_notes.handle_as('erin', t.req(:'state', t.answer('cancel'), jsonb_build_object('name', 'client ' || i))) r;
SELECT outcome, count(*) FROM mcp_notes.delete_audit GROUP BY 1;
-- ... and the state is still good for an accept.
SELECT mcp_notes.handle_as('erin', t.req(:'state', t.accept(t.note_id('entry note')), NULL))
       #>> '{result,structuredContent,deleted}' AS deleted_after_cancels;
SELECT mcp_notes.add_note('file:///t/entry/a.md', 'entry note') IS NOT NULL AS added_again;

-- Fresh states, each cancelled or declined once: beyond a budget per
-- principal and hour the answers are counted in mcp_notes.audit_budget
-- instead of written one by one.
-- (A budget window is an hour: start a new one if this one is about to end.)
SELECT pg_sleep(CASE WHEN r < 15 THEN r + 0.1 ELSE 0 END) AS waited
FROM (SELECT 3600 - extract(epoch FROM clock_timestamp())::numeric % 3600 AS r) x \gset
DELETE FROM mcp_notes.delete_audit;
DELETE FROM mcp_notes.audit_budget;
SET mcp_notes.audit_budget = 100;         -- (1000 by default; superuser-only)
SELECT count(*) AS declines_before FROM mcp_notes.spent_states WHERE outcome = 'decline' \gset
SELECT count(*) AS answered
FROM generate_series(1, 130) i,
     mcp_notes.handle_as('erin', t.req(t.ask(), t.answer(CASE WHEN i % 2 = 0 THEN 'cancel' ELSE 'decline' END), NULL)) r
WHERE r #>> '{result,structuredContent,deleted}' = 'false';
SELECT count(*) AS audit_rows FROM mcp_notes.delete_audit;
SELECT principal, written, suppressed_declines, suppressed_cancels, last_suppressed_at IS NOT NULL AS when_known
FROM mcp_notes.audit_budget;
-- Every spent state still has its record: a row of its own or a count.
SELECT (SELECT count(*) FROM mcp_notes.spent_states WHERE outcome = 'decline') - :declines_before
     = (SELECT count(*) FROM mcp_notes.delete_audit WHERE outcome = 'decline')
       + (SELECT sum(suppressed_declines) FROM mcp_notes.audit_budget) AS every_decline_recorded;
-- Pruning keeps the budget rows that counted something (the summary).
SELECT mcp_notes.prune_spent_states() >= 0 AS pruned, count(*) AS budget_rows_kept FROM mcp_notes.audit_budget;
RESET mcp_notes.audit_budget;
-- An accept is never held back by the budget.
SELECT mcp_notes.handle_as('erin', t.req(s, t.accept(t.note_id('entry note')), NULL))
       #>> '{result,structuredContent,deleted}' AS deleted_over_budget
FROM t.ask() s;
SELECT outcome, count(*) FROM mcp_notes.delete_audit GROUP BY 1 ORDER BY 1;

-- Replica mode (logical replication, some restore tools) skips ordinary
-- triggers: the audit stays append-only there too.
SET session_replication_role = replica;
UPDATE mcp_notes.delete_audit SET outcome = 'accept';
RESET session_replication_role;
SELECT t.tgname, t.tgenabled FROM pg_trigger t
WHERE t.tgrelid IN ('mcp_notes.delete_audit'::regclass, 'mcp_notes.tokens'::regclass) AND NOT t.tgisinternal
ORDER BY 1;

-- PUBLIC can call the two pure URI functions, as documented, and nothing else.
CREATE ROLE regress_entry_nobody;
SET ROLE regress_entry_nobody;
SELECT mcp_notes.normalize_uri('file:///a/./b/') AS normalized,
       mcp_notes.uri_contains('file:///a', 'file:///a/b') AS contains;
SELECT mcp_notes.authenticate('mcpn_x');
SELECT count(*) FROM mcp_notes.delete_audit;
RESET ROLE;
DROP ROLE regress_entry_nobody;

-- A gateway role: serializable, idle transactions cut off, and no bind
-- parameter (the bearer token) in the server log.
CREATE ROLE regress_entry_gateway;
SELECT mcp_notes.grant_gateway('regress_entry_gateway');
SELECT unnest(s.setconfig) AS setting
FROM pg_db_role_setting s WHERE s.setrole = 'regress_entry_gateway'::regrole ORDER BY 1;
DROP OWNED BY regress_entry_gateway;
DROP ROLE regress_entry_gateway;
