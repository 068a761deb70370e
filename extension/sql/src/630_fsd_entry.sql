-------------------------------------------------------------------------------
-- File-backed workspaces: the entry points of mcp-notes-fsd
-------------------------------------------------------------------------------

-- Every fsd_* entry point runs as the owner for the daemon of one volume:
-- the caller must be (a member of) that volume's daemon role.
CREATE OR REPLACE FUNCTION _fsd_check(volume text) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM file_volumes v
                   WHERE v.name = _fsd_check.volume AND pg_catalog.pg_has_role(session_user, v.daemon_role, 'MEMBER')) THEN
        RAISE EXCEPTION 'not the daemon of volume "%"', volume
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Only the role registered for a volume (add_file_volume) may act for it.';
    END IF;
END;
$$;
COMMENT ON FUNCTION _fsd_check(text) IS
'Internal: raises 42501 unless the session''s user is (a member of) the daemon role of the volume';

-- The volume's workspaces, and the volume's lock: one daemon per volume
-- (a second one gets 55P03 and waits), held by the session until it ends.
CREATE OR REPLACE FUNCTION fsd_attach(volume text) RETURNS TABLE (workspace text, root_path text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _fsd_check(volume);
    IF NOT pg_catalog.pg_try_advisory_lock(pg_catalog.hashtextextended('mcp_notes.fsd ' || volume, 0)) THEN
        RAISE EXCEPTION 'volume "%" is served by another mcp-notes-fsd', volume
            USING ERRCODE = 'lock_not_available', DETAIL = 'One daemon serves a volume; this one waits for the other to end.';
    END IF;
    RETURN QUERY SELECT w.workspace_uri, w.root_path FROM file_workspaces w
                 WHERE w.volume = fsd_attach.volume ORDER BY w.workspace_uri;
END;
$$;
COMMENT ON FUNCTION fsd_attach(text) IS
'mcp-notes-fsd: the workspaces of its volume (workspace URI, root path below --base), taking the volume''s lock for the session';

-- The daemon found marker_found in the root (NULL: none).  The answer: "ok";
-- "marker M" for a root not attached yet (never, or since
-- reattach_file_workspace): write M, in place of any marker there, and ask
-- again; or why the root is refused.  Only the marker tells the registered
-- directory from an empty or another one mounted in its place.
CREATE OR REPLACE FUNCTION fsd_root_seen(volume text, workspace text, marker_found text, dev bigint, ino bigint)
RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    w file_workspaces;
    answer text;
BEGIN
    PERFORM _fsd_check(volume);
    SELECT x.* INTO w FROM file_workspaces x WHERE x.workspace_uri = workspace AND x.volume = fsd_root_seen.volume FOR UPDATE;
    IF w.workspace_uri IS NULL THEN
        RETURN 'refused: not a workspace of this volume';
    END IF;
    answer := CASE
        WHEN marker_found = w.marker THEN 'ok'
        WHEN w.attached_at IS NULL THEN 'marker ' || w.marker
        WHEN marker_found IS NULL THEN 'refused: the root has no marker, but the workspace was attached before: not the registered directory (an empty volume after a failover?); see reattach_file_workspace'
        ELSE 'refused: the root''s marker is not this workspace''s: not the registered directory; see reattach_file_workspace'
    END;
    UPDATE file_workspaces x
    SET seen_at = clock_timestamp(),
        attached_at = CASE WHEN answer = 'ok' THEN coalesce(x.attached_at, clock_timestamp()) ELSE x.attached_at END,
        root_dev = CASE WHEN answer = 'ok' THEN dev ELSE x.root_dev END,
        root_ino = CASE WHEN answer = 'ok' THEN ino ELSE x.root_ino END,
        refused = CASE WHEN answer LIKE 'refused:%' THEN substr(answer, 10) END
    WHERE x.workspace_uri = w.workspace_uri;
    RETURN answer;
END;
$$;
COMMENT ON FUNCTION fsd_root_seen(text, text, text, bigint, bigint) IS
'mcp-notes-fsd: what to make of the marker found in a root: ok, "marker M" to write, or the refusal (recorded in file_workspaces.refused)';

-- What the database knows of a workspace's files, for the daemon to
-- compare its scans with.
CREATE OR REPLACE FUNCTION fsd_known(volume text, workspace text)
RETURNS TABLE (rel_path text, dev bigint, ino bigint, size bigint, mtime_ns bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _fsd_check(volume);
    RETURN QUERY SELECT f.rel_path, f.dev, f.ino, f.size, f.mtime_ns
                 FROM file_notes f JOIN file_workspaces w USING (workspace_uri)
                 WHERE f.workspace_uri = workspace AND w.volume = fsd_known.volume;
END;
$$;
COMMENT ON FUNCTION fsd_known(text, text) IS
'mcp-notes-fsd: path and identity of every file the database knows in a workspace of its volume';

-- Everything the daemon has to do: delete intents and trashed deletes
-- (oldest first), then writes of notes changed through the database.
-- For a write, op_id names its temporary file and content is the file.
CREATE OR REPLACE FUNCTION fsd_pending(volume text)
RETURNS TABLE (op_id text, kind text, status text, workspace text, rel_path text, dev bigint, ino bigint,
               size bigint, mtime_ns bigint, content text, note_id text, seq bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _fsd_check(volume);
    RETURN QUERY
    SELECT o.op_id, o.kind, o.status, o.workspace_uri, o.rel_path, o.dev, o.ino, o.size, o.mtime_ns,
           NULL::text, o.note_id, NULL::bigint
    FROM file_ops o
    WHERE o.volume = fsd_pending.volume AND o.status IN ('intent', 'trashed')
    ORDER BY o.created_at;
    RETURN QUERY
    SELECT 'w' || f.write_seq || '-' || f.note_id, 'write'::text, 'intent'::text, f.workspace_uri, f.rel_path,
           f.dev, f.ino, f.size, f.mtime_ns, _file_render(f.rel_path, n.title, n.body, f.heading), f.note_id, f.write_seq
    FROM file_notes f JOIN file_workspaces w USING (workspace_uri) JOIN notes n USING (note_id)
    WHERE w.volume = fsd_pending.volume AND f.write_seq > f.written_seq
      AND NOT EXISTS (SELECT 1 FROM file_ops o WHERE o.note_id = f.note_id AND o.kind = 'delete' AND o.status = 'intent')
    ORDER BY f.workspace_uri, f.rel_path;
END;
$$;
COMMENT ON FUNCTION fsd_pending(text) IS
'mcp-notes-fsd: the unfinished file operations of its volume: delete intents and trashed deletes, then pending writes with the file content';
