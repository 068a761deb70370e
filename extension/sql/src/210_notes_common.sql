-------------------------------------------------------------------------------
-- Notes tools: what create, read, update, list, search and move share;
-- the audit of changes
-------------------------------------------------------------------------------

-- The limits are _note_limit's, applied by _check_note_title and
-- _check_note_body (030_note_limits.sql); a tool turns their error into a
-- sentence a model can act on.  The schema check (_tool_arguments) has
-- refused an overlong title or body already; what is left here is what a
-- JSON Schema cannot say: a blank title, a body too long in bytes.
CREATE OR REPLACE FUNCTION _note_limits_problem(title text, body text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    message text;
    detail text;
BEGIN
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

-- The arguments of a notes tool: those its inputSchema allows
-- (_tool_arguments), and a workspaceUri that is well formed and granted to
-- the principal.  A workspace that does not exist and one not granted get
-- the same answer.
CREATE OR REPLACE FUNCTION _notes_arguments(principal text, request jsonb,
                                 OUT outcome jsonb, OUT workspace text, OUT args jsonb)
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    SELECT a.outcome, a.args INTO outcome, args FROM _tool_arguments(request) a;
    outcome := coalesce(outcome, _uri_refusal('workspaceUri', args ->> 'workspaceUri'));
    IF outcome IS NOT NULL THEN
        RETURN;
    END IF;
    workspace := normalize_uri(args ->> 'workspaceUri');
    IF NOT _granted(principal, workspace) THEN
        outcome := _tool_refusal(format('Workspace %s is not granted to you.', workspace));
    END IF;
END;
$$;
COMMENT ON FUNCTION _notes_arguments(text, jsonb) IS
'Internal: a notes tool''s arguments as its inputSchema says (_tool_arguments), with workspaceUri well formed and granted; the normalized workspace and the arguments, or the outcome refusing them';

-- The notes whose title contains a text, the title search (_candidates)
-- as every tool that names a note by its title uses it.  A text that finds
-- none and carries escapes as _printable writes them -- a title copied from
-- a label, which is all a model or a user ever saw of it -- is searched
-- again with the escapes decoded (_unprintable).
CREATE OR REPLACE FUNCTION _titles_containing(workspace text, title_text text, max_rows integer) RETURNS SETOF notes
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    decoded text;
BEGIN
    RETURN QUERY SELECT * FROM _candidates(workspace, title_text, max_rows);
    IF NOT FOUND AND strpos(title_text, E'\\') > 0 THEN
        decoded := _unprintable(title_text);
        IF decoded <> title_text THEN
            RETURN QUERY SELECT * FROM _candidates(workspace, decoded, max_rows);
        END IF;
    END IF;
END;
$$;
COMMENT ON FUNCTION _titles_containing(text, text, integer) IS
'Internal: up to max_rows notes inside a workspace whose title contains the text (_candidates), or else the text with _printable''s escapes decoded';

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

-- One row of change_audit, with the request's ids as _audit writes them
-- and the title through the one rule for titles (_title_label).
CREATE OR REPLACE FUNCTION _change_audit(principal text, request jsonb, workspace text, note notes, action text, fields text[])
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    INSERT INTO change_audit (principal, workspace_uri, note_id, note_uri, title, action, fields, updated_at,
                              request_id, gateway_id, client_info, expected_updated_at,
                              token_iss, token_sub, token_client_id, token_jti, token_scope)
    SELECT principal, workspace, (note).note_id, (note).uri, _title_label((note).title), action, fields, (note).updated_at,
           _printable(request ->> 'requestId', 200), _printable(request ->> 'gatewayId', 200),
           _reported_client_info(request -> 'clientInfo'),
           -- an update refused unless it equals the version read: a valid time here
           CASE WHEN action = 'update' THEN (request #>> '{params,arguments,expectedUpdatedAt}')::timestamptz END,
           t ->> 'iss', t ->> 'sub', t ->> 'client_id', t ->> 'jti', t ->> 'scope'
    FROM (SELECT _acting_token(request) AS t) acting
$$;
COMMENT ON FUNCTION _change_audit(text, jsonb, text, notes, text, text[]) IS
'Internal: appends one row to change_audit (the title as labels show it, request id, bounded gateway id and client info from the request object, the acting JWT''s iss, sub, client_id, jti and scope)';

-- Pagination cursors of notes_list and notes_search are sealed tokens of
-- purpose "cursor" (_seal), valid one hour, with claims of their own: the
-- principal, the tool, the digest of the normalized query and the keyset
-- position after the page.
CREATE OR REPLACE FUNCTION _cursor_seal(principal text, tool text, digest text, after jsonb) RETURNS text
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _seal('cursor', jsonb_build_object(
        'principal', principal, 'method', 'tools/call', 'tool', tool, 'args', digest, 'after', after), 3600)
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
    opened constant jsonb := _open_sealed(cursor, 'cursor', principal);
    claims constant jsonb := opened -> 'claims';
BEGIN
    IF opened ->> 'reason' = 'state_expired' THEN
        refusal := _tool_refusal(format('The cursor has expired. Call %s again without a cursor.', tool));
    ELSIF NOT (opened ->> 'ok')::boolean
       OR claims ->> 'tool' IS DISTINCT FROM tool
       OR claims ->> 'args' IS DISTINCT FROM digest
       OR jsonb_typeof(claims -> 'after') IS DISTINCT FROM 'object' THEN
        refusal := _tool_refusal(format('The cursor is not valid for this call (it belongs to another query or was altered). Call %s again without a cursor.', tool));
    ELSE
        after := claims -> 'after';
    END IF;
END;
$$;
COMMENT ON FUNCTION _cursor_open(text, text, text, text) IS
'Internal: checks a notes_list/notes_search cursor (_open_sealed: seal, purpose, expiry, principal; then tool and query); its keyset position or the tool error refusing it';

-- What a page says of one note: its id, URI, title as labels show it
-- (_title_label) and version.  The note itself is notes_read's.
CREATE OR REPLACE FUNCTION _note_summary(note notes) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('noteId', note.note_id, 'uri', note.uri, 'title', _title_label(note.title),
                              'updatedAt', _note_time(note.updated_at))
$$;
COMMENT ON FUNCTION _note_summary(notes) IS
'Internal: a note as notes_list and notes_search show it: noteId, uri, title (printable, _title_label), updatedAt';

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
