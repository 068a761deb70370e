-- Trigger functions of the tables' own guards (the triggers are in tables/).

-- Rows are never changed.  Deleting old rows (retention) is for the owner,
-- who alone holds DELETE on the table.
CREATE OR REPLACE FUNCTION _audit_is_append_only() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege',
              DETAIL = 'Audit rows cannot be updated.';
END;
$$;
COMMENT ON FUNCTION _audit_is_append_only() IS 'Internal: trigger that forbids UPDATE on the audit tables (delete_audit, change_audit, operator_audit, audit_chain)';

-- Gateways may reuse a recent acceptance of a token for the public answers
-- of tools/list and server/discover (gateway --auth-cache-ms).  They LISTEN
-- on this channel and forget every acceptance when any statement changes
-- the tokens table, so revoking, shortening or deleting a token reaches them
-- at commit.  INSERT is left out: a new token was never accepted before.
CREATE OR REPLACE FUNCTION _tokens_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM pg_catalog.pg_notify('mcp_notes_tokens', '');
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _tokens_changed() IS
'Internal: trigger that notifies channel mcp_notes_tokens when tokens change, so gateways drop cached acceptances';
