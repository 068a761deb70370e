-------------------------------------------------------------------------------
-- Legacy-era sessions (2025-11-25 adapter)
-------------------------------------------------------------------------------

-- The 2025-era adapter of the gateway (docs/legacy-era.md) keeps what a
-- legacy session and a pending server-to-client request need here, not in
-- one gateway's memory: a client's answer may reach another gateway than
-- the one holding the tools/call's SSE stream.  A session is never
-- authorization: every request authenticates the token again and binds the
-- session to the principal that opened it.  Session ids are
-- stored hashed, like tokens.
CREATE TABLE legacy_sessions (
    session_hash bytea PRIMARY KEY,
    principal text NOT NULL,
    protocol_version text NOT NULL,
    client_capabilities jsonb NOT NULL,
    client_info jsonb,
    ttl interval NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX legacy_sessions_expiry ON legacy_sessions (expires_at);
CREATE INDEX legacy_sessions_principal ON legacy_sessions (principal, created_at);
COMMENT ON TABLE legacy_sessions IS
'Legacy-era (2025-11-25 and older) sessions: hashed Mcp-Session-Id, the principal that opened it, what initialize declared';

-- One row per server-to-client request (elicitation/create) a gateway sent
-- on a tools/call stream and is waiting for; answered by the internal
-- method mcp_notes/pending/answer.  opened_by is the hash of the token of
-- the request that asked (NULL for handle_as): revoking it ends the wait.
CREATE TABLE legacy_pending (
    pending_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_hash bytea NOT NULL REFERENCES legacy_sessions ON DELETE CASCADE,
    rpc_id jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at timestamptz NOT NULL,
    answer jsonb,
    answered_at timestamptz,
    opened_by bytea,
    UNIQUE (session_hash, rpc_id)
);
CREATE INDEX legacy_pending_opened_by ON legacy_pending (opened_by);
COMMENT ON TABLE legacy_pending IS
'Server-to-client requests of legacy-era tools/call streams waiting for the client''s JSON-RPC response';
