-------------------------------------------------------------------------------
-- Resources, prompts, completion
-------------------------------------------------------------------------------

-- Unknown and unauthorized URIs get this one answer, so a caller learns
-- nothing about what exists outside its grants.
CREATE OR REPLACE FUNCTION _resource_not_found(uri jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _error('invalid_params', 'Resource not found',
                  jsonb_build_object('reason', 'resource_not_found', 'uri', uri))
$$;
COMMENT ON FUNCTION _resource_not_found(jsonb) IS
'Internal: the -32602 outcome for a URI that is unknown or that the principal may not read (the same for both; data.uri echoes the request)';

-- A private, cacheable result (resources/*): the caller's own view, never
-- to be shared across authorization contexts; notes change at any time.
CREATE OR REPLACE FUNCTION _private_result(result jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result',
        jsonb_build_object('resultType', 'complete', 'ttlMs', 0, 'cacheScope', 'private') || result)
$$;
COMMENT ON FUNCTION _private_result(jsonb) IS
'Internal: a complete result with ttlMs 0 and cacheScope private (resources/list, templates/list, read)';

CREATE OR REPLACE FUNCTION _note_mime_type(uri text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN lower(uri) ~ '\.(md|markdown)$' THEN 'text/markdown' ELSE 'text/plain' END
$$;
COMMENT ON FUNCTION _note_mime_type(text) IS 'Internal: the mimeType of a note: text/markdown for .md and .markdown, else text/plain';

-- The notes the principal may read: inside a workspace granted to it, by
-- whole components (uri_contains), each once, by URI byte-wise, after a key.
CREATE OR REPLACE FUNCTION _readable_notes(principal text, after text, max_rows integer) RETURNS SETOF notes
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT DISTINCT ON (n.uri COLLATE "C") n.*
    FROM grants g
    JOIN notes n ON (n.uri = g.workspace_uri
                     OR (n.uri COLLATE "C" >= rtrim(g.workspace_uri, '/') || '/'
                         AND n.uri COLLATE "C" < rtrim(g.workspace_uri, '/') || '0'))
                    AND uri_contains(g.workspace_uri, n.uri)
    WHERE g.principal = _readable_notes.principal
      AND (after IS NULL OR n.uri COLLATE "C" > after COLLATE "C")
    ORDER BY n.uri COLLATE "C"
    LIMIT max_rows
$$;
COMMENT ON FUNCTION _readable_notes(text, text, integer) IS
'Internal: up to max_rows notes inside the workspaces granted to the principal, each once, ordered by URI byte-wise after the given URI';

-- The workspaces the principal may use: its grants.
CREATE OR REPLACE FUNCTION _granted_workspaces(principal text) RETURNS SETOF text
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT g.workspace_uri FROM grants g
    WHERE g.principal = _granted_workspaces.principal
    ORDER BY g.workspace_uri COLLATE "C"
$$;
COMMENT ON FUNCTION _granted_workspaces(text) IS 'Internal: the workspace URIs granted to the principal, byte-wise ordered';

CREATE OR REPLACE FUNCTION _note_template_uri(workspace text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT rtrim(workspace, '/') || '/{+path}' $$;
COMMENT ON FUNCTION _note_template_uri(text) IS 'Internal: the URI template of the notes in a workspace (RFC 6570 reserved expansion)';

-- Completion of the template's path: paths of the notes under that
-- granted workspace that begin with the typed value, in byte order, at most
-- 101 (enough to say there are more than the 100 a result carries).  The
-- workspace's folder and the typed prefix are one btree range of
-- notes_uri_bytewise (>= the prefix, < the prefix followed by DEL: a
-- normalized URI is ASCII without controls), so the cost follows the notes
-- that begin with what was typed, not the whole workspace.
CREATE OR REPLACE FUNCTION _complete_note_path(principal text, template text, typed text) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(p.path ORDER BY p.uri COLLATE "C"), '[]')
    FROM _granted_workspaces(principal) AS w(ws)
    CROSS JOIN LATERAL (SELECT rtrim(w.ws, '/') || '/' || typed AS prefix) x
    CROSS JOIN LATERAL (
        SELECT n.uri, substr(n.uri, length(rtrim(w.ws, '/')) + 2) AS path
        FROM notes n
        WHERE n.uri COLLATE "C" >= x.prefix COLLATE "C"
          AND n.uri COLLATE "C" < (x.prefix || chr(127)) COLLATE "C"
          AND starts_with(n.uri, x.prefix)
          AND uri_contains(w.ws, n.uri)
        ORDER BY n.uri COLLATE "C"
        LIMIT 101) p
    WHERE _note_template_uri(w.ws) = template
$$;
COMMENT ON FUNCTION _complete_note_path(text, text, text) IS
'Internal: the path values of a notes template of a granted workspace that begin with the typed text (one btree range of the workspace and prefix, at most 101)';

-- The notes kind: every note the principal may read is a resource at its
-- file: URI; one template per granted workspace.
CREATE OR REPLACE FUNCTION _resources_notes(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    params jsonb := request -> 'params';
    wanted text := params ->> 'uri';
    note notes;
BEGIN
    CASE request ->> 'method'
    WHEN 'resources/list' THEN
        RETURN (SELECT coalesce(jsonb_agg(jsonb_build_object('key', n.uri, 'resource', jsonb_build_object(
                    'uri', n.uri, 'name', _title_label(n.title), 'title', _title_label(n.title),
                    'description', format('Note "%s", updated %s', _title_label(n.title),
                                          to_char(n.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')),
                    'mimeType', _note_mime_type(n.uri), 'size', octet_length(n.body)))
                    ORDER BY n.uri COLLATE "C"), '[]')
                FROM _readable_notes(principal, params ->> 'after', (params ->> 'limit')::integer) n);
    WHEN 'resources/templates/list' THEN
        RETURN (SELECT coalesce(jsonb_agg(jsonb_build_object(
                    'uriTemplate', _note_template_uri(w.ws), 'name', 'notes in ' || w.ws,
                    'title', 'Notes in ' || w.ws,
                    'description', 'A note inside the workspace ' || w.ws || ' by its path (the rest of its file: URI)')
                    ORDER BY w.ws COLLATE "C"), '[]')
                FROM _granted_workspaces(principal) AS w(ws));
    WHEN 'resources/read' THEN
        IF wanted IS NULL OR _uri_problem(wanted) IS NOT NULL THEN
            RETURN NULL;
        END IF;
        SELECT n.* INTO note FROM notes n
        WHERE n.uri = normalize_uri(wanted) AND _granted(principal, n.uri);
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        RETURN _private_result(jsonb_build_object('contents', jsonb_build_array(jsonb_build_object(
            'uri', note.uri, 'mimeType', _note_mime_type(note.uri), 'text', note.body))));
    WHEN 'completion/complete' THEN
        IF NOT EXISTS (SELECT 1 FROM _granted_workspaces(principal) AS w(ws)
                       WHERE _note_template_uri(w.ws) = params #>> '{ref,uri}') THEN
            RETURN NULL;
        END IF;
        IF params #>> '{argument,name}' IS DISTINCT FROM 'path' THEN
            RETURN '[]';
        END IF;
        RETURN _complete_note_path(principal, params #>> '{ref,uri}', params #>> '{argument,value}');
    ELSE
        RETURN NULL;
    END CASE;
END;
$$;
COMMENT ON FUNCTION _resources_notes(text, jsonb) IS
'Internal: the notes resource kind (list, templates, read, template completion), scoped to the workspaces granted to the principal';

INSERT INTO resource_kinds (name, position, handler) VALUES ('notes', 1, '_resources_notes')
ON CONFLICT (name) DO UPDATE SET position = excluded.position, handler = excluded.handler;

-- A resources/list cursor is a sealed token of purpose resources_cursor,
-- valid one hour (paging a long list outlives a delete state), with claims
-- of its own: the principal, the kind position and the key to continue
-- after.  Keys are unique and ordered, so a page never repeats or skips a
-- resource that existed when the listing began.
CREATE OR REPLACE FUNCTION _resources_cursor_open(principal text, cursor jsonb,
                                       OUT outcome jsonb, OUT kind_position integer, OUT after text)
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    opened jsonb;
BEGIN
    IF cursor IS NULL OR cursor = 'null'::jsonb THEN
        kind_position := -2147483648;
        RETURN;
    END IF;
    IF jsonb_typeof(cursor) <> 'string' THEN
        outcome := _invalid_params('invalid_cursor', 'Invalid params: cursor must be a string');
        RETURN;
    END IF;
    opened := _open_sealed(cursor #>> '{}', 'resources_cursor', principal);
    IF NOT (opened ->> 'ok')::boolean OR jsonb_typeof(opened #> '{claims,kind}') IS DISTINCT FROM 'number' THEN
        outcome := _invalid_params('invalid_cursor',
            'Invalid params: the cursor is not valid (altered, expired or issued to someone else); list again without it');
        RETURN;
    END IF;
    kind_position := (opened #>> '{claims,kind}')::integer;
    after := opened #>> '{claims,after}';
END;
$$;
COMMENT ON FUNCTION _resources_cursor_open(text, jsonb) IS
'Internal: checks a resources/list cursor (_open_sealed: seal, purpose, expiry, principal); the kind position and key to continue after, or the outcome refusing it';

CREATE OR REPLACE FUNCTION _resources_cursor(principal text, kind_position integer, after text) RETURNS text
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _seal('resources_cursor', jsonb_build_object(
        'principal', principal, 'method', 'resources/list', 'kind', kind_position, 'after', after), 3600)
$$;
COMMENT ON FUNCTION _resources_cursor(text, integer, text) IS
'Internal: a sealed resources/list cursor (principal, kind position, key after), valid one hour';

-- One page of at most page_size resources, from the kinds in position
-- order, continuing where the cursor says.
CREATE OR REPLACE FUNCTION _resources_list(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    page_size constant integer := 50;
    start record;
    kind record;
    found jsonb;
    page jsonb := '[]';
    next_cursor text;
BEGIN
    SELECT * INTO start FROM _resources_cursor_open(principal, request -> 'params' -> 'cursor');
    IF start.outcome IS NOT NULL THEN
        RETURN start.outcome;
    END IF;
    FOR kind IN SELECT * FROM resource_kinds k WHERE k.position >= start.kind_position ORDER BY k.position LOOP
        IF jsonb_array_length(page) = page_size THEN
            next_cursor := _resources_cursor(principal, kind.position, NULL);
            EXIT;
        END IF;
        EXECUTE format('SELECT mcp_notes.%I($1, $2)', kind.handler) INTO found
            USING principal, jsonb_build_object('method', 'resources/list', 'params', jsonb_build_object(
                'after', CASE WHEN kind.position = start.kind_position THEN start.after END,
                'limit', page_size - jsonb_array_length(page) + 1));
        IF jsonb_array_length(found) > page_size - jsonb_array_length(page) THEN
            found := (SELECT jsonb_agg(f ORDER BY i) FROM jsonb_array_elements(found) WITH ORDINALITY AS x(f, i)
                      WHERE i <= page_size - jsonb_array_length(page));
            next_cursor := _resources_cursor(principal, kind.position, found -> -1 ->> 'key');
            page := page || found;
            EXIT;
        END IF;
        page := page || found;
    END LOOP;
    RETURN _private_result(jsonb_strip_nulls(jsonb_build_object(
        'resources', (SELECT coalesce(jsonb_agg(f -> 'resource' ORDER BY i), '[]')
                      FROM jsonb_array_elements(page) WITH ORDINALITY AS x(f, i)),
        'nextCursor', next_cursor)));
END;
$$;
COMMENT ON FUNCTION _resources_list(text, jsonb) IS
'Internal: the resources/list method: one page (50) of the resources of every kind the principal may read, with a sealed cursor for the next';

CREATE OR REPLACE FUNCTION _resources_templates_list(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    kind record;
    found jsonb;
    templates jsonb := '[]';
BEGIN
    IF request -> 'params' -> 'cursor' IS DISTINCT FROM 'null'::jsonb AND request -> 'params' ? 'cursor' THEN
        RETURN _invalid_params('invalid_cursor', 'Invalid params: unknown cursor (resources/templates/list has one page)');
    END IF;
    FOR kind IN SELECT * FROM resource_kinds k ORDER BY k.position LOOP
        EXECUTE format('SELECT mcp_notes.%I($1, $2)', kind.handler) INTO found
            USING principal, jsonb_build_object('method', 'resources/templates/list', 'params', '{}'::jsonb);
        templates := templates || coalesce(found, '[]');
    END LOOP;
    RETURN _private_result(jsonb_build_object('resourceTemplates', templates));
END;
$$;
COMMENT ON FUNCTION _resources_templates_list(text, jsonb) IS
'Internal: the resources/templates/list method: the templates of every kind for the principal';

-- The first kind that knows the URI answers; none is "not found".  A URI
-- longer than any URI may be (4096, normalize_uri's limit) names nothing,
-- and no kind is asked about it.
CREATE OR REPLACE FUNCTION _resources_read(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    kind record;
    outcome jsonb;
BEGIN
    IF jsonb_typeof(request -> 'params' -> 'uri') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_uri', 'Invalid params: params.uri must be a string');
    END IF;
    IF length(request #>> '{params,uri}') > 4096 THEN
        RETURN _resource_not_found(request -> 'params' -> 'uri');
    END IF;
    FOR kind IN SELECT * FROM resource_kinds k ORDER BY k.position LOOP
        EXECUTE format('SELECT mcp_notes.%I($1, $2)', kind.handler) INTO outcome USING principal, request;
        IF outcome IS NOT NULL THEN
            RETURN outcome;
        END IF;
    END LOOP;
    RETURN _resource_not_found(request -> 'params' -> 'uri');
END;
$$;
COMMENT ON FUNCTION _resources_read(text, jsonb) IS
'Internal: the resources/read method: the first resource kind that knows the URI and lets the principal read it answers; otherwise not found';
