-------------------------------------------------------------------------------
-- Privileges
-------------------------------------------------------------------------------

-- The settings of a gateway role: every call serializable; no statement
-- longer than mcp_notes.gateway_statement_timeout (default 5s; read when
-- grant_gateway runs), so no request holds a backend for long (the gateway
-- answers 57014 with a retryable 503); a transaction left open (which the
-- entry points refuse to act in anyway) cut off after 10 s; and no bind
-- parameter in the server log, since $1 of handle() and call_tool() is a
-- bearer token and $2 carries requestState and clientInfo.  The log
-- settings are superuser-only, so the role cannot undo them.
CREATE OR REPLACE FUNCTION _gateway_role_settings(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('ALTER ROLE %s SET default_transaction_isolation = %L', role, 'serializable');
    EXECUTE format('ALTER ROLE %s SET statement_timeout = %L', role,
                   coalesce(nullif(current_setting('mcp_notes.gateway_statement_timeout', true), ''), '5s'));
    EXECUTE format('ALTER ROLE %s SET idle_in_transaction_session_timeout = %L', role, '10s');
    EXECUTE format('ALTER ROLE %s SET log_parameter_max_length = 0', role);
    EXECUTE format('ALTER ROLE %s SET log_parameter_max_length_on_error = 0', role);
END;
$$;
COMMENT ON FUNCTION _gateway_role_settings(regrole) IS
'Internal: a gateway role''s settings: serializable, statement_timeout from mcp_notes.gateway_statement_timeout (default 5s), idle_in_transaction_session_timeout 10s, no bind parameters in the server log';

-- The one privilege list of the gateway roles: what grant_gateway grants
-- (dev false) and what grant_dev_gateway adds (dev true).  Besides handle,
-- authenticate and features, the entry points of earlier gateways stay
-- granted while a fleet is upgraded: tool_descriptors and call_tool (1.1)
-- and the legacy_* session functions (1.3, for gateways of 2.1).
CREATE OR REPLACE FUNCTION _gateway_entry_points() RETURNS TABLE (entry regprocedure, dev boolean)
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT e.entry::regprocedure, e.dev
    FROM (VALUES ('mcp_notes.features()', false), ('mcp_notes.handle(text, jsonb)', false),
                 ('mcp_notes.authenticate(text)', false), ('mcp_notes.audit_tick(integer)', false),
                 ('mcp_notes.tool_descriptors()', false),
                 ('mcp_notes.call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text)', false),
                 ('mcp_notes.handle_as(text, jsonb)', true),
                 ('mcp_notes.call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text)', true)) AS e(entry, dev)
    UNION ALL
    SELECT format('mcp_notes.%s%s(%s)', l.name, CASE WHEN d.dev THEN '_as' ELSE '' END, l.args)::regprocedure, d.dev
    FROM (VALUES ('legacy_session_open', 'text, text, jsonb, jsonb, interval'), ('legacy_session_check', 'text, text'),
                 ('legacy_session_close', 'text, text'), ('legacy_pending_open', 'text, text, jsonb, interval'),
                 ('legacy_answer', 'text, text, jsonb'), ('legacy_pending_take', 'text, bigint, boolean')) AS l(name, args)
    CROSS JOIN (VALUES (false), (true)) AS d(dev)
$$;
COMMENT ON FUNCTION _gateway_entry_points() IS
'Internal: the functions a gateway role may execute (dev: only a role given grant_dev_gateway), the one list grant_gateway and grant_dev_gateway read';

CREATE OR REPLACE FUNCTION _grant_entry_points(role regrole, dev boolean) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    fn regprocedure;
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA mcp_notes TO %s', role);
    FOR fn IN SELECT e.entry FROM _gateway_entry_points() e WHERE e.dev = _grant_entry_points.dev LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', fn, role);
    END LOOP;
END;
$$;
COMMENT ON FUNCTION _grant_entry_points(regrole, boolean) IS
'Internal: EXECUTE on the entry points of _gateway_entry_points (dev or not) for role';

CREATE OR REPLACE FUNCTION grant_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _grant_entry_points(role, false);
    PERFORM _gateway_role_settings(role);
END;
$$;
COMMENT ON FUNCTION grant_gateway(regrole) IS
'Lets a role act as a gateway: USAGE on the schema and EXECUTE on the entry points of _gateway_entry_points (features, handle, authenticate and those of earlier gateways), nothing else; and the role settings of _gateway_role_settings';

CREATE OR REPLACE FUNCTION grant_dev_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM grant_gateway(role);
    PERFORM _grant_entry_points(role, true);
END;
$$;
COMMENT ON FUNCTION grant_dev_gateway(regrole) IS
'grant_gateway plus the development entry points (handle_as, call_tool_as, the legacy_*_as ones), for mcp-notes-gateway --insecure-dev-principal on a developer machine';
