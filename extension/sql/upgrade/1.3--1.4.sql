-- mcp_notes 1.3 -> 1.4: the hand-written DDL of this release.  The built
-- upgrade script is this file between the primitives (src/0*) and the rest
-- of src/, so every function, trigger function and registry row of 1.4 is
-- (re)created from the same text as a fresh install; what must be done
-- here is only what src/ cannot say: new tables and columns (the same as in
-- tables/), dropped or re-typed functions, changed triggers and data
-- migrations.  Each change of the release has its own section.

-------------------------------------------------------------------------------
-- Title key counts: summed in backend memory, counted down on update and
-- delete (issue 18, items 1 and 4)
-------------------------------------------------------------------------------

-- _note_title_keys_written (now C) kept its sums in a temporary table of the
-- session, which a gateway role could create first with code of its own.
-- Deleted notes' keys wait in title_key_decrements for prune_spent_states().
CREATE TABLE title_key_decrements (
    decrement_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    shard         smallint NOT NULL,
    title_keys    bigint[] NOT NULL
);
COMMENT ON TABLE title_key_decrements IS
'Title search: the title keys of deleted notes, not yet taken from title_key_counts (prune_spent_states() folds them in)';
COMMENT ON TABLE title_key_counts IS
'Title search: how many notes have each title key (per shard), kept by triggers on notes; deletes are taken off by prune_spent_states()';
CREATE TRIGGER notes_title_keys_deleted AFTER DELETE ON notes
    FOR EACH ROW EXECUTE FUNCTION _note_title_keys_deleted();
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_deleted;
-- 1.3 never counted down: the counts start exact
SELECT recount_title_keys();

-- The 2025 era as an adapter over handle() (adapter): pending requests are
-- bound to the token that opened them; _handle takes the credential's hash;
-- one privilege list replaces _grant_legacy_sessions; the 1.3 entry points
-- become wrappers (recreated by src/ with other bodies, same signatures).
ALTER TABLE legacy_pending ADD COLUMN opened_by bytea;
CREATE INDEX legacy_pending_opened_by ON legacy_pending (opened_by);
DROP FUNCTION _handle(text, jsonb);
DROP FUNCTION _grant_legacy_sessions(regrole, boolean);
DROP FUNCTION _legacy_session_open(text, text, jsonb, jsonb, interval);
DROP FUNCTION _legacy_session_check(text, text);
DROP FUNCTION _legacy_session_close(text, text);
DROP FUNCTION _legacy_pending_open(text, text, jsonb, interval);
DROP FUNCTION _legacy_answer(text, text, jsonb);
DROP FUNCTION _legacy_pending_take(text, bigint, boolean);

-------------------------------------------------------------------------------
-- Change notifications across gateways and logging, in both eras (notify,
-- issue 23): the watch key, listen streams, 2025-era subscriptions and the
-- session's log level, as in tables/550_subscriptions.sql.  The triggers on
-- notes, grants, tokens and listen_streams are src/550_change_feed.sql's.
-------------------------------------------------------------------------------

CREATE TABLE watch_key (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    secret    bytea NOT NULL CHECK (length(secret) OPERATOR(pg_catalog.=) 32)
);
COMMENT ON TABLE watch_key IS
'The secret of the watch keys the change feed notifies (16 bytes of SHA-256 over it and a canonical URI); one row, owner only';
INSERT INTO watch_key (secret) VALUES (_random_bytes(32));

CREATE TABLE listen_streams (
    stream_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    principal     text NOT NULL,
    opened_by     bytea,
    session_hash  bytea REFERENCES legacy_sessions ON DELETE CASCADE,
    gateway_id    text,
    watched       jsonb NOT NULL DEFAULT '[]',
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_until   timestamptz NOT NULL
);
CREATE INDEX listen_streams_principal ON listen_streams (principal, lease_until);
CREATE INDEX listen_streams_lease ON listen_streams (lease_until);
CREATE INDEX listen_streams_opened_by ON listen_streams (opened_by);
CREATE UNIQUE INDEX listen_streams_one_per_session ON listen_streams (session_hash);
COMMENT ON TABLE listen_streams IS
'Open streams of change notifications (subscriptions/listen, the 2025-era GET stream), leased by the gateway that holds each';

CREATE TABLE legacy_subscriptions (
    session_hash  bytea NOT NULL REFERENCES legacy_sessions ON DELETE CASCADE,
    watched_uri   text NOT NULL,
    sent          text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (session_hash, watched_uri)
);
COMMENT ON TABLE legacy_subscriptions IS
'2025-era resources/subscribe of a session: the canonical URI watched and the URI as the client sent it';

ALTER TABLE legacy_sessions ADD COLUMN log_level text
    CHECK (log_level OPERATOR(pg_catalog.=) ANY (ARRAY['debug', 'info', 'notice', 'warning', 'error', 'critical',
                                                      'alert', 'emergency']));
COMMENT ON COLUMN legacy_sessions.log_level IS
'The level logging/setLevel set (messages at or above it go to the session''s requests); NULL: none sent';

-------------------------------------------------------------------------------
-- File-backed workspaces (docs/file-workspaces.md): the tables of
-- tables/600_file_workspaces.sql, word for word
-------------------------------------------------------------------------------
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

-------------------------------------------------------------------------------
-- harden: one argument checker, one opener of sealed tokens (issue 19.3)
-------------------------------------------------------------------------------

-- The notes tools' and notes_delete's argument checks take the request and
-- read the tool's registered inputSchema (_tool_arguments) instead of lists
-- of names; the new signatures are created by src/.
DROP FUNCTION _notes_arguments(text, text, jsonb, text[], text[]);
DROP FUNCTION _delete_arguments(jsonb);

-- A tool that writes notes names its own change_audit action (notes_move:
-- move), so adding one needs no change to the table (DEVELOPING.md,
-- "Adding a tool").
ALTER TABLE change_audit DROP CONSTRAINT change_audit_action_check;
ALTER TABLE change_audit ADD CONSTRAINT change_audit_action_check
    CHECK (action OPERATOR(pg_catalog.~) '^[a-z][a-z_]{0,31}$');
COMMENT ON TABLE change_audit IS
'Append-only record of every note written by the notes tools (action create, update, move: the tool says which): who, what, when, from which gateway';
COMMENT ON COLUMN change_audit.action IS 'What the tool did to the note, named by the tool: create, update, move';
COMMENT ON COLUMN change_audit.fields IS 'The fields the call wrote: title, body (create: both), uri (move)';
