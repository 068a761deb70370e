-- The fixture every regression file starts with (\i test/fixture.sql, run
-- from extension/ as make installcheck does): a fresh extension, whatever an
-- earlier file left, and helpers in schema t that drive notes_delete the
-- way a gateway does.  So any file passes alone (make installcheck REGRESS=flow).
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS mcp_notes CASCADE;
-- CREATE EXTENSION made the schema but does not drop it; its grants would
-- outlive the extension.
DROP SCHEMA IF EXISTS mcp_notes CASCADE;
DROP SCHEMA IF EXISTS t CASCADE;
RESET client_min_messages;
CREATE EXTENSION mcp_notes;
CREATE SCHEMA t;

-- One tools/call notes_delete, as the dev entry point (principal by name).
CREATE FUNCTION t.call(principal text, ws text, title text,
                       responses jsonb DEFAULT NULL, state text DEFAULT NULL,
                       caps jsonb DEFAULT '{"elicitation": {}}')
RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.call_tool_as(principal, 'notes_delete',
        jsonb_build_object('workspaceUri', ws, 'title', title),
        responses, state, caps, 'regress-1', '{"name": "regress", "version": "1"}', 'regress-gw')
$$;

-- The parts of a result a test looks at, in one stable line.
CREATE FUNCTION t.outcome(r jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT CASE
        WHEN r ? 'error' THEN format('error %s %s (http %s)', r #>> '{error,code}',
                                    coalesce(r #>> '{error,data,reason}', r #>> '{error,data}', ''),
                                    r ->> 'httpStatus')
        WHEN r #>> '{result,resultType}' = 'input_required' THEN
            format('input_required %s choices', jsonb_array_length(
                r #> '{result,inputRequests,delete_choice,params,requestedSchema,properties,note_id,oneOf}'))
        WHEN (r #>> '{result,isError}')::boolean THEN 'tool error: ' || (r #>> '{result,content,0,text}')
        -- note ids are random: say whether one is there, not what it is
        ELSE 'complete ' || ((r #> '{result,structuredContent}') - 'noteId')::text
             || CASE WHEN r #> '{result,structuredContent}' ? 'noteId' THEN ' with noteId' ELSE '' END
    END
$$;

CREATE FUNCTION t.state(r jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT r #>> '{result,requestState}'
$$;

-- The note ids the form offers, in form order.
CREATE FUNCTION t.choices(r jsonb) RETURNS text[] LANGUAGE sql AS $$
    SELECT array_agg(o ->> 'const' ORDER BY ord)
    FROM jsonb_array_elements(r #> '{result,inputRequests,delete_choice,params,requestedSchema,properties,note_id,oneOf}')
         WITH ORDINALITY AS x(o, ord)
$$;

CREATE FUNCTION t.note_id(title text) RETURNS text LANGUAGE sql AS $$
    SELECT n.note_id FROM mcp_notes.notes n WHERE n.title = $1
$$;

CREATE FUNCTION t.accept(note_id text, confirm jsonb DEFAULT 'true') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('delete_choice', jsonb_build_object('action', 'accept',
        'content', jsonb_build_object('note_id', note_id, 'confirm', confirm)))
$$;

CREATE FUNCTION t.answer(action text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('delete_choice', jsonb_build_object('action', action))
$$;
