-------------------------------------------------------------------------------
-- Gateway API
-------------------------------------------------------------------------------

-- The methods _handle answers that have something to serve: resources/*
-- only with a resource kind, prompts/* only with a prompt, completion with
-- either.  server/discover advertises the same (features().capabilities).
CREATE OR REPLACE FUNCTION _served_methods() RETURNS SETOF text
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT m.method
    FROM (VALUES (1, 'tools/list', true), (2, 'tools/call', true),
                 (3, 'resources/list', EXISTS (SELECT 1 FROM resource_kinds)),
                 (4, 'resources/templates/list', EXISTS (SELECT 1 FROM resource_kinds)),
                 (5, 'resources/read', EXISTS (SELECT 1 FROM resource_kinds)),
                 (6, 'prompts/list', EXISTS (SELECT 1 FROM prompts)),
                 (7, 'prompts/get', EXISTS (SELECT 1 FROM prompts)),
                 (8, 'completion/complete', EXISTS (SELECT 1 FROM prompts) OR EXISTS (SELECT 1 FROM resource_kinds)))
         AS m(i, method, served)
    WHERE m.served
    ORDER BY m.i
$$;
COMMENT ON FUNCTION _served_methods() IS
'Internal: the methods features() lists: tools always, resources, prompts and completion when their registries have rows';

-- The internal methods of the 2025-era adapter (_legacy_method) and of
-- listen streams (_listen_method), with the channel each notifies at
-- commit: a gateway holding a stream LISTENs on it to learn that an answer
-- came (or that the pending request ended), or that a stream must be
-- renewed now.
CREATE OR REPLACE FUNCTION _internal_methods() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object(
        'mcp_notes/session/open', '{}'::jsonb,
        'mcp_notes/session/check', '{}'::jsonb,
        'mcp_notes/session/close', '{"channel": "mcp_notes_legacy"}'::jsonb,
        'mcp_notes/pending/open', '{}'::jsonb,
        'mcp_notes/pending/answer', '{"channel": "mcp_notes_legacy"}'::jsonb,
        'mcp_notes/pending/take', '{}'::jsonb,
        'mcp_notes/listen/open', '{}'::jsonb,
        'mcp_notes/listen/renew', '{"channel": "mcp_notes_listen"}'::jsonb,
        'mcp_notes/listen/close', '{}'::jsonb,
        -- file-backed workspaces: the answer to a notes_delete that said "await"
        'mcp_notes/fileop/outcome', '{"channel": "mcp_notes_fileops"}'::jsonb)
$$;
COMMENT ON FUNCTION _internal_methods() IS
'Internal: features().internalMethods: the coordination methods handle() answers (2025-era sessions and pending requests, listen streams) and the outcome of a file operation, each with the channel it notifies';

-- extensionVersion is read from pg_extension, so the control file stays
-- the one place that says which version this is.
CREATE OR REPLACE FUNCTION features() RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object(
        'extensionVersion', (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'mcp_notes'),
        'contract', 2,
        'methods', (SELECT jsonb_agg(m.method ORDER BY m.i) FROM _served_methods() WITH ORDINALITY AS m(method, i)),
        'publicResults', jsonb_build_object('tools/list', _tools_list_result())
                         || CASE WHEN EXISTS (SELECT 1 FROM prompts)
                                 THEN jsonb_build_object('prompts/list', _prompts_list_result()) ELSE '{}' END,
        'capabilities', jsonb_strip_nulls(jsonb_build_object(
            'tools', '{}'::jsonb,
            'resources', CASE WHEN EXISTS (SELECT 1 FROM resource_kinds) THEN '{}'::jsonb END,
            'prompts', CASE WHEN EXISTS (SELECT 1 FROM prompts) THEN '{}'::jsonb END,
            'completions', CASE WHEN EXISTS (SELECT 1 FROM prompts) OR EXISTS (SELECT 1 FROM resource_kinds)
                                THEN '{}'::jsonb END)),
        'instructions', 'Notes server. Every tool works inside a workspace you name explicitly (workspaceUri, '
                        'a file: URI you were granted). notes_list and notes_search find notes and their '
                        'noteId, notes_read reads one, notes_create and notes_update write (pass '
                        'expectedUpdatedAt to refuse overwriting a change you have not seen). '
                        'notes_delete deletes one note by title; it always asks the user to '
                        'pick and confirm the note through a form elicitation (declare '
                        'clientCapabilities.elicitation) and then expects the same call again with '
                        'inputResponses.delete_choice and the exact requestState. The notes you may read are '
                        'resources at their file: URIs (resources/list, resources/read); the prompt review_note '
                        'reviews one of them.',
        'tokenChannel', 'mcp_notes_tokens',
        'internalMethods', _internal_methods()) || _stream_features()
$$;
COMMENT ON FUNCTION features() IS
'What this extension serves (contract, methods and the methods of each era, public results, capabilities, instructions, channels); see docs/contract.md';

-- plpgsql rather than sql: a SET clause keeps an sql function from being
-- inlined, so its query would be planned on every call; plpgsql caches the
-- plan per session (tools/list and server/discover call this alone).
-- VOLATILE: a JWT may provision its principal or ask for its issuer's keys
-- (430_oauth_tokens.sql).
CREATE OR REPLACE FUNCTION authenticate(token text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _require_own_transaction('mcp_notes.authenticate');
    RETURN _authenticate(token) ->> 'principal';
END;
$$;
COMMENT ON FUNCTION authenticate(text) IS
'The principal a bearer token proves (an operator token, or a JWT access token of a configured issuer), or NULL when it is unknown, expired, revoked or fails a check';

-- The token is checked inside the transaction that acts on the request,
-- and so are a JWT's scopes, before anything of the request runs.  The
-- handlers see the acting token as request.auth (for the audit), never
-- what the gateway sent under that name.
CREATE OR REPLACE FUNCTION handle(token text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    auth jsonb;
    refusal jsonb;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.handle');
    auth := _authenticate(token);
    IF auth ->> 'principal' IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token',
                      jsonb_build_object('reason', auth ->> 'reason'));
    END IF;
    refusal := _oauth_scope_refusal(auth, request);
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    RETURN _handle(auth ->> 'principal', _with_auth(request, auth), _token_hash(token));
END;
$$;
COMMENT ON FUNCTION handle(text, jsonb) IS
'Answers one MCP request object for the principal the bearer token proves (within a JWT''s scopes): {"result": ...} or {"error": {"kind", "message", "data"}}';

CREATE OR REPLACE FUNCTION handle_as(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _handle(principal, _with_auth(request, NULL));
END;
$$;
COMMENT ON FUNCTION handle_as(text, jsonb) IS
'Development only: handle for a principal named by the caller. Executable only by roles given grant_dev_gateway';
