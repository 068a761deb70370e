-------------------------------------------------------------------------------
-- File-backed workspaces: what mcp-notes-fsd reports of the operations
-------------------------------------------------------------------------------

-- The operation a report is about, locked; NULL when it is not this
-- volume's or not in the state the report follows from.
CREATE OR REPLACE FUNCTION _fsd_op(volume text, op_id text, in_status text) RETURNS file_ops
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT o.* FROM file_ops o
    WHERE o.op_id = _fsd_op.op_id AND o.volume = _fsd_op.volume AND o.status = in_status
    FOR UPDATE
$$;
COMMENT ON FUNCTION _fsd_op(text, text, text) IS 'Internal: a file operation of the volume in the given state, locked (NULL otherwise)';

-- The note an operation is about, for its audit row: the live row (locked)
-- while it exists, else what the intent recorded of it.
CREATE OR REPLACE FUNCTION _fsd_op_note(op file_ops) RETURNS notes
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    note notes;
BEGIN
    SELECT n.* INTO note FROM notes n WHERE n.note_id = op.note_id FOR UPDATE;
    IF note.note_id IS NULL THEN
        note.note_id := op.note_id;
        note.uri := op.note_uri;
        note.title := op.title;
    END IF;
    RETURN note;
END;
$$;
COMMENT ON FUNCTION _fsd_op_note(file_ops) IS
'Internal: the note a file operation is about (the live row, locked, or what the intent recorded), for its audit row';

-- T2: the confirmed file is in the trash.  The note row goes, the delete
-- is audited (accept: deleted) and the waiting gateway is told, all in one
-- transaction; a repeated report (after a crash) changes nothing, so there
-- is one audit row per nonce.
CREATE OR REPLACE FUNCTION fsd_trashed(volume text, op_id text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    op file_ops;
    note notes;
BEGIN
    PERFORM _fsd_check(volume);
    op := _fsd_op(volume, op_id, 'intent');
    IF op.op_id IS NULL THEN
        RETURN (SELECT o.status FROM file_ops o WHERE o.op_id = fsd_trashed.op_id AND o.volume = fsd_trashed.volume);
    END IF;
    note := _fsd_op_note(op);
    DELETE FROM notes n WHERE n.note_id = op.note_id;
    UPDATE file_ops o SET status = 'trashed', updated_at = clock_timestamp() WHERE o.op_id = op.op_id;
    PERFORM _audit(op.principal, op.request, op.asked_in, note, 'accept');
    PERFORM pg_catalog.pg_notify('mcp_notes_fileops', op.op_id);
    RETURN 'trashed';
END;
$$;
COMMENT ON FUNCTION fsd_trashed(text, text) IS
'mcp-notes-fsd, step T2: the confirmed file is in the trash: deletes the note row, audits the delete (once), notifies mcp_notes_fileops';

-- F2 happened: the file is unlinked from the trash.
CREATE OR REPLACE FUNCTION fsd_done(volume text, op_id text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _fsd_check(volume);
    UPDATE file_ops o SET status = 'done', updated_at = clock_timestamp()
    WHERE o.op_id = fsd_done.op_id AND o.volume = fsd_done.volume AND o.status = 'trashed';
END;
$$;
COMMENT ON FUNCTION fsd_done(text, text) IS 'mcp-notes-fsd, after step F2: the trashed file is unlinked';

-- Nothing was removed: the file at the path was not the confirmed one
-- (conflict) or not there (missing).  The confirmation is recorded as
-- stale, as a confirmation of a note that changed is, and the gateway told.
CREATE OR REPLACE FUNCTION fsd_failed(volume text, op_id text, outcome text, detail text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    op file_ops;
BEGIN
    PERFORM _fsd_check(volume);
    IF outcome IS NULL OR outcome NOT IN ('conflict', 'missing') THEN
        RAISE EXCEPTION 'invalid outcome "%"', outcome
            USING ERRCODE = 'invalid_parameter_value', DETAIL = 'A failed delete is a conflict or missing.';
    END IF;
    op := _fsd_op(volume, op_id, 'intent');
    IF op.op_id IS NULL THEN
        RETURN;
    END IF;
    UPDATE file_ops o SET status = outcome, detail = left(fsd_failed.detail, 500), updated_at = clock_timestamp()
    WHERE o.op_id = op.op_id;
    UPDATE spent_states s SET outcome = 'stale' WHERE s.nonce = op.nonce;
    PERFORM _audit(op.principal, op.request, op.asked_in, _fsd_op_note(op), 'stale');
    PERFORM pg_catalog.pg_notify('mcp_notes_fileops', op.op_id);
END;
$$;
COMMENT ON FUNCTION fsd_failed(text, text, text, text) IS
'mcp-notes-fsd: a delete intent removed nothing (conflict: not the confirmed file; missing: no file): recorded, audited as stale, notified';

-- A note's file was written: its new identity; write_seq seq is done (a
-- later change is written again).
CREATE OR REPLACE FUNCTION fsd_written(volume text, note_id text, seq bigint, dev bigint, ino bigint, size bigint,
                                       mtime_ns bigint) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _fsd_check(volume);
    UPDATE file_notes f
    SET dev = fsd_written.dev, ino = fsd_written.ino, size = fsd_written.size, mtime_ns = fsd_written.mtime_ns,
        written_seq = greatest(f.written_seq, seq)
    FROM file_workspaces w
    WHERE f.note_id = fsd_written.note_id AND w.workspace_uri = f.workspace_uri AND w.volume = fsd_written.volume;
END;
$$;
COMMENT ON FUNCTION fsd_written(text, text, bigint, bigint, bigint, bigint, bigint) IS
'mcp-notes-fsd: a note''s file was written atomically: its identity, and the change seq is done';

-- The disk refused a write.  Where a file is there but is not the version
-- the database knew (edited meanwhile, or a file at the path of a new
-- note), the disk's version wins: the note forgets the file's identity, and
-- the next scan reads the file (_fsd_sync_file records a conflict when its
-- content differs from the note's, and adopts it quietly when it is the
-- same, as after a restore).  Where no note file can be (the path is gone,
-- is a symlink or crosses a mount, the file has a second name), the note
-- goes, as the scan would remove it, and the refused write is kept in
-- file_ops for the operator.
CREATE OR REPLACE FUNCTION fsd_write_failed(volume text, note_id text, seq bigint, status text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    f file_notes;
BEGIN
    PERFORM _fsd_check(volume);
    SELECT x.* INTO f FROM file_notes x JOIN file_workspaces w USING (workspace_uri)
    WHERE x.note_id = fsd_write_failed.note_id AND w.volume = fsd_write_failed.volume FOR UPDATE OF x;
    IF f.note_id IS NULL OR f.written_seq >= seq THEN
        RETURN;
    END IF;
    IF status IN ('changed', 'exists') THEN
        UPDATE file_notes x SET written_seq = seq, dev = NULL, ino = NULL, size = NULL, mtime_ns = NULL
        WHERE x.note_id = f.note_id;
        RETURN;
    END IF;
    PERFORM _file_write_conflict(f, format('the write of change %s was refused (%s); no note file can be there: the note was removed',
                                           seq, left(status, 100)));
    DELETE FROM notes n WHERE n.note_id = f.note_id;
END;
$$;
COMMENT ON FUNCTION fsd_write_failed(text, text, bigint, text) IS
'mcp-notes-fsd: the disk refused a note''s write: the disk''s version wins (read back at the next scan), or the note is removed where no note file can be (recorded in file_ops)';
