-------------------------------------------------------------------------------
-- Change notifications: watch keys, listen streams, 2025-era subscriptions
-- and the session's log level (docs/resources-prompts.md, "Subscriptions")
-------------------------------------------------------------------------------

-- The secret of the watch keys: the change feed notifies a keyed hash of a
-- note's URI, never the URI, because any role that can connect may LISTEN
-- on any channel; with the key secret it cannot test a URI it guesses.  Not
-- dumped: a restored database gets a new one (open streams listen again).
CREATE TABLE watch_key (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    secret    bytea NOT NULL CHECK (length(secret) OPERATOR(pg_catalog.=) 32)
);
COMMENT ON TABLE watch_key IS
'The secret of the watch keys the change feed notifies (16 bytes of SHA-256 over it and a canonical URI); one row, owner only';
INSERT INTO watch_key (secret) VALUES (_random_bytes(32));

-- One row per open stream of change notifications, on whichever gateway
-- holds it: a 2026-07-28 subscriptions/listen (session_hash NULL) or the
-- 2025 era's GET stream of a session (one per session).  watched holds what
-- the stream was granted: [{"uri": canonical, "sent": as the client wrote
-- it}].  The gateway renews the lease while the stream lives; a crashed
-- gateway's rows lapse and are pruned.  opened_by is the hash of the token
-- that opened it (NULL for handle_as): revoking the token ends the stream.
CREATE TABLE listen_streams (
    stream_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    principal     text NOT NULL,
    opened_by     bytea,
    session_hash  bytea REFERENCES legacy_sessions ON DELETE CASCADE,
    gateway_id    text,
    watched       jsonb NOT NULL DEFAULT '[]',
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_until   timestamptz NOT NULL
);
CREATE INDEX listen_streams_principal ON listen_streams (principal, lease_until);
CREATE INDEX listen_streams_lease ON listen_streams (lease_until);
CREATE INDEX listen_streams_opened_by ON listen_streams (opened_by);
CREATE UNIQUE INDEX listen_streams_one_per_session ON listen_streams (session_hash);
COMMENT ON TABLE listen_streams IS
'Open streams of change notifications (subscriptions/listen, the 2025-era GET stream), leased by the gateway that holds each';

-- A 2025-era session's resources/subscribe, kept only when the principal
-- may watch the URI (the answer is {} either way), at most 100 per session;
-- the session's GET stream delivers them.
CREATE TABLE legacy_subscriptions (
    session_hash  bytea NOT NULL REFERENCES legacy_sessions ON DELETE CASCADE,
    watched_uri   text NOT NULL,
    sent          text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (session_hash, watched_uri)
);
COMMENT ON TABLE legacy_subscriptions IS
'2025-era resources/subscribe of a session: the canonical URI watched and the URI as the client sent it';

-- logging/setLevel of a 2025-era session: NULL until the client sets one,
-- and then no notifications/message at all, as a 2026 request without
-- _meta logLevel.
ALTER TABLE legacy_sessions ADD COLUMN log_level text
    CHECK (log_level OPERATOR(pg_catalog.=) ANY (ARRAY['debug', 'info', 'notice', 'warning', 'error', 'critical',
                                                      'alert', 'emergency']));
COMMENT ON COLUMN legacy_sessions.log_level IS
'The level logging/setLevel set (messages at or above it go to the session''s requests); NULL: none sent';
