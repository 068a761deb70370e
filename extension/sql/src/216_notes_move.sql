-------------------------------------------------------------------------------
-- The notes_move tool
-------------------------------------------------------------------------------

-- A note moves to another URI inside the same granted workspace, never over
-- another note.  As notes_update: the row is locked first, expectedUpdatedAt
-- (when given) must be its version, a move to where it already is writes
-- nothing (idempotentHint), and updated_at moves forward, so a delete form
-- shown before the move no longer confirms it (the digest binds the URI).
-- Of two moves to one free uri the second waits on the first's index
-- entry and then fails to serialize (it read the uri free); its retry is
-- told the uri is taken (extension/test/specs/move-race.spec).
CREATE OR REPLACE FUNCTION _tool_notes_move(principal text, request jsonb) RETURNS jsonb
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
    refusal := coalesce(a.outcome, _uri_refusal('uri', a.args ->> 'uri'));
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    target := normalize_uri(a.args ->> 'uri');
    IF target = a.workspace OR NOT uri_contains(a.workspace, target) THEN
        RETURN _tool_refusal(format('uri %s is not inside the workspace %s: a note moves to a file below it, e.g. %s/name.md.',
                                    target, a.workspace, rtrim(a.workspace, '/')));
    END IF;
    PERFORM _require_serializable('notes_move');
    SELECT n.* INTO note FROM notes n
    WHERE n.note_id = a.args ->> 'noteId' AND uri_contains(a.workspace, n.uri)
    FOR UPDATE;
    IF note.note_id IS NULL THEN
        RETURN _no_such_note(a.workspace, a.args ->> 'noteId');
    END IF;
    IF note.uri <> target THEN
        refusal := _move_refusal(a.args, note, target);
        IF refusal IS NOT NULL THEN
            RETURN refusal;
        END IF;
        UPDATE notes n
        SET uri = target, updated_at = greatest(clock_timestamp(), n.updated_at + interval '1 microsecond')
        WHERE n.note_id = note.note_id
        RETURNING * INTO note;
        PERFORM _change_audit(principal, request, a.workspace, note, 'move', '{uri}');
    END IF;
    RETURN _tool_structured(jsonb_build_object('noteId', note.note_id, 'uri', note.uri,
                                               'updatedAt', _note_time(note.updated_at)));
END;
$$;
COMMENT ON FUNCTION _tool_notes_move(text, jsonb) IS
'Internal: the notes_move tool: a note inside a granted workspace to another uri inside it (never over another note), refused when expectedUpdatedAt is not its version; audited';

-- What refuses a move of a locked note to a free-looking target: a stale
-- expectedUpdatedAt, a note already there, or a file-backed workspace on
-- either side (a file-backed note follows its file, which is moved on disk:
-- docs/file-workspaces.md).
CREATE OR REPLACE FUNCTION _move_refusal(args jsonb, note notes, target text) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN args ? 'expectedUpdatedAt' AND args ->> 'expectedUpdatedAt' <> _note_time(note.updated_at) THEN
            _tool_refusal(format('The note changed since %s: its updatedAt is now %s. Nothing was moved; read it again with notes_read and retry with expectedUpdatedAt "%s".',
                                 _printable(args ->> 'expectedUpdatedAt'), _note_time(note.updated_at), _note_time(note.updated_at)))
        WHEN EXISTS (SELECT 1 FROM notes n WHERE n.uri = target) THEN
            _tool_refusal(format('A note already exists at %s; nothing was moved. Choose another uri.', target))
        WHEN EXISTS (SELECT 1 FROM file_workspaces w
                     WHERE uri_contains(w.workspace_uri, note.uri) OR uri_contains(w.workspace_uri, target)) THEN
            _tool_refusal('Nothing was moved: notes_move does not move a note into or out of a file-backed workspace, whose notes are files. Move or rename the file itself and the note follows.')
    END
$$;
COMMENT ON FUNCTION _move_refusal(jsonb, notes, text) IS
'Internal: notes_move step: the tool error for a stale expectedUpdatedAt, an occupied target or a file-backed note or target, else NULL';

-- notes_move in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(7, _tool_descriptor('{
  "name": "notes_move",
  "title": "Move a note",
  "description": "Moves a note to another file: URI inside the same workspace you are granted (both the note and the new uri must lie inside workspaceUri). Never overwrites: a uri that already has a note is refused. Pass expectedUpdatedAt so that a note changed by someone else since is not moved.",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri"},
      "noteId": {"$use": "noteId", "description": "The note''s id"},
      "uri": {"$use": "noteUri", "description": "The new file: URI of the note, below workspaceUri, e.g. file:///work/notes/archive/ideas.md"},
      "expectedUpdatedAt": {"$use": "expectedUpdatedAt"}
    },
    "required": ["workspaceUri", "noteId", "uri"],
    "additionalProperties": false
  },
  "outputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"noteId": {"type": "string"}, "uri": {"type": "string"},
                   "updatedAt": {"type": "string", "format": "date-time"}},
    "required": ["noteId", "uri", "updatedAt"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}
}'));
