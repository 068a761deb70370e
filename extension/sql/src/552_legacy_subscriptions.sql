-------------------------------------------------------------------------------
-- The 2025 era's session methods: resources/subscribe, resources/unsubscribe,
-- logging/setLevel (features().legacyMethods; -32601 in 2026-07-28)
-------------------------------------------------------------------------------

-- What a session's GET stream watches: its subscriptions that the principal
-- may still watch (a grant revoked since is left out, not forgotten).
CREATE OR REPLACE FUNCTION _session_watched(principal text, s legacy_sessions) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('uri', l.watched_uri, 'sent', l.sent) ORDER BY l.created_at, l.sent), '[]')
    FROM legacy_subscriptions l
    WHERE l.session_hash = s.session_hash AND _watchable(principal, l.watched_uri) IS NOT NULL
$$;
COMMENT ON FUNCTION _session_watched(text, legacy_sessions) IS
'Internal: the subscriptions of a legacy session the principal may still watch, [{uri: canonical, sent}]';

CREATE OR REPLACE FUNCTION _log_levels() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT ARRAY['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] $$;
COMMENT ON FUNCTION _log_levels() IS 'Internal: the log levels of MCP (RFC 5424 severities), least severe first';

-- resources/subscribe answers exactly {} whatever the URI, so it tells
-- nothing about what exists outside the grants; the subscription is kept
-- only when the principal may watch the URI, at most 100 per session.  The
-- session's GET stream (on whichever gateway) is told to take it up.
CREATE OR REPLACE FUNCTION _session_subscribe(principal text, request jsonb, s legacy_sessions) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    max_per_session constant integer := 100;
    asked text := request #>> '{params,uri}';
    canonical text;
BEGIN
    IF jsonb_typeof(request #> '{params,uri}') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_uri', 'Invalid params: params.uri must be a string');
    END IF;
    canonical := CASE WHEN length(asked) <= 4096 AND _uri_problem(asked) IS NULL THEN normalize_uri(asked) END;
    IF request ->> 'method' = 'resources/unsubscribe' THEN
        DELETE FROM legacy_subscriptions l
        WHERE l.session_hash = s.session_hash AND (l.sent = asked OR l.watched_uri = canonical);
    ELSIF _watchable(principal, asked) IS NOT NULL
          AND (SELECT count(*) FROM legacy_subscriptions l WHERE l.session_hash = s.session_hash) < max_per_session THEN
        INSERT INTO legacy_subscriptions (session_hash, watched_uri, sent)
        VALUES (s.session_hash, canonical, asked)
        ON CONFLICT (session_hash, watched_uri) DO UPDATE SET sent = excluded.sent;
    ELSE
        RETURN '{"result": {}}';
    END IF;
    PERFORM _notify_streams(ARRAY(SELECT l.stream_id FROM listen_streams l WHERE l.session_hash = s.session_hash));
    RETURN '{"result": {}}';
END;
$$;
COMMENT ON FUNCTION _session_subscribe(text, jsonb, legacy_sessions) IS
'Internal: resources/subscribe and resources/unsubscribe of a legacy session: {} always; kept when the principal may watch the URI (at most 100 per session)';

-- The 2025 era's methods that need the session (features().legacyMethods
-- but ping, which _session_request answers).
CREATE OR REPLACE FUNCTION _session_method(principal text, request jsonb, s legacy_sessions) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    CASE request ->> 'method'
        WHEN 'resources/subscribe', 'resources/unsubscribe' THEN
            RETURN _session_subscribe(principal, request, s);
        WHEN 'logging/setLevel' THEN
            IF jsonb_typeof(request #> '{params,level}') IS DISTINCT FROM 'string'
               OR NOT request #>> '{params,level}' = ANY (_log_levels()) THEN
                RETURN _invalid_params('invalid_log_level', 'Invalid params: level must be one of '
                                       || array_to_string(_log_levels(), ', '));
            END IF;
            UPDATE legacy_sessions l SET log_level = request #>> '{params,level}' WHERE l.session_hash = s.session_hash;
            RETURN '{"result": {}}';
        ELSE
            RETURN NULL;
    END CASE;
END;
$$;
COMMENT ON FUNCTION _session_method(text, jsonb, legacy_sessions) IS
'Internal: the legacy session methods resources/subscribe, resources/unsubscribe and logging/setLevel (exactly {}); NULL for any other method';
