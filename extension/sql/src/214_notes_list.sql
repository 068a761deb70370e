-------------------------------------------------------------------------------
-- The notes_list tool
-------------------------------------------------------------------------------

-- Keyset pagination by URI, byte-wise (URIs are unique): a note inserted
-- while a client pages appears once or not at all, never shifts another.
CREATE OR REPLACE FUNCTION _tool_notes_list(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    page_size constant integer := 50;
    a record;
    refusal jsonb;
    after jsonb;
    digest text;
    prefix text;
    found jsonb;
BEGIN
    SELECT * INTO a FROM _notes_arguments(principal, request);
    IF a.outcome IS NOT NULL THEN
        RETURN a.outcome;
    END IF;
    digest := _args_digest(a.workspace, '');
    IF a.args ? 'cursor' THEN
        SELECT o.refusal, o.after INTO refusal, after
        FROM _cursor_open(principal, 'notes_list', digest, a.args ->> 'cursor') o;
        IF refusal IS NOT NULL THEN
            RETURN refusal;
        END IF;
    END IF;
    prefix := CASE WHEN right(a.workspace, 1) = '/' THEN a.workspace ELSE a.workspace || '/' END;
    SELECT jsonb_agg(_note_summary(p) || jsonb_build_object('after', jsonb_build_object('uri', p.uri))
                     ORDER BY p.uri COLLATE "C")
      INTO found
    FROM (SELECT n.* FROM notes n
          WHERE (n.uri = a.workspace
                 OR (n.uri COLLATE "C" >= prefix AND n.uri COLLATE "C" < left(prefix, -1) || '0'))
            AND uri_contains(a.workspace, n.uri)
            AND (after IS NULL OR n.uri COLLATE "C" > (after ->> 'uri') COLLATE "C")
          ORDER BY n.uri COLLATE "C"
          LIMIT page_size + 1) p;
    RETURN _notes_page(principal, 'notes_list', digest, coalesce(found, '[]'), page_size);
END;
$$;
COMMENT ON FUNCTION _tool_notes_list(text, jsonb) IS
'Internal: the notes_list tool: the notes inside a granted workspace by URI, 50 a page, with a sealed keyset cursor';

-- notes_list in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(5, _tool_descriptor('{
  "name": "notes_list",
  "title": "List notes",
  "description": "Lists the notes inside a workspace you are granted, ordered by uri, 50 a page. When nextCursor is present, call again with it as cursor (same workspaceUri) for the next page. Titles are shown with invisible and control characters escaped (\\uXXXX); notes_read returns a note as stored.",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri"},
      "cursor": {"$use": "cursor"}
    },
    "required": ["workspaceUri"],
    "additionalProperties": false
  },
  "outputSchema": {"$use": "notesPage"},
  "annotations": {"readOnlyHint": true, "openWorldHint": false}
}'));
