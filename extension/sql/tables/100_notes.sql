-------------------------------------------------------------------------------
-- Tables
-------------------------------------------------------------------------------

CREATE TABLE workspaces (
    uri         text PRIMARY KEY
                CHECK (uri OPERATOR(pg_catalog.=) normalize_uri(uri)),
    created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE workspaces IS 'Workspaces an operator registered; uri is normalized';

CREATE TABLE grants (
    principal     text NOT NULL CHECK (principal OPERATOR(pg_catalog.<>) ''),
    workspace_uri text NOT NULL REFERENCES workspaces (uri) ON DELETE CASCADE,
    granted_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (principal, workspace_uri)
);
COMMENT ON TABLE grants IS 'Which principal may use which workspace (and every folder inside it)';

CREATE TABLE tokens (
    token_hash  bytea PRIMARY KEY,
    principal   text NOT NULL CHECK (principal OPERATOR(pg_catalog.<>) ''),
    issued_at   timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
COMMENT ON TABLE tokens IS 'Bearer tokens, stored as SHA-256 of the token text; the token itself is shown once by issue_token';

CREATE TABLE notes (
    note_id     text PRIMARY KEY DEFAULT (pg_catalog.gen_random_uuid())::text,
    uri         text NOT NULL UNIQUE
                CHECK (uri OPERATOR(pg_catalog.=) normalize_uri(uri)),
    title       text NOT NULL,
    body        text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE notes IS 'Notes; a note is in every workspace whose URI contains its URI';
-- URIs compared byte-wise make "everything under this folder" one btree
-- range, whatever the database's collation.
CREATE INDEX notes_uri_bytewise ON notes ((uri COLLATE "C"));

-- fastupdate = off: a pending list would be scanned linearly by every search
-- until the next vacuum; notes are added far less often than searched.
CREATE INDEX notes_title_keys ON notes USING gin (_title_keys(uri, title)) WITH (fastupdate = off);

-- How many notes have each key (an upper bound: a delete is taken off only
-- when prune_spent_states() folds title_key_decrements in).  Split into 8
-- shards by note id, so two writers in one folder seldom update the same row.
CREATE TABLE title_key_counts (
    title_key  bigint NOT NULL,
    shard      smallint NOT NULL,
    notes      bigint NOT NULL,
    PRIMARY KEY (title_key, shard)
);
COMMENT ON TABLE title_key_counts IS
'Title search: how many notes have each title key (per shard), kept by triggers on notes; deletes are taken off by prune_spent_states()';

-- The keys of deleted notes, until prune_spent_states() takes them from the
-- counts: deletes only insert here, so concurrent deletes never contend.
CREATE TABLE title_key_decrements (
    decrement_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    shard         smallint NOT NULL,
    title_keys    bigint[] NOT NULL
);
COMMENT ON TABLE title_key_decrements IS
'Title search: the title keys of deleted notes, not yet taken from title_key_counts (prune_spent_states() folds them in)';

CREATE TRIGGER notes_title_keys_added AFTER INSERT ON notes
    FOR EACH ROW EXECUTE FUNCTION _note_title_keys_written();
CREATE TRIGGER notes_title_keys_changed AFTER UPDATE OF uri, title ON notes
    FOR EACH ROW WHEN (OLD.uri IS DISTINCT FROM NEW.uri OR OLD.title IS DISTINCT FROM NEW.title)
    EXECUTE FUNCTION _note_title_keys_written();
CREATE CONSTRAINT TRIGGER notes_title_keys_counted AFTER INSERT OR UPDATE OF uri, title ON notes
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION _count_title_keys();
CREATE TRIGGER notes_title_keys_deleted AFTER DELETE ON notes
    FOR EACH ROW EXECUTE FUNCTION _note_title_keys_deleted();
-- also where the notes arrive by logical replication
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_added;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_changed;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_counted;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_deleted;

CREATE TRIGGER notes_size BEFORE INSERT OR UPDATE OF title, body ON notes
    FOR EACH ROW EXECUTE FUNCTION _check_note_size();
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_size;

CREATE TRIGGER tokens_changed
    AFTER UPDATE OR DELETE OR TRUNCATE ON tokens
    FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
-- also in replica mode (logical replication, some restore tools)
ALTER TABLE tokens ENABLE ALWAYS TRIGGER tokens_changed;

-- pg_dump keeps operator data; keys and nonces are not dumped on purpose: a
-- restored database gets a fresh key from this script, so states issued
-- before the dump simply stop verifying.
SELECT pg_catalog.pg_extension_config_dump('workspaces', '');
SELECT pg_catalog.pg_extension_config_dump('grants', '');
SELECT pg_catalog.pg_extension_config_dump('tokens', '');
SELECT pg_catalog.pg_extension_config_dump('notes', '');
