-------------------------------------------------------------------------------
-- The notes_create tool
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _tool_notes_create(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    a record;
    refusal jsonb;
    target text;
    note notes;
BEGIN
    SELECT * INTO a FROM _notes_arguments(principal, request);
    IF a.outcome IS NOT NULL THEN
        RETURN a.outcome;
    END IF;
    refusal := _uri_refusal('uri', a.args ->> 'uri');
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    target := normalize_uri(a.args ->> 'uri');
    IF target = a.workspace OR NOT uri_contains(a.workspace, target) THEN
        RETURN _tool_refusal(format('uri %s is not inside the workspace %s: name a file below it, e.g. %s/name.md.',
                                    target, a.workspace, rtrim(a.workspace, '/')));
    END IF;
    refusal := coalesce(_file_note_refusal(target), _note_fields_refusal('notes_create', a.args));
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    PERFORM _require_serializable('notes_create');
    INSERT INTO notes (uri, title, body)
    VALUES (target, a.args ->> 'title', coalesce(a.args ->> 'body', ''))
    ON CONFLICT (uri) DO NOTHING
    RETURNING * INTO note;
    IF note.note_id IS NULL THEN
        RETURN _tool_refusal(format('A note already exists at %s; nothing was created. Choose another uri, or change that note with notes_update.',
                                    target));
    END IF;
    PERFORM _change_audit(principal, request, a.workspace, note, 'create', '{title,body}');
    RETURN _tool_structured(jsonb_build_object('noteId', note.note_id, 'uri', note.uri));
END;
$$;
COMMENT ON FUNCTION _tool_notes_create(text, jsonb) IS
'Internal: the notes_create tool: a new note at a uri inside a granted workspace (never over an existing one), audited';

-- notes_create in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(2, _tool_descriptor('{
  "name": "notes_create",
  "title": "Create a note",
  "description": "Creates a new note at a file: URI inside a workspace you are granted. Never overwrites: a uri that already has a note is refused. Returns the new note''s id.",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri"},
      "uri": {"$use": "noteUri", "description": "file: URI of the new note, below workspaceUri, e.g. file:///work/notes/ideas.md"},
      "title": {"$use": "noteTitle", "description": "The note''s title"},
      "body": {"$use": "noteBody", "description": "The note''s text (default empty; at most 1 MiB in UTF-8)"}
    },
    "required": ["workspaceUri", "uri", "title"],
    "additionalProperties": false
  },
  "outputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"noteId": {"type": "string"}, "uri": {"type": "string"}},
    "required": ["noteId", "uri"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
}'));
