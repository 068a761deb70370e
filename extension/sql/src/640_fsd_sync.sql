-------------------------------------------------------------------------------
-- File-backed workspaces: changes made on disk reach the notes (fsd_sync)
-------------------------------------------------------------------------------

-- A write through the database that the disk's version replaced, for the
-- operator: a conflict row in file_ops.
CREATE OR REPLACE FUNCTION _file_write_conflict(f file_notes, detail text) RETURNS void
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    INSERT INTO file_ops (kind, status, volume, workspace_uri, note_id, note_uri, title, rel_path, dev, ino, size, mtime_ns, detail)
    SELECT 'write', 'conflict', w.volume, f.workspace_uri, f.note_id, n.uri, n.title, f.rel_path, f.dev, f.ino, f.size,
           f.mtime_ns, detail
    FROM notes n JOIN file_workspaces w ON w.workspace_uri = f.workspace_uri
    WHERE n.note_id = f.note_id
$$;
COMMENT ON FUNCTION _file_write_conflict(file_notes, text) IS
'Internal: records in file_ops a write through the database that the disk''s version replaced or refused';

-- A note's file is busy while a delete intent or a write through the
-- database is pending: what the scan saw waits for that to finish.
CREATE OR REPLACE FUNCTION _file_busy(f file_notes) RETURNS boolean
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT f.write_seq > f.written_seq
        OR EXISTS (SELECT 1 FROM file_ops o WHERE o.note_id = f.note_id AND o.kind = 'delete' AND o.status = 'intent')
$$;
COMMENT ON FUNCTION _file_busy(file_notes) IS
'Internal: true while a note''s file has a delete intent or a write through the database pending';

-- A file the scan no longer finds: its note goes.
CREATE OR REPLACE FUNCTION _fsd_sync_gone(workspace text, rel text) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    f file_notes;
BEGIN
    SELECT x.* INTO f FROM file_notes x WHERE x.workspace_uri = workspace AND x.rel_path = rel FOR UPDATE;
    IF f.note_id IS NULL OR f.dev IS NULL THEN
        RETURN 'unchanged';
    END IF;
    IF EXISTS (SELECT 1 FROM file_ops o WHERE o.note_id = f.note_id AND o.kind = 'delete' AND o.status = 'intent') THEN
        RETURN 'deferred';
    END IF;
    DELETE FROM notes n WHERE n.note_id = f.note_id;
    RETURN 'removed';
END;
$$;
COMMENT ON FUNCTION _fsd_sync_gone(text, text) IS
'Internal: fsd_sync of a file gone from disk: its note is removed (unless a delete intent of it is pending)';

-- The file's content and identity become the note's; what the daemon
-- reported is recorded as written, so it is not written back.
CREATE OR REPLACE FUNCTION _fsd_sync_take(note_id text, rel text, uri text, e jsonb) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    parsed record;
BEGIN
    SELECT * INTO parsed FROM _file_parse(rel, e ->> 'body');
    UPDATE file_notes f SET rel_path = rel WHERE f.note_id = _fsd_sync_take.note_id AND f.rel_path <> rel;
    UPDATE notes n SET uri = _fsd_sync_take.uri, title = parsed.title, body = parsed.body,
                       updated_at = greatest(clock_timestamp(), n.updated_at + interval '1 microsecond')
    WHERE n.note_id = _fsd_sync_take.note_id
      AND (n.uri, n.title, n.body) IS DISTINCT FROM (_fsd_sync_take.uri, parsed.title, parsed.body);
    UPDATE file_notes f
    SET dev = (e ->> 'dev')::bigint, ino = (e ->> 'ino')::bigint, size = (e ->> 'size')::bigint,
        mtime_ns = (e ->> 'mtime')::bigint, heading = parsed.heading, written_seq = f.write_seq
    WHERE f.note_id = _fsd_sync_take.note_id;
END;
$$;
COMMENT ON FUNCTION _fsd_sync_take(text, text, text, jsonb) IS
'Internal: fsd_sync: a file''s path, content and identity become its note''s (recorded as written, so not written back)';

-- A new or changed file: the note at its path is updated; a file the
-- daemon found renamed ("from": the known path whose device and inode it
-- has, gone from there) keeps its note, moved; anything else is a new note.
CREATE OR REPLACE FUNCTION _fsd_sync_file(workspace text, e jsonb) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    rel text := e ->> 'path';
    uri text := _file_uri(workspace, rel);
    f file_notes;
    id text;
BEGIN
    IF uri IS NULL OR _file_path_problem(rel) IS NOT NULL OR jsonb_typeof(e -> 'body') IS DISTINCT FROM 'string' THEN
        RAISE EXCEPTION 'not a note file' USING ERRCODE = 'invalid_parameter_value',
            DETAIL = coalesce(_file_path_problem(rel), 'The path makes no valid file: URI.');
    END IF;
    SELECT x.* INTO f FROM file_notes x WHERE x.workspace_uri = workspace AND x.rel_path = rel FOR UPDATE;
    IF f.note_id IS NULL AND e ? 'from' THEN
        -- renamed: the known file at "from" has this device and inode
        SELECT x.* INTO f FROM file_notes x
        WHERE x.workspace_uri = workspace AND x.rel_path = e ->> 'from'
          AND x.ino = (e ->> 'ino')::bigint AND x.dev = (e ->> 'dev')::bigint
        FOR UPDATE;
    END IF;
    IF f.note_id IS NOT NULL AND _file_busy(f) THEN
        RETURN 'deferred';
    END IF;
    IF f.note_id IS NOT NULL AND f.rel_path = rel AND (f.dev, f.ino, f.size, f.mtime_ns)
           = ((e ->> 'dev')::bigint, (e ->> 'ino')::bigint, (e ->> 'size')::bigint, (e ->> 'mtime')::bigint) THEN
        RETURN 'unchanged';
    END IF;
    IF f.note_id IS NOT NULL AND f.dev IS NULL AND EXISTS (
           SELECT 1 FROM notes n, _file_parse(rel, e ->> 'body') p
           WHERE n.note_id = f.note_id AND (n.title, n.body) IS DISTINCT FROM (p.title, p.body)) THEN
        -- the database had a version the disk never got: the disk's wins, on record
        PERFORM _file_write_conflict(f, 'the file on disk differs from the note''s version written through the database; the disk''s version is kept');
    END IF;
    IF f.note_id IS NOT NULL THEN
        PERFORM _fsd_sync_take(f.note_id, rel, uri, e);
        RETURN CASE WHEN f.rel_path = rel THEN 'updated' ELSE 'moved' END;
    END IF;
    INSERT INTO notes (uri, title, body)
    SELECT uri, p.title, p.body FROM _file_parse(rel, e ->> 'body') p
    RETURNING note_id INTO id;
    PERFORM _fsd_sync_take(id, rel, uri, e);
    RETURN 'created';
END;
$$;
COMMENT ON FUNCTION _fsd_sync_file(text, jsonb) IS
'Internal: fsd_sync of a new or changed file: updates the note at its path, moves the note of the same inode, or creates one';

-- What a scan found changed, in one transaction: each entry is
-- {"path", "dev", "ino", "size", "mtime", "body"} for a new or changed
-- file (with "from" for one renamed), {"path", "gone": true} for one no
-- longer there.  One row per entry
-- says what became of it: created, updated, moved, removed, unchanged,
-- deferred (a delete or write through the database is pending: later) or
-- refused (not a note: the reason in detail; the daemon stops sending it
-- until it changes).
CREATE OR REPLACE FUNCTION fsd_sync(volume text, workspace text, changes jsonb)
RETURNS TABLE (rel_path text, outcome text, detail text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    e jsonb;
    message text;
    hint text;
BEGIN
    PERFORM _fsd_check(volume);
    IF NOT EXISTS (SELECT 1 FROM file_workspaces w WHERE w.workspace_uri = workspace AND w.volume = fsd_sync.volume
                                                      AND w.refused IS NULL AND w.attached_at IS NOT NULL) THEN
        RAISE EXCEPTION 'workspace % is not an attached workspace of volume "%"', workspace, volume
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    FOR e IN SELECT x FROM jsonb_array_elements(CASE WHEN jsonb_typeof(changes) = 'array' THEN changes ELSE '[]' END) x LOOP
        rel_path := e ->> 'path';
        detail := NULL;
        BEGIN
            outcome := CASE WHEN e -> 'gone' = 'true' THEN _fsd_sync_gone(workspace, rel_path)
                            ELSE _fsd_sync_file(workspace, e) END;
        EXCEPTION WHEN data_exception OR integrity_constraint_violation OR object_not_in_prerequisite_state THEN
            GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, hint = PG_EXCEPTION_DETAIL;
            outcome := 'refused';
            detail := message || coalesce(': ' || nullif(hint, ''), '');
        END;
        RETURN NEXT;
    END LOOP;
END;
$$;
COMMENT ON FUNCTION fsd_sync(text, text, jsonb) IS
'mcp-notes-fsd: changes a scan found on disk become the workspace''s notes (created, updated, moved, removed); one row per entry says what became of it';
