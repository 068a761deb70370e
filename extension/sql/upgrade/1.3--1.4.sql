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
