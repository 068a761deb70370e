-------------------------------------------------------------------------------
-- Listen streams: subscriptions/listen (2026-07-28) and the 2025 era's GET
-- stream, leased in listen_streams, renewed by the gateway that holds them
-------------------------------------------------------------------------------

-- The canonical URI a principal may watch, or NULL: a file: URI inside a
-- workspace granted to it, by whole components (the rule of resources/read,
-- without asking that the note exist yet: a watcher may wait for it to be
-- created).  Only notes have a change feed, so only their URIs are watched.
CREATE OR REPLACE FUNCTION _watchable(principal text, uri text) RETURNS text
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT w.canonical
    FROM (SELECT CASE WHEN length(uri) <= 4096 AND _uri_problem(uri) IS NULL THEN normalize_uri(uri) END AS canonical) w
    WHERE w.canonical IS NOT NULL
      AND _granted(principal, w.canonical)
$$;
COMMENT ON FUNCTION _watchable(text, text) IS
'Internal: the canonical form of uri when the principal may watch it (a file: URI inside a granted workspace), else NULL';

-- What a stream watches, for its gateway: each watch key with the URI as
-- the client sent it (notifications echo the client's own string).
CREATE OR REPLACE FUNCTION _listen_watch(watched jsonb) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('key', _watch_key(w ->> 'uri'), 'uri', w -> 'sent') ORDER BY i), '[]')
    FROM jsonb_array_elements(watched) WITH ORDINALITY AS x(w, i)
$$;
COMMENT ON FUNCTION _listen_watch(jsonb) IS
'Internal: [{key, uri}] of a stream''s watched URIs: the watch key of each canonical URI and the URI as sent';

-- The URIs of a subscriptions/listen filter that the principal may watch,
-- in order, each canonical URI once, of the first 100 sent: [{"uri",
-- "sent"}].
-- Unreadable, malformed and surplus URIs are simply not honoured, so the
-- acknowledgment says nothing about what exists outside the grants.
CREATE OR REPLACE FUNCTION _listen_watched(principal text, uris jsonb) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('uri', f.canonical, 'sent', f.sent) ORDER BY f.i), '[]')
    FROM (SELECT DISTINCT ON (w.canonical) w.canonical, w.sent, w.i
          FROM (SELECT _watchable(principal, u.sent) AS canonical, u.sent, u.i
                FROM jsonb_array_elements_text(uris) WITH ORDINALITY AS u(sent, i)
                WHERE u.i <= 100) w
          WHERE w.canonical IS NOT NULL
          ORDER BY w.canonical, w.i) f
$$;
COMMENT ON FUNCTION _listen_watched(text, jsonb) IS
'Internal: the URIs of a listen filter the principal may watch ([{uri: canonical, sent}], of the first 100 sent, each once)';

-- A filter is an object; resourceSubscriptions, when given, an array of
-- strings.  Other members (toolsListChanged, ...) are simply not honoured.
CREATE OR REPLACE FUNCTION _listen_filter_problem(filter jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN jsonb_typeof(filter) IS DISTINCT FROM 'object' THEN
            _invalid_params('invalid_filter', 'Invalid params: params.notifications must be an object (a SubscriptionFilter)')
        WHEN filter ? 'resourceSubscriptions'
             AND (jsonb_typeof(filter -> 'resourceSubscriptions') IS DISTINCT FROM 'array'
                  OR EXISTS (SELECT 1 FROM jsonb_array_elements(filter -> 'resourceSubscriptions') e
                             WHERE jsonb_typeof(e) <> 'string')) THEN
            _invalid_params('invalid_filter', 'Invalid params: notifications.resourceSubscriptions must be an array of URI strings')
        END
$$;
COMMENT ON FUNCTION _listen_filter_problem(jsonb) IS
'Internal: NULL when params.notifications of subscriptions/listen is a well-formed SubscriptionFilter, else the -32602 outcome';

-- Expired leases (a gateway that crashed, or lost its database) go, a
-- bounded number at a time.
CREATE OR REPLACE FUNCTION prune_listen_streams(max_rows integer DEFAULT 1000) RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH gone AS (
        DELETE FROM listen_streams s
        WHERE s.stream_id IN (SELECT e.stream_id FROM listen_streams e
                              WHERE e.lease_until <= clock_timestamp() ORDER BY e.lease_until LIMIT max_rows)
        RETURNING 1)
    SELECT count(*) FROM gone
$$;
COMMENT ON FUNCTION prune_listen_streams(integer) IS
'Deletes up to max_rows listen streams whose lease expired (their gateway is gone); returns how many went';

-- The lease: 90 s, renewed by the gateway every 60 s (renewAfterMs) and at
-- once when the stream is named on mcp_notes_listen.
CREATE OR REPLACE FUNCTION _listen_answer(stream_id bigint, watched jsonb, honored jsonb) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('stream', jsonb_strip_nulls(jsonb_build_object(
        'streamId', stream_id, 'honored', honored, 'watch', _listen_watch(watched), 'renewAfterMs', 60000)))
$$;
COMMENT ON FUNCTION _listen_answer(bigint, jsonb, jsonb) IS
'Internal: the outcome that opens a stream: {"stream": {streamId, honored, watch, renewAfterMs}}';

-- Opens a stream: subscriptions/listen (s NULL: params.notifications is
-- the filter) or the GET stream of session s (which replaces the
-- session's earlier one: a 2025-era server sends each message on one
-- stream only).  At most 8 live streams per principal, across gateways.
CREATE OR REPLACE FUNCTION _listen_open(principal text, request jsonb, s legacy_sessions, opened_by bytea)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    max_per_principal constant integer := 8;
    filter jsonb := request #> '{params,notifications}';
    problem jsonb;
    watched jsonb;
    id bigint;
BEGIN
    IF NOT coalesce((request ->> 'streamable')::boolean, false) THEN
        RETURN _error('method_not_found', format('%s needs a gateway that holds streams (HTTP)',
                                                 left(request ->> 'method', 100)));
    END IF;
    IF s.session_hash IS NULL THEN
        problem := _listen_filter_problem(filter);
        IF problem IS NOT NULL THEN
            RETURN problem;
        END IF;
        watched := _listen_watched(principal, coalesce(filter -> 'resourceSubscriptions', '[]'));
    ELSE
        DELETE FROM listen_streams l WHERE l.session_hash = s.session_hash;
        watched := _session_watched(principal, s);
    END IF;
    PERFORM prune_listen_streams(100);
    IF (SELECT count(*) FROM listen_streams l
        WHERE l.principal = _listen_open.principal AND l.lease_until > clock_timestamp()) >= max_per_principal THEN
        RETURN _error('stream_limit', format('Too many open streams: at most %s per principal, across all gateways; '
                                             'close one and listen again', max_per_principal),
                      '{"reason": "listen_limit"}');
    END IF;
    INSERT INTO listen_streams (principal, opened_by, session_hash, gateway_id, watched, lease_until)
    VALUES (principal, opened_by, s.session_hash, left(request ->> 'gatewayId', 64), watched,
            clock_timestamp() + interval '90 seconds')
    RETURNING stream_id INTO id;
    RETURN _listen_answer(id, watched, CASE WHEN s.session_hash IS NULL THEN
        jsonb_strip_nulls(jsonb_build_object('resourceSubscriptions', CASE WHEN filter ? 'resourceSubscriptions'
            THEN (SELECT coalesce(jsonb_agg(w -> 'sent'), '[]') FROM jsonb_array_elements(watched) w) END)) END);
END;
$$;
COMMENT ON FUNCTION _listen_open(text, jsonb, legacy_sessions, bytea) IS
'Internal: subscriptions/listen (and mcp_notes/listen/open, a session''s GET stream): leases a stream of the URIs the principal may watch; the stream outcome, or stream_limit beyond 8 per principal';

-- Renewing re-checks what the stream watches against the grants now.  A
-- 2026 stream whose honoured URIs are no longer all watchable ends (its
-- client listens again and sees the new acknowledgment); a session's GET
-- stream takes the session's subscriptions as they are now.  A stream that
-- is gone (or another principal's, or opened with another token) is
-- {"closed": true}, as one that ends.
CREATE OR REPLACE FUNCTION _listen_renew(principal text, request jsonb, s legacy_sessions, opened_by bytea)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    stream listen_streams;
    now_watched jsonb;
BEGIN
    SELECT l.* INTO stream FROM listen_streams l
    WHERE l.stream_id = CASE WHEN jsonb_typeof(request #> '{params,streamId}') = 'number'
                             THEN (request #>> '{params,streamId}')::bigint END
      AND l.principal = _listen_renew.principal AND l.opened_by IS NOT DISTINCT FROM _listen_renew.opened_by
      AND l.session_hash IS NOT DISTINCT FROM s.session_hash
    FOR UPDATE;
    IF stream.stream_id IS NULL THEN
        RETURN '{"result": {"closed": true}}';
    END IF;
    IF s.session_hash IS NOT NULL THEN
        now_watched := _session_watched(principal, s);
    ELSIF EXISTS (SELECT 1 FROM jsonb_array_elements(stream.watched) w
                  WHERE _watchable(principal, w ->> 'uri') IS NULL) THEN
        DELETE FROM listen_streams l WHERE l.stream_id = stream.stream_id;
        RETURN '{"result": {"closed": true, "reason": "grant_revoked"}}';
    ELSE
        now_watched := stream.watched;
    END IF;
    UPDATE listen_streams l SET watched = now_watched, lease_until = clock_timestamp() + interval '90 seconds'
    WHERE l.stream_id = stream.stream_id;
    RETURN jsonb_build_object('result', (_listen_answer(stream.stream_id, now_watched, NULL) -> 'stream') - 'streamId');
END;
$$;
COMMENT ON FUNCTION _listen_renew(text, jsonb, legacy_sessions, bytea) IS
'Internal: mcp_notes/listen/renew: re-checks a stream against the grants and extends its lease; {"watch", "renewAfterMs"} or {"closed": true}';

-- The internal methods of streams (features().internalMethods), with or
-- without a session: open (a session's GET stream), renew, close.
CREATE OR REPLACE FUNCTION _listen_method(principal text, request jsonb, s legacy_sessions, opened_by bytea)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    CASE request ->> 'method'
        WHEN 'mcp_notes/listen/open' THEN
            IF s.session_hash IS NULL THEN
                RETURN _legacy_no_session();
            END IF;
            RETURN _listen_open(principal, request, s, opened_by);
        WHEN 'mcp_notes/listen/renew' THEN
            RETURN _listen_renew(principal, request, s, opened_by);
        WHEN 'mcp_notes/listen/close' THEN
            DELETE FROM listen_streams l
            WHERE l.stream_id = CASE WHEN jsonb_typeof(request #> '{params,streamId}') = 'number'
                                     THEN (request #>> '{params,streamId}')::bigint END
              AND l.principal = _listen_method.principal;
            RETURN '{"result": {"closed": true}}';
        ELSE
            RETURN _error('method_not_found', format('Method not found: %s', left(request ->> 'method', 100)));
    END CASE;
END;
$$;
COMMENT ON FUNCTION _listen_method(text, jsonb, legacy_sessions, bytea) IS
'Internal: the internal methods mcp_notes/listen/open (a session''s GET stream), renew and close';

-- What features() adds for streams and both eras: the methods each era
-- routes besides methods (2026-07-28 removed ping, logging/setLevel and
-- resources/subscribe, which stay -32601 there; subscriptions/listen is
-- 2026 only), the capabilities only a gateway that serves them advertises
-- (gateways before 2.2.0 ignore the member), and the channels.
CREATE OR REPLACE FUNCTION _stream_features() RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object(
        'modernMethods', '["subscriptions/listen"]'::jsonb,
        'legacyMethods', '["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]'::jsonb,
        'gatewayCapabilities', jsonb_build_object('logging', '{}'::jsonb)
            || CASE WHEN EXISTS (SELECT 1 FROM resource_kinds k WHERE k.name = 'notes')
                    THEN '{"resources": {"subscribe": true}}'::jsonb ELSE '{}' END,
        'subscriptions', '{"changeChannel": "mcp_notes_changes", "streamChannel": "mcp_notes_listen"}'::jsonb)
$$;
COMMENT ON FUNCTION _stream_features() IS
'Internal: the members of features() for streams and the two eras: modernMethods, legacyMethods, gatewayCapabilities, subscriptions (channels)';
