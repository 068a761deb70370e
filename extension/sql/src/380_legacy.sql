-------------------------------------------------------------------------------
-- Legacy-era sessions (the 2025-11-25 adapter)
-------------------------------------------------------------------------------

-- The 2025 era is an adapter over handle(), not a second contract: a request
-- object that names a session ("session": the Mcp-Session-Id) is answered by
-- _handle like any other, in the same transaction that finds and renews the
-- session and takes clientCapabilities/clientInfo from it
-- (_session_request).  The coordination steps of the era are internal
-- methods of _handle (_legacy_method), listed in features().internalMethods
-- with the channel they notify; the 1.3 entry points at the end of this file
-- are thin wrappers over handle() for gateways of 2.1 during a rolling
-- upgrade.

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

CREATE OR REPLACE FUNCTION _legacy_no_pending() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _error('no_pending_request', 'no server request with this id is waiting for an answer in this session',
                    '{"reason": "no_pending_request"}') $$;
COMMENT ON FUNCTION _legacy_no_pending() IS
'Internal: the outcome for an answer or a take that finds no pending request of this session and principal';

-- Expired sessions (and their pending requests) go, a bounded number per
-- call, so the table stays small without a scheduler.
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

-- What a session keeps of initialize's capabilities: only the keys the
-- server reads, each an object; NULL when what was sent is too large to
-- keep (issue 18.5: a session used to store and re-read whatever came).
CREATE OR REPLACE FUNCTION _session_capabilities(capabilities jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN octet_length(capabilities::text) <= 16384 THEN (
        SELECT kept FROM (SELECT coalesce(jsonb_object_agg(k.key, capabilities -> k.key), '{}') AS kept
                          FROM unnest(ARRAY['elicitation', 'sampling', 'roots', 'tasks']) AS k(key)
                          WHERE jsonb_typeof(capabilities -> k.key) = 'object') c
        WHERE octet_length(c.kept::text) <= 4096) END
$$;
COMMENT ON FUNCTION _session_capabilities(jsonb) IS
'Internal: the client capabilities a legacy session keeps (elicitation, sampling, roots, tasks; at most 4 KiB), NULL when more than 16 KiB were sent or the kept part is larger than 4 KiB';

-- initialize: params {protocolVersion, capabilities, clientInfo, ttlSeconds}.
-- Prunes up to 100 expired sessions and keeps at most 100 per principal.
CREATE OR REPLACE FUNCTION _session_open(principal text, params jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    max_per_principal constant integer := 100;
    session_id text := _b64url(_random_bytes(32));
    seconds double precision := CASE WHEN jsonb_typeof(params -> 'ttlSeconds') = 'number'
                                     THEN (params ->> 'ttlSeconds')::double precision END;
    lifetime interval := least(greatest(coalesce(make_interval(secs => seconds), '1 hour'), '1 second'), '1 day');
    caps jsonb := _session_capabilities(params -> 'capabilities');
BEGIN
    IF jsonb_typeof(params -> 'capabilities') IS DISTINCT FROM 'object'
       OR jsonb_typeof(params -> 'protocolVersion') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_params', 'Invalid params: capabilities must be an object');
    END IF;
    IF caps IS NULL THEN
        RETURN _invalid_params('capabilities_too_large', format(
            'Invalid params: initialize declared %s bytes of capabilities; at most 16384 are accepted, '
            'of which the server keeps elicitation, sampling, roots and tasks (at most 4096 bytes)',
            octet_length((params -> 'capabilities')::text)));
    END IF;
    PERFORM prune_legacy_sessions(100);
    DELETE FROM legacy_sessions s
    WHERE s.session_hash IN (SELECT o.session_hash FROM legacy_sessions o
                             WHERE o.principal = _session_open.principal
                             ORDER BY o.created_at DESC OFFSET max_per_principal - 1);
    INSERT INTO legacy_sessions (session_hash, principal, protocol_version, client_capabilities,
                                 client_info, ttl, expires_at)
    VALUES (_legacy_session_hash(session_id), principal, left(params ->> 'protocolVersion', 32), caps,
            _reported_client_info(params -> 'clientInfo'), lifetime, clock_timestamp() + lifetime);
    RETURN jsonb_build_object('result', jsonb_build_object('sessionId', session_id));
END;
$$;
COMMENT ON FUNCTION _session_open(text, jsonb) IS
'Internal: the method mcp_notes/session/open (initialize): a session for principal (ttl clamped to 1 s .. 1 day) keeping what _session_capabilities keeps; {"result": {"sessionId"}} or an error outcome';

-- Caps on unanswered requests for input, in the database so they hold
-- across gateways: each one holds a client connection and a worker of the
-- gateway that streams it (issue 18.2).
CREATE OR REPLACE FUNCTION _pending_room(principal text, session_hash bytea, wanted integer) RETURNS boolean
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT count(*) FILTER (WHERE s.session_hash = _pending_room.session_hash) + wanted <= 4
       AND count(*) + wanted <= 8
    FROM legacy_pending p JOIN legacy_sessions s ON s.session_hash = p.session_hash
    WHERE s.principal = _pending_room.principal AND p.answer IS NULL AND p.expires_at > clock_timestamp()
$$;
COMMENT ON FUNCTION _pending_room(text, bytea, integer) IS
'Internal: may wanted more unanswered requests for input wait (at most 4 per session and 8 per principal)';

CREATE OR REPLACE FUNCTION _pending_insert(s legacy_sessions, rpc_id jsonb, wait_ms double precision,
                                           opened_by bytea) RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    INSERT INTO legacy_pending (session_hash, rpc_id, expires_at, opened_by)
    VALUES (s.session_hash, rpc_id,
            clock_timestamp() + least(greatest(make_interval(secs => coalesce(wait_ms, 65000) / 1000), '1 second'), '1 day'),
            opened_by)
    RETURNING pending_id
$$;
COMMENT ON FUNCTION _pending_insert(legacy_sessions, jsonb, double precision, bytea) IS
'Internal: records one server-to-client request (rpc_id) a gateway sends on a stream of session s, expiring after wait_ms';

-- An input_required outcome of a session request: each input request is
-- recorded as pending (its JSON-RPC id made here) in the transaction that
-- answered, so a 2025-era tools/call costs no separate statement for it;
-- over the caps, a tool error instead.
CREATE OR REPLACE FUNCTION _pending_open_all(principal text, s legacy_sessions, outcome jsonb, wait_ms double precision,
                                             opened_by bytea) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    requests jsonb := outcome #> '{result,inputRequests}';
    pending jsonb := '{}';
    rpc_id jsonb;
    k text;
BEGIN
    IF jsonb_typeof(requests) IS DISTINCT FROM 'object' THEN
        RETURN outcome;
    END IF;
    IF NOT _pending_room(principal, s.session_hash, (SELECT count(*)::integer FROM jsonb_object_keys(requests))) THEN
        RETURN _tool_result('Too many requests for input are waiting for an answer (at most 4 per session and 8 '
                            'per principal): answer or cancel them first, then call the tool again. Nothing was done.',
                            NULL, true);
    END IF;
    FOR k IN SELECT jsonb_object_keys(requests) LOOP
        rpc_id := to_jsonb('mcpn-' || encode(_random_bytes(8), 'hex'));
        pending := pending || jsonb_build_object(k, jsonb_build_object(
            'pendingId', _pending_insert(s, rpc_id, wait_ms, opened_by), 'id', rpc_id));
    END LOOP;
    RETURN outcome || jsonb_build_object('pending', pending);
END;
$$;
COMMENT ON FUNCTION _pending_open_all(text, legacy_sessions, jsonb, double precision, bytea) IS
'Internal: records the input requests of an input_required outcome of a session request as pending ({"pending": {key: {pendingId, id}}} beside the result), or a tool error over the caps of _pending_room';

-- The retry of a session request names the pending requests whose answers
-- are its inputResponses (request.inputFrom: {key: pendingId}).  Returns
-- {"request": ...} with the answers taken (the rows go), or {"outcome": ...}:
-- input_pending while one is unanswered (nothing changes; with giveUp the
-- rows go), no_pending_request when one is gone (revoked token, closed
-- session, given up).  An error response is a cancel, the one answer that
-- spends nothing.
CREATE OR REPLACE FUNCTION _pending_answers(s legacy_sessions, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    wanted jsonb := request -> 'inputFrom';
    found integer;
    answered integer;
    responses jsonb;
BEGIN
    SELECT count(*), count(p.answer) INTO found, answered
    FROM jsonb_each(CASE WHEN jsonb_typeof(wanted) = 'object' THEN wanted ELSE '{}' END) w
    JOIN legacy_pending p ON p.pending_id = CASE WHEN jsonb_typeof(w.value) = 'number' THEN (w.value #>> '{}')::bigint END
                         AND p.session_hash = s.session_hash;
    IF jsonb_typeof(wanted) IS DISTINCT FROM 'object' OR found < (SELECT count(*) FROM jsonb_object_keys(wanted)) THEN
        RETURN jsonb_build_object('outcome', _legacy_no_pending());
    END IF;
    IF answered < found AND NOT coalesce((request ->> 'giveUp')::boolean, false) THEN
        RETURN jsonb_build_object('outcome', _error('input_pending', 'the client has not answered yet'));
    END IF;
    WITH taken AS (
        DELETE FROM legacy_pending p USING jsonb_each(wanted) w
        WHERE p.pending_id = (w.value #>> '{}')::bigint AND p.session_hash = s.session_hash
        RETURNING w.key, p.answer)
    SELECT jsonb_object_agg(t.key, CASE WHEN jsonb_typeof(t.answer -> 'result') = 'object' THEN t.answer -> 'result'
                                        ELSE '{"action": "cancel"}' END),
           count(t.answer)
    INTO responses, answered FROM taken t;
    IF answered < found THEN
        RETURN jsonb_build_object('outcome', _error('input_pending', 'no answer came in time',
                                                    '{"reason": "not_answered"}'));
    END IF;
    RETURN jsonb_build_object('request', jsonb_set(request - 'inputFrom' - 'giveUp', '{params,inputResponses}', responses));
END;
$$;
COMMENT ON FUNCTION _pending_answers(legacy_sessions, jsonb) IS
'Internal: takes the answers of the pending requests a session retry names (inputFrom) as its inputResponses, or the outcome that says why not';

-- The client's JSON-RPC response, posted to any gateway: stored once, for
-- the pending request of THIS session and principal, and the gateway that
-- waits is told (NOTIFY, at commit).
CREATE OR REPLACE FUNCTION _pending_answer(s legacy_sessions, response jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    id bigint;
BEGIN
    UPDATE legacy_pending p SET answer = response - 'jsonrpc' - 'id', answered_at = clock_timestamp()
    WHERE p.session_hash = s.session_hash AND p.rpc_id = response -> 'id'
      AND p.answer IS NULL AND p.expires_at > clock_timestamp()
    RETURNING p.pending_id INTO id;
    IF id IS NULL THEN
        RETURN _legacy_no_pending();
    END IF;
    PERFORM pg_catalog.pg_notify('mcp_notes_legacy', id::text);
    RETURN jsonb_build_object('result', jsonb_build_object('pendingId', id));
END;
$$;
COMMENT ON FUNCTION _pending_answer(legacy_sessions, jsonb) IS
'Internal: the method mcp_notes/pending/answer: stores a client''s response for its session''s pending request and notifies mcp_notes_legacy';

-- The waiting gateway takes one answer (the row goes); giveUp also ends a
-- request nobody answered.  Bound to the principal, not to a session: the
-- 1.3 entry point legacy_pending_take named none.
CREATE OR REPLACE FUNCTION _pending_take(principal text, params jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    taken jsonb;
BEGIN
    IF jsonb_typeof(params -> 'pendingId') IS DISTINCT FROM 'number' THEN
        RETURN _invalid_params('invalid_params', 'Invalid params: pendingId must be a number');
    END IF;
    DELETE FROM legacy_pending p
    USING legacy_sessions s
    WHERE p.pending_id = (params ->> 'pendingId')::bigint AND s.session_hash = p.session_hash
      AND s.principal = _pending_take.principal
      AND (p.answer IS NOT NULL OR coalesce((params ->> 'giveUp')::boolean, false))
    RETURNING p.answer INTO taken;
    RETURN jsonb_build_object('result', jsonb_build_object('answer', taken));
END;
$$;
COMMENT ON FUNCTION _pending_take(text, jsonb) IS
'Internal: the method mcp_notes/pending/take: the answer of the principal''s pending request ({"answer": null} when none yet); giveUp ends it either way';

-- The internal methods.  s is the request's session (NULL without one):
-- those that need one refuse without it.
CREATE OR REPLACE FUNCTION _legacy_method(principal text, request jsonb, s legacy_sessions, opened_by bytea)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    params jsonb := request -> 'params';
    id bigint;
BEGIN
    CASE request ->> 'method'
        WHEN 'mcp_notes/session/open' THEN
            RETURN _session_open(principal, params);
        WHEN 'mcp_notes/pending/take' THEN
            RETURN _pending_take(principal, params);
        WHEN 'mcp_notes/listen/open', 'mcp_notes/listen/renew', 'mcp_notes/listen/close' THEN
            RETURN _listen_method(principal, request, s, opened_by);
        ELSE
            NULL;
    END CASE;
    IF s.session_hash IS NULL THEN
        RETURN _legacy_no_session();
    END IF;
    CASE request ->> 'method'
        WHEN 'mcp_notes/session/check' THEN
            RETURN jsonb_build_object('result', jsonb_build_object('protocolVersion', s.protocol_version,
                'clientCapabilities', s.client_capabilities, 'clientInfo', s.client_info));
        WHEN 'mcp_notes/session/close' THEN
            DELETE FROM legacy_sessions l WHERE l.session_hash = s.session_hash;
            RETURN jsonb_build_object('result', jsonb_build_object('closed', true));
        WHEN 'mcp_notes/pending/answer' THEN
            RETURN _pending_answer(s, params -> 'response');
        WHEN 'mcp_notes/pending/open' THEN
            IF NOT _pending_room(principal, s.session_hash, 1) THEN
                RETURN _invalid_params('too_many_pending', 'too many requests for input are waiting for an answer');
            END IF;
            id := _pending_insert(s, params -> 'id', (params ->> 'waitMs')::double precision, opened_by);
            RETURN jsonb_build_object('result', jsonb_build_object('pendingId', id));
        ELSE
            RETURN _error('method_not_found', format('Method not found: %s', left(request ->> 'method', 100)));
    END CASE;
END;
$$;
COMMENT ON FUNCTION _legacy_method(text, jsonb, legacy_sessions, bytea) IS
'Internal: the internal methods of the 2025-era adapter (features().internalMethods): session open/check/close, pending open/answer/take';

-- A request object naming a session: the session must be live and the
-- principal's; it is renewed (at most every tenth of its ttl, so requests
-- of one session rarely conflict on its row) and supplies the client's
-- capabilities and info, whatever the request says.  ping is answered
-- here; an input_required outcome records its input requests as pending.
CREATE OR REPLACE FUNCTION _session_request(principal text, request jsonb, opened_by bytea) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    s legacy_sessions := _legacy_session(principal, request ->> 'session');
    taken jsonb;
    outcome jsonb;
BEGIN
    IF s.session_hash IS NULL THEN
        RETURN _legacy_no_session();
    END IF;
    IF s.expires_at < clock_timestamp() + s.ttl * 0.9 THEN
        UPDATE legacy_sessions l SET expires_at = clock_timestamp() + l.ttl WHERE l.session_hash = s.session_hash;
    END IF;
    IF starts_with(request ->> 'method', 'mcp_notes/') THEN
        RETURN _legacy_method(principal, request, s, opened_by);
    END IF;
    IF request ->> 'method' = 'ping' THEN
        RETURN '{"result": {}}';
    END IF;
    outcome := _session_method(principal, request, s);
    IF outcome IS NOT NULL THEN
        RETURN outcome;
    END IF;
    request := jsonb_strip_nulls((request - 'logLevel') || jsonb_build_object('clientCapabilities', s.client_capabilities,
                                                               'clientInfo', s.client_info, 'logLevel', s.log_level));
    IF request ? 'inputFrom' THEN
        taken := _pending_answers(s, request);
        IF taken ? 'outcome' THEN
            RETURN taken -> 'outcome';
        END IF;
        request := taken -> 'request';
    END IF;
    outcome := _dispatch(principal, request);
    IF outcome #>> '{result,resultType}' = 'input_required' THEN
        outcome := _pending_open_all(principal, s, outcome, (request ->> 'inputWaitMs')::double precision, opened_by);
    END IF;
    RETURN outcome;
END;
$$;
COMMENT ON FUNCTION _session_request(text, jsonb, bytea) IS
'Internal: _handle for a request object with a session: finds and renews it, takes its capabilities and client info, answers ping and the internal methods, takes the answers a retry names and records the input requests an input_required outcome asks';

-- Waiting streams end when what they wait for cannot come any more: a
-- pending request that goes unanswered (session closed, pruned or evicted,
-- its token revoked, given up) is notified on the channel the waiting
-- gateway listens to, which then finds it gone.
CREATE OR REPLACE FUNCTION _pending_ended() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM pg_catalog.pg_notify('mcp_notes_legacy', g.pending_id::text) FROM gone g WHERE g.answer IS NULL;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _pending_ended() IS
'Internal: trigger that notifies mcp_notes_legacy with each unanswered pending request deleted, so the gateway waiting for it ends its stream';

CREATE OR REPLACE TRIGGER legacy_pending_ended AFTER DELETE ON legacy_pending
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION _pending_ended();
ALTER TABLE legacy_pending ENABLE ALWAYS TRIGGER legacy_pending_ended;

-- A revoked, expired or deleted token's pending requests go (and so their
-- streams end), although its principal's sessions stay: a session is never
-- authorization.
CREATE OR REPLACE FUNCTION _token_ended() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.revoked_at IS NOT NULL OR NEW.expires_at <= clock_timestamp() THEN
        DELETE FROM legacy_pending p WHERE p.opened_by = OLD.token_hash;
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _token_ended() IS
'Internal: trigger that removes the pending requests opened with a token that is revoked, expired or deleted';

CREATE OR REPLACE TRIGGER tokens_end_pending AFTER UPDATE OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION _token_ended();
-- also in replica mode, like tokens_changed
ALTER TABLE tokens ENABLE ALWAYS TRIGGER tokens_end_pending;

-------------------------------------------------------------------------------
-- The 1.3 entry points, for gateways of 2.1: thin wrappers over handle()
-------------------------------------------------------------------------------

-- An internal method's outcome in the 1.3 answer: the result itself, an
-- error outcome as it was (no_pending_request was invalid_params then).
CREATE OR REPLACE FUNCTION _legacy_1_3(outcome jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN outcome ? 'result' THEN outcome -> 'result'
        WHEN outcome #>> '{error,kind}' = 'no_pending_request'
            THEN _invalid_params('no_pending_request', outcome #>> '{error,message}')
        ELSE outcome END
$$;
COMMENT ON FUNCTION _legacy_1_3(jsonb) IS 'Internal: an internal method''s outcome as the 1.3 legacy_* entry points answered';

CREATE OR REPLACE FUNCTION _legacy_1_3_request(method text, session_id text, params jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('method', method, 'params', params)
           || CASE WHEN session_id IS NULL THEN '{}' ELSE jsonb_build_object('session', session_id) END
$$;
COMMENT ON FUNCTION _legacy_1_3_request(text, text, jsonb) IS
'Internal: the request object of an internal method for a 1.3 legacy_* entry point';

-- Each exists twice: for the principal a bearer token proves (gateway roles)
-- and _as for a principal named by the caller (grant_dev_gateway only).
CREATE OR REPLACE FUNCTION legacy_session_open(token text, protocol_version text, client_capabilities jsonb, client_info jsonb, ttl interval) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _require_own_transaction('mcp_notes.legacy_session_open');
    SELECT _legacy_1_3(handle(token, _legacy_1_3_request('mcp_notes/session/open', NULL, jsonb_build_object('protocolVersion', protocol_version, 'capabilities', client_capabilities,
                                  'clientInfo', client_info, 'ttlSeconds', extract(epoch FROM ttl)))))
$$;
COMMENT ON FUNCTION legacy_session_open(text, text, jsonb, jsonb, interval) IS
'Legacy-era initialize (1.3 entry point, for gateways of 2.1): opens a session (ttl clamped to 1 s .. 1 day, renewed by use); returns {"sessionId"} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_session_open_as(principal text, protocol_version text, client_capabilities jsonb, client_info jsonb, ttl interval) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _legacy_1_3(handle_as(principal, _legacy_1_3_request('mcp_notes/session/open', NULL, jsonb_build_object('protocolVersion', protocol_version, 'capabilities', client_capabilities,
                                  'clientInfo', client_info, 'ttlSeconds', extract(epoch FROM ttl)))))
$$;
COMMENT ON FUNCTION legacy_session_open_as(text, text, jsonb, jsonb, interval) IS
'Development only: legacy_session_open for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_session_check(token text, session_id text) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _require_own_transaction('mcp_notes.legacy_session_check');
    SELECT _legacy_1_3(handle(token, _legacy_1_3_request('mcp_notes/session/check', session_id, '{}')))
$$;
COMMENT ON FUNCTION legacy_session_check(text, text) IS
'A legacy-era request (1.3 entry point, for gateways of 2.1): the live session must be this principal''s; renews it and returns what its initialize declared, or an error outcome';

CREATE OR REPLACE FUNCTION legacy_session_check_as(principal text, session_id text) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _legacy_1_3(handle_as(principal, _legacy_1_3_request('mcp_notes/session/check', session_id, '{}')))
$$;
COMMENT ON FUNCTION legacy_session_check_as(text, text) IS
'Development only: legacy_session_check for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_session_close(token text, session_id text) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _require_own_transaction('mcp_notes.legacy_session_close');
    SELECT _legacy_1_3(handle(token, _legacy_1_3_request('mcp_notes/session/close', session_id, '{}')))
$$;
COMMENT ON FUNCTION legacy_session_close(text, text) IS
'Legacy-era DELETE /mcp (1.3 entry point, for gateways of 2.1): ends the principal''s session and its pending requests; {"closed": true} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_session_close_as(principal text, session_id text) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _legacy_1_3(handle_as(principal, _legacy_1_3_request('mcp_notes/session/close', session_id, '{}')))
$$;
COMMENT ON FUNCTION legacy_session_close_as(text, text) IS
'Development only: legacy_session_close for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_pending_open(token text, session_id text, rpc_id jsonb, wait interval) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _require_own_transaction('mcp_notes.legacy_pending_open');
    SELECT _legacy_1_3(handle(token, _legacy_1_3_request('mcp_notes/pending/open', session_id, jsonb_build_object('id', rpc_id, 'waitMs', extract(epoch FROM wait) * 1000))))
$$;
COMMENT ON FUNCTION legacy_pending_open(text, text, jsonb, interval) IS
'A gateway of 2.1 is about to send the server-to-client request rpc_id on a stream of this session (1.3 entry point); returns {"pendingId"} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_pending_open_as(principal text, session_id text, rpc_id jsonb, wait interval) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _legacy_1_3(handle_as(principal, _legacy_1_3_request('mcp_notes/pending/open', session_id, jsonb_build_object('id', rpc_id, 'waitMs', extract(epoch FROM wait) * 1000))))
$$;
COMMENT ON FUNCTION legacy_pending_open_as(text, text, jsonb, interval) IS
'Development only: legacy_pending_open for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_answer(token text, session_id text, response jsonb) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _require_own_transaction('mcp_notes.legacy_answer');
    SELECT _legacy_1_3(handle(token, _legacy_1_3_request('mcp_notes/pending/answer', session_id, jsonb_build_object('response', response))))
$$;
COMMENT ON FUNCTION legacy_answer(text, text, jsonb) IS
'A legacy-era client''s JSON-RPC response to a server request (1.3 entry point, for gateways of 2.1): stored on its session''s pending request and notified on mcp_notes_legacy; {"pendingId"} or an error outcome';

CREATE OR REPLACE FUNCTION legacy_answer_as(principal text, session_id text, response jsonb) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _legacy_1_3(handle_as(principal, _legacy_1_3_request('mcp_notes/pending/answer', session_id, jsonb_build_object('response', response))))
$$;
COMMENT ON FUNCTION legacy_answer_as(text, text, jsonb) IS
'Development only: legacy_answer for a principal named by the caller. Executable only by roles given grant_dev_gateway';

CREATE OR REPLACE FUNCTION legacy_pending_take(token text, pending_id bigint, give_up boolean) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _require_own_transaction('mcp_notes.legacy_pending_take');
    SELECT _legacy_1_3(handle(token, _legacy_1_3_request('mcp_notes/pending/take', NULL, jsonb_build_object('pendingId', pending_id, 'giveUp', give_up))))
$$;
COMMENT ON FUNCTION legacy_pending_take(text, bigint, boolean) IS
'A gateway of 2.1 takes the answer of its pending request (1.3 entry point; {"answer": null} when none yet); give_up ends the request either way';

CREATE OR REPLACE FUNCTION legacy_pending_take_as(principal text, pending_id bigint, give_up boolean) RETURNS jsonb
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _legacy_1_3(handle_as(principal, _legacy_1_3_request('mcp_notes/pending/take', NULL, jsonb_build_object('pendingId', pending_id, 'giveUp', give_up))))
$$;
COMMENT ON FUNCTION legacy_pending_take_as(text, bigint, boolean) IS
'Development only: legacy_pending_take for a principal named by the caller. Executable only by roles given grant_dev_gateway';
