-------------------------------------------------------------------------------
-- File-backed workspaces: notes written through the database, the sealed
-- identity of a file, the delete intent and its answer
-------------------------------------------------------------------------------

-- The file workspace a note URI lies in (file workspaces never nest).
CREATE OR REPLACE FUNCTION _file_workspace_of(uri text) RETURNS file_workspaces
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT w.* FROM file_workspaces w WHERE uri_contains(w.workspace_uri, uri) LIMIT 1
$$;
COMMENT ON FUNCTION _file_workspace_of(text) IS 'Internal: the file-backed workspace a note URI lies inside, if any';

-- Every note written inside a file workspace, by any writer (the tools,
-- add_note), gets its file written by the daemon: write_seq moves on and
-- the daemon is told.  The daemon's own imports (fsd_sync) record what they
-- wrote as written.  A file-backed note keeps its place: its file moves on
-- disk (the scan follows), not by move_note.
CREATE OR REPLACE FUNCTION _file_note_written() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    ws file_workspaces;
    known file_notes;
    rel text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM file_workspaces) THEN
        RETURN NULL;        -- the common case, one cheap look per written row
    END IF;
    ws := _file_workspace_of(NEW.uri);
    SELECT f.* INTO known FROM file_notes f WHERE f.note_id = NEW.note_id;
    rel := _file_rel_path(ws.workspace_uri, NEW.uri);
    IF known.note_id IS NOT NULL AND (ws.workspace_uri IS DISTINCT FROM known.workspace_uri OR rel IS DISTINCT FROM known.rel_path) THEN
        RAISE EXCEPTION 'a file-backed note cannot be moved'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('Its file is %s in %s; move or rename the file itself and the note follows.',
                                  known.rel_path, known.workspace_uri);
    END IF;
    IF ws.workspace_uri IS NULL THEN
        RETURN NULL;
    END IF;
    IF rel IS NULL OR _file_path_problem(rel) IS NOT NULL THEN
        RAISE EXCEPTION 'note URI % cannot be a file of workspace %', NEW.uri, ws.workspace_uri
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = coalesce(_file_path_problem(rel), 'It names the workspace itself.');
    END IF;
    INSERT INTO file_notes AS f (note_id, workspace_uri, rel_path) VALUES (NEW.note_id, ws.workspace_uri, rel)
    ON CONFLICT (note_id) DO UPDATE SET write_seq = f.write_seq + 1;
    PERFORM pg_catalog.pg_notify('mcp_notes_fsd', ws.volume);
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _file_note_written() IS
'Internal: trigger: a note written inside a file-backed workspace gets its file written by the daemon (write_seq, notification); file-backed notes cannot be moved';

CREATE OR REPLACE TRIGGER notes_file_written AFTER INSERT OR UPDATE OF uri, title, body ON notes
    FOR EACH ROW EXECUTE FUNCTION _file_note_written();
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_file_written;

-- notes_create's answer for a URI inside a file workspace that cannot be
-- a note's file (the trigger above would refuse it with an SQL error): a
-- tool error the model can act on.  NULL when the URI is fine.
CREATE OR REPLACE FUNCTION _file_note_refusal(uri text) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    ws file_workspaces := _file_workspace_of(uri);
    problem text := _file_path_problem(coalesce(_file_rel_path(ws.workspace_uri, uri), ''));
BEGIN
    IF ws.workspace_uri IS NULL OR problem IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN _tool_refusal(format('uri %s cannot be a note of %s, whose notes are files: %s', uri, ws.workspace_uri, problem));
END;
$$;
COMMENT ON FUNCTION _file_note_refusal(text) IS
'Internal: notes_create''s tool error for a URI inside a file-backed workspace that cannot be a note file (not .md, hidden), else NULL';

-- What the sealed state binds beside the note's own digest: the identity of
-- the file version the database knows (device, inode, size, mtime).  NULL
-- for a note that is not file-backed, so its digest stays what it was.
CREATE OR REPLACE FUNCTION _file_identity(note_id text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT format('%s:%s:%s:%s', f.dev, f.ino, f.size, f.mtime_ns) FROM file_notes f WHERE f.note_id = _file_identity.note_id
$$;
COMMENT ON FUNCTION _file_identity(text) IS
'Internal: dev:ino:size:mtime of the file behind a file-backed note as the database knows it (NULL otherwise); part of the note digest a state binds';

-- The answer to a delete whose file removal is recorded, not yet done:
-- never "deleted" for a file still in place.
CREATE OR REPLACE FUNCTION _file_delete_pending(op file_ops) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_result(format('Delete recorded, file removal pending: the note "%s" (%s) is removed as soon as the file service has moved its file aside (operation %s).',
                               _printable(op.title), op.note_uri, op.op_id),
                        jsonb_build_object('deleted', false, 'pending', true, 'operationId', op.op_id, 'noteId', op.note_id))
$$;
COMMENT ON FUNCTION _file_delete_pending(file_ops) IS
'Internal: the notes_delete result while a file delete is recorded but its file not yet in the trash (deleted false, pending true, the operation id)';

-- The answer once the daemon has acted (or not yet).
CREATE OR REPLACE FUNCTION _file_delete_answer(op file_ops) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE op.status
        WHEN 'intent' THEN _file_delete_pending(op)
        WHEN 'conflict' THEN _tool_result(format('Nothing was deleted: the file of "%s" (%s) is not the one you confirmed any more (%s). Call notes_delete again.',
                                                 _printable(op.title), op.note_uri, _printable(op.detail, 200)), NULL, true)
        WHEN 'missing' THEN _tool_result(format('Nothing was deleted: the file of "%s" (%s) was no longer there.',
                                                _printable(op.title), op.note_uri), NULL, true)
        ELSE _tool_result(format('Deleted the note "%s" (%s); its file was removed.', _printable(op.title), op.note_uri),
                          jsonb_build_object('deleted', true, 'noteId', op.note_id, 'operationId', op.op_id))
    END
$$;
COMMENT ON FUNCTION _file_delete_answer(file_ops) IS
'Internal: the notes_delete result for a file delete in its current state (pending, deleted, or nothing deleted and why)';

-- T1 of a file-backed delete, in the serializable transaction that spent
-- the nonce and re-checked grant, note and digest under lock (_delete_note):
-- the intent, with the file identity the digest covered.  The answer asks
-- the gateway to wait (bounded) for the daemon's notification and then to
-- fetch the final answer (the internal method mcp_notes/fileop/outcome); a
-- gateway that does not know "await" answers the honest pending result.
CREATE OR REPLACE FUNCTION _file_delete_intent(principal text, request jsonb, workspace text, note notes,
                                               spent_nonce text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    f file_notes;
    ws file_workspaces;
    op file_ops;
BEGIN
    SELECT x.* INTO f FROM file_notes x WHERE x.note_id = note.note_id FOR UPDATE;
    ws := _file_workspace_of(note.uri);
    SELECT o.* INTO op FROM file_ops o WHERE o.note_id = note.note_id AND o.kind = 'delete' AND o.status = 'intent';
    IF op.op_id IS NOT NULL OR f.dev IS NULL THEN
        UPDATE spent_states s SET outcome = 'stale' WHERE s.nonce = spent_nonce;
        PERFORM _audit(principal, request, workspace, note, 'stale');
        RETURN _tool_result(CASE WHEN op.op_id IS NOT NULL
            THEN format('Nothing more was recorded: a removal of this note is already pending (operation %s).', op.op_id)
            ELSE 'Nothing was deleted: the note''s file is still being written. Try again in a moment.' END, NULL, true);
    END IF;
    INSERT INTO file_ops (kind, status, volume, workspace_uri, note_id, note_uri, title, rel_path,
                          dev, ino, size, mtime_ns, principal, nonce, asked_in, request)
    VALUES ('delete', 'intent', ws.volume, ws.workspace_uri, note.note_id, note.uri, note.title, f.rel_path,
            f.dev, f.ino, f.size, f.mtime_ns, principal, spent_nonce, workspace,
            jsonb_strip_nulls(jsonb_build_object('requestId', request -> 'requestId', 'gatewayId', request -> 'gatewayId',
                                                 'clientInfo', request -> 'clientInfo')))
    RETURNING * INTO op;
    PERFORM pg_catalog.pg_notify('mcp_notes_fsd', ws.volume);
    RETURN _file_delete_pending(op)
        || jsonb_build_object('await', jsonb_build_object('channel', 'mcp_notes_fileops', 'key', op.op_id, 'ms', 5000));
END;
$$;
COMMENT ON FUNCTION _file_delete_intent(text, jsonb, text, notes, text) IS
'Internal: notes_delete of a file-backed note (step T1): records the intent with the file identity; the pending answer, with "await" for the gateway';

-- The internal method mcp_notes/fileop/outcome (features().internalMethods,
-- channel mcp_notes_fileops): what the gateway asks after the wait, for an
-- operation of the caller's own (params.operationId).  Another principal's
-- operation and an unknown id get the same refusal.
CREATE OR REPLACE FUNCTION _file_op_outcome(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    op file_ops;
BEGIN
    SELECT o.* INTO op FROM file_ops o
    WHERE o.op_id = _file_op_outcome.request #>> '{params,operationId}' AND o.kind = 'delete'
      AND o.principal = _file_op_outcome.principal;
    IF op.op_id IS NULL THEN
        RETURN _invalid_params('unknown_operation', 'no such file operation of yours');
    END IF;
    RETURN jsonb_build_object('result', _file_delete_answer(op) -> 'result');
END;
$$;
COMMENT ON FUNCTION _file_op_outcome(text, jsonb) IS
'Internal: the internal method mcp_notes/fileop/outcome: the notes_delete outcome of a file operation of the principal''s, in its current state';
