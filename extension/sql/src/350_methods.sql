-------------------------------------------------------------------------------
-- Methods
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _tools_list_result() RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('resultType', 'complete', 'tools', tool_descriptors(),
                              'ttlMs', 600000, 'cacheScope', 'public')
$$;
COMMENT ON FUNCTION _tools_list_result() IS
'Internal: the tools/list result, the same for every caller (features() publishes it as a public result)';

-- One page: a cursor (other than JSON null) is refused with the words the
-- 1.1 gateway used; members this method does not know are ignored, as MCP
-- asks of a receiver.
CREATE OR REPLACE FUNCTION _tools_list(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF request -> 'params' -> 'cursor' IS DISTINCT FROM 'null'::jsonb
       AND request -> 'params' ? 'cursor' THEN
        RETURN _invalid_params('invalid_params', 'Invalid params: unknown cursor (tools/list has one page)');
    END IF;
    RETURN jsonb_build_object('result', _tools_list_result());
END;
$$;
COMMENT ON FUNCTION _tools_list(text, jsonb) IS 'Internal: the tools/list method';

-- The members of params every tool shares are checked here, with the words
-- the 1.1 gateway used; the rest belongs to the tool.  The handler's name
-- comes from the registry, never from the request.
CREATE OR REPLACE FUNCTION _tools_call(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    params jsonb := request -> 'params';
    tool_handler text;
    outcome jsonb;
BEGIN
    IF jsonb_typeof(params -> 'name') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('unknown_tool', 'Invalid params: params.name must be a string');
    END IF;
    IF params ? 'requestState' AND jsonb_typeof(params -> 'requestState') <> 'string' THEN
        RETURN _invalid_params('state_malformed', 'Invalid params: requestState must be a string');
    END IF;
    SELECT t.handler INTO tool_handler FROM tools t WHERE t.name = params ->> 'name';
    IF tool_handler IS NULL THEN
        RETURN _invalid_params('unknown_tool', format('unknown tool: %s', _printable(params ->> 'name', 100)));
    END IF;
    EXECUTE format('SELECT mcp_notes.%I($1, $2)', tool_handler) INTO outcome USING principal, request;
    RETURN _log_outcome(request, outcome);
END;
$$;
COMMENT ON FUNCTION _tools_call(text, jsonb) IS
'Internal: the tools/call method for an authenticated principal: checks params.name and requestState, runs the registered handler';

-- The methods of features().methods, by name.
CREATE OR REPLACE FUNCTION _dispatch(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    CASE request ->> 'method'
        WHEN 'tools/list' THEN
            RETURN _tools_list(principal, request);
        WHEN 'tools/call' THEN
            RETURN _tools_call(principal, request);
        WHEN 'resources/list' THEN
            RETURN _resources_list(principal, request);
        WHEN 'resources/templates/list' THEN
            RETURN _resources_templates_list(principal, request);
        WHEN 'resources/read' THEN
            RETURN _resources_read(principal, request);
        WHEN 'prompts/list' THEN
            RETURN _prompts_list(principal, request);
        WHEN 'prompts/get' THEN
            RETURN _prompts_get(principal, request);
        WHEN 'completion/complete' THEN
            RETURN _completion_complete(principal, request);
        ELSE
            RETURN _error('method_not_found', format('Method not found: %s', left(request ->> 'method', 100)));
    END CASE;
END;
$$;
COMMENT ON FUNCTION _dispatch(text, jsonb) IS
'Internal: answers one request object for an authenticated principal by its method (the methods features() lists)';

-- One request object, for the principal handle() authenticated (or
-- handle_as named).  A request with a session (the 2025 era) is answered
-- through the session (_session_request); the internal methods of that era
-- (features().internalMethods) start with mcp_notes/.  credential_hash
-- binds the pending requests a session request records to the token that
-- opened them (NULL for handle_as), so revoking it ends them.
CREATE OR REPLACE FUNCTION _handle(principal text, request jsonb, credential_hash bytea DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF jsonb_typeof(request) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'request must be a json object'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'The gateway passes {"method": ..., "params": ..., ...} as docs/contract.md says.';
    END IF;
    IF jsonb_typeof(request -> 'params') IS DISTINCT FROM 'object' THEN
        RETURN _invalid_params('invalid_params', 'Invalid params: params must be an object');
    END IF;
    IF request ? 'session' THEN
        IF jsonb_typeof(request -> 'session') IS DISTINCT FROM 'string' THEN
            RETURN _legacy_no_session();
        END IF;
        RETURN _session_request(principal, request, credential_hash);
    END IF;
    IF request ->> 'method' = 'mcp_notes/fileop/outcome' THEN
        RETURN _file_op_outcome(principal, request);    -- file-backed workspaces (620_file_notes)
    END IF;
    IF starts_with(request ->> 'method', 'mcp_notes/') THEN
        RETURN _legacy_method(principal, request, NULL, credential_hash);
    END IF;
    IF request ->> 'method' = 'subscriptions/listen' THEN
        RETURN _listen_open(principal, request, NULL, credential_hash);
    END IF;
    RETURN _dispatch(principal, request);
END;
$$;
COMMENT ON FUNCTION _handle(text, jsonb, bytea) IS
'Internal: answers one request object for an authenticated principal: through its session when it names one (2025 era), an internal method, or by method';
