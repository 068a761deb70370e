-- Declines and cancels cost the caller nothing but a round trip, so each
-- principal may write a bounded number of their audit rows per hour; the
-- rest are counted here (the summary an operator reads beside the audit).
CREATE TABLE audit_budget (
    principal            text NOT NULL,
    window_start         timestamptz NOT NULL,
    written              integer NOT NULL DEFAULT 0,
    suppressed_declines  bigint NOT NULL DEFAULT 0,
    suppressed_cancels   bigint NOT NULL DEFAULT 0,
    last_suppressed_at   timestamptz,
    PRIMARY KEY (principal, window_start)
);
COMMENT ON TABLE audit_budget IS
'Per principal and hour: decline and cancel audit rows written, and those beyond the budget counted instead of written';

CREATE TABLE delete_audit (
    audit_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    principal     text NOT NULL,
    workspace_uri text NOT NULL,
    note_id       text,
    note_uri      text,
    title         text,
    outcome       text NOT NULL CHECK (outcome IN ('accept', 'decline', 'cancel', 'stale')),
    request_id    text,
    gateway_id    text,
    client_info   jsonb
);
CREATE INDEX delete_audit_at ON delete_audit (at);
COMMENT ON TABLE delete_audit IS
'Append-only record of every notes_delete answer: accept (deleted), decline, cancel, stale (confirmed, but the note was gone, moved or no longer granted)';
COMMENT ON COLUMN delete_audit.client_info IS 'Self-reported by the client; diagnostics only, never identity';

CREATE TRIGGER delete_audit_append_only
    BEFORE UPDATE ON delete_audit
    FOR EACH STATEMENT EXECUTE FUNCTION _audit_is_append_only();

-- Replica mode (session_replication_role = replica: logical replication,
-- some restore tools) skips ordinary triggers; these two must still fire.
ALTER TABLE delete_audit ENABLE ALWAYS TRIGGER delete_audit_append_only;
SELECT pg_catalog.pg_extension_config_dump('delete_audit', '');
SELECT pg_catalog.pg_extension_config_dump(pg_catalog.pg_get_serial_sequence('mcp_notes.delete_audit', 'audit_id'), '');
SELECT pg_catalog.pg_extension_config_dump('audit_budget', '');

-- Creates and updates through the tools, one row each, as delete_audit
-- records deletes.  Refusals change nothing and are not recorded.
CREATE TABLE change_audit (
    audit_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT clock_timestamp(),
    principal     text NOT NULL,
    workspace_uri text NOT NULL,
    note_id       text NOT NULL,
    note_uri      text NOT NULL,
    title         text NOT NULL,
    -- named by the tool that wrote the note (create, update, move, ...):
    -- a new tool audits without a change here
    action        text NOT NULL CHECK (action OPERATOR(pg_catalog.~) '^[a-z][a-z_]{0,31}$'),
    fields        text[] NOT NULL,
    updated_at    timestamptz NOT NULL,
    request_id    text,
    gateway_id    text,
    client_info   jsonb,
    expected_updated_at timestamptz
);
CREATE INDEX change_audit_at ON change_audit (at);
CREATE INDEX change_audit_note_id ON change_audit (note_id);
COMMENT ON TABLE change_audit IS
'Append-only record of every note written by the notes tools (action create, update, move: the tool says which): who, what, when, from which gateway';
COMMENT ON COLUMN change_audit.action IS 'What the tool did to the note, named by the tool: create, update, move';
COMMENT ON COLUMN change_audit.fields IS 'The fields the call wrote: title, body (create: both), uri (move)';
COMMENT ON COLUMN change_audit.updated_at IS 'The note''s version after the write (its updatedAt)';
COMMENT ON COLUMN change_audit.client_info IS 'Self-reported by the client; diagnostics only, never identity';
COMMENT ON COLUMN change_audit.expected_updated_at IS
'The expectedUpdatedAt the update was given (the version the caller had read); NULL: an unconfirmed write';
CREATE TRIGGER change_audit_append_only
    BEFORE UPDATE ON change_audit
    FOR EACH STATEMENT EXECUTE FUNCTION _audit_is_append_only();
ALTER TABLE change_audit ENABLE ALWAYS TRIGGER change_audit_append_only;
SELECT pg_catalog.pg_extension_config_dump('change_audit', '');
SELECT pg_catalog.pg_extension_config_dump(pg_catalog.pg_get_serial_sequence('mcp_notes.change_audit', 'audit_id'), '');
