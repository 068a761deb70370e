-------------------------------------------------------------------------------
-- Logging (notifications/message), per request in 2026-07-28 and per
-- session in the 2025 era: the request object's logLevel
-------------------------------------------------------------------------------

-- A notifications/message entry for an outcome's notifications.
CREATE OR REPLACE FUNCTION _log_message(level text, logger text, data jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('method', 'notifications/message',
                              'params', jsonb_build_object('level', level, 'logger', logger, 'data', data))
$$;
COMMENT ON FUNCTION _log_message(text, text, jsonb) IS
'Internal: one notifications/message entry (level, logger, data) of an outcome''s notifications';

-- What notes_delete decided, at debug, read from its outcome: never a token,
-- a requestState, a title or a note's body; the note id is the caller's own.
CREATE OR REPLACE FUNCTION _notes_delete_decisions(outcome jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_array(_log_message('debug', 'notes_delete', CASE
        WHEN r ->> 'resultType' = 'input_required' THEN jsonb_build_object(
            'decision', 'ask', 'candidates',
            jsonb_array_length(coalesce(r #> '{inputRequests,delete_choice,params,requestedSchema,properties,note_id,oneOf}', '[]')),
            'message', 'asked the user to pick one candidate note and confirm; nothing deleted yet')
        WHEN (r #>> '{structuredContent,deleted}')::boolean THEN jsonb_build_object(
            'decision', 'delete', 'noteId', r #> '{structuredContent,noteId}',
            'message', 'the user confirmed: the note was deleted')
        WHEN (r #>> '{structuredContent,cancelled}')::boolean THEN jsonb_build_object(
            'decision', 'cancel', 'message', 'the user cancelled: nothing deleted, the form can still be answered')
        WHEN r ? 'structuredContent' AND NOT coalesce((r ->> 'isError')::boolean, false) THEN jsonb_build_object(
            'decision', 'decline', 'message', 'the user declined: nothing deleted')
        ELSE jsonb_build_object('decision', 'refuse', 'message', 'refused with a tool error: nothing deleted')
        END))
    FROM (SELECT outcome -> 'result' AS r) o
    WHERE o.r IS NOT NULL
$$;
COMMENT ON FUNCTION _notes_delete_decisions(jsonb) IS
'Internal: the debug notifications/message of a notes_delete outcome (ask, delete, decline, cancel, refuse), without titles, bodies or states';

-- A tools/call outcome as the caller asked to be told: the decisions of the
-- tool (notes_delete's) added, and every notifications/message below the
-- request's logLevel dropped -- all of them when it has none (a 2026
-- request without _meta logLevel, a 2025 session that never sent
-- logging/setLevel): MCP says such a request gets no log message at all.
-- Other notifications (progress) pass.  Only a result carries them.
CREATE OR REPLACE FUNCTION _log_outcome(request jsonb, outcome jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN kept IS NULL THEN outcome - 'notifications'
                ELSE outcome || jsonb_build_object('notifications', kept) END
    FROM (SELECT jsonb_agg(n ORDER BY i) AS kept
          FROM jsonb_array_elements(CASE WHEN outcome ? 'result' THEN
                   CASE WHEN jsonb_typeof(outcome -> 'notifications') = 'array' THEN outcome -> 'notifications'
                        ELSE '[]' END
                   || CASE WHEN request #>> '{params,name}' = 'notes_delete' AND request ? 'logLevel'
                           THEN coalesce(_notes_delete_decisions(outcome), '[]') ELSE '[]' END
                   ELSE '[]' END) WITH ORDINALITY AS x(n, i)
          WHERE n ->> 'method' IS DISTINCT FROM 'notifications/message'
             OR coalesce(array_position(_log_levels(), n #>> '{params,level}')
                         >= array_position(_log_levels(), request ->> 'logLevel'), false)) f
$$;
COMMENT ON FUNCTION _log_outcome(jsonb, jsonb) IS
'Internal: a tools/call outcome with the tool''s decision messages and only the notifications/message at or above request.logLevel (none without one)';
