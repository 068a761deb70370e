-------------------------------------------------------------------------------
-- File-backed workspaces: the operator API (docs/operations.md, "Registering
-- a directory")
-------------------------------------------------------------------------------

-- The fsd_* entry points a daemon role may execute: its only rights.
CREATE OR REPLACE FUNCTION _fsd_entry_points() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT ARRAY['fsd_attach(text)', 'fsd_root_seen(text, text, text, bigint, bigint)', 'fsd_known(text, text)',
                 'fsd_sync(text, text, jsonb)', 'fsd_pending(text)', 'fsd_trashed(text, text)',
                 'fsd_failed(text, text, text, text)', 'fsd_done(text, text)',
                 'fsd_written(text, text, bigint, bigint, bigint, bigint, bigint)',
                 'fsd_write_failed(text, text, bigint, text)']
$$;
COMMENT ON FUNCTION _fsd_entry_points() IS
'Internal: the signatures of the entry points of mcp-notes-fsd, all that a daemon role (add_file_volume) may execute';

-- A volume and the role its daemon logs in as.  The role gets USAGE on the
-- schema and EXECUTE on the fsd_* entry points, nothing else; its calls are
-- serializable like every writer of notes, and its bind parameters (note
-- bodies) stay out of the server log.
CREATE OR REPLACE FUNCTION add_file_volume(name text, daemon_role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    entry text;
BEGIN
    IF name IS NULL OR name !~ '^[a-z0-9][a-z0-9_-]{0,62}$' THEN
        RAISE EXCEPTION 'invalid volume name "%"', name
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A volume name is 1 to 63 lower-case letters, digits, "_" or "-", starting with a letter or digit.';
    END IF;
    INSERT INTO file_volumes AS v (name, daemon_role)
    VALUES (add_file_volume.name, (SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid = daemon_role))
    ON CONFLICT ON CONSTRAINT file_volumes_pkey DO UPDATE SET daemon_role = excluded.daemon_role;
    EXECUTE format('GRANT USAGE ON SCHEMA mcp_notes TO %s', daemon_role);
    FOREACH entry IN ARRAY _fsd_entry_points() LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.%s TO %s', entry, daemon_role);
    END LOOP;
    EXECUTE format('ALTER ROLE %s SET default_transaction_isolation = %L', daemon_role, 'serializable');
    EXECUTE format('ALTER ROLE %s SET log_parameter_max_length = 0', daemon_role);
    EXECUTE format('ALTER ROLE %s SET log_parameter_max_length_on_error = 0', daemon_role);
END;
$$;
COMMENT ON FUNCTION add_file_volume(text, regrole) IS
'Registers a storage volume served by one mcp-notes-fsd, which logs in as daemon_role: that role may execute the fsd_* entry points (for this volume) and nothing else';

-- Registering a directory: the workspace (made if it does not exist) takes
-- its notes from the files below root_path, a path relative to the
-- daemon's --base.  It must hold no notes yet, and neither its URI nor its
-- root may contain or lie inside another file-backed workspace's (a file
-- has one owner).
CREATE OR REPLACE FUNCTION add_file_workspace(uri text, volume text, root_path text) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(uri, 'workspace');
BEGIN
    IF NOT EXISTS (SELECT 1 FROM file_volumes v WHERE v.name = add_file_workspace.volume) THEN
        RAISE EXCEPTION 'volume "%" does not exist', volume
            USING ERRCODE = 'no_data_found', HINT = 'Register it first with mcp_notes.add_file_volume(name, role).';
    END IF;
    IF root_path IS NULL OR NOT (root_path = '.' OR root_path ~ '^[^/.][^/]*(/[^/.][^/]*)*$') THEN
        RAISE EXCEPTION 'invalid root path "%"', root_path
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A root is a path relative to the daemon''s --base ("." for the base itself), without "." or ".." components, hidden names or an empty component.';
    END IF;
    IF EXISTS (SELECT 1 FROM file_workspaces w
               WHERE uri_contains(w.workspace_uri, normalized) OR uri_contains(normalized, w.workspace_uri)) THEN
        RAISE EXCEPTION 'workspace % overlaps a file-backed workspace', normalized
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A file-backed workspace can neither contain nor lie inside another one.';
    END IF;
    IF EXISTS (SELECT 1 FROM file_workspaces w
               WHERE w.volume = add_file_workspace.volume
                 AND (w.root_path = add_file_workspace.root_path OR w.root_path = '.'
                      OR add_file_workspace.root_path = '.'
                      OR starts_with(add_file_workspace.root_path, w.root_path || '/')
                      OR starts_with(w.root_path, add_file_workspace.root_path || '/'))) THEN
        RAISE EXCEPTION 'root % overlaps the root of another workspace on volume "%"', root_path, volume
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Each file of a volume belongs to one workspace: roots can neither be the same nor lie inside one another.';
    END IF;
    IF EXISTS (SELECT 1 FROM notes n WHERE uri_contains(normalized, n.uri)) THEN
        RAISE EXCEPTION 'workspace % already holds notes', normalized
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A file-backed workspace takes its notes from its directory; the notes in the database under this URI would have no file.';
    END IF;
    INSERT INTO workspaces (uri) VALUES (normalized) ON CONFLICT DO NOTHING;
    INSERT INTO file_workspaces (workspace_uri, volume, root_path) VALUES (normalized, volume, root_path);
    PERFORM pg_catalog.pg_notify('mcp_notes_fsd', volume);
    RETURN normalized;
END;
$$;
COMMENT ON FUNCTION add_file_workspace(text, text, text) IS
'Registers a directory as a workspace: its notes are the .md files below root_path (relative to the daemon''s --base) on the volume; returns the normalized URI';

-- After a failover to a host whose volume lacks the workspace's files, or
-- a restore into another directory, the daemon refuses the root (no
-- marker, or another one).  Once the right files are in place, this lets
-- the daemon take the directory now at the root as the workspace's: it
-- writes a new marker there (in place of any) and the next scan makes the
-- notes match the files (notes whose file is not there are removed).
CREATE OR REPLACE FUNCTION reattach_file_workspace(uri text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(uri, 'workspace');
    vol text;
BEGIN
    UPDATE file_workspaces w
    SET marker = (pg_catalog.gen_random_uuid())::text, attached_at = NULL, refused = NULL
    WHERE w.workspace_uri = normalized
    RETURNING w.volume INTO vol;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'workspace % is not file-backed', normalized USING ERRCODE = 'no_data_found';
    END IF;
    PERFORM pg_catalog.pg_notify('mcp_notes_fsd', vol);
END;
$$;
COMMENT ON FUNCTION reattach_file_workspace(text) IS
'Lets the daemon take the directory now at a file workspace''s root as the workspace''s (after a failover or a restore): a new marker, then the notes follow the files';
