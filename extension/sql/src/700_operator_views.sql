-------------------------------------------------------------------------------
-- Operators' view of the delete flow
-------------------------------------------------------------------------------

-- The delete flow as operators see it, from the database alone (the
-- gateway's /metrics has the per-request side).  Owner-only like the rest of
-- the operator API; GRANT EXECUTE to a monitoring role to share it.  Both
-- are SECURITY DEFINER so that role needs no access to the tables.
CREATE OR REPLACE FUNCTION delete_flow_hourly(since interval DEFAULT '24 hours')
RETURNS TABLE (hour timestamptz, accepts bigint, declines bigint, cancels bigint, stale bigint,
               declines_unaudited bigint, cancels_unaudited bigint,
               states_spent bigint, states_cancelled bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    -- Audit rows are kept; spent_states and cancelled_states rows only until
    -- prune_spent_states() removes expired ones, so their columns cover
    -- unpruned states only.  Every hour of the window has a row.
    WITH hours AS (
        SELECT h AS hour
        FROM pg_catalog.generate_series(pg_catalog.date_trunc('hour', pg_catalog.now() - since),
                                        pg_catalog.date_trunc('hour', pg_catalog.now()), interval '1 hour') h
    ), audited AS (
        SELECT pg_catalog.date_trunc('hour', a.at) AS hour,
               count(*) FILTER (WHERE a.outcome = 'accept') AS accepts,
               count(*) FILTER (WHERE a.outcome = 'decline') AS declines,
               count(*) FILTER (WHERE a.outcome = 'cancel') AS cancels,
               count(*) FILTER (WHERE a.outcome = 'stale') AS stale
        FROM delete_audit a
        WHERE a.at >= pg_catalog.date_trunc('hour', pg_catalog.now() - since)
        GROUP BY 1
    ), unaudited AS (
        SELECT b.window_start AS hour, sum(b.suppressed_declines)::bigint AS declines,
               sum(b.suppressed_cancels)::bigint AS cancels
        FROM audit_budget b
        WHERE b.window_start >= pg_catalog.date_trunc('hour', pg_catalog.now() - since)
        GROUP BY 1
    ), spent AS (
        SELECT pg_catalog.date_trunc('hour', s.spent_at) AS hour, count(*) AS n
        FROM spent_states s
        WHERE s.spent_at >= pg_catalog.date_trunc('hour', pg_catalog.now() - since)
        GROUP BY 1
    ), cancelled AS (
        SELECT pg_catalog.date_trunc('hour', c.cancelled_at) AS hour, count(*) AS n
        FROM cancelled_states c
        WHERE c.cancelled_at >= pg_catalog.date_trunc('hour', pg_catalog.now() - since)
        GROUP BY 1
    )
    SELECT h.hour, coalesce(a.accepts, 0), coalesce(a.declines, 0), coalesce(a.cancels, 0), coalesce(a.stale, 0),
           coalesce(u.declines, 0), coalesce(u.cancels, 0), coalesce(s.n, 0), coalesce(c.n, 0)
    FROM hours h
    LEFT JOIN audited a ON a.hour = h.hour
    LEFT JOIN unaudited u ON u.hour = h.hour
    LEFT JOIN spent s ON s.hour = h.hour
    LEFT JOIN cancelled c ON c.hour = h.hour
    ORDER BY h.hour;
$$;
COMMENT ON FUNCTION delete_flow_hourly(interval) IS
'Operators: notes_delete outcomes per hour over the last since (audited accepts, declines, cancels, stale; declines and cancels beyond the audit budget; states spent and cancelled, while not yet pruned)';

CREATE OR REPLACE FUNCTION delete_flow_stats()
RETURNS TABLE (states_sealed bigint, states_spent bigint, accepts bigint, stats_since timestamptz,
               spent_states_rows bigint, spent_states_prunable bigint, spent_states_bytes bigint,
               cancelled_states_rows bigint, cancelled_states_bytes bigint,
               delete_audit_rows bigint, delete_audit_bytes bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    -- States are not stored when issued (they are sealed, not saved), so the
    -- count of states issued is PostgreSQL's call count of _seal_state, which
    -- only sessions with track_functions = all add to (NULL: never counted).  Spent (accept, decline, stale) counts
    -- from the audit and the budget summary over the same window: since the
    -- database's statistics were last reset, or ever.
    WITH window_start AS (
        SELECT d.stats_reset AS since FROM pg_catalog.pg_stat_database d
        WHERE d.datname = pg_catalog.current_database()
    )
    SELECT (SELECT f.calls FROM pg_catalog.pg_stat_user_functions f
            WHERE f.funcid = 'mcp_notes._seal_state(jsonb)'::pg_catalog.regprocedure),
           (SELECT count(*) FROM delete_audit a, window_start w
            WHERE a.outcome IN ('accept', 'decline', 'stale') AND (w.since IS NULL OR a.at >= w.since))
         + (SELECT coalesce(sum(b.suppressed_declines), 0)::bigint FROM audit_budget b, window_start w
            WHERE w.since IS NULL OR b.window_start >= pg_catalog.date_trunc('hour', w.since)),
           (SELECT count(*) FROM delete_audit a, window_start w
            WHERE a.outcome = 'accept' AND (w.since IS NULL OR a.at >= w.since)),
           (SELECT w.since FROM window_start w),
           (SELECT count(*) FROM spent_states),
           (SELECT count(*) FROM spent_states s WHERE s.expires_at < pg_catalog.now() - interval '1 minute'),
           pg_catalog.pg_total_relation_size('mcp_notes.spent_states'),
           (SELECT count(*) FROM cancelled_states),
           pg_catalog.pg_total_relation_size('mcp_notes.cancelled_states'),
           (SELECT count(*) FROM delete_audit),
           pg_catalog.pg_total_relation_size('mcp_notes.delete_audit');
$$;
COMMENT ON FUNCTION delete_flow_stats() IS
'Operators: states sealed (counted in sessions with track_functions = all) against states spent since the statistics reset, and the rows and bytes of spent_states (with the prunable ones), cancelled_states and delete_audit';
