-- The operators' view of the delete flow: delete_flow_hourly() (outcomes per
-- hour) and delete_flow_stats() (states sealed against spent, table sizes),
-- checked against a known sequence of flows, and their privileges.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
\set SHOW_CONTEXT never
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/stats');
SELECT mcp_notes.grant_workspace('sam', 'file:///t/stats');
SELECT count(mcp_notes.add_note('file:///t/stats/' || i || '.md', 'Stats note ' || i)) AS notes
FROM generate_series(1, 4) i;

-- Nothing yet: every hour of the window has a row of zeros.
SELECT count(*) AS hours, sum(accepts + declines + cancels + stale + states_spent + states_cancelled) AS events
FROM mcp_notes.delete_flow_hourly('3 hours');

-- Count the states sealed from here on (the call count needs track_functions).
SET track_functions = 'all';
SELECT pg_stat_reset_single_function_counters('mcp_notes._seal_state(jsonb)'::regprocedure);
SELECT pg_stat_force_next_flush();

-- Two accepts, one decline, one cancel (then answered again with an accept), one form never answered.
SELECT t.call('sam', 'file:///t/stats', 'Stats note 1') AS r \gset
SELECT t.outcome(t.call('sam', 'file:///t/stats', 'Stats note 1', t.accept(t.note_id('Stats note 1')), t.state(:'r'))) AS accept_1;
SELECT t.call('sam', 'file:///t/stats', 'Stats note 2') AS r \gset
SELECT t.outcome(t.call('sam', 'file:///t/stats', 'Stats note 2', t.answer('decline'), t.state(:'r'))) AS decline_2;
SELECT t.call('sam', 'file:///t/stats', 'Stats note 3') AS r \gset
SELECT t.outcome(t.call('sam', 'file:///t/stats', 'Stats note 3', t.answer('cancel'), t.state(:'r'))) AS cancel_3;
SELECT t.outcome(t.call('sam', 'file:///t/stats', 'Stats note 3', t.accept(t.note_id('Stats note 3')), t.state(:'r'))) AS accept_3;
SELECT t.outcome(t.call('sam', 'file:///t/stats', 'Stats note 4')) AS unanswered_4;

SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();

SELECT sum(accepts) AS accepts, sum(declines) AS declines, sum(cancels) AS cancels, sum(stale) AS stale,
       sum(states_spent) AS states_spent, sum(states_cancelled) AS states_cancelled,
       sum(declines_unaudited + cancels_unaudited) AS unaudited
FROM mcp_notes.delete_flow_hourly();
SELECT hour = date_trunc('hour', now()) AS last_row_is_this_hour, accepts
FROM mcp_notes.delete_flow_hourly('1 hour') ORDER BY hour DESC LIMIT 1;

-- Four forms were sealed, three states were spent (the cancel spent none).
SELECT states_sealed, states_spent, accepts, spent_states_rows, spent_states_prunable,
       spent_states_bytes > 0 AS spent_states_has_size, cancelled_states_rows,
       delete_audit_rows, delete_audit_bytes > 0 AS audit_has_size
FROM mcp_notes.delete_flow_stats();

-- Calls in sessions without track_functions are not counted: set it where
-- the gateways connect (postgresql.conf, or ALTER ROLE ... SET).
RESET track_functions;
SELECT t.outcome(t.call('sam', 'file:///t/stats', 'Stats note 4')) AS untracked_4;
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT states_sealed FROM mcp_notes.delete_flow_stats();

-- Expired spent states are counted as prunable until prune_spent_states() runs.
UPDATE mcp_notes.spent_states SET expires_at = now() - interval '1 hour';
SELECT spent_states_prunable FROM mcp_notes.delete_flow_stats();
SELECT mcp_notes.prune_spent_states() > 0 AS pruned;
SELECT spent_states_rows, spent_states_prunable FROM mcp_notes.delete_flow_stats();
-- The audit keeps the hours after the nonces are gone.
SELECT sum(accepts) AS accepts, sum(states_spent) AS states_spent FROM mcp_notes.delete_flow_hourly();

-- Owner-only: neither PUBLIC nor a gateway may run them, a role granted EXECUTE may,
-- without any right on the tables (SECURITY DEFINER).
CREATE ROLE regress_stats_gateway;
SELECT mcp_notes.grant_gateway('regress_stats_gateway');
CREATE ROLE regress_stats_monitor;
GRANT USAGE ON SCHEMA mcp_notes TO regress_stats_monitor;
SELECT r.role, f.fn, has_function_privilege(r.role, f.fn, 'EXECUTE') AS executable
FROM (VALUES ('public'), ('regress_stats_gateway'), ('regress_stats_monitor')) r(role),
     (VALUES ('mcp_notes.delete_flow_hourly(interval)'::regprocedure), ('mcp_notes.delete_flow_stats()')) f(fn)
ORDER BY 1, 2::text;
GRANT EXECUTE ON FUNCTION mcp_notes.delete_flow_hourly(interval), mcp_notes.delete_flow_stats() TO regress_stats_monitor;
SET ROLE regress_stats_monitor;
SELECT count(*) AS hours FROM mcp_notes.delete_flow_hourly('2 hours');
SELECT delete_audit_rows FROM mcp_notes.delete_flow_stats();
SELECT count(*) FROM mcp_notes.delete_audit;
RESET ROLE;
SET ROLE regress_stats_gateway;
SELECT count(*) FROM mcp_notes.delete_flow_hourly();
RESET ROLE;

DROP OWNED BY regress_stats_gateway, regress_stats_monitor;
DROP ROLE regress_stats_gateway;
DROP ROLE regress_stats_monitor;
