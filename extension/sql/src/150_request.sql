-- What every tool reads of a request the same way: its arguments, checked
-- against the tool's registered inputSchema; the grant rule; the digest of
-- its normalized arguments, the client's self-reported info, the isolation
-- level.

CREATE OR REPLACE FUNCTION _args_digest(workspace text, title text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT encode(sha256(convert_to(jsonb_build_object('workspaceUri', workspace, 'title', title)::text, 'UTF8')), 'hex')
$$;
COMMENT ON FUNCTION _args_digest(text, text) IS 'Internal: digest of the normalized notes_delete arguments that a state is bound to';

-- clientInfo is diagnostics, never identity: only its name and version
-- (strings) are kept, bounded; anything else is dropped.
CREATE OR REPLACE FUNCTION _reported_client_info(info jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT nullif(jsonb_strip_nulls(jsonb_build_object(
        'name', CASE WHEN jsonb_typeof(info -> 'name') = 'string' THEN _printable(info ->> 'name', 100) END,
        'version', CASE WHEN jsonb_typeof(info -> 'version') = 'string' THEN _printable(info ->> 'version', 100) END)),
        '{}'::jsonb)
$$;
COMMENT ON FUNCTION _reported_client_info(jsonb) IS
'Internal: the client_info the audit stores: name and version when they are strings, each bounded and made printable (_printable); NULL when neither';

-- Every path after the state checks may write, so the transaction must be
-- serializable: that is what makes "delete at most once" hold across gateways.
CREATE OR REPLACE FUNCTION _require_serializable(tool text) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'serializable' THEN
        RAISE EXCEPTION '% must run in a SERIALIZABLE transaction', tool
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = format('The current isolation level is %s.', current_setting('transaction_isolation')),
                  HINT = 'Use BEGIN ISOLATION LEVEL SERIALIZABLE, or set default_transaction_isolation for the gateway''s connections.';
    END IF;
END;
$$;
COMMENT ON FUNCTION _require_serializable(text) IS
'Internal: the isolation guard; raises 25000 unless the transaction is SERIALIZABLE';

-- The grant rule, written once: a principal may use a URI (a workspace, a
-- folder or a note) when a workspace granted to it contains the URI by
-- whole path components (uri_contains; false for a malformed URI).
CREATE OR REPLACE FUNCTION _granted(principal text, uri text) RETURNS boolean
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT EXISTS (SELECT 1 FROM grants g
                   WHERE g.principal = _granted.principal AND uri_contains(g.workspace_uri, _granted.uri))
$$;
COMMENT ON FUNCTION _granted(text, text) IS
'Internal: may the principal use this URI: a workspace granted to it contains the URI by whole path components';

-- Arguments against a registered inputSchema (one object schema), with the
-- keywords the registry's schemas use for their arguments: properties with
-- type, minLength and maxLength; required; additionalProperties false;
-- anyOf of required lists.  Other keywords (format, description, ...) are
-- for the client.  args has no JSON null member (null is "not given").
-- The checks are ordered by cost and each is bounded: no argument is read
-- further than its length, no name is quoted longer than 100 characters,
-- at most five are named.  NULL when the arguments pass, else the sentence
-- that says the first thing wrong.
CREATE OR REPLACE FUNCTION _schema_problem(schema jsonb, args jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    props constant jsonb := coalesce(schema -> 'properties', '{}');
    named constant text[] := ARRAY(SELECT r FROM jsonb_array_elements_text(coalesce(schema -> 'required', '[]')) r);
    problem text;
    arg_name text;
    arg_schema jsonb;
    arg_value jsonb;
    type_ok boolean;
    chars integer;
BEGIN
    IF schema -> 'additionalProperties' = 'false' THEN
        SELECT format('unknown argument(s): %s%s. It takes %s.',
                      string_agg(_printable(u.k, 100), ', ') FILTER (WHERE u.i <= 5),
                      CASE WHEN count(*) > 5 THEN ', …' ELSE '' END,
                      (SELECT string_agg(p, ', ' ORDER BY array_position(named, p), p) FROM jsonb_object_keys(props) p))
          INTO problem
        FROM (SELECT k, row_number() OVER () AS i FROM jsonb_object_keys(args) k
              WHERE NOT props ? k LIMIT 6) u
        HAVING count(*) > 0;
        IF problem IS NOT NULL THEN
            RETURN problem;
        END IF;
    END IF;
    SELECT format('missing argument(s): %s.', string_agg(r, ', ' ORDER BY o)) INTO problem
    FROM unnest(named) WITH ORDINALITY AS x(r, o) WHERE NOT args ? r HAVING count(*) > 0;
    IF problem IS NULL AND jsonb_typeof(schema -> 'anyOf') = 'array'
       AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(schema -> 'anyOf') b
                       WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(b -> 'required') r WHERE NOT args ? r)) THEN
        SELECT format('give at least one of: %s.', string_agg(r, ', ' ORDER BY bi, ri))
          INTO problem
        FROM jsonb_array_elements(schema -> 'anyOf') WITH ORDINALITY AS x(b, bi),
             jsonb_array_elements_text(b -> 'required') WITH ORDINALITY AS y(r, ri);
    END IF;
    IF problem IS NOT NULL THEN
        RETURN problem;
    END IF;
    -- By name, so no value is carried through the sort; each value is read
    -- once and a string's length counted once (in one query, args ->> k
    -- is evaluated wherever it is used: a 10 MB value read eight times cost
    -- seconds).
    FOR arg_name IN SELECT a.k FROM jsonb_object_keys(args) AS a(k)
                    ORDER BY coalesce(array_position(named, a.k), 2147483647), a.k LOOP
        arg_schema := props -> arg_name;
        arg_value := args -> arg_name;
        type_ok := arg_schema IS NULL OR NOT arg_schema ? 'type' OR CASE arg_schema ->> 'type'
            WHEN 'integer' THEN CASE WHEN jsonb_typeof(arg_value) = 'number'
                                     THEN (arg_value #>> '{}')::numeric % 1 = 0 ELSE false END
            ELSE jsonb_typeof(arg_value) = arg_schema ->> 'type' END;
        IF NOT type_ok THEN
            RETURN format('%s must be %s.', arg_name, CASE WHEN arg_schema ->> 'type' IN ('integer', 'object', 'array')
                                                           THEN 'an ' ELSE 'a ' END || (arg_schema ->> 'type'));
        END IF;
        chars := CASE WHEN jsonb_typeof(arg_value) = 'string' THEN length(arg_value #>> '{}') END;
        IF chars > (arg_schema ->> 'maxLength')::integer THEN
            RETURN format('%s must be at most %s characters; this one has %s.', arg_name, arg_schema ->> 'maxLength', chars);
        ELSIF chars < (arg_schema ->> 'minLength')::integer THEN
            RETURN format('%s must be at least %s character(s).', arg_name, arg_schema ->> 'minLength');
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _schema_problem(jsonb, jsonb) IS
'Internal: NULL when arguments satisfy an inputSchema (properties: type, minLength, maxLength; required; additionalProperties false; anyOf of required), else what is wrong first';

-- Every tool's arguments, checked against the inputSchema the tool
-- registered, before the tool does anything with them.  Only arguments
-- that are not an object make the request malformed (invalid_params); a
-- missing, unknown, mistyped or overlong argument is a tool error, a result
-- a model can act on.  args: the arguments without JSON nulls.
CREATE OR REPLACE FUNCTION _tool_arguments(request jsonb, OUT outcome jsonb, OUT args jsonb)
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    tool constant text := request #>> '{params,name}';
    arguments constant jsonb := nullif(request #> '{params,arguments}', 'null');
    problem text;
BEGIN
    IF arguments IS NOT NULL AND jsonb_typeof(arguments) <> 'object' THEN
        outcome := _invalid_params('invalid_arguments', format('%s: arguments must be an object', tool));
        RETURN;
    END IF;
    args := coalesce(arguments, '{}');
    IF jsonb_path_exists(args, 'strict $.* ? (@ == null)') THEN     -- rebuilt only when there is a null
        SELECT coalesce(jsonb_object_agg(a.k, a.v), '{}') INTO args
        FROM jsonb_each(args) AS a(k, v) WHERE jsonb_typeof(a.v) <> 'null';
    END IF;
    problem := _schema_problem((SELECT t.descriptor -> 'inputSchema' FROM tools t WHERE t.name = tool), args);
    IF problem IS NOT NULL THEN
        outcome := _tool_refusal(format('%s: %s', tool, problem));
    END IF;
END;
$$;
COMMENT ON FUNCTION _tool_arguments(jsonb) IS
'Internal: a tools/call''s arguments checked against the tool''s registered inputSchema (_schema_problem): the arguments without nulls, or the outcome refusing them';

-- A URI argument that is not a usable file: URI; the URI itself is not
-- echoed (it may be long, and says nothing the caller does not know).
CREATE OR REPLACE FUNCTION _uri_refusal(argument text, uri text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_refusal(format('%s is not a usable file: URI. %s', argument, _uri_problem(uri)))
    WHERE _uri_problem(uri) IS NOT NULL
$$;
COMMENT ON FUNCTION _uri_refusal(text, text) IS
'Internal: NULL when the URI is well formed, else the tool error saying why the argument is not a usable file: URI';
