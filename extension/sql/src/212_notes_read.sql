-------------------------------------------------------------------------------
-- The notes_read tool
-------------------------------------------------------------------------------

-- The note itself, exactly as stored: the one place a title leaves the
-- database unescaped, since a client may write it back (notes_update).
CREATE OR REPLACE FUNCTION _tool_notes_read(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    a record;
    note notes;
BEGIN
    SELECT * INTO a FROM _notes_arguments(principal, request);
    IF a.outcome IS NOT NULL THEN
        RETURN a.outcome;
    END IF;
    SELECT n.* INTO note FROM notes n
    WHERE n.note_id = a.args ->> 'noteId' AND uri_contains(a.workspace, n.uri);
    IF note.note_id IS NULL THEN
        RETURN _no_such_note(a.workspace, a.args ->> 'noteId');
    END IF;
    RETURN _tool_structured(jsonb_build_object('noteId', note.note_id, 'uri', note.uri, 'title', note.title,
                                               'body', note.body, 'updatedAt', _note_time(note.updated_at)));
END;
$$;
COMMENT ON FUNCTION _tool_notes_read(text, jsonb) IS 'Internal: the notes_read tool: one note by id, inside a granted workspace, as stored';

-- notes_read in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(3, _tool_descriptor('{
  "name": "notes_read",
  "title": "Read a note",
  "description": "Returns one note (uri, title, body, updatedAt) by its noteId, if it lies inside the workspace you name. The title and body are exactly as stored (lists show titles with invisible characters escaped).",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri"},
      "noteId": {"$use": "noteId", "description": "The note''s id, from notes_list, notes_search or notes_create"}
    },
    "required": ["workspaceUri", "noteId"],
    "additionalProperties": false
  },
  "outputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"noteId": {"type": "string"}, "uri": {"type": "string"}, "title": {"type": "string"},
                   "body": {"type": "string"}, "updatedAt": {"type": "string", "format": "date-time"}},
    "required": ["noteId", "uri", "title", "body", "updatedAt"]
  },
  "annotations": {"readOnlyHint": true, "openWorldHint": false}
}'));
