-- The hash chain over the audit tables (docs/security.md, "The audit
-- chain").  Writers never touch the chain: an audit row's insert only
-- queues its key in audit_pending (a trigger, src/500_audit_chain.sql), and
-- audit_tick(), off the request path, links the committed rows it finds in
-- audit_chain.  So concurrent writers share no row and read no range the
-- others insert into.

-- The audit tables the chain covers, by name (each has audit_id bigint and
-- at timestamptz).  Rows are upserts in src/ (_chain_audit_table), so they
-- are not dumped: the restored extension's script writes them again.
CREATE TABLE audit_sources (
    source    text PRIMARY KEY CHECK (source OPERATOR(pg_catalog.~) '^[a-z][a-z0-9_]{0,62}$')
);
COMMENT ON TABLE audit_sources IS
'The audit tables the hash chain covers (each with audit_id bigint and at timestamptz); written by _chain_audit_table';

-- Audit rows not yet linked, in the order their inserts ran.  Not dumped:
-- restoring the audit tables queues their rows again (the trigger fires on
-- COPY), and the chaining step drops entries that are already linked.
CREATE TABLE audit_pending (
    queue_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source    text NOT NULL,
    audit_id  bigint NOT NULL
);
COMMENT ON TABLE audit_pending IS
'Audit rows written but not yet linked into audit_chain; emptied by audit_tick()';

-- One link per audit row: digest = sha256(previous link's digest ||
-- the row's canonical encoding), seq gapless from 1 (_audit_link_digest).
CREATE TABLE audit_chain (
    seq         bigint PRIMARY KEY CHECK (seq OPERATOR(pg_catalog.>) 0),
    source      text NOT NULL,
    audit_id    bigint NOT NULL,
    digest      bytea NOT NULL CHECK (pg_catalog.length(digest) OPERATOR(pg_catalog.=) 32),
    chained_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source, audit_id)
);
COMMENT ON TABLE audit_chain IS
'The audit hash chain: link seq covers one audit row (source, audit_id); digest is sha256 of the previous digest and the row''s canonical encoding. Append-only; verify_audit() recomputes it';
CREATE TRIGGER audit_chain_append_only
    BEFORE UPDATE ON audit_chain
    FOR EACH STATEMENT EXECUTE FUNCTION _audit_is_append_only();
ALTER TABLE audit_chain ENABLE ALWAYS TRIGGER audit_chain_append_only;

SELECT pg_catalog.pg_extension_config_dump('audit_chain', '');

-- The operator's acts that the tool audits do not see, audited and chained
-- like them: restore (restore_note_version), prune_versions
-- (prune_note_versions), policy (set_version_policy) and prune_audit
-- (prune_audit: old audit rows and their links removed; detail keeps the
-- seq and digest the chain is verified from afterwards).  actor is the
-- database role that acted.
CREATE TABLE operator_audit (
    audit_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor       text NOT NULL,
    action      text NOT NULL CHECK (action IN ('restore', 'prune_versions', 'policy', 'prune_audit')),
    note_id     text,
    note_uri    text,
    title       text,
    version_id  bigint,
    updated_at  timestamptz,
    detail      jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX operator_audit_at ON operator_audit (at);
COMMENT ON TABLE operator_audit IS
'Append-only record of the operator''s acts on versions and on the audit itself: restore, prune_versions, policy, prune_audit; who (actor, the database role), what, when; hash-chained like the other audit tables';
COMMENT ON COLUMN operator_audit.version_id IS 'restore: the version brought back';
COMMENT ON COLUMN operator_audit.updated_at IS 'restore: the note''s updatedAt after the restore';
COMMENT ON COLUMN operator_audit.detail IS 'restore: recreated, keptVersion; prune_versions: cutoff, versions, bytes; policy: before, after; prune_audit: cutoff, throughSeq, throughDigest, rows';
CREATE TRIGGER operator_audit_append_only
    BEFORE UPDATE ON operator_audit
    FOR EACH STATEMENT EXECUTE FUNCTION _audit_is_append_only();
ALTER TABLE operator_audit ENABLE ALWAYS TRIGGER operator_audit_append_only;
SELECT pg_catalog.pg_extension_config_dump('operator_audit', '');
SELECT pg_catalog.pg_extension_config_dump(pg_catalog.pg_get_serial_sequence('mcp_notes.operator_audit', 'audit_id'), '');
