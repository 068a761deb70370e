-------------------------------------------------------------------------------
-- Gateway API of 1.0 and 1.1, for gateways of the previous version
-------------------------------------------------------------------------------

-- call_tool() and call_tool_as() pass the members of params one by one.
-- They become a request object (an SQL NULL is an absent member, a JSON
-- null stays null) and the outcome goes back to the 1.1 form.  A NULL tool
-- keeps its 1.1 answer.
CREATE OR REPLACE FUNCTION _call_tool(principal text, tool text, arguments jsonb, input_responses jsonb,
                           request_state text, client_capabilities jsonb,
                           request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    params jsonb;
    request jsonb;
BEGIN
    IF tool IS NULL THEN
        RETURN _legacy_outcome(_invalid_params('unknown_tool', 'params.name must name a tool'));
    END IF;
    SELECT jsonb_object_agg(m.k, m.v) INTO params
    FROM (VALUES ('name', to_jsonb(tool)), ('arguments', arguments),
                 ('inputResponses', input_responses), ('requestState', to_jsonb(request_state))) AS m(k, v)
    WHERE m.v IS NOT NULL;
    SELECT jsonb_object_agg(m.k, m.v) INTO request
    FROM (VALUES ('method', to_jsonb('tools/call'::text)), ('params', params),
                 ('clientCapabilities', client_capabilities), ('requestId', to_jsonb(request_id)),
                 ('clientInfo', client_info), ('gatewayId', to_jsonb(gateway_id))) AS m(k, v)
    WHERE m.v IS NOT NULL;
    RETURN _legacy_outcome(_tools_call(principal, request));
END;
$$;
COMMENT ON FUNCTION _call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Internal: a tools/call of the 1.1 entry points, answered through tools/call of contract 2 in the 1.1 form';
CREATE OR REPLACE FUNCTION call_tool(token text, tool text, arguments jsonb, input_responses jsonb,
                          request_state text, client_capabilities jsonb,
                          request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    auth jsonb;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.call_tool');
    auth := _authenticate(token);
    IF auth ->> 'principal' IS NULL THEN
        RETURN _rpc_error(-32001, 'missing, invalid, expired or revoked bearer token', NULL, 401);
    END IF;
    -- a 1.1 gateway knows no scopes and serves no OAuth metadata: JWTs go to handle()
    IF auth ->> 'via' = 'oauth' THEN
        RETURN _rpc_error(-32001, 'JWT access tokens need mcp-notes-gateway 2.2 or later', NULL, 401);
    END IF;
    RETURN _call_tool(auth ->> 'principal', tool, arguments, input_responses, request_state,
                      client_capabilities, request_id, client_info, gateway_id);
END;
$$;
COMMENT ON FUNCTION call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Runs one MCP tools/call for the principal the bearer token proves; returns {"result": ...} or {"error": ..., "httpStatus": ...}';

CREATE OR REPLACE FUNCTION call_tool_as(principal text, tool text, arguments jsonb, input_responses jsonb,
                             request_state text, client_capabilities jsonb,
                             request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _call_tool(principal, tool, arguments, input_responses, request_state,
                      client_capabilities, request_id, client_info, gateway_id);
END;
$$;
COMMENT ON FUNCTION call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Development only: call_tool for a principal named by the caller. Executable only by roles given grant_dev_gateway';
