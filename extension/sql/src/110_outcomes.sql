-------------------------------------------------------------------------------
-- Outcomes
-------------------------------------------------------------------------------

-- An error outcome names its kind; the gateway's outcome table turns the
-- kind into HTTP status, JSON-RPC code and headers (docs/contract.md).
CREATE OR REPLACE FUNCTION _error(kind text, message text, data jsonb DEFAULT NULL) RETURNS jsonb
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

CREATE OR REPLACE FUNCTION _rpc_error(code integer, message text, data jsonb DEFAULT NULL, http_status integer DEFAULT 200)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object(
        'error', jsonb_strip_nulls(jsonb_build_object('code', code, 'message', message, 'data', data)),
        'httpStatus', http_status)
$$;
COMMENT ON FUNCTION _rpc_error(integer, text, jsonb, integer) IS
'Internal: a JSON-RPC error in the 1.1 form of call_tool ({"error": {code, message, data}, "httpStatus"})';

-- call_tool() and call_tool_as() answer as in 1.1, for gateways of that
-- version: the kinds a tools/call can give, with 1.1's codes and statuses.
CREATE OR REPLACE FUNCTION _legacy_outcome(outcome jsonb) RETURNS jsonb
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

CREATE OR REPLACE FUNCTION _tool_result(message text, structured jsonb DEFAULT NULL, is_error boolean DEFAULT false)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_strip_nulls(jsonb_build_object(
        'resultType', 'complete',
        'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', message)),
        'structuredContent', structured,
        'isError', is_error)))
$$;
COMMENT ON FUNCTION _tool_result(text, jsonb, boolean) IS 'Internal: a complete tools/call result (isError for tool failures)';

CREATE OR REPLACE FUNCTION _tool_refusal(message text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _tool_result(message, NULL, true) $$;
COMMENT ON FUNCTION _tool_refusal(text) IS 'Internal: a tools/call result with isError true and the message a model can act on';

-- Text from notes and from clients, made safe to show in the user's
-- dialog, to the model, and to an operator reading the audit in a terminal:
-- every character that would not show as itself becomes a visible escape,
-- \uXXXX (\UXXXXXXXX above U+FFFF).  Those are the C0 and C1 controls and
-- DEL, the line and paragraph separators, the bidi controls (U+200E/200F,
-- U+202A-202E, U+2066-2069) and every other invisible format character
-- (general category Cf, Default_Ignorable_Code_Point, noncharacters of the
-- BMP).  Everything else, backslashes included, is kept, so ordinary text
-- is unchanged.  With max_chars the result has at most that many
-- characters, cut before an escape rather than inside one; the text is cut
-- to max_chars first (every character shows as at least one), so the cost
-- follows max_chars, not the length of what a client sent.
CREATE OR REPLACE FUNCTION _printable(s text, max_chars integer DEFAULT NULL) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    invisible constant text := E'[\\u0001-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u0890\\u0891\\u08E2\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\u3164\\uFDD0-\\uFDEF\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFFB\\uFFFE\\uFFFF\\U000110BD\\U000110CD\\U00013430-\\U0001343F\\U0001BCA0-\\U0001BCA3\\U0001D173-\\U0001D17A\\U000E0000-\\U000E0FFF]';
BEGIN
    -- plpgsql, not sql: ordinary text costs one regular expression match
    -- (a simple expression), not a query.
    IF s IS NULL THEN
        RETURN NULL;
    END IF;
    IF max_chars IS NOT NULL THEN
        s := left(s, greatest(max_chars, 0));
    END IF;
    IF s !~ invisible AND length(s) <= coalesce(max_chars, length(s)) THEN
        RETURN s;
    END IF;
    RETURN coalesce((
        SELECT string_agg(p.piece, '' ORDER BY p.i)
        FROM (SELECT c.i, e.piece, sum(length(e.piece)) OVER (ORDER BY c.i) AS upto
              FROM regexp_split_to_table(s, '') WITH ORDINALITY AS c(ch, i)
              CROSS JOIN LATERAL (SELECT CASE
                  WHEN c.ch !~ invisible THEN c.ch
                  WHEN ascii(c.ch) > 65535 THEN E'\\U' || lpad(upper(to_hex(ascii(c.ch))), 8, '0')
                  ELSE E'\\u' || lpad(upper(to_hex(ascii(c.ch))), 4, '0') END) AS e(piece)) p
        WHERE p.upto <= coalesce(max_chars, p.upto)), '');
END;
$$;
COMMENT ON FUNCTION _printable(text, integer) IS
E'Internal: the text with controls, separators, bidi controls and other invisible characters shown as \\uXXXX escapes, optionally cut to max_chars (never inside an escape; cut before escaping)';

-- The text with the escapes _printable writes turned back into the
-- characters they stand for: a title copied from a label finds its note
-- (_titles_containing).  Other backslashes, and escapes of what is not a
-- character, stay as they are.
CREATE OR REPLACE FUNCTION _unprintable(s text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(string_agg(CASE WHEN c.code BETWEEN 1 AND 1114111 AND c.code NOT BETWEEN 55296 AND 57343
                                    THEN chr(c.code) ELSE m[1] END, '' ORDER BY i), '')
    FROM regexp_matches(s, E'(\\\\u([0-9A-F]{4})|\\\\U([0-9A-F]{8})|[^\\\\]+|\\\\)', 'g') WITH ORDINALITY AS x(m, i)
    CROSS JOIN LATERAL (SELECT ('x' || lpad(coalesce(m[2], m[3], ''), 8, '0'))::bit(32)::integer
                        * (m[2] IS NOT NULL OR m[3] IS NOT NULL)::integer AS code) c
$$;
COMMENT ON FUNCTION _unprintable(text) IS
E'Internal: the text with _printable''s \\uXXXX and \\UXXXXXXXX escapes decoded (other backslashes kept)';

-- The one rule for a stored title leaving the database wherever it labels
-- a note for a person or a model: tool texts and the notes_list and
-- notes_search summaries, forms, resources/list, prompt text, completion
-- values, the audit tables.  Printable, and bounded (a title written
-- before the 500-character limit may be longer).  Only notes_read, which
-- returns the note itself, gives the stored title exactly.
CREATE OR REPLACE FUNCTION _title_label(title text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _printable(title, 1000) $$;
COMMENT ON FUNCTION _title_label(text) IS
'Internal: a note''s title as every label shows it: _printable, at most 1000 characters (notes_read alone returns the stored title)';

-- {"elicitation": {}} and {"elicitation": {"form": {}}} mean form mode;
-- {"elicitation": {"url": {}}} alone does not.
CREATE OR REPLACE FUNCTION _can_elicit_form(capabilities jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(
        jsonb_typeof(capabilities) = 'object'
        AND jsonb_typeof(capabilities -> 'elicitation') = 'object'
        AND (capabilities -> 'elicitation' = '{}'::jsonb OR capabilities -> 'elicitation' ? 'form'),
        false)
$$;
COMMENT ON FUNCTION _can_elicit_form(jsonb) IS 'Internal: does this request''s clientCapabilities allow a form elicitation';

-- The capability gate: only the tool knows what it needs.
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
