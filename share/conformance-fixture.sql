-- The fixture of the official MCP conformance suite
-- (@modelcontextprotocol/conformance, `conformance server`), served to every
-- principal.  NEVER loaded by default: a test database only.
--
--   psql -v ON_ERROR_STOP=1 -d DB -f share/conformance-fixture.sql    (as a superuser)
--
-- Everything here goes through the mechanisms the real surface uses: tools
-- are rows of mcp_notes.tools with handlers _tool_<name>, prompts rows of
-- mcp_notes.prompts with _prompt_<name> (and _complete_<name>), resources a
-- resource kind with _resources_<name>; multi-round tools seal their state
-- with _seal (purpose conformance) and open it with _open_sealed, spend it once in
-- spent_states, and check client capabilities per request like
-- notes_delete.  Loading it twice is harmless.  docs/conformance.md.

\set ON_ERROR_STOP 1
SET search_path = mcp_notes, pg_temp;

-------------------------------------------------------------------------------
-- Building blocks
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _conformance_png() RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$ SELECT 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==' $$;
COMMENT ON FUNCTION _conformance_png() IS 'Conformance fixture: a 1x1 red PNG, base64';

-- The missing_capability outcome when this request did not declare every
-- capability named (the -32021 of notes_delete's gate), else NULL.
CREATE OR REPLACE FUNCTION _conformance_needs(request jsonb, capabilities text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _error('missing_capability',
                  format('this tool needs the client capabilities %s', array_to_string(capabilities, ', ')),
                  jsonb_build_object('requiredCapabilities', jsonb_object_agg(c, '{}'::jsonb)))
    FROM unnest(capabilities) c
    WHERE jsonb_typeof(request #> ARRAY['clientCapabilities', c]) IS DISTINCT FROM 'object'
    HAVING count(*) > 0
$$;
COMMENT ON FUNCTION _conformance_needs(jsonb, text[]) IS
'Conformance fixture: missing_capability for the capabilities this request did not declare, or NULL';

CREATE OR REPLACE FUNCTION _conformance_ask_form(message text, properties jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('method', 'elicitation/create', 'params', jsonb_build_object(
        'mode', 'form', 'message', message,
        'requestedSchema', jsonb_build_object('type', 'object', 'properties', properties,
            'required', (SELECT jsonb_agg(k ORDER BY k) FROM jsonb_object_keys(properties) k))))
$$;
COMMENT ON FUNCTION _conformance_ask_form(text, jsonb) IS 'Conformance fixture: an elicitation/create form input request';

CREATE OR REPLACE FUNCTION _conformance_ask_sampling(question text, max_tokens integer) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('method', 'sampling/createMessage', 'params', jsonb_build_object(
        'messages', jsonb_build_array(jsonb_build_object('role', 'user',
                        'content', jsonb_build_object('type', 'text', 'text', question))),
        'maxTokens', max_tokens))
$$;
COMMENT ON FUNCTION _conformance_ask_sampling(text, integer) IS 'Conformance fixture: a sampling/createMessage input request';

-- The answers of this request: NULL when it has none; a malformed member
-- (inputResponses not an object, or an answer we need that is not an
-- object) is invalid_params, a JSON-RPC error, never a new prompt.
CREATE OR REPLACE FUNCTION _conformance_answers(request jsonb, keys text[], OUT outcome jsonb, OUT answers jsonb)
LANGUAGE plpgsql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF NOT (request -> 'params') ? 'inputResponses' THEN
        RETURN;
    END IF;
    answers := request #> '{params,inputResponses}';
    IF jsonb_typeof(answers) IS DISTINCT FROM 'object' THEN
        outcome := _invalid_params('invalid_input_responses', 'inputResponses must be an object');
    ELSIF EXISTS (SELECT 1 FROM unnest(keys) k WHERE answers ? k AND jsonb_typeof(answers -> k) <> 'object') THEN
        outcome := _invalid_params('invalid_input_response', 'each input response must be an object');
    END IF;
END;
$$;
COMMENT ON FUNCTION _conformance_answers(jsonb, text[]) IS
'Conformance fixture: the inputResponses of a request, or the invalid_params outcome refusing them';

CREATE OR REPLACE FUNCTION _conformance_input_required(requests jsonb, state text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_strip_nulls(jsonb_build_object(
        'resultType', 'input_required', 'inputRequests', requests, 'requestState', state)))
$$;
COMMENT ON FUNCTION _conformance_input_required(jsonb, text) IS 'Conformance fixture: an input_required result';

-- A state bound to the principal, the method, the tool or prompt and a
-- phase, sealed by the extension (docs/state-format.md).
CREATE OR REPLACE FUNCTION _conformance_seal(principal text, request jsonb, phase text, data jsonb DEFAULT '{}')
RETURNS text
LANGUAGE sql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _seal('conformance', jsonb_build_object(
        'principal', principal, 'method', request ->> 'method',
        'tool', request #>> '{params,name}', 'phase', phase, 'data', data))
$$;
COMMENT ON FUNCTION _conformance_seal(text, jsonb, text, jsonb) IS 'Conformance fixture: a sealed requestState for one phase of a fixture tool';

-- Opens the request's state with the checks notes_delete makes: the
-- extension's opener (_open_sealed: seal, purpose, expiry, principal), then
-- method and tool, phase, not yet spent.
CREATE OR REPLACE FUNCTION _conformance_open(principal text, request jsonb, phases text[],
                                             OUT outcome jsonb, OUT state jsonb)
LANGUAGE plpgsql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    claims jsonb;
BEGIN
    IF jsonb_typeof(request #> '{params,requestState}') IS DISTINCT FROM 'string' THEN
        outcome := _invalid_params('state_missing', 'invalid requestState: this step needs the state of the previous one');
        RETURN;
    END IF;
    state := _open_sealed(request #>> '{params,requestState}', 'conformance', principal);
    claims := state -> 'claims';
    outcome := CASE
        WHEN state ->> 'reason' IN ('state_wrong_purpose', 'state_wrong_principal') THEN
            _invalid_params('state_wrong_principal', 'invalid requestState: it was issued to another principal or purpose')
        WHEN NOT (state ->> 'ok')::boolean THEN
            _invalid_params(state ->> 'reason', 'invalid requestState: ' || (state ->> 'message'))
        WHEN claims ->> 'method' IS DISTINCT FROM request ->> 'method'
             OR claims ->> 'tool' IS DISTINCT FROM request #>> '{params,name}' THEN
            _invalid_params('state_wrong_method', 'invalid requestState: it was issued for another method or tool')
        WHEN NOT (claims ->> 'phase') = ANY (phases) THEN
            _invalid_params('state_wrong_phase', 'invalid requestState: it belongs to another step')
        WHEN EXISTS (SELECT 1 FROM spent_states s WHERE s.nonce = state ->> 'nonce') THEN
            _invalid_params('state_already_used', 'invalid requestState: it has already been used')
    END;
END;
$$;
COMMENT ON FUNCTION _conformance_open(text, jsonb, text[]) IS
'Conformance fixture: opens and checks a fixture requestState (seal, expiry, principal, method, tool, phase, spent)';

-------------------------------------------------------------------------------
-- Tools with one answer
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _tool_test_simple_text(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$ SELECT _tool_result('This is a simple text response for testing.') $$;

CREATE OR REPLACE FUNCTION _tool_test_image_content(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_build_object('resultType', 'complete', 'content', jsonb_build_array(
        jsonb_build_object('type', 'image', 'data', _conformance_png(), 'mimeType', 'image/png'))))
$$;

CREATE OR REPLACE FUNCTION _tool_test_audio_content(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_build_object('resultType', 'complete', 'content', jsonb_build_array(
        jsonb_build_object('type', 'audio', 'mimeType', 'audio/wav',
                           'data', 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA='))))
$$;

CREATE OR REPLACE FUNCTION _tool_test_embedded_resource(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_build_object('resultType', 'complete', 'content', jsonb_build_array(
        jsonb_build_object('type', 'resource', 'resource', jsonb_build_object(
            'uri', 'test://embedded-resource', 'mimeType', 'text/plain',
            'text', 'This is an embedded resource content.')))))
$$;

CREATE OR REPLACE FUNCTION _tool_test_multiple_content_types(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_build_object('resultType', 'complete', 'content', jsonb_build_array(
        jsonb_build_object('type', 'text', 'text', 'Multiple content types test:'),
        jsonb_build_object('type', 'image', 'data', _conformance_png(), 'mimeType', 'image/png'),
        jsonb_build_object('type', 'resource', 'resource', jsonb_build_object(
            'uri', 'test://mixed-content-resource', 'mimeType', 'application/json',
            'text', '{"test":"data","value":123}')))))
$$;

CREATE OR REPLACE FUNCTION _tool_test_error_handling(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$ SELECT _tool_result('This tool intentionally returns an error for testing', NULL, true) $$;

-- Log messages go out as notifications before the result, like progress;
-- _tools_call keeps only those at or above the request's logLevel (the
-- 2026 _meta key, or the 2025 session's logging/setLevel), none without one.
CREATE OR REPLACE FUNCTION _tool_test_logging_tool(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_result('Done: logged one message at debug, info and warning each.')
           || jsonb_build_object('notifications', jsonb_build_array(
                  _log_message('debug', 'test_logging_tool', '"a debug message"'),
                  _log_message('info', 'test_logging_tool', '"an info message"'),
                  _log_message('warning', 'test_logging_tool', '"a warning message"')))
$$;

-- tools-call-with-logging (2025-11-25): three info messages, then the result.
CREATE OR REPLACE FUNCTION _tool_test_tool_with_logging(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_result('Tool with logging executed successfully')
           || jsonb_build_object('notifications', jsonb_build_array(
                  _log_message('info', 'test_tool_with_logging', '"Tool execution started"'),
                  _log_message('info', 'test_tool_with_logging', '"Tool processing data"'),
                  _log_message('info', 'test_tool_with_logging', '"Tool execution completed"')))
$$;

-- Progress goes out as notifications before the result (the gateway makes
-- the answer an SSE stream of them, docs/contract.md): all at once, when
-- the one statement ends, since the gateway waits for its result.
CREATE OR REPLACE FUNCTION _tool_test_tool_with_progress(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_result('Progress test completed.') || CASE WHEN request ? 'progressToken' THEN
        jsonb_build_object('notifications', (SELECT jsonb_agg(jsonb_build_object(
            'method', 'notifications/progress',
            'params', jsonb_build_object('progressToken', request -> 'progressToken', 'progress', p, 'total', 100))
            ORDER BY p) FROM unnest(ARRAY[0, 50, 100]) p))
        ELSE '{}' END
$$;

CREATE OR REPLACE FUNCTION _tool_json_schema_2020_12_tool(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$ SELECT _tool_result(format('Received %s', request #> '{params,arguments}')) $$;

-------------------------------------------------------------------------------
-- Tools that ask (MRTR)
-------------------------------------------------------------------------------

-- One question, no state: the outcome to answer while the answer is
-- missing (malformed inputResponses, -32021 without the capability, or the
-- input request), else the answer.
CREATE OR REPLACE FUNCTION _conformance_ask_once(request jsonb, key text, capability text, ask jsonb,
                                                 OUT outcome jsonb, OUT answer jsonb)
LANGUAGE plpgsql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    got record;
BEGIN
    SELECT * INTO got FROM _conformance_answers(request, ARRAY[key]);
    IF got.outcome IS NULL AND got.answers ? key THEN
        answer := got.answers -> key;
    ELSE
        outcome := coalesce(got.outcome, _conformance_needs(request, ARRAY[capability]),
                            _conformance_input_required(jsonb_build_object(key, ask)));
    END IF;
END;
$$;
COMMENT ON FUNCTION _conformance_ask_once(jsonb, text, text, jsonb) IS
'Conformance fixture: the answer to one stateless question, or the outcome to answer until it comes';


-- Ephemeral: no state; the answer alone completes the call.
CREATE OR REPLACE FUNCTION _tool_test_input_required_result_elicitation(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _tool_result(format('Hello, %s!', coalesce(_printable(a.answer #>> '{content,name}', 100), 'stranger'))))
    FROM _conformance_ask_once(request, 'user_name', 'elicitation',
                               _conformance_ask_form('What is your name?', '{"name": {"type": "string"}}')) a
$$;

CREATE OR REPLACE FUNCTION _tool_test_input_required_result_sampling(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _tool_result(format('The model said: %s', _printable(a.answer #>> '{content,text}', 500))))
    FROM _conformance_ask_once(request, 'capital_question', 'sampling',
                               _conformance_ask_sampling('What is the capital of France?', 100)) a
$$;

CREATE OR REPLACE FUNCTION _tool_test_input_required_result_list_roots(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _tool_result(format('Client roots: %s', coalesce((
        SELECT string_agg(_printable(r ->> 'uri', 300), ', ')
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(a.answer -> 'roots') = 'array' THEN a.answer -> 'roots' ELSE '[]' END) r),
        'none'))))
    FROM _conformance_ask_once(request, 'client_roots', 'roots', '{"method": "roots/list", "params": {}}') a
$$;

-- With a sealed state: round 2 needs the state of round 1, and spends it.
-- Used by the request-state and the tampered-state scenarios.
CREATE OR REPLACE FUNCTION _conformance_confirm_with_state(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    got record;
    opened record;
BEGIN
    SELECT * INTO got FROM _conformance_answers(request, ARRAY['confirm']);
    IF got.outcome IS NOT NULL THEN
        RETURN got.outcome;
    END IF;
    IF NOT coalesce(got.answers ? 'confirm', false) AND NOT (request -> 'params') ? 'requestState' THEN
        RETURN coalesce(_conformance_needs(request, ARRAY['elicitation']),
            _conformance_input_required(jsonb_build_object('confirm',
                _conformance_ask_form('Please confirm', '{"ok": {"type": "boolean"}}')),
                _conformance_seal(principal, request, 'confirm')));
    END IF;
    SELECT * INTO opened FROM _conformance_open(principal, request, ARRAY['confirm']);
    IF opened.outcome IS NOT NULL THEN
        RETURN opened.outcome;
    END IF;
    IF NOT coalesce(got.answers ? 'confirm', false) THEN
        RETURN _conformance_input_required(jsonb_build_object('confirm',
            _conformance_ask_form('Please confirm', '{"ok": {"type": "boolean"}}')), request #>> '{params,requestState}');
    END IF;
    PERFORM _spend_state(opened.state, 'accept');
    RETURN _tool_result(format('state-ok: the requestState verified; confirmed: %s', got.answers #> '{confirm,content,ok}'));
END;
$$;

CREATE OR REPLACE FUNCTION _tool_test_input_required_result_request_state(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$ SELECT _conformance_confirm_with_state(principal, request) $$;

CREATE OR REPLACE FUNCTION _tool_test_input_required_result_tampered_state(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$ SELECT _conformance_confirm_with_state(principal, request) $$;

-- Three kinds of input at once; any that is still missing is asked again
-- with the same state.
CREATE OR REPLACE FUNCTION _tool_test_input_required_result_multiple_inputs(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    asks constant jsonb := jsonb_build_object(
        'user_name', _conformance_ask_form('What is your name?', '{"name": {"type": "string"}}'),
        'greeting', _conformance_ask_sampling('Generate a greeting', 50),
        'client_roots', '{"method": "roots/list", "params": {}}'::jsonb);
    got record;
    opened record;
    missing jsonb;
BEGIN
    SELECT * INTO got FROM _conformance_answers(request, ARRAY['user_name', 'greeting', 'client_roots']);
    IF got.outcome IS NOT NULL THEN
        RETURN got.outcome;
    END IF;
    IF NOT (request -> 'params') ? 'requestState' THEN
        RETURN coalesce(_conformance_needs(request, ARRAY['elicitation', 'sampling', 'roots']),
                        _conformance_input_required(asks, _conformance_seal(principal, request, 'gather')));
    END IF;
    SELECT * INTO opened FROM _conformance_open(principal, request, ARRAY['gather']);
    IF opened.outcome IS NOT NULL THEN
        RETURN opened.outcome;
    END IF;
    SELECT jsonb_object_agg(a.key, a.value) INTO missing FROM jsonb_each(asks) a
    WHERE NOT coalesce(got.answers ? a.key, false);
    IF missing IS NOT NULL THEN
        RETURN _conformance_input_required(missing, request #>> '{params,requestState}');
    END IF;
    PERFORM _spend_state(opened.state, 'accept');
    RETURN _tool_result(format('Got all three: name %s, greeting %s, %s root(s).',
        _printable(got.answers #>> '{user_name,content,name}', 100),
        _printable(got.answers #>> '{greeting,content,text}', 200),
        coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(got.answers #> '{client_roots,roots}') = 'array'
                                         THEN got.answers #> '{client_roots,roots}' END), 0)));
END;
$$;

-- Three rounds: the state of round 2 carries the answer of round 1 and is
-- a new state (the first one is spent).
CREATE OR REPLACE FUNCTION _tool_test_input_required_result_multi_round(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    got record;
    opened record;
BEGIN
    SELECT * INTO got FROM _conformance_answers(request, ARRAY['step1', 'step2']);
    IF got.outcome IS NOT NULL THEN
        RETURN got.outcome;
    END IF;
    IF NOT (request -> 'params') ? 'requestState' THEN
        RETURN coalesce(_conformance_needs(request, ARRAY['elicitation']), _conformance_input_required(
            jsonb_build_object('step1', _conformance_ask_form('Step 1: What is your name?', '{"name": {"type": "string"}}')),
            _conformance_seal(principal, request, 'step1')));
    END IF;
    SELECT * INTO opened FROM _conformance_open(principal, request, ARRAY['step1', 'step2']);
    IF opened.outcome IS NOT NULL THEN
        RETURN opened.outcome;
    END IF;
    IF opened.state #>> '{claims,phase}' = 'step1' AND coalesce(got.answers ? 'step1', false) THEN
        PERFORM _spend_state(opened.state, 'accept');
        RETURN _conformance_input_required(
            jsonb_build_object('step2', _conformance_ask_form('Step 2: What is your favorite color?', '{"color": {"type": "string"}}')),
            _conformance_seal(principal, request, 'step2',
                              jsonb_build_object('name', got.answers #> '{step1,content,name}')));
    ELSIF opened.state #>> '{claims,phase}' = 'step2' AND coalesce(got.answers ? 'step2', false) THEN
        PERFORM _spend_state(opened.state, 'accept');
        RETURN _tool_result(format('%s likes %s.', _printable(opened.state #>> '{claims,data,name}', 100),
                                   _printable(got.answers #>> '{step2,content,color}', 100)));
    END IF;
    RETURN _conformance_input_required(
        CASE opened.state #>> '{claims,phase}'
            WHEN 'step1' THEN jsonb_build_object('step1', _conformance_ask_form('Step 1: What is your name?', '{"name": {"type": "string"}}'))
            ELSE jsonb_build_object('step2', _conformance_ask_form('Step 2: What is your favorite color?', '{"color": {"type": "string"}}')) END,
        request #>> '{params,requestState}');
END;
$$;

-- Asks only for what this request's capabilities allow.
CREATE OR REPLACE FUNCTION _tool_test_input_required_result_capabilities(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    got record;
    asks jsonb;
BEGIN
    SELECT * INTO got FROM _conformance_answers(request, ARRAY['user_name', 'capital_question', 'client_roots']);
    IF got.outcome IS NOT NULL THEN
        RETURN got.outcome;
    END IF;
    IF got.answers IS NOT NULL AND got.answers <> '{}' THEN
        RETURN _tool_result(format('Answered: %s', (SELECT string_agg(k, ', ' ORDER BY k) FROM jsonb_object_keys(got.answers) k)));
    END IF;
    asks := jsonb_strip_nulls(jsonb_build_object(
        'user_name', CASE WHEN _conformance_needs(request, ARRAY['elicitation']) IS NULL
                          THEN _conformance_ask_form('What is your name?', '{"name": {"type": "string"}}') END,
        'capital_question', CASE WHEN _conformance_needs(request, ARRAY['sampling']) IS NULL
                                 THEN _conformance_ask_sampling('What is the capital of France?', 100) END,
        'client_roots', CASE WHEN _conformance_needs(request, ARRAY['roots']) IS NULL
                             THEN '{"method": "roots/list", "params": {}}'::jsonb END));
    IF asks = '{}' THEN
        RETURN _conformance_needs(request, ARRAY['elicitation', 'sampling', 'roots']);
    END IF;
    RETURN _conformance_input_required(asks);
END;
$$;

-- Needs sampling: without it, -32021 with requiredCapabilities {sampling}.
CREATE OR REPLACE FUNCTION _tool_test_missing_capability(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _tool_result(format('The model said: %s', _printable(a.answer #>> '{content,text}', 500))))
    FROM _conformance_ask_once(request, 'summary', 'sampling', _conformance_ask_sampling('Summarize this test.', 50)) a
$$;

-- Its "stream" is one input_required result: input requests travel in the
-- result, never as requests of their own.
CREATE OR REPLACE FUNCTION _tool_test_streaming_elicitation(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _tool_result('Thanks for the answer.'))
    FROM _conformance_ask_once(request, 'answer', 'elicitation',
                               _conformance_ask_form('Anything to add?', '{"text": {"type": "string"}}')) a
$$;

-- The legacy-era (2025-11-25) scenarios: one server-to-client request
-- each, which the legacy adapter sends on the call's SSE stream and a
-- modern client answers in inputResponses.  No state: the answer alone
-- completes the call.

CREATE OR REPLACE FUNCTION _conformance_elicit(message text, requested_schema jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('method', 'elicitation/create', 'params', jsonb_build_object(
        'mode', 'form', 'message', message, 'requestedSchema', requested_schema))
$$;
COMMENT ON FUNCTION _conformance_elicit(text, jsonb) IS
'Conformance fixture: an elicitation/create form input request with the schema as given';

-- "action=accept, content={...}": what the user answered, shown safely.
CREATE OR REPLACE FUNCTION _conformance_elicited(answer jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT format('action=%s, content=%s', coalesce(_printable(answer ->> 'action', 20), 'none'),
                  coalesce(_printable((answer -> 'content')::text, 500), '{}'))
$$;
COMMENT ON FUNCTION _conformance_elicited(jsonb) IS
'Conformance fixture: an elicitation answer as text (action and content, printable, bounded)';

-- The string argument name of this tools/call, or NULL when it is missing or not a string.
CREATE OR REPLACE FUNCTION _conformance_string_argument(request jsonb, name text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN jsonb_typeof(request #> ARRAY['params', 'arguments', name]) = 'string'
                THEN request #>> ARRAY['params', 'arguments', name] END
$$;
COMMENT ON FUNCTION _conformance_string_argument(jsonb, text) IS
'Conformance fixture: a string argument of a tools/call, or NULL';

CREATE OR REPLACE FUNCTION _tool_test_elicitation(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN _conformance_string_argument(request, 'message') IS NULL
                THEN _invalid_params('invalid_arguments', 'the argument message must be a string')
                ELSE coalesce(a.outcome, _tool_result('User response: ' || _conformance_elicited(a.answer))) END
    FROM _conformance_ask_once(request, 'user_info', 'elicitation', _conformance_elicit(
        coalesce(_conformance_string_argument(request, 'message'), ''),
        '{"type": "object", "properties": {"username": {"type": "string", "description": "User''s response"},
          "email": {"type": "string", "description": "User''s email address"}}, "required": ["username", "email"]}')) a
$$;

CREATE OR REPLACE FUNCTION _tool_test_sampling(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN _conformance_string_argument(request, 'prompt') IS NULL
                THEN _invalid_params('invalid_arguments', 'the argument prompt must be a string')
                ELSE coalesce(a.outcome, _tool_result('LLM response: ' || coalesce(_printable(a.answer #>> '{content,text}', 500), ''))) END
    FROM _conformance_ask_once(request, 'llm_response', 'sampling', _conformance_ask_sampling(
        coalesce(_conformance_string_argument(request, 'prompt'), ''), 100)) a
$$;

-- One elicitation, then "Elicitation completed: action=..., content=...".
CREATE OR REPLACE FUNCTION _conformance_elicitation_completed(request jsonb, key text, ask jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _tool_result('Elicitation completed: ' || _conformance_elicited(a.answer)))
    FROM _conformance_ask_once(request, key, 'elicitation', ask) a
$$;
COMMENT ON FUNCTION _conformance_elicitation_completed(jsonb, text, jsonb) IS
'Conformance fixture: asks one elicitation, then reports the action and content answered';

-- SEP-1034: a default for every primitive type.
CREATE OR REPLACE FUNCTION _tool_test_elicitation_sep1034_defaults(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _conformance_elicitation_completed(request, 'profile', _conformance_elicit('Please review your profile',
        '{"type": "object", "properties": {
            "name": {"type": "string", "description": "Your name", "default": "John Doe"},
            "age": {"type": "integer", "description": "Your age", "default": 30},
            "score": {"type": "number", "description": "Your score", "default": 95.5},
            "status": {"type": "string", "description": "Your status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verified", "default": true}}}'))
$$;

-- SEP-1330: the five enum shapes.
CREATE OR REPLACE FUNCTION _tool_test_elicitation_sep1330_enums(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _conformance_elicitation_completed(request, 'choices', _conformance_elicit('Please choose',
        '{"type": "object", "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"}]}}}}'))
$$;

-------------------------------------------------------------------------------
-- The tool registry rows, after the extension's own tools
-------------------------------------------------------------------------------

INSERT INTO tools (name, position, descriptor, handler)
SELECT t.name, 1000 + t.i,
       jsonb_build_object('name', t.name, 'title', initcap(replace(t.name, '_', ' ')), 'description', t.description,
                          'inputSchema', coalesce(t.schema, '{"type": "object", "properties": {}}'::jsonb)),
       '_tool_' || t.name
FROM (VALUES
    (1, 'test_simple_text', 'Returns a simple text content', NULL::jsonb),
    (2, 'test_image_content', 'Returns an image (1x1 PNG)', NULL),
    (3, 'test_audio_content', 'Returns audio (a short WAV)', NULL),
    (4, 'test_embedded_resource', 'Returns an embedded resource', NULL),
    (5, 'test_multiple_content_types', 'Returns text, an image and a resource', NULL),
    (6, 'test_error_handling', 'Always fails with isError: true', NULL),
    (7, 'test_tool_with_progress', 'Reports progress 0, 50, 100 when given a progressToken', NULL),
    (8, 'test_logging_tool', 'Logs at debug, info and warning; nothing unless a log level is requested', NULL),
    (9, 'test_missing_capability', 'Needs the sampling capability (-32021 without it)', NULL),
    (10, 'test_streaming_elicitation', 'Asks through an input_required result', NULL),
    (11, 'test_input_required_result_elicitation', 'Asks the user for a name (ephemeral)', NULL),
    (12, 'test_input_required_result_sampling', 'Asks the client model a question', NULL),
    (13, 'test_input_required_result_list_roots', 'Asks for the client''s roots', NULL),
    (14, 'test_input_required_result_request_state', 'Asks for a confirmation with a sealed requestState', NULL),
    (15, 'test_input_required_result_multiple_inputs', 'Asks elicitation, sampling and roots at once', NULL),
    (16, 'test_input_required_result_multi_round', 'Asks twice, with a new state each round', NULL),
    (17, 'test_input_required_result_tampered_state', 'Refuses a requestState that does not verify', NULL),
    (18, 'test_input_required_result_capabilities', 'Asks only for what the client declared', NULL),
    (19, 'json_schema_2020_12_tool', 'Tool with JSON Schema 2020-12 features', jsonb_build_object(
        '$schema', 'https://json-schema.org/draft/2020-12/schema', 'type', 'object',
        '$defs', '{"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}}'::jsonb,
        'properties', '{"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}, "contactMethod": {"type": "string", "enum": ["phone", "email"]}, "phone": {"type": "string"}, "email": {"type": "string"}}'::jsonb,
        'allOf', '[{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}]'::jsonb,
        'if', '{"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]}'::jsonb,
        'then', '{"required": ["phone"]}'::jsonb, 'else', '{"required": ["email"]}'::jsonb,
        'additionalProperties', false)),
    (20, 'test_elicitation', 'Asks the user (elicitation/create) with the given message',
     '{"type": "object", "properties": {"message": {"type": "string", "description": "The message to show the user"}}, "required": ["message"]}'::jsonb),
    (21, 'test_sampling', 'Asks the client model (sampling/createMessage) the given prompt',
     '{"type": "object", "properties": {"prompt": {"type": "string", "description": "The prompt to send to the model"}}, "required": ["prompt"]}'::jsonb),
    (22, 'test_elicitation_sep1034_defaults', 'Asks with a default for every primitive type (SEP-1034)', NULL),
    (23, 'test_elicitation_sep1330_enums', 'Asks with the five enum schema shapes (SEP-1330)', NULL),
    (24, 'test_tool_with_logging', 'Logs three info messages (at the level the client set)', NULL)
) AS t(i, name, description, schema)
ON CONFLICT (name) DO UPDATE SET position = excluded.position, descriptor = excluded.descriptor, handler = excluded.handler;

-------------------------------------------------------------------------------
-- Prompts
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _conformance_messages(VARIADIC contents jsonb[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_build_object('resultType', 'complete', 'messages',
        (SELECT jsonb_agg(jsonb_build_object('role', 'user', 'content', c) ORDER BY i)
         FROM unnest(contents) WITH ORDINALITY AS x(c, i))))
$$;
COMMENT ON FUNCTION _conformance_messages(jsonb[]) IS 'Conformance fixture: a complete prompts/get result of user messages';

CREATE OR REPLACE FUNCTION _prompt_test_simple_prompt(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$ SELECT _conformance_messages('{"type": "text", "text": "This is a simple prompt for testing."}') $$;

CREATE OR REPLACE FUNCTION _prompt_test_prompt_with_arguments(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _conformance_messages(jsonb_build_object('type', 'text', 'text',
        format('Prompt with arguments: arg1=''%s'', arg2=''%s''',
               _printable(request #>> '{params,arguments,arg1}', 200), _printable(request #>> '{params,arguments,arg2}', 200))))
$$;

-- Suggestions for arg1/arg2: a fixed word list, by prefix.
CREATE OR REPLACE FUNCTION _complete_test_prompt_with_arguments(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(w ORDER BY w), '[]')
    FROM unnest(ARRAY['paris', 'park', 'party', 'test', 'testing', 'testValue1', 'testValue2']) w
    WHERE starts_with(w, request #>> '{params,argument,value}')
$$;

CREATE OR REPLACE FUNCTION _prompt_test_prompt_with_embedded_resource(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _conformance_messages(
        jsonb_build_object('type', 'resource', 'resource', jsonb_build_object(
            'uri', coalesce(request #>> '{params,arguments,resourceUri}', 'test://example-resource'),
            'mimeType', 'text/plain', 'text', 'Embedded resource content for testing.')),
        '{"type": "text", "text": "Please process the embedded resource above."}')
$$;

CREATE OR REPLACE FUNCTION _prompt_test_prompt_with_image(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _conformance_messages(
        jsonb_build_object('type', 'image', 'data', _conformance_png(), 'mimeType', 'image/png'),
        '{"type": "text", "text": "Please analyze the image above."}')
$$;

-- MRTR on prompts/get: the same machinery as tools/call.
CREATE OR REPLACE FUNCTION _prompt_test_input_required_result_prompt(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(a.outcome, _conformance_messages(jsonb_build_object('type', 'text', 'text',
        format('Use this context: %s', _printable(a.answer #>> '{content,context}', 500)))))
    FROM _conformance_ask_once(request, 'user_context', 'elicitation',
                               _conformance_ask_form('What context should the prompt use?', '{"context": {"type": "string"}}')) a
$$;

INSERT INTO prompts (name, position, descriptor, handler, completer)
SELECT p.name, 1000 + p.i,
       jsonb_strip_nulls(jsonb_build_object('name', p.name, 'description', p.description, 'arguments', p.arguments)),
       '_prompt_' || p.name, p.completer
FROM (VALUES
    (1, 'test_simple_prompt', 'A simple prompt without arguments', NULL::jsonb, NULL::text),
    (2, 'test_prompt_with_arguments', 'A prompt with two required arguments',
     '[{"name": "arg1", "description": "First test argument", "required": true},
       {"name": "arg2", "description": "Second test argument", "required": true}]'::jsonb,
     '_complete_test_prompt_with_arguments'),
    (3, 'test_prompt_with_embedded_resource', 'A prompt that embeds a resource',
     '[{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]'::jsonb, NULL),
    (4, 'test_prompt_with_image', 'A prompt with an image', NULL, NULL),
    (5, 'test_input_required_result_prompt', 'A prompt that asks the user for context first', NULL, NULL)
) AS p(i, name, description, arguments, completer)
ON CONFLICT (name) DO UPDATE SET position = excluded.position, descriptor = excluded.descriptor,
                                 handler = excluded.handler, completer = excluded.completer;

-------------------------------------------------------------------------------
-- Resources: the conformance kind (test: URIs), for every principal
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _resources_conformance(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    wanted text := request #>> '{params,uri}';
    id text;
BEGIN
    CASE request ->> 'method'
    WHEN 'resources/list' THEN
        RETURN (SELECT coalesce(jsonb_agg(r ORDER BY r ->> 'key'), '[]') FROM (VALUES
            (jsonb_build_object('key', 'test://static-binary', 'resource', jsonb_build_object(
                'uri', 'test://static-binary', 'name', 'static-binary', 'description', 'A static PNG image',
                'mimeType', 'image/png'))),
            (jsonb_build_object('key', 'test://static-text', 'resource', jsonb_build_object(
                'uri', 'test://static-text', 'name', 'static-text', 'description', 'A static text resource',
                'mimeType', 'text/plain')))) AS x(r)
            WHERE request #>> '{params,after}' IS NULL OR r ->> 'key' > request #>> '{params,after}');
    WHEN 'resources/templates/list' THEN
        RETURN '[{"uriTemplate": "test://template/{id}/data", "name": "template-data",
                  "description": "Data for an id", "mimeType": "application/json"}]';
    WHEN 'resources/read' THEN
        IF wanted = 'test://static-text' THEN
            RETURN _private_result(jsonb_build_object('contents', jsonb_build_array(jsonb_build_object(
                'uri', wanted, 'mimeType', 'text/plain', 'text', 'This is the content of the static text resource.'))));
        ELSIF wanted = 'test://static-binary' THEN
            RETURN _private_result(jsonb_build_object('contents', jsonb_build_array(jsonb_build_object(
                'uri', wanted, 'mimeType', 'image/png', 'blob', _conformance_png()))));
        END IF;
        id := substring(wanted FROM '^test://template/([A-Za-z0-9_-]{1,64})/data$');
        IF id IS NOT NULL THEN
            RETURN _private_result(jsonb_build_object('contents', jsonb_build_array(jsonb_build_object(
                'uri', wanted, 'mimeType', 'application/json',
                'text', jsonb_build_object('id', id, 'templateTest', true, 'data', 'Data for ID: ' || id)::text))));
        END IF;
        RETURN NULL;
    WHEN 'completion/complete' THEN
        IF request #>> '{params,ref,uri}' IS DISTINCT FROM 'test://template/{id}/data' THEN
            RETURN NULL;
        END IF;
        RETURN (SELECT coalesce(jsonb_agg(v ORDER BY v), '[]') FROM unnest(ARRAY['1', '123', '42']) v
                WHERE starts_with(v, request #>> '{params,argument,value}'));
    ELSE
        RETURN NULL;
    END CASE;
END;
$$;

INSERT INTO resource_kinds (name, position, handler) VALUES ('conformance', 1000, '_resources_conformance')
ON CONFLICT (name) DO UPDATE SET position = excluded.position, handler = excluded.handler;

-------------------------------------------------------------------------------
-- Comments and privileges
-------------------------------------------------------------------------------

DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = 'mcp_notes'::regnamespace
               AND (p.proname LIKE '\_conformance\_%' OR p.proname LIKE '\_resources\_conformance'
                    OR p.proname IN (SELECT t.handler FROM mcp_notes.tools t WHERE t.position > 1000)
                    OR p.proname IN (SELECT q.handler FROM mcp_notes.prompts q WHERE q.position > 1000)
                    OR p.proname IN (SELECT q.completer FROM mcp_notes.prompts q WHERE q.position > 1000))
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
        IF obj_description(f, 'pg_proc') IS NULL THEN
            EXECUTE format('COMMENT ON FUNCTION %s IS %L', f,
                           'Conformance fixture (share/conformance-fixture.sql): ' || split_part(f::text, '(', 1));
        END IF;
    END LOOP;
END;
$$;

-------------------------------------------------------------------------------
-- Mcp-Param-* headers (SEP-2243; http-custom-header-server-validation):
-- a tool whose arguments are marked x-mcp-header, so clients mirror them
-- into Mcp-Param-Region / -Priority / -Verbose and the gateway checks each
-- tools/call against them (gateway/src/paramheaders.c).  The handler only
-- echoes what it got: the check is the gateway's.  Its own comment and
-- privileges, since this block comes after the general ones above.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _tool_test_param_headers(principal text, request jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_result(format('region=%s priority=%s verbose=%s',
                               _printable(request #>> '{params,arguments,region}', 200),
                               coalesce(request #>> '{params,arguments,priority}', '-'),
                               coalesce(request #>> '{params,arguments,verbose}', '-')),
                        jsonb_strip_nulls(jsonb_build_object(
                            'region', request #> '{params,arguments,region}',
                            'priority', request #> '{params,arguments,priority}',
                            'verbose', request #> '{params,arguments,verbose}')))
$$;
REVOKE ALL ON FUNCTION _tool_test_param_headers(text, jsonb) FROM PUBLIC;
COMMENT ON FUNCTION _tool_test_param_headers(text, jsonb) IS
'Conformance fixture (share/conformance-fixture.sql): echoes the x-mcp-header arguments of test_param_headers';

INSERT INTO tools (name, position, descriptor, handler)
VALUES ('test_param_headers', 1100, jsonb_build_object(
            'name', 'test_param_headers', 'title', 'Test Param Headers',
            'description', 'Echoes region, priority and verbose, which clients mirror into Mcp-Param-* headers',
            'inputSchema', '{"type": "object",
                             "properties": {"region": {"type": "string", "x-mcp-header": "Region"},
                                            "priority": {"type": "integer", "x-mcp-header": "Priority"},
                                            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
                                            "query": {"type": "string"}},
                             "required": ["region"]}'::jsonb),
        '_tool_test_param_headers')
ON CONFLICT (name) DO UPDATE SET position = excluded.position, descriptor = excluded.descriptor, handler = excluded.handler;
