-- Change notifications and logging (issue 23): per-era method lists in
-- features(); listen streams honour only what the principal may read, are
-- capped per principal, end when a grant or the token goes; 2025 sessions'
-- resources/subscribe and logging/setLevel answer exactly {}; log messages
-- reach only a request that asked for a level, at or above it.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

SELECT mcp_notes.add_workspace('file:///t/sub');
SELECT mcp_notes.add_workspace('file:///t/sub-other');
SELECT mcp_notes.grant_workspace('sara', 'file:///t/sub');
SELECT mcp_notes.grant_workspace('omar', 'file:///t/sub-other');
SELECT mcp_notes.add_note('file:///t/sub/a.md', 'Alpha', 'alpha') AS alpha \gset
SELECT mcp_notes.add_note('file:///t/sub-other/secret.md', 'Secret', 'secret') AS secret \gset
SELECT mcp_notes.issue_token('sara') AS tok \gset

SELECT mcp_notes.features() -> 'modernMethods' AS modern, mcp_notes.features() -> 'legacyMethods' AS legacy,
       mcp_notes.features() -> 'gatewayCapabilities' AS gateway_caps,
       mcp_notes.features() -> 'methods' ? 'subscriptions/listen' AS listen_in_both_eras,
       mcp_notes.features() -> 'methods' ? 'logging/setLevel' AS set_level_in_both_eras;

-- listen: only a gateway that holds streams; the filter must be an object
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "params": {"notifications": {}}}') #>> '{error,kind}' AS not_streamable;
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "streamable": true, "params": {}}') #>> '{error,data,reason}' AS no_filter;
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "streamable": true, "params": {"notifications": {"resourceSubscriptions": [1]}}}') #>> '{error,data,reason}' AS bad_uris;

-- only the readable URI is honoured (the other principal's, a malformed
-- one and a duplicate are not); the watch key is the extension's
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "streamable": true, "gatewayId": "gw-a",
    "params": {"notifications": {"toolsListChanged": true, "resourceSubscriptions":
        ["file:///t/sub/a.md", "file:///t/sub-other/secret.md", "not a uri", "file:///t/sub/./a.md"]}}}') AS opened \gset
SELECT :'opened'::jsonb #> '{stream,honored}' AS honored,
       :'opened'::jsonb #> '{stream,watch,0,uri}' AS watched_uri,
       (:'opened'::jsonb #>> '{stream,watch,0,key}') = mcp_notes._watch_key('file:///t/sub/a.md'::text) AS key_is_extensions,
       length(:'opened'::jsonb #>> '{stream,watch,0,key}') AS key_hex_length,
       jsonb_array_length(:'opened'::jsonb #> '{stream,watch}') AS watched;
SELECT :'opened'::jsonb #>> '{stream,streamId}' AS sid \gset
SELECT principal, gateway_id, lease_until > clock_timestamp() AS leased FROM mcp_notes.listen_streams;

-- renew: another principal's token cannot; the owner's extends the lease
SELECT mcp_notes.issue_token('omar') AS otok \gset
SELECT mcp_notes.handle(:'otok', format('{"method": "mcp_notes/listen/renew", "params": {"streamId": %s}}', :'sid')::jsonb) AS foreign_renew;
SELECT mcp_notes.handle(:'tok', format('{"method": "mcp_notes/listen/renew", "params": {"streamId": %s}}', :'sid')::jsonb)
       #> '{result,watch,0,uri}' AS renewed;

-- the cap: 8 live streams per principal, a clear refusal for the 9th
SELECT count(*) AS opened FROM generate_series(2, 8) i,
    LATERAL mcp_notes.handle(:'tok', jsonb_build_object('method', 'subscriptions/listen', 'streamable', true, 'requestId', i,
                                                        'params', '{"notifications": {}}'::jsonb)) h
WHERE h ? 'stream';
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "streamable": true, "params": {"notifications": {}}}') AS ninth;
-- close frees one
SELECT mcp_notes.handle(:'tok', format('{"method": "mcp_notes/listen/close", "params": {"streamId": %s}}',
       (SELECT max(stream_id) FROM mcp_notes.listen_streams))::jsonb) AS closed;
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "streamable": true, "params": {"notifications": {}}}') ? 'stream' AS reopened;

-- a revoked grant: the stream that watched inside it ends at renewal
SELECT mcp_notes.revoke_workspace('sara', 'file:///t/sub');
SELECT mcp_notes.handle(:'tok', format('{"method": "mcp_notes/listen/renew", "params": {"streamId": %s}}', :'sid')::jsonb) AS after_revoke;
SELECT mcp_notes.grant_workspace('sara', 'file:///t/sub');
-- a revoked token: all its streams go
SELECT mcp_notes.revoke_token(:'tok');
SELECT count(*) AS streams_left FROM mcp_notes.listen_streams;
SELECT mcp_notes.issue_token('sara') AS tok \gset

-- expired leases are pruned
SELECT mcp_notes.handle(:'tok', '{"method": "subscriptions/listen", "streamable": true, "params": {"notifications": {}}}') ? 'stream' AS opened;
UPDATE mcp_notes.listen_streams SET lease_until = clock_timestamp() - interval '1 second';
SELECT mcp_notes.prune_listen_streams() AS pruned;

-- 2025 sessions: logging/setLevel and resources/subscribe answer exactly {}
SELECT mcp_notes.handle(:'tok', '{"method": "mcp_notes/session/open", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "ttlSeconds": 600}}')
       #>> '{result,sessionId}' AS session \gset
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'logging/setLevel', 'session', :'session', 'params', '{"level": "loud"}'::jsonb)) #> '{error,kind}' AS bad_level;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'logging/setLevel', 'session', :'session', 'params', '{"level": "debug"}'::jsonb)) AS set_level;
SELECT log_level FROM mcp_notes.legacy_sessions;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'resources/subscribe', 'session', :'session', 'params', '{"uri": "file:///t/sub/a.md"}'::jsonb)) AS subscribed;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'resources/subscribe', 'session', :'session', 'params', '{"uri": "file:///t/sub-other/secret.md"}'::jsonb)) AS foreign_subscribed;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'resources/subscribe', 'session', :'session', 'params', '{"uri": "test://watched-resource"}'::jsonb)) AS unknown_subscribed;
SELECT watched_uri, sent FROM mcp_notes.legacy_subscriptions;
-- the session's GET stream watches its subscriptions
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'mcp_notes/listen/open', 'session', :'session', 'streamable', true, 'params', '{}'::jsonb))
       #> '{stream,watch,0,uri}' AS get_stream_watches;
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'resources/unsubscribe', 'session', :'session', 'params', '{"uri": "file:///t/sub/a.md"}'::jsonb)) AS unsubscribed;
SELECT count(*) AS subscriptions FROM mcp_notes.legacy_subscriptions;
-- the modern era has neither: they are not in features().methods
SELECT mcp_notes.handle(:'tok', '{"method": "logging/setLevel", "params": {"level": "debug"}}') #>> '{error,kind}' AS modern_set_level;

-- logging: notes_delete's decision at debug, only with a level at or below it
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "params": {"name": "notes_delete", "arguments": {"workspaceUri": "file:///t/sub", "query": "Alpha"}}}')
       ? 'notifications' AS without_level;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "logLevel": "debug", "params": {"name": "notes_delete", "arguments": {"workspaceUri": "file:///t/sub", "query": "Alpha"}}}')
       -> 'notifications' AS at_debug;
SELECT mcp_notes.handle(:'tok', '{"method": "tools/call", "logLevel": "warning", "params": {"name": "notes_delete", "arguments": {"workspaceUri": "file:///t/sub", "query": "Alpha"}}}')
       ? 'notifications' AS at_warning;
-- a 2025 session: its level applies
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'session', :'session',
       'params', '{"name": "notes_delete", "arguments": {"workspaceUri": "file:///t/sub", "query": "Alpha"}}'::jsonb))
       #>> '{notifications,0,params,data,decision}' AS session_level;
