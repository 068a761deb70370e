-- The sealed requestState: what it carries, and every way it can fail.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;
-- The setting exists once the library is loaded (by any call into it).
SELECT mcp_notes.normalize_uri('file:///') AS loaded;
SHOW mcp_notes.state_ttl;

SELECT mcp_notes.add_workspace('file:///t/state');
SELECT mcp_notes.grant_workspace('alice', 'file:///t/state');
SELECT mcp_notes.grant_workspace('bob', 'file:///t/state');
SELECT count(mcp_notes.add_note(format('file:///t/state/%s.md', x), 'state note ' || x))
FROM unnest(ARRAY['a', 'b', 'c']) x;

SELECT t.call('alice', 'file:///t/state', 'state note') AS r \gset
SELECT t.state(:'r') AS s, t.accept(t.note_id('state note a')) AS yes \gset

-- What a state carries (opened as the extension owner).
SELECT x ->> 'ok' AS ok, x ->> 'kid' = (SELECT key_id::text FROM mcp_notes.state_keys WHERE retired_at IS NULL) AS active_key,
       x #>> '{claims,principal}' AS principal, x #>> '{claims,method}' AS method, x #>> '{claims,tool}' AS tool,
       x #>> '{claims,phase}' AS phase, x #>> '{claims,workspace}' AS workspace,
       x #>> '{claims,args}' = mcp_notes._args_digest('file:///t/state', 'state note') AS args_digest_matches,
       jsonb_array_length(x #> '{claims,candidates}') AS candidates,
       (x ->> 'exp')::bigint - (x ->> 'iat')::bigint AS lifetime_s,
       length(x ->> 'nonce') AS nonce_chars
FROM mcp_notes._open_state(:'s') x;
-- Two states for the same call never share a nonce.
SELECT count(DISTINCT mcp_notes._open_state(t.state(t.call('alice', 'file:///t/state', 'state note'))) ->> 'nonce')
       AS distinct_nonces_of_20
FROM generate_series(1, 20);

-- Change each character of the state in turn: every variant is refused,
-- nothing is deleted.
CREATE TEMP TABLE tampered AS
SELECT i, t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb,
                 overlay(:'s' PLACING CASE WHEN substr(:'s', i, 1) = 'A' THEN 'B' ELSE 'A' END FROM i FOR 1)) AS r
FROM generate_series(1, length(:'s')) i;
SELECT count(*) = length(:'s') AS every_position_changed,
       count(*) FILTER (WHERE r ? 'result') AS accepted,
       count(*) FILTER (WHERE r #>> '{error,code}' <> '-32602') AS not_invalid_params,
       count(*) FILTER (WHERE r #>> '{error,data,reason}' NOT IN
                        ('state_malformed', 'state_bad_signature', 'state_unknown_key')) AS other_reasons,
       count(*) FILTER (WHERE r #>> '{error,data,reason}' = 'state_bad_signature') > length(:'s') / 2 AS mostly_bad_signature
FROM tampered;
-- Cut it short at every length, or add to it: refused too.
SELECT count(*) FILTER (WHERE r ? 'result') AS accepted, count(*) AS tried
FROM (SELECT t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb, left(:'s', i)) AS r
      FROM generate_series(0, length(:'s') - 1) i
      UNION ALL
      SELECT t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb, :'s' || suffix)
      FROM unnest(ARRAY['A', '=', '.', '.x', ' ', E'\n']) suffix) v;
SELECT count(*) AS notes_left FROM mcp_notes.notes WHERE uri LIKE 'file:///t/state/%';

-- Each failure, by name.
SELECT label, t.outcome(t.call(who, ws, title, :'yes'::jsonb, state)) AS outcome,
       (t.call(who, ws, title, :'yes'::jsonb, state)) #>> '{error,message}' AS message
FROM (VALUES
    ('empty', 'alice', 'file:///t/state', 'state note', ''),
    ('not a state', 'alice', 'file:///t/state', 'state note', 'hello'),
    ('five fields', 'alice', 'file:///t/state', 'state note', :'s' || '.x'),
    ('other version', 'alice', 'file:///t/state', 'state note', 'v2' || substr(:'s', 3)),
    ('padded signature', 'alice', 'file:///t/state', 'state note', :'s' || '='),
    ('unknown key id', 'alice', 'file:///t/state', 'state note', regexp_replace(:'s', '^v1\.[0-9]+\.', 'v1.999999.')),
    ('key id with sign', 'alice', 'file:///t/state', 'state note', regexp_replace(:'s', '^v1\.', 'v1.+')),
    ('signature of another state', 'alice', 'file:///t/state', 'state note',
        regexp_replace(:'s', '\.[^.]*$', '') || '.' || split_part(t.state(t.call('alice', 'file:///t/state', 'state note')), '.', 4)),
    ('other principal', 'bob', 'file:///t/state', 'state note', :'s'),
    ('changed title', 'alice', 'file:///t/state', 'state note a', :'s'),
    ('changed case of title', 'alice', 'file:///t/state', 'State note', :'s'),
    ('narrower workspace', 'alice', 'file:///t/state/x', 'state note', :'s')) AS v(label, who, ws, title, state);

-- The same arguments spelled differently are the same arguments (cancel
-- spends nothing, so the state stays good for what follows).
SELECT t.outcome(t.call('alice', 'FILE://localhost/t/state/', 'state note', t.answer('cancel'), :'s')) AS same_args_other_spelling;

-- Authentic states that were sealed for something else.
SELECT label, t.outcome(t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb,
                               mcp_notes._seal_state((mcp_notes._open_state(:'s') -> 'claims') || change)))
FROM (VALUES ('other phase', '{"phase": "done"}'::jsonb),
             ('other tool', '{"tool": "notes_purge"}'),
             ('other method', '{"method": "prompts/get"}'),
             ('other principal', '{"principal": "bob"}'),
             ('candidates list another note', jsonb_build_object('candidates', jsonb_build_array(t.note_id('state note b'))))) AS v(label, change);

-- The seal's own purpose and lifetime (covered by the MAC, set by _seal):
-- a delete state is for notes_delete and lives state_ttl.  The same claims
-- sealed for any other purpose are refused by purpose, before anything
-- they claim is read.
SELECT x ->> 'purpose' AS purpose, (x ->> 'exp')::bigint - (x ->> 'iat')::bigint AS lifetime_s,
       x #> '{claims}' ? 'purpose' AS purpose_in_claims
FROM mcp_notes._open_state(:'s') x;
SELECT p AS sealed_for, t.outcome(t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb,
                                          mcp_notes._seal(p, mcp_notes._open_state(:'s') -> 'claims'))) AS outcome
FROM unnest(ARRAY['cursor', 'resources_cursor', 'conformance', 'notes_delete_2']) p;
-- _open_sealed: seal, purpose, expiry, principal, in that order.
SELECT label, mcp_notes._open_sealed(tok, purpose, who) - 'claims' - 'nonce' - 'iat' - 'exp' - 'kid' - 'expires' AS opened
FROM (VALUES ('good', :'s', 'notes_delete', 'alice'),
             ('other purpose', :'s', 'cursor', 'alice'),
             ('other principal', :'s', 'notes_delete', 'bob'),
             ('not sealed', 'v1.1.e30.AAAA', 'notes_delete', 'alice'),
             ('null', NULL, 'notes_delete', 'alice')) AS v(label, tok, purpose, who);
-- What _seal refuses to make: no purpose, a purpose that is not a name, a
-- lifetime outside 1 s .. 1 day (a retired key is pruned after a day), no
-- claims or claims that are not an object.
\set VERBOSITY terse
SELECT mcp_notes._seal(NULL, '{}');
SELECT mcp_notes._seal('Cursor', '{}');
SELECT mcp_notes._seal('a"b', '{}');
SELECT mcp_notes._seal(repeat('p', 65), '{}');
SELECT mcp_notes._seal('cursor', '{}', 0);
SELECT mcp_notes._seal('cursor', '{}', 86401);
SELECT mcp_notes._seal('cursor', NULL);
SELECT mcp_notes._seal('cursor', '[1]');
\set VERBOSITY default
SELECT (x ->> 'exp')::bigint - (x ->> 'iat')::bigint AS one_day
FROM mcp_notes._open_state(mcp_notes._seal('cursor', '{}', 86400)) x;

-- Expiry is judged on the database clock.
SET mcp_notes.state_ttl = '1s';
SELECT t.state(t.call('alice', 'file:///t/state', 'state note')) AS short \gset
RESET mcp_notes.state_ttl;
SELECT pg_sleep(1.5);
SELECT t.outcome(t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb, :'short')) AS expired;
SET mcp_notes.state_ttl = 0;
SET mcp_notes.state_ttl = '2d';

-- Rotation: new states use the new key, old ones keep verifying until the
-- old key is pruned.
SELECT key_id AS old_key FROM mcp_notes.state_keys WHERE retired_at IS NULL \gset
SELECT mcp_notes.rotate_state_key() AS new_key \gset
SELECT :new_key > :old_key AS new_key_is_newer,
       (SELECT count(*) FROM mcp_notes.state_keys WHERE retired_at IS NULL) AS active_keys,
       split_part(t.state(t.call('alice', 'file:///t/state', 'state note')), '.', 2) = :'new_key' AS sealed_with_new_key;
SELECT t.outcome(t.call('alice', 'file:///t/state', 'state note', t.answer('cancel'), :'s')) AS old_state_after_rotation;
SELECT mcp_notes.prune_spent_states() AS pruned_too_early;
UPDATE mcp_notes.state_keys SET retired_at = now() - interval '25 hours' WHERE key_id = :old_key;
INSERT INTO mcp_notes.spent_states (nonce, expires_at, outcome) VALUES ('old-nonce', now() - interval '1 hour', 'decline');
SELECT mcp_notes.prune_spent_states() AS pruned;
SELECT t.outcome(t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb, :'s')) AS old_state_after_prune;
SELECT count(*) AS notes_left FROM mcp_notes.notes WHERE uri LIKE 'file:///t/state/%';

-- A fresh state under the new key still deletes, once.
SELECT t.call('alice', 'file:///t/state', 'state note') AS r \gset
SELECT t.outcome(t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb, t.state(:'r'))) AS accept;
SELECT t.outcome(t.call('alice', 'file:///t/state', 'state note', :'yes'::jsonb, t.state(:'r'))) AS replay;
