-------------------------------------------------------------------------------
-- Notes tools: create, read, update, list, search; audit of changes
-------------------------------------------------------------------------------

-- The one place that says how large a title and a body may be (the search
-- branch's _check_note_title/_check_note_body can take its place).
CREATE OR REPLACE FUNCTION _note_limits_problem(title text, body text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    message text;
    detail text;
BEGIN
    -- The limits live in _check_note_title/_check_note_body only; a tool
    -- turns their error into a sentence a model can act on.
    IF title IS NOT NULL THEN
        PERFORM _check_note_title(title);
    END IF;
    IF body IS NOT NULL THEN
        PERFORM _check_note_body(body);
    END IF;
    RETURN NULL;
EXCEPTION WHEN invalid_parameter_value OR string_data_right_truncation THEN
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    RETURN message || coalesce(': ' || nullif(detail, ''), '.');
END;
$$;
COMMENT ON FUNCTION _note_limits_problem(text, text) IS
'Internal: NULL when a title and a body (either may be NULL: not given) pass _check_note_title and _check_note_body, else the sentence saying what is wrong';

-- A note's version as the tools show it: UTC, microseconds, so two
-- versions never look alike and the text compares exactly.
CREATE OR REPLACE FUNCTION _note_time(at timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
COMMENT ON FUNCTION _note_time(timestamptz) IS
'Internal: updatedAt as the notes tools show and compare it (RFC 3339, UTC, microseconds)';

-- A complete tool result whose text is the serialized structuredContent.
CREATE OR REPLACE FUNCTION _tool_structured(structured jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _tool_result(structured::text, structured) $$;
COMMENT ON FUNCTION _tool_structured(jsonb) IS 'Internal: a tools/call result whose text content is its structuredContent serialized';

CREATE OR REPLACE FUNCTION _tool_refusal(message text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _tool_result(message, NULL, true) $$;
COMMENT ON FUNCTION _tool_refusal(text) IS 'Internal: a tools/call result with isError true and the message a model can act on';

-- The arguments every notes tool checks the same way: an object (else the
-- request is malformed: invalid_params); only known names; the required
-- ones present; every one a string (JSON null means not given); workspaceUri well formed and granted to the principal.  A
-- workspace that does not exist and one not granted get the same answer.
CREATE OR REPLACE FUNCTION _notes_arguments(tool text, principal text, arguments jsonb, required text[], optional text[],
                                 OUT outcome jsonb, OUT workspace text, OUT args jsonb)
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    unknown text;
    missing text;
    wrong text;
    problem text;
BEGIN
    IF arguments IS NOT NULL AND jsonb_typeof(arguments) <> 'object' THEN
        outcome := _invalid_params('invalid_arguments', format('%s: arguments must be an object', tool));
        RETURN;
    END IF;
    args := jsonb_strip_nulls(coalesce(arguments, '{}'));
    SELECT string_agg(k, ', ' ORDER BY k) INTO unknown
    FROM jsonb_object_keys(args) AS k WHERE NOT k = ANY (required || optional);
    SELECT string_agg(k, ', ' ORDER BY o) INTO missing
    FROM unnest(required) WITH ORDINALITY AS r(k, o) WHERE NOT args ? k;
    SELECT string_agg(a.k, ', ' ORDER BY a.k) INTO wrong
    FROM jsonb_each(args) AS a(k, v) WHERE jsonb_typeof(a.v) <> 'string' AND a.k = ANY (required || optional);
    outcome := CASE
        WHEN unknown IS NOT NULL THEN
            _tool_refusal(format('%s: unknown argument(s): %s. It takes %s.', tool, _printable(unknown, 200),
                                 array_to_string(required || optional, ', ')))
        WHEN missing IS NOT NULL THEN
            _tool_refusal(format('%s: missing argument(s): %s.', tool, missing))
        WHEN wrong IS NOT NULL THEN
            _tool_refusal(format('%s: %s must be a string.', tool, wrong))
    END;
    IF outcome IS NOT NULL THEN
        RETURN;
    END IF;
    problem := _uri_problem(args ->> 'workspaceUri');
    IF problem IS NOT NULL THEN
        outcome := _tool_refusal(format('workspaceUri is not a usable file: URI. %s', problem));
        RETURN;
    END IF;
    workspace := normalize_uri(args ->> 'workspaceUri');
    IF NOT EXISTS (SELECT 1 FROM grants g
                   WHERE g.principal = _notes_arguments.principal AND uri_contains(g.workspace_uri, workspace)) THEN
        outcome := _tool_refusal(format('Workspace %s is not granted to you.', workspace));
    END IF;
END;
$$;
COMMENT ON FUNCTION _notes_arguments(text, text, jsonb, text[], text[]) IS
'Internal: the argument checks every notes tool shares (names, types, workspaceUri well formed and granted); the normalized workspace and the arguments, or the outcome refusing them';

-- A note id that does not exist and one outside the workspace get the
-- same answer, which names only what the caller gave.
CREATE OR REPLACE FUNCTION _no_such_note(workspace text, note_id text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_refusal(format('No note with noteId "%s" in %s. notes_list and notes_search give the ids of the notes there.',
                                _printable(note_id, 100), workspace))
$$;
COMMENT ON FUNCTION _no_such_note(text, text) IS
'Internal: the refusal for a noteId that does not exist or lies outside the workspace (one answer for both)';

-- The title and body a create or an update would write: a title that is
-- there is not blank, and both are within the limits.
CREATE OR REPLACE FUNCTION _note_fields_refusal(tool text, args jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN btrim(args ->> 'title') = '' THEN _tool_refusal(tool || ': title must not be empty or blank.')
        WHEN _note_limits_problem(args ->> 'title', args ->> 'body') IS NOT NULL
            THEN _tool_refusal(tool || ': ' || _note_limits_problem(args ->> 'title', args ->> 'body'))
    END
$$;
COMMENT ON FUNCTION _note_fields_refusal(text, jsonb) IS
'Internal: NULL when the title and body in a notes_create/notes_update call may be written, else the tool error refusing them';

-- One row of change_audit, with the request's ids as _audit writes them.
CREATE OR REPLACE FUNCTION _change_audit(principal text, request jsonb, workspace text, note notes, action text, fields text[])
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    INSERT INTO change_audit (principal, workspace_uri, note_id, note_uri, title, action, fields, updated_at,
                              request_id, gateway_id, client_info,
                              token_iss, token_sub, token_client_id, token_jti, token_scope)
    SELECT principal, workspace, (note).note_id, (note).uri, (note).title, action, fields, (note).updated_at,
           _printable(request ->> 'requestId', 200), _printable(request ->> 'gatewayId', 200),
           _reported_client_info(request -> 'clientInfo'),
           t ->> 'iss', t ->> 'sub', t ->> 'client_id', t ->> 'jti', t ->> 'scope'
    FROM (SELECT _acting_token(request) AS t) acting
$$;
COMMENT ON FUNCTION _change_audit(text, jsonb, text, notes, text, text[]) IS
'Internal: appends one row to change_audit (request id, bounded gateway id and client info from the request object, the acting JWT''s iss, sub, client_id, jti and scope)';

-- Pagination cursors of notes_list and notes_search are sealed like a
-- requestState (_seal_state) with claims of their own: purpose "cursor",
-- the principal, the tool, the digest of the normalized query, the keyset
-- position after the page, and an expiry of one hour.  A delete state
-- has no purpose and a cursor's tool is never notes_delete, so neither is
-- ever taken for the other.
CREATE OR REPLACE FUNCTION _cursor_seal(principal text, tool text, digest text, after jsonb) RETURNS text
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _seal_state(jsonb_build_object(
        'purpose', 'cursor', 'principal', principal, 'method', 'tools/call', 'tool', tool, 'args', digest,
        'after', after, 'until', floor(extract(epoch FROM clock_timestamp()))::bigint + 3600))
$$;
COMMENT ON FUNCTION _cursor_seal(text, text, text, jsonb) IS
'Internal: a sealed pagination cursor for a notes_list or notes_search page (bound to principal, tool and query, valid one hour)';

-- The keyset position a cursor carries, or (refusal) the tool error to
-- answer: a cursor is a tool argument, so a bad one is a result with
-- isError a model can act on (start again without it), not -32602.  One
-- sentence for every cause but expiry, so a cursor reveals nothing.
CREATE OR REPLACE FUNCTION _cursor_open(principal text, tool text, digest text, cursor text,
                             OUT refusal jsonb, OUT after jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    opened jsonb := _open_state(cursor);
    claims jsonb := opened -> 'claims';
BEGIN
    IF NOT coalesce((opened ->> 'ok')::boolean, false)
       OR claims ->> 'purpose' IS DISTINCT FROM 'cursor'
       OR claims ->> 'principal' IS DISTINCT FROM principal
       OR claims ->> 'tool' IS DISTINCT FROM tool
       OR claims ->> 'args' IS DISTINCT FROM digest
       OR jsonb_typeof(claims -> 'after') IS DISTINCT FROM 'object' THEN
        refusal := _tool_refusal(format('The cursor is not valid for this call (it belongs to another query or was altered). Call %s again without a cursor.', tool));
    ELSIF jsonb_typeof(claims -> 'until') IS DISTINCT FROM 'number'
          OR (claims ->> 'until')::numeric <= extract(epoch FROM clock_timestamp()) THEN
        refusal := _tool_refusal(format('The cursor has expired. Call %s again without a cursor.', tool));
    ELSE
        after := claims -> 'after';
    END IF;
END;
$$;
COMMENT ON FUNCTION _cursor_open(text, text, text, text) IS
'Internal: checks a notes_list/notes_search cursor (seal, purpose, principal, tool, query, expiry); its keyset position or the tool error refusing it';

-- One page of notes (already ordered, at most page_size + 1 rows) as the
-- result of notes_list and notes_search: the extra row only says there is
-- a next page, whose cursor starts after the last row shown.
CREATE OR REPLACE FUNCTION _notes_page(principal text, tool text, digest text, found jsonb, page_size integer) RETURNS jsonb
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_structured(jsonb_strip_nulls(jsonb_build_object(
        'notes', coalesce((SELECT jsonb_agg(r - 'after' ORDER BY i) FROM jsonb_array_elements(found) WITH ORDINALITY AS x(r, i)
                           WHERE i <= page_size), '[]'),
        'nextCursor', CASE WHEN jsonb_array_length(found) > page_size
                           THEN _cursor_seal(principal, tool, digest, found -> (page_size - 1) -> 'after') END)))
$$;
COMMENT ON FUNCTION _notes_page(text, text, text, jsonb, integer) IS
'Internal: the structured result of a notes_list/notes_search page, with nextCursor when more rows follow';

-- What the descriptors of the notes tools share, written once: the
-- workspaceUri argument and the page of notes that notes_list and
-- notes_search return.  Schemas are JSON Schema 2020-12 (the MCP default
-- dialect), said explicitly by $schema.
CREATE OR REPLACE FUNCTION _tool_schema(part text) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE part
        WHEN 'workspaceUri' THEN '{"type": "string", "format": "uri", "maxLength": 4096,
                         "description": "file: URI of the workspace (or a folder inside it), e.g. file:///work/notes"}'::jsonb
        WHEN 'notesPage' THEN '{"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "type": "object",
                      "properties": {"notes": {"type": "array", "items": {"$ref": "#/$defs/noteSummary"}},
                                     "nextCursor": {"type": "string"}},
                      "required": ["notes"],
                      "$defs": {"noteSummary": {"type": "object",
                                                "properties": {"noteId": {"type": "string"}, "uri": {"type": "string"},
                                                               "title": {"type": "string"},
                                                               "updatedAt": {"type": "string", "format": "date-time"}},
                                                "required": ["noteId", "uri", "title", "updatedAt"]}}}'::jsonb
    END
$$;
COMMENT ON FUNCTION _tool_schema(text) IS
'Internal: a schema the notes tools'' descriptors share: workspaceUri (the argument) or notesPage (the outputSchema of notes_list and notes_search)';
