-- Note versions (docs/operations.md, "Note versions"): the text a tool
-- write replaced or deleted, kept in the same transaction, for a retention
-- the operator sets; pruned only by prune_note_versions().

-- One row per version kept.  updated_at is the version's own updatedAt
-- (what the note said while this text was current); kept_at when it was
-- replaced (reason update or restore) or deleted (reason delete).
-- principal is whose tool call replaced it (NULL: an operator's restore);
-- bytes is what the principal's version budget counts.
CREATE TABLE kept_versions (
    version_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    note_id     text NOT NULL,
    uri         text NOT NULL,
    title       text NOT NULL,
    body        text NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    kept_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    reason      text NOT NULL CHECK (reason IN ('update', 'delete', 'restore')),
    principal   text,
    bytes       bigint NOT NULL
                GENERATED ALWAYS AS (pg_catalog.octet_length(title) OPERATOR(pg_catalog.+) pg_catalog.octet_length(body)) STORED
);
CREATE INDEX kept_versions_note_id ON kept_versions (note_id, version_id);
COMMENT ON TABLE kept_versions IS
'Note versions: the title and body a notes_update replaced or a notes_delete removed (or a restore replaced), kept for the retention of version_policy; note_versions(note) lists them, restore_note_version(id) brings one back';
COMMENT ON COLUMN kept_versions.updated_at IS 'The version''s own updatedAt: the note''s updated_at while this text was current';
COMMENT ON COLUMN kept_versions.kept_at IS 'When the text was replaced or deleted; the retention counts from here';
COMMENT ON COLUMN kept_versions.principal IS 'The principal whose tool call replaced or deleted it (NULL: an operator''s restore_note_version)';
COMMENT ON COLUMN kept_versions.bytes IS 'octet_length(title) + octet_length(body): what the principal''s version budget counts';

-- Versions kept but not yet counted in version_usage: writers only insert
-- here, so two writes of one principal never update one row; audit_tick()
-- (and every prune) folds them in.
CREATE TABLE version_pending (
    pending_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    principal   text NOT NULL,
    bytes       bigint NOT NULL
);
COMMENT ON TABLE version_pending IS
'Version bytes kept but not yet added to version_usage (folded in by audit_tick() and prune_note_versions())';

-- Per principal: the bytes of its versions kept, as of the last fold.  A
-- notes_update is refused when this plus the version it would keep passes
-- the budget; what was kept since the last fold is not seen yet (the
-- bounded overshoot of docs/operations.md).
CREATE TABLE version_usage (
    principal   text PRIMARY KEY,
    bytes       bigint NOT NULL DEFAULT 0,
    versions    bigint NOT NULL DEFAULT 0,
    folded_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE version_usage IS
'Per principal: bytes and number of versions kept, as of the last fold of version_pending; what the version budget is checked against';

-- The operator's policy, one row or none (then the defaults: 30 days, 100
-- MiB).  Written only through set_version_policy(), which is audited
-- (operator_audit).  No seed row, so a restore (which dumps the row)
-- never meets one.
CREATE TABLE version_policy (
    singleton         boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    retention         interval NOT NULL CHECK (retention OPERATOR(pg_catalog.>=) interval '0'),
    principal_budget  bigint NOT NULL CHECK (principal_budget OPERATOR(pg_catalog.>=) 0),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE version_policy IS
'How long versions are kept before prune_note_versions() may remove them, and each principal''s version budget in bytes (no row: 30 days, 100 MiB); written by set_version_policy()';

-- Versions are operator data: dumped with their accounting, so a restored
-- database keeps every version and its budget.
SELECT pg_catalog.pg_extension_config_dump('kept_versions', '');
SELECT pg_catalog.pg_extension_config_dump(pg_catalog.pg_get_serial_sequence('mcp_notes.kept_versions', 'version_id'), '');
SELECT pg_catalog.pg_extension_config_dump('version_pending', '');
SELECT pg_catalog.pg_extension_config_dump(pg_catalog.pg_get_serial_sequence('mcp_notes.version_pending', 'pending_id'), '');
SELECT pg_catalog.pg_extension_config_dump('version_usage', '');
SELECT pg_catalog.pg_extension_config_dump('version_policy', '');
