-- What every tool reads of a request the same way: the digest of its normalized
-- arguments, the client's self-reported info, the isolation level.

CREATE OR REPLACE FUNCTION _args_digest(workspace text, title text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT encode(sha256(convert_to(jsonb_build_object('workspaceUri', workspace, 'title', title)::text, 'UTF8')), 'hex')
$$;
COMMENT ON FUNCTION _args_digest(text, text) IS 'Internal: digest of the normalized notes_delete arguments that a state is bound to';

-- clientInfo is diagnostics, never identity: only its name and version
-- (strings) are kept, bounded; anything else is dropped.
CREATE OR REPLACE FUNCTION _reported_client_info(info jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT nullif(jsonb_strip_nulls(jsonb_build_object(
        'name', CASE WHEN jsonb_typeof(info -> 'name') = 'string' THEN _printable(info ->> 'name', 100) END,
        'version', CASE WHEN jsonb_typeof(info -> 'version') = 'string' THEN _printable(info ->> 'version', 100) END)),
        '{}'::jsonb)
$$;
COMMENT ON FUNCTION _reported_client_info(jsonb) IS
'Internal: the client_info the audit stores: name and version when they are strings, each bounded and made printable (_printable); NULL when neither';

-- Every path after the state checks may write, so the transaction must be
-- serializable: that is what makes "delete at most once" hold across gateways.
CREATE OR REPLACE FUNCTION _require_serializable(tool text) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'serializable' THEN
        RAISE EXCEPTION '% must run in a SERIALIZABLE transaction', tool
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = format('The current isolation level is %s.', current_setting('transaction_isolation')),
                  HINT = 'Use BEGIN ISOLATION LEVEL SERIALIZABLE, or set default_transaction_isolation for the gateway''s connections.';
    END IF;
END;
$$;
COMMENT ON FUNCTION _require_serializable(text) IS
'Internal: the isolation guard; raises 25000 unless the transaction is SERIALIZABLE';
