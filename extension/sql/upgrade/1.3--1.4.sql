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
-- The audit hash chain and note versions (issue 22, audit): the same DDL as
-- tables/500_audit_chain.sql and tables/510_versions.sql; the version an
-- update was based on in change_audit; and every audit row of 1.3 queued,
-- oldest first, so the first audit_tick() links the history from before
-- the upgrade too.
-------------------------------------------------------------------------------

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

ALTER TABLE change_audit ADD COLUMN expected_updated_at timestamptz;
COMMENT ON COLUMN change_audit.expected_updated_at IS
'The expectedUpdatedAt the update was given (the version the caller had read); NULL: an unconfirmed write';

INSERT INTO audit_pending (source, audit_id)
SELECT a.source, a.audit_id
FROM (SELECT 'delete_audit' AS source, d.audit_id, d.at FROM delete_audit d
      UNION ALL
      SELECT 'change_audit', c.audit_id, c.at FROM change_audit c) a
ORDER BY a.at, a.source, a.audit_id;

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

-------------------------------------------------------------------------------
-- OAuth resource server (issue 20): the resource, the issuers and their
-- keys, the identity mappings; the acting token on the audit rows.  The same
-- DDL as tables/400_oauth.sql.
-------------------------------------------------------------------------------

-- The public URL of the MCP endpoint (every gateway's --public-url): the
-- RFC 8707 resource, which a JWT's aud must contain.  One row, or none
-- (then no JWT is accepted; operator tokens work as before).
CREATE TABLE oauth_resource (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    resource       text NOT NULL CHECK (_oauth_url_problem(resource) IS NULL),
    max_clock_skew interval NOT NULL DEFAULT '60 seconds'
                   CHECK (max_clock_skew >= '0 seconds' AND max_clock_skew <= '5 minutes'),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE oauth_resource IS
'The OAuth resource (RFC 8707) this database serves: the public URL of the MCP endpoint, which every accepted JWT''s aud contains; and the clock skew allowed for exp, nbf and iat';

CREATE TABLE oauth_issuers (
    issuer          text PRIMARY KEY CHECK (_oauth_url_problem(issuer) IS NULL),
    metadata_url    text NOT NULL CHECK (_oauth_url_problem(metadata_url) IS NULL),
    algorithms      text[] NOT NULL DEFAULT '{ES256,RS256,EdDSA}'
                    CHECK (cardinality(algorithms) > 0 AND algorithms <@
                           '{RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA}'::text[]),
    auto_provision  boolean NOT NULL DEFAULT false,
    added_at        timestamptz NOT NULL DEFAULT now(),
    jwks_uri        text,
    keys_fetched_at timestamptz,
    fetch_failed_at timestamptz,
    fetch_problem   text
);
COMMENT ON TABLE oauth_issuers IS
'Authorization servers whose JWT access tokens are accepted: iss exactly, the algorithms allowed, whether an unknown subject gets a principal of its own (with no grants); the key fetcher''s last result';

CREATE TABLE oauth_keys (
    issuer     text NOT NULL REFERENCES oauth_issuers ON DELETE CASCADE ON UPDATE CASCADE,
    kid        text NOT NULL CHECK (length(kid) BETWEEN 1 AND 200),
    jwk        jsonb NOT NULL,
    first_seen timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, kid)
);
COMMENT ON TABLE oauth_keys IS
'The issuers'' public signing keys (JWKs, public members only) as the key fetcher last read them from each jwks_uri; written only through jwks_store';

CREATE TABLE oauth_identities (
    issuer      text NOT NULL REFERENCES oauth_issuers ON DELETE CASCADE ON UPDATE CASCADE,
    subject     text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    principal   text NOT NULL,
    provisioned boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX oauth_identities_principal ON oauth_identities (principal);
COMMENT ON TABLE oauth_identities IS
'Which principal a token''s (iss, sub) acts as: mapped by an operator (map_oauth_identity), or provisioned on first use for an issuer with auto_provision (a principal of its own, no grants)';

-- A change that can take an acceptance back (a key changed or gone, an
-- identity unmapped, an issuer removed or restricted, another resource)
-- reaches the gateways' token caches at commit, as a change to tokens does.
-- Row triggers: a statement that changes nothing (the key fetcher's
-- periodic store of the same keys) notifies nobody.
CREATE TRIGGER oauth_resource_changed AFTER UPDATE ON oauth_resource FOR EACH ROW
    WHEN (OLD.resource IS DISTINCT FROM NEW.resource OR OLD.max_clock_skew IS DISTINCT FROM NEW.max_clock_skew)
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_resource_deleted AFTER DELETE ON oauth_resource FOR EACH ROW EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_issuers_changed AFTER UPDATE ON oauth_issuers FOR EACH ROW
    WHEN (OLD.issuer IS DISTINCT FROM NEW.issuer OR OLD.algorithms IS DISTINCT FROM NEW.algorithms)
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_issuers_deleted AFTER DELETE ON oauth_issuers FOR EACH ROW EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_keys_changed AFTER UPDATE OR DELETE ON oauth_keys FOR EACH ROW
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_identities_changed AFTER UPDATE OR DELETE ON oauth_identities FOR EACH ROW
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_resource FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_issuers FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_keys FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_identities FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
ALTER TABLE oauth_resource ENABLE ALWAYS TRIGGER oauth_resource_changed, ENABLE ALWAYS TRIGGER oauth_resource_deleted,
    ENABLE ALWAYS TRIGGER oauth_truncated;
ALTER TABLE oauth_issuers ENABLE ALWAYS TRIGGER oauth_issuers_changed, ENABLE ALWAYS TRIGGER oauth_issuers_deleted,
    ENABLE ALWAYS TRIGGER oauth_truncated;
ALTER TABLE oauth_keys ENABLE ALWAYS TRIGGER oauth_keys_changed, ENABLE ALWAYS TRIGGER oauth_truncated;
ALTER TABLE oauth_identities ENABLE ALWAYS TRIGGER oauth_identities_changed, ENABLE ALWAYS TRIGGER oauth_truncated;

-- Operator configuration is dumped; keys are not (the fetcher reads them
-- again from the issuers).
SELECT pg_catalog.pg_extension_config_dump('oauth_resource', '');
SELECT pg_catalog.pg_extension_config_dump('oauth_issuers', '');
SELECT pg_catalog.pg_extension_config_dump('oauth_identities', '');

-- The token that acted, on every audit row: NULL for operator tokens and
-- development principals.
ALTER TABLE delete_audit
    ADD COLUMN token_iss text, ADD COLUMN token_sub text, ADD COLUMN token_client_id text,
    ADD COLUMN token_jti text, ADD COLUMN token_scope text;
ALTER TABLE change_audit
    ADD COLUMN token_iss text, ADD COLUMN token_sub text, ADD COLUMN token_client_id text,
    ADD COLUMN token_jti text, ADD COLUMN token_scope text;
COMMENT ON COLUMN delete_audit.token_iss IS 'The iss of the JWT access token that acted (NULL: an operator token)';
COMMENT ON COLUMN delete_audit.token_sub IS 'The sub of the JWT access token that acted';
COMMENT ON COLUMN delete_audit.token_client_id IS 'The client_id of the JWT access token that acted';
COMMENT ON COLUMN delete_audit.token_jti IS 'The jti of the JWT access token that acted';
COMMENT ON COLUMN delete_audit.token_scope IS 'The scope of the JWT access token that acted, space-separated';
COMMENT ON COLUMN change_audit.token_iss IS 'The iss of the JWT access token that acted (NULL: an operator token)';
COMMENT ON COLUMN change_audit.token_sub IS 'The sub of the JWT access token that acted';
COMMENT ON COLUMN change_audit.token_client_id IS 'The client_id of the JWT access token that acted';
COMMENT ON COLUMN change_audit.token_jti IS 'The jti of the JWT access token that acted';
COMMENT ON COLUMN change_audit.token_scope IS 'The scope of the JWT access token that acted, space-separated';
