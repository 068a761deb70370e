-- mcp_notes 1.0 -> 1.1: what gateways need to cache token acceptances safely,
-- and a cheaper authenticate().  A fresh CREATE EXTENSION runs 1.0 and then
-- this script, so an upgraded database and a new one are the same.
\echo Use "ALTER EXTENSION mcp_notes UPDATE TO '1.1'" to load this file. \quit

-- Gateways may reuse a recent acceptance of a token for the public answers
-- of tools/list and server/discover (gateway --auth-cache-ms).  They LISTEN
-- on this channel and forget every acceptance when any statement changes
-- the tokens table, so revoking, shortening or deleting a token reaches them
-- at commit.  INSERT is left out: a new token was never accepted before.
CREATE FUNCTION _tokens_changed() RETURNS trigger
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
REVOKE ALL ON FUNCTION _tokens_changed() FROM PUBLIC;

CREATE TRIGGER tokens_changed
    AFTER UPDATE OR DELETE OR TRUNCATE ON tokens
    FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();

-- plpgsql rather than sql: a SET clause keeps an sql function from being
-- inlined, so its query would be planned on every call; plpgsql caches the
-- plan per session (tools/list and server/discover call this alone).  The
-- signature, owner, grants and comment are kept by CREATE OR REPLACE.
CREATE OR REPLACE FUNCTION authenticate(token text) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    SELECT t.principal INTO who FROM tokens t
    WHERE t.token_hash = _token_hash(token)
      AND t.revoked_at IS NULL
      AND t.expires_at > now();
    RETURN who;
END;
$$;
