-------------------------------------------------------------------------------
-- The notes_delete tool
-------------------------------------------------------------------------------

-- What a form showed of a note, as a digest: its id, URI, title and
-- version (updated_at, as epoch seconds, which no session setting changes).
-- A state binds each candidate to it (claims.shown), so a note moved
-- (move_note), renamed or edited after the form was shown is not the note
-- the user confirmed.  For a file-backed note it also covers the identity
-- of its file (_file_identity: device, inode, size, mtime); other notes'
-- digests are what they were.
CREATE OR REPLACE FUNCTION _note_digest(note notes) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    -- one simple expression (base64url as _b64url makes it): a form computes 25
    RETURN translate(encode(sha256(convert_to((jsonb_build_object(
               'noteId', note.note_id, 'uri', note.uri, 'title', note.title,
               'updatedAt', extract(epoch FROM note.updated_at))
               || jsonb_strip_nulls(jsonb_build_object('file', _file_identity(note.note_id))))::text, 'UTF8')),
               'base64'), E'+/=\n', '-_');
END;
$$;
COMMENT ON FUNCTION _note_digest(notes) IS
'Internal: digest of what the confirmation form shows of a note (id, URI, title, updated_at, and a file-backed note''s file identity), which a state binds each candidate to';

-- The digest a state recorded for one of its candidates: claims.shown[i]
-- for claims.candidates[i].  NULL when there is none (a state sealed by 1.1
-- has no shown): such a confirmation is stale.
CREATE OR REPLACE FUNCTION _shown_digest(state jsonb, chosen_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT d.digest
    FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(state #> '{claims,candidates}') = 'array'
                                        THEN state #> '{claims,candidates}' ELSE '[]' END)
             WITH ORDINALITY AS c(id, i)
    JOIN jsonb_array_elements_text(CASE WHEN jsonb_typeof(state #> '{claims,shown}') = 'array'
                                        THEN state #> '{claims,shown}' ELSE '[]' END)
             WITH ORDINALITY AS d(digest, i) ON d.i = c.i
    WHERE c.id = chosen_id
    LIMIT 1
$$;
COMMENT ON FUNCTION _shown_digest(jsonb, text) IS
'Internal: the digest of a candidate as the form showed it, from a state''s claims (NULL when the state has none for that note)';

-- The form is built from the very rows whose digests the state binds, so
-- what the user sees is what the confirmation is checked against.  Labels
-- show the title as every label does (_title_label) and the URI through
-- _printable: a title cannot reorder its label (bidi controls), break it
-- (newlines) or hide characters.
CREATE OR REPLACE FUNCTION _delete_form(workspace text, candidates notes[]) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('delete_choice', jsonb_build_object(
        'method', 'elicitation/create',
        'params', jsonb_build_object(
            'mode', 'form',
            'message', format('Delete a note from %s? Pick the note to delete and confirm. This cannot be undone.',
                              _printable(workspace)),
            'requestedSchema', jsonb_build_object(
                'type', 'object',
                'properties', jsonb_build_object(
                    'note_id', jsonb_build_object(
                        'type', 'string',
                        'title', 'Note to delete',
                        'oneOf', (SELECT jsonb_agg(jsonb_build_object(
                                      'const', n.note_id,
                                      'title', format('%s — %s (updated %s)', _title_label(n.title), _printable(n.uri),
                                                      to_char(n.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')))
                                      ORDER BY n.uri, n.note_id)
                                  FROM unnest(candidates) n)),
                    'confirm', jsonb_build_object(
                        'type', 'boolean',
                        'title', 'Yes, delete this note permanently',
                        'default', false)),
                'required', jsonb_build_array('note_id', 'confirm')))))
$$;
COMMENT ON FUNCTION _delete_form(text, notes[]) IS 'Internal: the delete_choice form for the given candidate notes (at least one)';

-- One audit row.  Its at is the time of the act: for an answer that spent
-- a state (accept, decline, stale) the time it was spent (spent_states.
-- spent_at, clock_timestamp() then), so both records of one act carry the
-- same time; else clock_timestamp().  A cancel is audited once per state
-- (cancelled_states); declines and cancels beyond mcp_notes.audit_budget
-- per principal and hour are counted in audit_budget instead of written
-- (a decline's spent state is then recorded by that count).  Accepts and
-- stale confirmations are always written.  The title is written as labels
-- show it (_title_label), for an operator reading the audit in a terminal.
CREATE OR REPLACE FUNCTION _audit(principal text, request jsonb, workspace text, note notes, outcome text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    budget constant integer := coalesce(current_setting('mcp_notes.audit_budget', true)::integer, 1000);
    act_time timestamptz;
    state jsonb;
    within_budget boolean;
    acting jsonb;
BEGIN
    IF request -> 'params' ->> 'requestState' IS NOT NULL THEN
        -- opened and checked by _delete_open_state already: only its nonce
        -- and expiry are read here (a state that expired since still has them)
        state := _open_state(request -> 'params' ->> 'requestState');
        SELECT s.spent_at INTO act_time FROM spent_states s WHERE s.nonce = state ->> 'nonce';
    END IF;
    act_time := coalesce(act_time, clock_timestamp());
    IF outcome = 'cancel' THEN
        INSERT INTO cancelled_states (nonce, expires_at, cancelled_at)
        VALUES (state ->> 'nonce', to_timestamp((state ->> 'exp')::bigint), act_time)
        ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            RETURN;
        END IF;
    END IF;
    IF outcome IN ('decline', 'cancel') THEN
        INSERT INTO audit_budget AS b (principal, window_start, written)
        VALUES (_audit.principal, date_bin('1 hour', act_time, timestamptz '2000-01-01 00:00+00'), 1)
        ON CONFLICT ON CONSTRAINT audit_budget_pkey DO UPDATE SET written = b.written + 1
            WHERE b.written < budget
        RETURNING true INTO within_budget;
        IF within_budget IS NULL THEN
            UPDATE audit_budget b
            SET suppressed_declines = b.suppressed_declines + (outcome = 'decline')::integer,
                suppressed_cancels = b.suppressed_cancels + (outcome = 'cancel')::integer,
                last_suppressed_at = act_time
            WHERE b.principal = _audit.principal
              AND b.window_start = date_bin('1 hour', act_time, timestamptz '2000-01-01 00:00+00');
            RETURN;
        END IF;
    END IF;
    acting := _acting_token(request);
    INSERT INTO delete_audit (at, principal, workspace_uri, note_id, note_uri, title, outcome,
                              request_id, gateway_id, client_info,
                              token_iss, token_sub, token_client_id, token_jti, token_scope)
    VALUES (act_time, principal, workspace, (note).note_id, (note).uri, _title_label((note).title), outcome,
            _printable(request ->> 'requestId', 200), _printable(request ->> 'gatewayId', 200),
            _reported_client_info(request -> 'clientInfo'),
            acting ->> 'iss', acting ->> 'sub', acting ->> 'client_id', acting ->> 'jti', acting ->> 'scope');
END;
$$;
COMMENT ON FUNCTION _audit(text, jsonb, text, notes, text) IS
'Internal: appends one row to delete_audit at the time of the act (the title as labels show it, request id, bounded gateway id and client info from the request object, the acting JWT''s iss, sub, client_id, jti and scope); a cancel once per state, declines and cancels beyond mcp_notes.audit_budget per hour counted in audit_budget';

-- The steps of notes_delete.  Each returns the outcome to answer with, or
-- (the steps with an OUT outcome) NULL there to go on.

-- Arguments, as the registered inputSchema says (_tool_arguments), then
-- what a schema cannot say: a usable workspaceUri, a title that is not
-- blank.  Every refusal is a tool error a model can act on; only arguments
-- that are not an object make the request malformed (invalid_params).
CREATE OR REPLACE FUNCTION _delete_arguments(request jsonb, OUT outcome jsonb, OUT workspace text, OUT title_text text)
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    args jsonb;
BEGIN
    SELECT a.outcome, a.args INTO outcome, args FROM _tool_arguments(request) a;
    outcome := coalesce(outcome, _uri_refusal('workspaceUri', args ->> 'workspaceUri'),
                        CASE WHEN btrim(args ->> 'title') = '' THEN _tool_refusal('notes_delete: title must not be blank.') END);
    IF outcome IS NULL THEN
        workspace := normalize_uri(args ->> 'workspaceUri');
        title_text := args ->> 'title';
    END IF;
END;
$$;
COMMENT ON FUNCTION _delete_arguments(jsonb) IS
'Internal: notes_delete step: checks the arguments (_tool_arguments, a usable workspaceUri, a title not blank); the normalized workspace and the title, or the outcome refusing them';

-- What step 1 and asking again both check before showing a form: this
-- request can show one, and the workspace is granted to the principal.
-- NULL when the form may be shown, else the outcome refusing it.
CREATE OR REPLACE FUNCTION _delete_may_ask(principal text, request jsonb, workspace text) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF NOT _can_elicit_form(request -> 'clientCapabilities') THEN
        RETURN _needs_form_capability();
    END IF;
    IF NOT _granted(principal, workspace) THEN
        RETURN _tool_result(format('Workspace %s is not granted to you.', workspace), NULL, true);
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _delete_may_ask(text, jsonb, text) IS
'Internal: notes_delete step: the checks before any form (capability, grant); NULL, or the outcome refusing the form';

-- A notes_delete requestState: a sealed token of purpose notes_delete that
-- lives mcp_notes.state_ttl.  (delete_flow_stats counts the states issued
-- by this function's call count.)
CREATE OR REPLACE FUNCTION _seal_state(claims jsonb) RETURNS text
LANGUAGE sql VOLATILE STRICT
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _seal('notes_delete', claims) $$;
COMMENT ON FUNCTION _seal_state(jsonb) IS
'Internal: seals the claims of a notes_delete confirmation into a requestState (_seal: purpose notes_delete, lifetime mcp_notes.state_ttl)';

-- Step 1: no state yet, so find the candidates and ask.
CREATE OR REPLACE FUNCTION _delete_ask(principal text, request jsonb, workspace text, title_text text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    refusal jsonb;
    max_candidates constant integer := 25;
    found notes[];
BEGIN
    refusal := _delete_may_ask(principal, request, workspace);
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    -- One read: the form and the digests the state binds come from the same rows.
    SELECT array_agg(c ORDER BY c.uri, c.note_id) INTO found
    FROM _titles_containing(workspace, title_text, max_candidates + 1) c;
    IF found IS NULL AND length(lower(title_text)) < 3 THEN
        RETURN _tool_result(format('No note in %s has the title "%s". A text shorter than 3 characters finds only '
                                   'notes whose whole title it is: give at least 3 characters of the title.',
                                   workspace, _printable(title_text)), NULL, true);
    END IF;
    IF found IS NULL THEN
        RETURN _tool_result(format('No note in %s has a title containing "%s".', workspace, _printable(title_text)),
                            NULL, true);
    END IF;
    IF cardinality(found) > max_candidates THEN
        RETURN _tool_result(format('More than %s notes in %s have a title containing "%s". Use a longer title or a narrower workspace.',
                                   max_candidates, workspace, _printable(title_text)), NULL, true);
    END IF;
    RETURN jsonb_build_object('result', jsonb_build_object(
        'resultType', 'input_required',
        'inputRequests', _delete_form(workspace, found),
        'requestState', _seal_state(jsonb_build_object(
            'principal', principal,
            'method', 'tools/call',
            'tool', 'notes_delete',
            'args', _args_digest(workspace, title_text),
            'workspace', workspace,
            'candidates', (SELECT jsonb_agg((found[i]).note_id ORDER BY i) FROM generate_subscripts(found, 1) i),
            'shown', (SELECT jsonb_agg(_note_digest(found[i]) ORDER BY i) FROM generate_subscripts(found, 1) i),
            'phase', 'confirm_delete'))));
END;
$$;
COMMENT ON FUNCTION _delete_ask(text, jsonb, text, text) IS
'Internal: notes_delete step 1: the confirmation form for the candidates, with a sealed requestState';

-- Step 2 begins: the state must be ours, fresh, for this caller
-- (_open_sealed) and for this tool, these arguments and this step.  Each
-- failure says which check it failed.
CREATE OR REPLACE FUNCTION _delete_open_state(principal text, request_state text, digest text,
                                   OUT outcome jsonb, OUT state jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    claims jsonb;
BEGIN
    state := _open_sealed(request_state, 'notes_delete', principal);
    claims := state -> 'claims';
    outcome := CASE
        WHEN state ->> 'reason' = 'state_expired' THEN
            _invalid_params('state_expired',
                'invalid requestState: it has expired; call notes_delete again to get a new confirmation form')
        WHEN NOT (state ->> 'ok')::boolean THEN
            _invalid_params(state ->> 'reason', 'invalid requestState: ' || (state ->> 'message'))
        WHEN claims ->> 'method' IS DISTINCT FROM 'tools/call' OR claims ->> 'tool' IS DISTINCT FROM 'notes_delete' THEN
            _invalid_params('state_wrong_method', 'invalid requestState: it was issued for another method or tool')
        WHEN claims ->> 'args' IS DISTINCT FROM digest THEN
            _invalid_params('state_arguments_changed',
                'invalid requestState: the arguments differ from the call it was issued for')
        WHEN claims ->> 'phase' IS DISTINCT FROM 'confirm_delete' THEN
            _invalid_params('state_wrong_phase', 'invalid requestState: it belongs to another step of the tool')
    END;
END;
$$;
COMMENT ON FUNCTION _delete_open_state(text, text, text) IS
'Internal: notes_delete step 2: opens the requestState (_open_sealed: seal, purpose, expiry, principal) and checks method, arguments and phase';

-- Uses up a state's nonce; false when it was already used.  Of two
-- transactions racing on one state, the second blocks here and then fails
-- to serialize (the gateway retries it and it finds the nonce spent).
CREATE OR REPLACE FUNCTION _spend_state(state jsonb, spent_as text) RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    INSERT INTO spent_states (nonce, expires_at, spent_at, outcome)
    VALUES (state ->> 'nonce', to_timestamp((state ->> 'exp')::bigint), clock_timestamp(), spent_as)
    ON CONFLICT DO NOTHING;
    RETURN FOUND;
END;
$$;
COMMENT ON FUNCTION _spend_state(jsonb, text) IS
'Internal: records a requestState''s nonce as spent (accept or decline); false when it already was';

-- No answer yet: the form again, with the same state, after the checks of
-- step 1.  A state names note ids, and the notes behind them may have been
-- moved, renamed or deleted since, and the grant revoked: so the grant is
-- checked again, and the form offers only the candidates still inside the
-- workspace and still as the form showed them.  None left is a tool error
-- (never a form offering nothing).  Nothing is spent.
CREATE OR REPLACE FUNCTION _delete_ask_again(principal text, request jsonb, workspace text, state jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    refusal jsonb;
    still notes[];
BEGIN
    refusal := _delete_may_ask(principal, request, workspace);
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    SELECT array_agg(n ORDER BY n.uri, n.note_id) INTO still
    FROM notes n
    WHERE n.note_id IN (SELECT jsonb_array_elements_text(
                            CASE WHEN jsonb_typeof(state #> '{claims,candidates}') = 'array'
                                 THEN state #> '{claims,candidates}' ELSE '[]' END))
      AND uri_contains(workspace, n.uri)
      AND _note_digest(n) = _shown_digest(state, n.note_id);
    IF still IS NULL THEN
        RETURN _tool_result('The notes the form offered changed since it was shown; nothing was deleted — call notes_delete again.',
                            NULL, true);
    END IF;
    RETURN jsonb_build_object('result', jsonb_build_object(
        'resultType', 'input_required',
        'inputRequests', _delete_form(workspace, still),
        'requestState', request -> 'params' ->> 'requestState'));
END;
$$;
COMMENT ON FUNCTION _delete_ask_again(text, jsonb, text, jsonb) IS
'Internal: notes_delete step 2 without an answer: re-checks the grant and shows the form again with the candidates still inside and unchanged';

-- Step 2, the answer: no answer yet asks again with the same state.
CREATE OR REPLACE FUNCTION _delete_answer(principal text, request jsonb, workspace text, state jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    input_responses jsonb := request -> 'params' -> 'inputResponses';
    response jsonb := input_responses -> 'delete_choice';
BEGIN
    IF input_responses IS NOT NULL AND jsonb_typeof(input_responses) <> 'object' THEN
        RETURN _invalid_params('invalid_input_responses', 'inputResponses must be an object');
    END IF;
    IF response IS NULL THEN
        RETURN _delete_ask_again(principal, request, workspace, state);
    END IF;
    IF jsonb_typeof(response) <> 'object' OR jsonb_typeof(response -> 'action') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_input_response',
            'inputResponses.delete_choice must be an elicitation result object with an action');
    END IF;
    CASE response ->> 'action'
        WHEN 'cancel' THEN
            RETURN _delete_cancel(principal, request, workspace);
        WHEN 'decline' THEN
            RETURN _delete_decline(principal, request, workspace, state);
        WHEN 'accept' THEN
            RETURN _delete_accept(principal, request, workspace, state, response -> 'content');
        ELSE
            RETURN _invalid_params('invalid_input_response',
                format('inputResponses.delete_choice.action must be accept, decline or cancel, not "%s"',
                       _printable(response ->> 'action', 40)));
    END CASE;
END;
$$;
COMMENT ON FUNCTION _delete_answer(text, jsonb, text, jsonb) IS
'Internal: notes_delete step 2: reads inputResponses.delete_choice and runs cancel, decline or accept (or asks again)';

-- Cancel spends nothing: the same form can still be answered.
CREATE OR REPLACE FUNCTION _delete_cancel(principal text, request jsonb, workspace text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _audit(principal, request, workspace, NULL, 'cancel');
    RETURN _tool_result('Cancelled. Nothing was deleted; the confirmation form can still be answered until it expires.',
                        '{"deleted": false, "cancelled": true}');
END;
$$;
COMMENT ON FUNCTION _delete_cancel(text, jsonb, text) IS 'Internal: notes_delete answer cancel: audited, state not spent';

-- Decline is final: it spends the state.
CREATE OR REPLACE FUNCTION _delete_decline(principal text, request jsonb, workspace text, state jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF NOT _spend_state(state, 'decline') THEN
        RETURN _invalid_params('state_already_used', 'invalid requestState: it has already been used');
    END IF;
    PERFORM _audit(principal, request, workspace, NULL, 'decline');
    RETURN _tool_result('Declined. Nothing was deleted.', '{"deleted": false}');
END;
$$;
COMMENT ON FUNCTION _delete_decline(text, jsonb, text, jsonb) IS 'Internal: notes_delete answer decline: spends the state, audited';

-- Accept: missing content is never consent.
CREATE OR REPLACE FUNCTION _delete_accept(principal text, request jsonb, workspace text, state jsonb, content jsonb)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF content IS NULL OR jsonb_typeof(content) <> 'object' THEN
        RETURN _invalid_params('invalid_input_response', 'an accepted delete_choice must carry the form content');
    END IF;
    IF content -> 'confirm' IS DISTINCT FROM 'true'::jsonb THEN
        RETURN _invalid_params('not_confirmed', 'delete_choice.confirm must be exactly true to delete');
    END IF;
    IF jsonb_typeof(content -> 'note_id') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_input_response', 'delete_choice.note_id must be a string');
    END IF;
    IF NOT (state -> 'claims' -> 'candidates') ? (content ->> 'note_id') THEN
        RETURN _invalid_params('foreign_note', 'delete_choice.note_id is not one of the notes offered in the form');
    END IF;
    -- Spend the nonce first, so a racing second accept cannot also delete.
    IF NOT _spend_state(state, 'accept') THEN
        RETURN _invalid_params('state_already_used', 'invalid requestState: it has already been used');
    END IF;
    RETURN _delete_note(principal, request, workspace, state ->> 'nonce', content ->> 'note_id',
                        _shown_digest(state, content ->> 'note_id'));
END;
$$;
COMMENT ON FUNCTION _delete_accept(text, jsonb, text, jsonb, jsonb) IS
'Internal: notes_delete answer accept: checks the form content, spends the state, deletes';

-- The delete of a confirmed accept.  Check again against the live rows,
-- locking them, so that a revoke or a move committed by anyone before us
-- wins, and one after us waits.  The note must still be what the form
-- showed (shown, its digest then): the user confirmed that title at that
-- URI, not a note id.  A stale confirmation deletes nothing.
CREATE OR REPLACE FUNCTION _delete_note(principal text, request jsonb, workspace text, spent_nonce text, chosen_id text,
                             shown text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    note notes;
BEGIN
    -- Lock the principal's grants, then apply the one grant rule to them.
    PERFORM 1 FROM grants g WHERE g.principal = _delete_note.principal FOR KEY SHARE;
    IF NOT _granted(principal, workspace) THEN
        UPDATE spent_states s SET outcome = 'stale' WHERE s.nonce = spent_nonce;
        PERFORM _audit(principal, request, workspace, NULL, 'stale');
        RETURN _tool_result(format('Nothing was deleted: workspace %s is no longer granted to you.', workspace),
                            NULL, true);
    END IF;
    SELECT n.* INTO note FROM notes n WHERE n.note_id = chosen_id FOR UPDATE;
    IF NOT FOUND OR NOT uri_contains(workspace, note.uri) THEN
        note.note_id := chosen_id;    -- a moved note keeps its new uri in the audit
        UPDATE spent_states s SET outcome = 'stale' WHERE s.nonce = spent_nonce;
        PERFORM _audit(principal, request, workspace, note, 'stale');
        RETURN _tool_result(format('Nothing was deleted: the chosen note no longer exists in %s.', workspace),
                            NULL, true);
    END IF;
    IF _note_digest(note) IS DISTINCT FROM shown THEN
        UPDATE spent_states s SET outcome = 'stale' WHERE s.nonce = spent_nonce;
        PERFORM _audit(principal, request, workspace, note, 'stale');
        RETURN _tool_result('The note changed since the form was shown; nothing was deleted — call notes_delete again.',
                            NULL, true);
    END IF;
    PERFORM _keep_version(principal, note, 'delete');    -- restorable for the version retention
    IF EXISTS (SELECT 1 FROM file_notes f WHERE f.note_id = note.note_id) THEN
        -- a file-backed note: the intent, then the file service removes the file
        RETURN _file_delete_intent(principal, request, workspace, note, spent_nonce);
    END IF;
    DELETE FROM notes n WHERE n.note_id = note.note_id;
    PERFORM _audit(principal, request, workspace, note, 'accept');
    RETURN _tool_result(format('Deleted the note "%s" (%s).', _title_label(note.title), note.uri),
                        jsonb_build_object('deleted', true, 'noteId', note.note_id));
END;
$$;
COMMENT ON FUNCTION _delete_note(text, jsonb, text, text, text, text) IS
'Internal: notes_delete accept: re-checks grant, note and what the form showed of it under lock, then deletes (or records the confirmation as stale)';

-- The handler of tools/call notes_delete: step 1 asks, step 2 acts on the
-- answer.  _tools_call has checked that params.requestState is a string.
CREATE OR REPLACE FUNCTION _tool_notes_delete(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    params jsonb := request -> 'params';
    args record;
    opened record;
BEGIN
    SELECT * INTO args FROM _delete_arguments(request);
    IF args.outcome IS NOT NULL THEN
        RETURN args.outcome;
    END IF;
    IF params -> 'requestState' IS NULL THEN
        RETURN _delete_ask(principal, request, args.workspace, args.title_text);
    END IF;
    SELECT * INTO opened
    FROM _delete_open_state(principal, params ->> 'requestState', _args_digest(args.workspace, args.title_text));
    IF opened.outcome IS NOT NULL THEN
        RETURN opened.outcome;
    END IF;
    PERFORM _require_serializable('notes_delete');
    IF EXISTS (SELECT 1 FROM spent_states s WHERE s.nonce = opened.state ->> 'nonce') THEN
        RETURN _invalid_params('state_already_used',
            'invalid requestState: it has already been used; call notes_delete again to start over');
    END IF;
    RETURN _delete_answer(principal, request, args.workspace, opened.state);
END;
$$;
COMMENT ON FUNCTION _tool_notes_delete(text, jsonb) IS
'Internal: the notes_delete tool for an authenticated principal (step 1 asks, step 2 acts on the answer)';

-- notes_delete in the registry: its descriptor for tools/list, its handler
-- for tools/call.
SELECT _register_tool(1, _tool_descriptor('{
  "name": "notes_delete",
  "title": "Delete a note",
  "description": "Deletes one note inside a workspace you are granted. Never deletes on the first call: it asks the user, through a form, to pick the note among those whose title contains the given text and to confirm. Declining is final; cancelling can be retried.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri",
                       "description": "file: URI of the workspace (or a folder inside it) to search, e.g. file:///work/notes"},
      "title": {"$use": "titleText", "description": "Text the note''s title contains (case-insensitive)"}
    },
    "required": ["workspaceUri", "title"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {"deleted": {"type": "boolean"}, "noteId": {"type": "string"}, "cancelled": {"type": "boolean"},
                   "pending": {"type": "boolean",
                               "description": "A file-backed note: the delete is recorded and its file not yet removed"},
                   "operationId": {"type": "string", "description": "A file-backed note: the id of the file operation"}},
    "required": ["deleted"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
}'));
