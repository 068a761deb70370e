-- mcp_notes 1.1 -> 1.2: contract 2 (docs/contract.md).  One request object
-- in, one outcome object out: handle(), handle_as(), features().  The 1.1
-- entry points call_tool(), call_tool_as() and tool_descriptors() keep their
-- 1.1 answers, so gateways of the previous version keep working while a
-- fleet is upgraded (extension first, then the gateways).
\echo Use "ALTER EXTENSION mcp_notes UPDATE TO '1.2'" to load this file. \quit

-------------------------------------------------------------------------------
-- Outcomes
-------------------------------------------------------------------------------

-- An error outcome names its kind; the gateway's outcome table turns the
-- kind into HTTP status, JSON-RPC code and headers.
CREATE FUNCTION _error(kind text, message text, data jsonb DEFAULT NULL) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('error',
        jsonb_strip_nulls(jsonb_build_object('kind', kind, 'message', message, 'data', data)))
$$;
COMMENT ON FUNCTION _error(text, text, jsonb) IS
'Internal: an error outcome {"error": {"kind", "message", "data"}} (kinds: docs/contract.md)';

CREATE OR REPLACE FUNCTION _invalid_params(reason text, message text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _error('invalid_params', message, jsonb_build_object('reason', reason)) $$;
COMMENT ON FUNCTION _invalid_params(text, text) IS 'Internal: an invalid_params outcome with a machine-readable reason';

CREATE OR REPLACE FUNCTION _needs_form_capability() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _error('missing_capability',
        'notes_delete needs the client to support form elicitation to ask for confirmation',
        '{"requiredCapabilities": {"elicitation": {"form": {}}}}')
$$;
COMMENT ON FUNCTION _needs_form_capability() IS
'Internal: the missing_capability outcome for a request that cannot show the confirmation form';

-- What call_tool() and call_tool_as() answered in 1.1: {"error": {code,
-- message, data}, "httpStatus"}.  Only the kinds a tools/call can give.
CREATE FUNCTION _legacy_outcome(outcome jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN NOT outcome ? 'error' THEN outcome
        ELSE _rpc_error(
            CASE outcome #>> '{error,kind}'
                WHEN 'invalid_params' THEN -32602
                WHEN 'missing_capability' THEN -32021
                WHEN 'unauthenticated' THEN -32001
                ELSE -32603 END,
            outcome #>> '{error,message}',
            outcome #> '{error,data}',
            CASE outcome #>> '{error,kind}'
                WHEN 'invalid_params' THEN 200
                WHEN 'missing_capability' THEN 400
                WHEN 'unauthenticated' THEN 401
                ELSE 500 END)
    END
$$;
COMMENT ON FUNCTION _legacy_outcome(jsonb) IS
'Internal: an outcome in the 1.1 form of call_tool ({"result"} or {"error": {code, message, data}, "httpStatus"})';

COMMENT ON FUNCTION _rpc_error(integer, text, jsonb, integer) IS
'Internal: a JSON-RPC error in the 1.1 form of call_tool, for _legacy_outcome';

-------------------------------------------------------------------------------
-- Methods
-------------------------------------------------------------------------------

CREATE FUNCTION _tools_list_result() RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('resultType', 'complete', 'tools', tool_descriptors(),
                              'ttlMs', 600000, 'cacheScope', 'public')
$$;
COMMENT ON FUNCTION _tools_list_result() IS
'Internal: the tools/list result, the same for every caller (features() publishes it as a public result)';

CREATE FUNCTION _tools_list(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF request -> 'params' ? 'cursor' THEN
        RETURN _invalid_params('invalid_params', 'Invalid params: unknown cursor (tools/list has one page)');
    END IF;
    IF jsonb_typeof(request -> 'params') = 'object' AND request -> 'params' <> '{}' THEN
        RETURN _invalid_params('invalid_params',
            'Invalid params: tools/list takes no params besides _meta (tools/list has one page)');
    END IF;
    RETURN jsonb_build_object('result', _tools_list_result());
END;
$$;
COMMENT ON FUNCTION _tools_list(text, jsonb) IS 'Internal: the tools/list method';

-- The members of params every tool shares, checked before a tool is chosen.
CREATE FUNCTION _tools_call(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    params jsonb := request -> 'params';
BEGIN
    IF jsonb_typeof(params -> 'name') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('unknown_tool', 'Invalid params: params.name must be a string');
    END IF;
    IF params ? 'requestState' AND jsonb_typeof(params -> 'requestState') <> 'string' THEN
        RETURN _invalid_params('state_malformed', 'Invalid params: requestState must be a string');
    END IF;
    RETURN _call_tool(principal, params ->> 'name', params -> 'arguments', params -> 'inputResponses',
                      params ->> 'requestState', request -> 'clientCapabilities',
                      request ->> 'requestId', request -> 'clientInfo', request ->> 'gatewayId');
END;
$$;
COMMENT ON FUNCTION _tools_call(text, jsonb) IS 'Internal: the tools/call method for an authenticated principal';

CREATE FUNCTION _handle(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF jsonb_typeof(request) IS DISTINCT FROM 'object' OR jsonb_typeof(request -> 'params') IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'request must be a json object whose params is an object'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'The gateway passes {"method", "params", ...} as docs/contract.md says.';
    END IF;
    CASE request ->> 'method'
        WHEN 'tools/list' THEN RETURN _tools_list(principal, request);
        WHEN 'tools/call' THEN RETURN _tools_call(principal, request);
        ELSE RETURN _error('method_not_found', format('Method not found: %s', left(request ->> 'method', 100)));
    END CASE;
END;
$$;
COMMENT ON FUNCTION _handle(text, jsonb) IS 'Internal: dispatches one request object by method for an authenticated principal';

-------------------------------------------------------------------------------
-- Gateway API, contract 2
-------------------------------------------------------------------------------

CREATE FUNCTION features() RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object(
        'extensionVersion', (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'mcp_notes'),
        'contract', 2,
        'methods', jsonb_build_array('tools/list', 'tools/call'),
        'publicResults', jsonb_build_object('tools/list', _tools_list_result()),
        'capabilities', jsonb_build_object('tools', '{}'::jsonb),
        'instructions', 'Notes server. notes_delete deletes one note by title inside a workspace you name '
                        'explicitly (workspaceUri, a file: URI you were granted). It always asks the user to '
                        'pick and confirm the note through a form elicitation (declare '
                        'clientCapabilities.elicitation) and then expects the same call again with '
                        'inputResponses.delete_choice and the exact requestState.',
        'tokenChannel', 'mcp_notes_tokens')
$$;
COMMENT ON FUNCTION features() IS
'What this extension serves (contract, methods, public results, capabilities, instructions, token channel); see docs/contract.md';

CREATE FUNCTION handle(token text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    principal text := authenticate(token);
BEGIN
    IF principal IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _handle(principal, request);
END;
$$;
COMMENT ON FUNCTION handle(text, jsonb) IS
'Answers one MCP request object for the principal the bearer token proves: {"result": ...} or {"error": {"kind", "message", "data"}}';

CREATE FUNCTION handle_as(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _handle(principal, request);
END;
$$;
COMMENT ON FUNCTION handle_as(text, jsonb) IS
'Development only: handle for a principal named by the caller. Executable only by roles given grant_dev_gateway';

-------------------------------------------------------------------------------
-- The 1.1 entry points, now adapters with their 1.1 answers
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION call_tool(token text, tool text, arguments jsonb, input_responses jsonb,
                                     request_state text, client_capabilities jsonb,
                                     request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    principal text := authenticate(token);
BEGIN
    IF principal IS NULL THEN
        RETURN _legacy_outcome(_error('unauthenticated', 'missing, invalid, expired or revoked bearer token'));
    END IF;
    RETURN _legacy_outcome(_call_tool(principal, tool, arguments, input_responses, request_state,
                                      client_capabilities, request_id, client_info, gateway_id));
END;
$$;

CREATE OR REPLACE FUNCTION call_tool_as(principal text, tool text, arguments jsonb, input_responses jsonb,
                                        request_state text, client_capabilities jsonb,
                                        request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_outcome(_call_tool(principal, tool, arguments, input_responses, request_state,
                                      client_capabilities, request_id, client_info, gateway_id));
END;
$$;

-------------------------------------------------------------------------------
-- Privileges
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION grant_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA mcp_notes TO %s', role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.features(), mcp_notes.handle(text, jsonb), '
                   'mcp_notes.authenticate(text), mcp_notes.tool_descriptors(), '
                   'mcp_notes.call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) TO %s', role);
    EXECUTE format('ALTER ROLE %s SET default_transaction_isolation = %L', role, 'serializable');
END;
$$;
COMMENT ON FUNCTION grant_gateway(regrole) IS
'Lets a role act as a gateway: USAGE on the schema and EXECUTE on features, handle, authenticate and (for gateways of 1.1) tool_descriptors and call_tool, nothing else';

CREATE OR REPLACE FUNCTION grant_dev_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM grant_gateway(role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.handle_as(text, jsonb), '
                   'mcp_notes.call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) TO %s', role);
END;
$$;
COMMENT ON FUNCTION grant_dev_gateway(regrole) IS
'grant_gateway plus handle_as and call_tool_as, for mcp-notes-gateway --insecure-dev-principal on a developer machine';

-- New functions are executable by PUBLIC until revoked.
REVOKE ALL ON FUNCTION _error(text, text, jsonb), _legacy_outcome(jsonb), _tools_list_result(),
    _tools_list(text, jsonb), _tools_call(text, jsonb), _handle(text, jsonb),
    features(), handle(text, jsonb), handle_as(text, jsonb) FROM PUBLIC;

-- A running fleet keeps its rights: whoever was granted call_tool (or
-- call_tool_as) directly gets the entry points of contract 2 too.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT DISTINCT a.grantee::regrole AS grantee, p.proname
        FROM pg_proc p, aclexplode(p.proacl) a
        WHERE p.oid IN ('mcp_notes.call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text)'::regprocedure,
                        'mcp_notes.call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text)'::regprocedure)
          AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        IF r.proname = 'call_tool' THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.features(), mcp_notes.handle(text, jsonb) TO %s',
                           r.grantee);
        ELSE
            EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.handle_as(text, jsonb) TO %s', r.grantee);
        END IF;
    END LOOP;
END;
$$;
