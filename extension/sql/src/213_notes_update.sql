-------------------------------------------------------------------------------
-- The notes_update tool
-------------------------------------------------------------------------------

-- An update that would change nothing writes nothing (so a repeated call
-- is harmless: idempotentHint).  Otherwise expectedUpdatedAt, when given,
-- must be the note's version: the row is locked first, so of two updates
-- from the same version the second waits, then fails to serialize, and its
-- retry finds the version changed.  updated_at always moves forward.
CREATE OR REPLACE FUNCTION _tool_notes_update(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    a record;
    refusal jsonb;
    note notes;
    fields text[];
BEGIN
    SELECT * INTO a FROM _notes_arguments(principal, request);
    IF a.outcome IS NOT NULL THEN
        RETURN a.outcome;
    END IF;
    refusal := _note_fields_refusal('notes_update', a.args);
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    PERFORM _require_serializable('notes_update');
    SELECT n.* INTO note FROM notes n
    WHERE n.note_id = a.args ->> 'noteId' AND uri_contains(a.workspace, n.uri)
    FOR UPDATE;
    IF note.note_id IS NULL THEN
        RETURN _no_such_note(a.workspace, a.args ->> 'noteId');
    END IF;
    SELECT coalesce(array_agg(f.name ORDER BY f.name), '{}') INTO fields
    FROM (VALUES ('body', note.body), ('title', note.title)) AS f(name, old)
    WHERE a.args ? f.name AND a.args ->> f.name IS DISTINCT FROM f.old;
    IF fields = '{}' THEN
        RETURN _tool_structured(jsonb_build_object('noteId', note.note_id, 'updatedAt', _note_time(note.updated_at)));
    END IF;
    IF a.args ? 'expectedUpdatedAt' AND a.args ->> 'expectedUpdatedAt' <> _note_time(note.updated_at) THEN
        RETURN _tool_refusal(format('The note changed since %s: its updatedAt is now %s. Nothing was written; read it again with notes_read and retry with expectedUpdatedAt "%s".',
                                    _printable(a.args ->> 'expectedUpdatedAt'), _note_time(note.updated_at),
                                    _note_time(note.updated_at)));
    END IF;
    refusal := _keep_replaced_version('notes_update', principal, note);    -- the text it replaces, kept
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    UPDATE notes n
    SET title = coalesce(a.args ->> 'title', n.title),
        body = coalesce(a.args ->> 'body', n.body),
        updated_at = greatest(clock_timestamp(), n.updated_at + interval '1 microsecond')
    WHERE n.note_id = note.note_id
    RETURNING * INTO note;
    PERFORM _change_audit(principal, request, a.workspace, note, 'update', fields);
    RETURN _tool_structured(jsonb_build_object('noteId', note.note_id, 'updatedAt', _note_time(note.updated_at)));
END;
$$;
COMMENT ON FUNCTION _tool_notes_update(text, jsonb) IS
'Internal: the notes_update tool: new title and/or body of a note inside a granted workspace, refused when expectedUpdatedAt is not its version; audited';

-- notes_update in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(4, _tool_descriptor('{
  "name": "notes_update",
  "title": "Update a note",
  "description": "Replaces the title and/or body of a note inside a workspace you are granted; the previous text is kept as a version an operator can restore. Pass expectedUpdatedAt (the updatedAt you read) so that a note changed by someone else since is not overwritten: then nothing is written and the current updatedAt is returned in the message.",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri"},
      "noteId": {"$use": "noteId", "description": "The note''s id"},
      "title": {"$use": "noteTitle", "description": "The new title"},
      "body": {"$use": "noteBody", "description": "The new body (replaces the whole text; at most 1 MiB in UTF-8)"},
      "expectedUpdatedAt": {"$use": "expectedUpdatedAt"}
    },
    "required": ["workspaceUri", "noteId"],
    "anyOf": [{"required": ["title"]}, {"required": ["body"]}],
    "additionalProperties": false
  },
  "outputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"noteId": {"type": "string"}, "updatedAt": {"type": "string", "format": "date-time"}},
    "required": ["noteId", "updatedAt"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}
}'));
