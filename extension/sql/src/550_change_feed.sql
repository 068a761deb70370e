-------------------------------------------------------------------------------
-- The change feed: every write of a note, by any writer, notified at commit
-------------------------------------------------------------------------------

-- What a watcher of a note URI holds and the change feed notifies: 16 bytes
-- of SHA-256 over the watch key's secret and the canonical URI, in hex.  A
-- gateway learns the keys of the URIs a stream may watch from the extension
-- (_listen_open), so it never decides containment; a role that LISTENs on
-- the channel (PostgreSQL lets any role) learns nothing about which URIs
-- changed.  Truncated: a length extension needs the whole digest.
CREATE OR REPLACE FUNCTION _watch_key(uri text) RETURNS text
LANGUAGE sql STABLE STRICT
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT encode(substring(sha256(k.secret || convert_to(uri, 'UTF8')) FROM 1 FOR 16), 'hex') FROM watch_key k
$$;
COMMENT ON FUNCTION _watch_key(text) IS
'Internal: the watch key of a canonical URI (hex of 16 bytes of SHA-256 over the secret of watch_key and the URI)';

-- Payloads stay far below NOTIFY's 8000 bytes: 200 keys of 33 bytes.  A
-- statement that touches very many notes sends "*" (anything may have
-- changed): every stream then tells each URI it watches, which is safe, a
-- client re-reads.
CREATE OR REPLACE FUNCTION _notify_watch_keys(keys text[]) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    per_payload constant integer := 200;
    n integer := coalesce(cardinality(keys), 0);
BEGIN
    IF n > 5000 THEN
        PERFORM pg_catalog.pg_notify('mcp_notes_changes', '*');
        RETURN;
    END IF;
    FOR i IN 0 .. (n - 1) / per_payload LOOP
        EXIT WHEN n = 0;
        PERFORM pg_catalog.pg_notify('mcp_notes_changes',
                                     array_to_string(keys[i * per_payload + 1 : (i + 1) * per_payload], ' '));
    END LOOP;
END;
$$;
COMMENT ON FUNCTION _notify_watch_keys(text[]) IS
'Internal: notifies mcp_notes_changes with the watch keys, 200 to a payload (more than 5000: "*", anything may have changed)';

-- The statement triggers of notes: the keys of every URI a statement wrote
-- (an update's old and new URI both: a move changes both resources), one
-- notification per 200 keys, sent by PostgreSQL at commit only, so a
-- watcher that reads again sees the change.  On the notes table itself, so
-- every writer is covered: the tools, the operator API (add_note,
-- move_note), file-backed workspaces, plain SQL, logical replication.
-- SECURITY DEFINER because the writer may be a role that cannot read
-- watch_key; it reads only the statement's own transition table.
CREATE OR REPLACE FUNCTION _notes_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    keys text[];
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_catalog.pg_notify('mcp_notes_changes', '*');
    ELSIF TG_OP = 'INSERT' THEN
        SELECT array_agg(DISTINCT _watch_key(n.uri)) INTO keys FROM written_notes n;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(DISTINCT _watch_key(o.uri)) INTO keys FROM gone_notes o;
    ELSE
        SELECT array_agg(DISTINCT _watch_key(u.uri)) INTO keys
        FROM (SELECT o.uri FROM gone_notes o UNION SELECT n.uri FROM written_notes n) u;
    END IF;
    PERFORM _notify_watch_keys(keys);
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _notes_changed() IS
'Internal: statement trigger on notes that notifies mcp_notes_changes with the watch keys of every URI written';

CREATE OR REPLACE TRIGGER notes_change_feed_insert AFTER INSERT ON notes
    REFERENCING NEW TABLE AS written_notes FOR EACH STATEMENT EXECUTE FUNCTION _notes_changed();
CREATE OR REPLACE TRIGGER notes_change_feed_update AFTER UPDATE ON notes
    REFERENCING OLD TABLE AS gone_notes NEW TABLE AS written_notes FOR EACH STATEMENT EXECUTE FUNCTION _notes_changed();
CREATE OR REPLACE TRIGGER notes_change_feed_delete AFTER DELETE ON notes
    REFERENCING OLD TABLE AS gone_notes FOR EACH STATEMENT EXECUTE FUNCTION _notes_changed();
CREATE OR REPLACE TRIGGER notes_change_feed_truncate AFTER TRUNCATE ON notes
    FOR EACH STATEMENT EXECUTE FUNCTION _notes_changed();
-- also where the notes arrive by logical replication
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_change_feed_insert;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_change_feed_update;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_change_feed_delete;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_change_feed_truncate;

-- Streams are named on mcp_notes_listen by id (never a URI or a principal):
-- the gateway holding one renews it at once, which re-authenticates and
-- re-checks what it watches, and ends it when its row is gone.
CREATE OR REPLACE FUNCTION _notify_streams(ids bigint[]) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    per_payload constant integer := 300;
    n integer := coalesce(cardinality(ids), 0);
BEGIN
    FOR i IN 0 .. (n - 1) / per_payload LOOP
        EXIT WHEN n = 0;
        PERFORM pg_catalog.pg_notify('mcp_notes_listen',
                                     array_to_string(ids[i * per_payload + 1 : (i + 1) * per_payload], ' '));
    END LOOP;
END;
$$;
COMMENT ON FUNCTION _notify_streams(bigint[]) IS
'Internal: notifies mcp_notes_listen with stream ids (300 to a payload), so the gateways holding them renew them at once';

-- A stream whose row goes (closed, its token revoked, its session ended,
-- replaced, pruned) is told, so the gateway holding it ends it.
CREATE OR REPLACE FUNCTION _listen_streams_ended() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _notify_streams(ARRAY(SELECT g.stream_id FROM ended_streams g ORDER BY 1));
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _listen_streams_ended() IS
'Internal: trigger that notifies mcp_notes_listen with the ids of the listen streams deleted';

CREATE OR REPLACE TRIGGER listen_streams_ended AFTER DELETE ON listen_streams
    REFERENCING OLD TABLE AS ended_streams FOR EACH STATEMENT EXECUTE FUNCTION _listen_streams_ended();
ALTER TABLE listen_streams ENABLE ALWAYS TRIGGER listen_streams_ended;

-- A grant that goes (revoke_workspace, a workspace removed) re-checks at
-- once every stream of its principal: what no grant covers any more stops
-- being watched (a 2026 stream ends; the client listens again and sees the
-- new acknowledgment).
CREATE OR REPLACE FUNCTION _grants_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM _notify_streams(ARRAY(SELECT s.stream_id FROM listen_streams s ORDER BY 1));
    ELSE
        PERFORM _notify_streams(ARRAY(SELECT s.stream_id FROM listen_streams s
                                      WHERE s.principal IN (SELECT g.principal FROM revoked_grants g) ORDER BY 1));
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _grants_changed() IS
'Internal: trigger that notifies mcp_notes_listen with the streams of the principals whose grants were deleted or changed';

CREATE OR REPLACE TRIGGER grants_recheck_streams_update AFTER UPDATE ON grants
    REFERENCING OLD TABLE AS revoked_grants FOR EACH STATEMENT EXECUTE FUNCTION _grants_changed();
CREATE OR REPLACE TRIGGER grants_recheck_streams_delete AFTER DELETE ON grants
    REFERENCING OLD TABLE AS revoked_grants FOR EACH STATEMENT EXECUTE FUNCTION _grants_changed();
CREATE OR REPLACE TRIGGER grants_recheck_streams_truncate AFTER TRUNCATE ON grants
    FOR EACH STATEMENT EXECUTE FUNCTION _grants_changed();
ALTER TABLE grants ENABLE ALWAYS TRIGGER grants_recheck_streams_update;
ALTER TABLE grants ENABLE ALWAYS TRIGGER grants_recheck_streams_delete;
ALTER TABLE grants ENABLE ALWAYS TRIGGER grants_recheck_streams_truncate;

-- A revoked, expired or deleted token's streams end, like its pending
-- requests for input (_token_ended): a stream is never authorization.
CREATE OR REPLACE FUNCTION _token_ended_streams() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.revoked_at IS NOT NULL OR NEW.expires_at <= clock_timestamp() THEN
        DELETE FROM listen_streams s WHERE s.opened_by = OLD.token_hash;
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _token_ended_streams() IS
'Internal: trigger that removes the listen streams opened with a token that is revoked, expired or deleted';

CREATE OR REPLACE TRIGGER tokens_end_streams AFTER UPDATE OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION _token_ended_streams();
ALTER TABLE tokens ENABLE ALWAYS TRIGGER tokens_end_streams;
