-------------------------------------------------------------------------------
-- Legacy-era sessions (2025-11-25 adapter)
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _legacy_session_hash(session_id text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT sha256(convert_to('mcp_notes legacy session ' || session_id, 'UTF8')) $$;
COMMENT ON FUNCTION _legacy_session_hash(text) IS 'Internal: what legacy_sessions.session_hash stores for a session id';

-- The live session of this principal, or NULL: another principal's session
-- is as unknown as a made-up one (the gateway answers 404 either way).
CREATE OR REPLACE FUNCTION _legacy_session(principal text, session_id text) RETURNS legacy_sessions
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT s.* FROM legacy_sessions s
    WHERE s.session_hash = _legacy_session_hash(session_id)
      AND s.principal = _legacy_session.principal
      AND s.expires_at > clock_timestamp()
$$;
COMMENT ON FUNCTION _legacy_session(text, text) IS
'Internal: the unexpired legacy session with this id opened by this principal, or NULL';

CREATE OR REPLACE FUNCTION _legacy_no_session() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _error('session_not_found', 'Session not found: unknown, expired or closed Mcp-Session-Id; send initialize again') $$;
COMMENT ON FUNCTION _legacy_no_session() IS 'Internal: the outcome for an unknown, expired, closed or foreign session';

-- Expired sessions (and their pending requests) go, a bounded number per
-- call, so the table stays small without a scheduler; so do a principal's
-- oldest sessions beyond max_per_principal.
CREATE OR REPLACE FUNCTION prune_legacy_sessions(max_rows integer DEFAULT 1000) RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH gone AS (
        DELETE FROM legacy_sessions s
        WHERE s.session_hash IN (SELECT e.session_hash FROM legacy_sessions e
                                 WHERE e.expires_at <= clock_timestamp()
                                 ORDER BY e.expires_at LIMIT max_rows)
        RETURNING 1)
    SELECT count(*) FROM gone
$$;
COMMENT ON FUNCTION prune_legacy_sessions(integer) IS
'Deletes up to max_rows expired legacy-era sessions with their pending requests; returns how many sessions went';

-- Each entry point below exists twice: for the principal a bearer token
-- proves (gateway roles), and _as for a principal named by the caller
-- (grant_dev_gateway only, --insecure-dev-principal); both run the same
-- internal function.
CREATE OR REPLACE FUNCTION _legacy_session_open(principal text, protocol_version text, client_capabilities jsonb,
                                     client_info jsonb, ttl interval)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    max_per_principal constant integer := 100;
    session_id text := _b64url(_random_bytes(32));
    lifetime interval := least(greatest(coalesce(ttl, '1 hour'), '1 second'), '1 day');
BEGIN
    IF jsonb_typeof(client_capabilities) IS DISTINCT FROM 'object' OR protocol_version IS NULL THEN
        RETURN _invalid_params('invalid_params', 'Invalid params: capabilities must be an object');
    END IF;
    PERFORM prune_legacy_sessions(100);
    DELETE FROM legacy_sessions s
    WHERE s.session_hash IN (SELECT o.session_hash FROM legacy_sessions o
                             WHERE o.principal = _legacy_session_open.principal
                             ORDER BY o.created_at DESC OFFSET max_per_principal - 1);
    INSERT INTO legacy_sessions (session_hash, principal, protocol_version, client_capabilities,
                                 client_info, ttl, expires_at)
    VALUES (_legacy_session_hash(session_id), principal, left(protocol_version, 32), client_capabilities,
            _reported_client_info(client_info), lifetime, clock_timestamp() + lifetime);
    RETURN jsonb_build_object('sessionId', session_id);
END;
$$;
COMMENT ON FUNCTION _legacy_session_open(text, text, jsonb, jsonb, interval) IS
'Internal: opens a legacy-era session for principal (ttl clamped to 1 s .. 1 day); {"sessionId"} or an error outcome';

CREATE OR REPLACE FUNCTION _legacy_session_check(principal text, session_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    s legacy_sessions := _legacy_session(principal, session_id);
BEGIN
    IF s.session_hash IS NULL THEN
        RETURN _legacy_no_session();
    END IF;
    UPDATE legacy_sessions l SET expires_at = clock_timestamp() + l.ttl
    WHERE l.session_hash = s.session_hash;
    RETURN jsonb_build_object('protocolVersion', s.protocol_version,
                              'clientCapabilities', s.client_capabilities,
                              'clientInfo', s.client_info);
END;
$$;
COMMENT ON FUNCTION _legacy_session_check(text, text) IS
'Internal: the principal''s live session: renewed, and what its initialize declared; or an error outcome';

CREATE OR REPLACE FUNCTION _legacy_session_close(principal text, session_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    DELETE FROM legacy_sessions s
    WHERE s.session_hash = _legacy_session_hash(session_id) AND s.principal = _legacy_session_close.principal
      AND s.expires_at > clock_timestamp();
    IF NOT FOUND THEN
        RETURN _legacy_no_session();
    END IF;
    RETURN jsonb_build_object('closed', true);
END;
$$;
COMMENT ON FUNCTION _legacy_session_close(text, text) IS
'Internal: ends the principal''s session and its pending requests; {"closed": true} or an error outcome';

CREATE OR REPLACE FUNCTION _legacy_pending_open(principal text, session_id text, rpc_id jsonb, wait interval) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    s legacy_sessions := _legacy_session(principal, session_id);
    id bigint;
BEGIN
    IF s.session_hash IS NULL THEN
        RETURN _legacy_no_session();
    END IF;
    INSERT INTO legacy_pending (session_hash, rpc_id, expires_at)
    VALUES (s.session_hash, rpc_id, clock_timestamp() + least(greatest(wait, '1 second'), '1 day'))
    RETURNING pending_id INTO id;
    RETURN jsonb_build_object('pendingId', id);
END;
$$;
COMMENT ON FUNCTION _legacy_pending_open(text, text, jsonb, interval) IS
'Internal: records the server-to-client request rpc_id about to be sent on a stream of the principal''s session';

-- The client's JSON-RPC response, posted to any gateway: stored once, for
-- the pending request of THIS session and principal, and the gateway that
-- waits is told (NOTIFY, at commit).
CREATE OR REPLACE FUNCTION _legacy_answer(principal text, session_id text, response jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    s legacy_sessions := _legacy_session(principal, session_id);
    id bigint;
BEGIN
    IF s.session_hash IS NULL THEN
        RETURN _legacy_no_session();
    END IF;
    UPDATE legacy_pending p SET answer = response - 'jsonrpc' - 'id', answered_at = clock_timestamp()
    WHERE p.session_hash = s.session_hash AND p.rpc_id = response -> 'id'
      AND p.answer IS NULL AND p.expires_at > clock_timestamp()
    RETURNING p.pending_id INTO id;
    IF id IS NULL THEN
        RETURN _invalid_params('no_pending_request',
            'no server request with this id is waiting for an answer in this session');
    END IF;
    PERFORM pg_catalog.pg_notify('mcp_notes_legacy', id::text);
    RETURN jsonb_build_object('pendingId', id);
END;
$$;
COMMENT ON FUNCTION _legacy_answer(text, text, jsonb) IS
'Internal: stores a client''s response for its session''s pending request and notifies mcp_notes_legacy';

-- The waiting gateway takes the answer (the row goes); give_up also ends
-- a request nobody answered (timeout, stream closed).
CREATE OR REPLACE FUNCTION _legacy_pending_take(principal text, pending_id bigint, give_up boolean) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    taken jsonb;
BEGIN
    DELETE FROM legacy_pending p
    USING legacy_sessions s
    WHERE p.pending_id = _legacy_pending_take.pending_id AND s.session_hash = p.session_hash
      AND s.principal = _legacy_pending_take.principal AND (p.answer IS NOT NULL OR give_up)
    RETURNING p.answer INTO taken;
    RETURN jsonb_build_object('answer', taken);
END;
$$;
COMMENT ON FUNCTION _legacy_pending_take(text, bigint, boolean) IS
'Internal: takes the answer of the principal''s pending request ({"answer": null} when none yet); give_up ends it either way';

CREATE OR REPLACE FUNCTION legacy_session_open(token text, protocol_version text, client_capabilities jsonb, client_info jsonb, ttl interval) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.legacy_session_open');
    who := authenticate(token);
    IF who IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _legacy_session_open(who, protocol_version, client_capabilities, client_info, ttl);
END;
$$;
COMMENT ON FUNCTION legacy_session_open(text, text, jsonb, jsonb, interval) IS
'Legacy-era initialize: opens a session (ttl clamped to 1 s .. 1 day, renewed by use); returns {"sessionId"} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_session_open_as(principal text, protocol_version text, client_capabilities jsonb, client_info jsonb, ttl interval) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_session_open(principal, protocol_version, client_capabilities, client_info, ttl);
END;
$$;
COMMENT ON FUNCTION legacy_session_open_as(text, text, jsonb, jsonb, interval) IS
'Development only: legacy_session_open for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_session_check(token text, session_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.legacy_session_check');
    who := authenticate(token);
    IF who IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _legacy_session_check(who, session_id);
END;
$$;
COMMENT ON FUNCTION legacy_session_check(text, text) IS
'A legacy-era request: the live session must be this principals; renews it and returns what its initialize declared, or an error outcome';

CREATE OR REPLACE FUNCTION legacy_session_check_as(principal text, session_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_session_check(principal, session_id);
END;
$$;
COMMENT ON FUNCTION legacy_session_check_as(text, text) IS
'Development only: legacy_session_check for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_session_close(token text, session_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.legacy_session_close');
    who := authenticate(token);
    IF who IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _legacy_session_close(who, session_id);
END;
$$;
COMMENT ON FUNCTION legacy_session_close(text, text) IS
'Legacy-era DELETE /mcp: ends the principals session and its pending requests; {"closed": true} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_session_close_as(principal text, session_id text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_session_close(principal, session_id);
END;
$$;
COMMENT ON FUNCTION legacy_session_close_as(text, text) IS
'Development only: legacy_session_close for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_pending_open(token text, session_id text, rpc_id jsonb, wait interval) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.legacy_pending_open');
    who := authenticate(token);
    IF who IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _legacy_pending_open(who, session_id, rpc_id, wait);
END;
$$;
COMMENT ON FUNCTION legacy_pending_open(text, text, jsonb, interval) IS
'A gateway is about to send the server-to-client request rpc_id on a stream of this session; returns {"pendingId"} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_pending_open_as(principal text, session_id text, rpc_id jsonb, wait interval) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_pending_open(principal, session_id, rpc_id, wait);
END;
$$;
COMMENT ON FUNCTION legacy_pending_open_as(text, text, jsonb, interval) IS
'Development only: legacy_pending_open for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_answer(token text, session_id text, response jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.legacy_answer');
    who := authenticate(token);
    IF who IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _legacy_answer(who, session_id, response);
END;
$$;
COMMENT ON FUNCTION legacy_answer(text, text, jsonb) IS
'A legacy-era client''s JSON-RPC response to a server request: stored on its session''s pending request and notified on mcp_notes_legacy; {"pendingId"} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_answer_as(principal text, session_id text, response jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_answer(principal, session_id, response);
END;
$$;
COMMENT ON FUNCTION legacy_answer_as(text, text, jsonb) IS
'Development only: legacy_answer for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_pending_take(token text, pending_id bigint, give_up boolean) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    PERFORM _require_own_transaction('mcp_notes.legacy_pending_take');
    who := authenticate(token);
    IF who IS NULL THEN
        RETURN _error('unauthenticated', 'missing, invalid, expired or revoked bearer token');
    END IF;
    RETURN _legacy_pending_take(who, pending_id, give_up);
END;
$$;
COMMENT ON FUNCTION legacy_pending_take(text, bigint, boolean) IS
'The waiting gateway takes the answer of its pending request ({"answer": null} when none yet); give_up ends the request either way';

CREATE OR REPLACE FUNCTION legacy_pending_take_as(principal text, pending_id bigint, give_up boolean) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _legacy_pending_take(principal, pending_id, give_up);
END;
$$;
COMMENT ON FUNCTION legacy_pending_take_as(text, bigint, boolean) IS
'Development only: legacy_pending_take for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION _grant_legacy_sessions(role regrole, dev boolean) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.legacy_session_open(text, text, jsonb, jsonb, interval), '
                   'mcp_notes.legacy_session_check(text, text), mcp_notes.legacy_session_close(text, text), '
                   'mcp_notes.legacy_pending_open(text, text, jsonb, interval), '
                   'mcp_notes.legacy_answer(text, text, jsonb), '
                   'mcp_notes.legacy_pending_take(text, bigint, boolean) TO %s', role);
    IF dev THEN
        EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.legacy_session_open_as(text, text, jsonb, jsonb, interval), '
                       'mcp_notes.legacy_session_check_as(text, text), mcp_notes.legacy_session_close_as(text, text), '
                       'mcp_notes.legacy_pending_open_as(text, text, jsonb, interval), '
                       'mcp_notes.legacy_answer_as(text, text, jsonb), '
                       'mcp_notes.legacy_pending_take_as(text, bigint, boolean) TO %s', role);
    END IF;
END;
$$;
COMMENT ON FUNCTION _grant_legacy_sessions(regrole, boolean) IS
'Internal: EXECUTE on the legacy-era session entry points for a gateway role (dev: the _as ones too); called by grant_gateway and grant_dev_gateway';
