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

-- tool_descriptors and call_tool stay granted for gateways of 1.1 during an
-- upgrade of the fleet.
CREATE OR REPLACE FUNCTION grant_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA mcp_notes TO %s', role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.features(), mcp_notes.handle(text, jsonb), '
                   'mcp_notes.authenticate(text), mcp_notes.tool_descriptors(), '
                   'mcp_notes.call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) TO %s', role);
    PERFORM _grant_legacy_sessions(role, false);
    PERFORM _gateway_role_settings(role);
END;
$$;
COMMENT ON FUNCTION grant_gateway(regrole) IS
'Lets a role act as a gateway: USAGE on the schema and EXECUTE on features, handle, authenticate, (for gateways of 1.1) tool_descriptors and call_tool, and the legacy-era session entry points, nothing else; and the role settings of _gateway_role_settings';

CREATE OR REPLACE FUNCTION grant_dev_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM grant_gateway(role);
    PERFORM _grant_legacy_sessions(role, true);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.handle_as(text, jsonb), '
                   'mcp_notes.call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) TO %s', role);
END;
$$;
COMMENT ON FUNCTION grant_dev_gateway(regrole) IS
'grant_gateway plus handle_as, call_tool_as and the legacy-era _as entry points, for mcp-notes-gateway --insecure-dev-principal on a developer machine';
