-------------------------------------------------------------------------------
-- File-backed workspaces: tables (docs/file-workspaces.md)
-------------------------------------------------------------------------------

-- A storage volume is what one mcp-notes-fsd daemon serves; the daemon logs
-- in as daemon_role (grant_fsd), which can do nothing but call the fsd_*
-- entry points for this volume.
CREATE TABLE file_volumes (
    name         text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    daemon_role  name NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE file_volumes IS
'Storage volumes of file-backed workspaces, each served by one mcp-notes-fsd logging in as daemon_role';

-- A workspace whose notes are the regular .md files below root_path (a
-- relative path below the daemon's --base).  marker is written into the
-- root as .mcp-workspace the first time the daemon attaches it; a root
-- without it later (a new, empty volume after a failover) is refused, never
-- taken for "every note was removed".
CREATE TABLE file_workspaces (
    workspace_uri  text PRIMARY KEY REFERENCES workspaces (uri) ON DELETE CASCADE,
    volume         text NOT NULL REFERENCES file_volumes (name),
    root_path      text NOT NULL CHECK (root_path OPERATOR(pg_catalog.=) '.'
                                        OR root_path ~ '^[^/.][^/]*(/[^/.][^/]*)*$'),
    marker         text NOT NULL DEFAULT (pg_catalog.gen_random_uuid())::text,
    attached_at    timestamptz,
    seen_at        timestamptz,
    root_dev       bigint,
    root_ino       bigint,
    refused        text,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX file_workspaces_volume ON file_workspaces (volume);
COMMENT ON TABLE file_workspaces IS
'Workspaces whose notes are files below root_path on a volume; refused says why the daemon does not serve the root now';

-- The file behind each note of a file-backed workspace: its path below the
-- root and the identity (device, inode, size, mtime in ns) of the version
-- the database knows, NULL until the daemon first wrote or read it.  A
-- change through the database (a tool, add_note) bumps write_seq; the
-- daemon writes the note and records written_seq.
CREATE TABLE file_notes (
    note_id        text PRIMARY KEY REFERENCES notes (note_id) ON DELETE CASCADE,
    workspace_uri  text NOT NULL REFERENCES file_workspaces (workspace_uri) ON DELETE CASCADE,
    rel_path       text NOT NULL,
    dev            bigint,
    ino            bigint,
    size           bigint,
    mtime_ns       bigint,
    heading        boolean NOT NULL DEFAULT true,
    write_seq      bigint NOT NULL DEFAULT 1,
    written_seq    bigint NOT NULL DEFAULT 0,
    UNIQUE (workspace_uri, rel_path),
    CHECK ((dev IS NULL) = (ino IS NULL) AND (dev IS NULL) = (size IS NULL) AND (dev IS NULL) = (mtime_ns IS NULL))
);
CREATE INDEX file_notes_to_write ON file_notes (workspace_uri) WHERE write_seq > written_seq;
CREATE INDEX file_notes_inode ON file_notes (workspace_uri, ino, dev);
COMMENT ON TABLE file_notes IS
'The file behind each note of a file-backed workspace: path below the root, identity of the version known, writes pending';

-- The write-ahead record of every file operation that cannot be undone by
-- the database alone: a confirmed delete (notes_delete spends the nonce and
-- inserts the intent in one serializable transaction), and a write that
-- the disk refused (kept as a conflict for the operator).  status:
--   intent    recorded; the daemon has not yet moved the file to the trash
--   trashed   the file is in <root>/.mcp-trash, the note row deleted, audited
--   done      unlinked from the trash
--   conflict  nothing removed: the file was not the one confirmed (changed,
--             replaced, a symlink ...); for a write, the disk's version kept
--   missing   nothing removed: no file at that path any more
CREATE TABLE file_ops (
    op_id          text PRIMARY KEY DEFAULT (pg_catalog.gen_random_uuid())::text,
    kind           text NOT NULL CHECK (kind IN ('delete', 'write')),
    status         text NOT NULL CHECK (status IN ('intent', 'trashed', 'done', 'conflict', 'missing')),
    volume         text NOT NULL,
    workspace_uri  text NOT NULL,
    note_id        text NOT NULL,
    note_uri       text NOT NULL,
    title          text,
    rel_path       text NOT NULL,
    dev            bigint,
    ino            bigint,
    size           bigint,
    mtime_ns       bigint,
    principal      text,
    nonce          text UNIQUE,
    asked_in       text,
    request        jsonb,
    detail         text,
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (kind OPERATOR(pg_catalog.<>) 'delete' OR (principal IS NOT NULL AND nonce IS NOT NULL))
);
CREATE UNIQUE INDEX file_ops_one_intent ON file_ops (note_id) WHERE kind = 'delete' AND status = 'intent';
CREATE INDEX file_ops_open ON file_ops (volume, created_at) WHERE status IN ('intent', 'trashed');
COMMENT ON TABLE file_ops IS
'Write-ahead record of file deletes (intent, trashed, done, or conflict/missing: nothing removed) and of writes the disk refused';
COMMENT ON COLUMN file_ops.request IS 'The request ids of the confirming call (requestId, gatewayId, client info), for the audit row';

-- file_notes is not dumped: it is derived (the trigger on notes makes a
-- row for every restored note, and the daemon confirms each against its
-- file), and a dumped copy would collide with those rows on restore.
SELECT pg_catalog.pg_extension_config_dump('file_volumes', '');
SELECT pg_catalog.pg_extension_config_dump('file_workspaces', '');
SELECT pg_catalog.pg_extension_config_dump('file_ops', '');
