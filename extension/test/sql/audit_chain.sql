-- The audit hash chain: rows queued by their writers, linked by
-- audit_tick(), recomputed by verify_audit(); every tampering the owner can
-- do with the triggers disabled is reported at the row it touched; an
-- exported head catches what the chain alone cannot (a rewritten chain, a
-- truncated tail); prune_audit() cuts the chain where verification goes on.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
\set SHOW_CONTEXT never

SELECT mcp_notes.add_workspace('file:///t/chain'), mcp_notes.grant_workspace('ivy', 'file:///t/chain');

-- Tool calls as a gateway makes them (serializable, one statement each).
CREATE FUNCTION pg_temp.tool(name text, arguments jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('ivy', jsonb_build_object('method', 'tools/call',
        'params', jsonb_build_object('name', name, 'arguments', arguments),
        'requestId', 'chain-1', 'gatewayId', 'regress-gw', 'clientInfo', jsonb_build_object('name', 'regress')))
$$;
CREATE FUNCTION pg_temp.create(n text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.tool('notes_create', jsonb_build_object('workspaceUri', 'file:///t/chain',
        'uri', 'file:///t/chain/' || n || '.md', 'title', 'chain ' || n, 'body', 'body of ' || n))
        #>> '{result,structuredContent,noteId}'
$$;
CREATE FUNCTION pg_temp.update(id text, body text) RETURNS boolean LANGUAGE sql AS $$
    SELECT NOT (pg_temp.tool('notes_update', jsonb_build_object('workspaceUri', 'file:///t/chain',
        'noteId', id, 'body', body)) #>> '{result,isError}')::boolean
$$;
-- A confirmed delete: step 1 (the form), then the accept, as two calls.
CREATE FUNCTION pg_temp.delete(n text) RETURNS boolean LANGUAGE sql AS $$
    SELECT (t.call('ivy', 'file:///t/chain', 'chain ' || n, t.accept((t.choices(r))[1]), t.state(r))
            #>> '{result,structuredContent,deleted}')::boolean
    FROM t.call('ivy', 'file:///t/chain', 'chain ' || n) AS r
$$;
-- verify_audit() in one stable line.
CREATE FUNCTION pg_temp.verdict(up_to bigint DEFAULT NULL, head text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN v.ok THEN format('ok: %s links, up to link %s', v.links, v.last_seq)
                ELSE format('broken at link %s (%s %s): %s', coalesce(v.broken_seq::text, '-'),
                            coalesce(v.source, '-'), coalesce(v.audit_id::text, '-'), v.problem) END
    FROM mcp_notes.verify_audit(up_to, head) v
$$;

SET default_transaction_isolation = serializable;
SELECT count(pg_temp.create(n)) AS created FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e']) AS n;
SELECT pg_temp.create('f') AS f \gset
SELECT pg_temp.update(:'f', 'second body of f') AND pg_temp.update(:'f', 'third body of f') AS updated;
SELECT pg_temp.delete('a') AND pg_temp.delete('b') AS deleted;
SELECT (t.call('ivy', 'file:///t/chain', 'chain c', t.answer('decline'),
               t.state(t.call('ivy', 'file:///t/chain', 'chain c'))) #>> '{result,structuredContent,deleted}') AS declined;
RESET default_transaction_isolation;

-- Every audit row was queued by its insert; nothing is linked yet, and a
-- queued row is not a problem.
SELECT (SELECT count(*) FROM mcp_notes.change_audit) AS changes, (SELECT count(*) FROM mcp_notes.delete_audit) AS deletes,
       (SELECT count(*) FROM mcp_notes.audit_pending) AS queued, (SELECT count(*) FROM mcp_notes.audit_chain) AS links;
SELECT pg_temp.verdict();

-- The tick refuses to run serializable: it would take part in the writers'
-- conflict checks.
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM mcp_notes.audit_tick();
ROLLBACK;

-- A session's own settings do not change what is digested.
SET TimeZone = 'Pacific/Chatham';
SET IntervalStyle = 'sql_standard';
SET bytea_output = 'escape';
SELECT seq, chained FROM mcp_notes.audit_tick();
RESET TimeZone;
RESET IntervalStyle;
RESET bytea_output;
SELECT seq, chained FROM mcp_notes.audit_tick();
SELECT (SELECT count(*) FROM mcp_notes.audit_pending) AS queued,
       (SELECT string_agg(c.source || ' ' || c.audit_id, ', ' ORDER BY c.seq) FROM mcp_notes.audit_chain c) AS links_in_order;
SELECT pg_temp.verdict();
SELECT h.seq = v.last_seq AND h.head = v.last_head AS head_is_verified FROM mcp_notes.audit_head() h, mcp_notes.verify_audit() v;

-- The documented encoding, recomputed by hand: with TimeZone UTC, the row
-- as to_jsonb gives it without its null members, as text; the link's
-- digest is sha256(previous digest || UTF-8 of "seq table canonical").
SET TimeZone = 'UTC';
SELECT bool_and(c.digest = sha256(coalesce(p.digest, decode(repeat('00', 32), 'hex'))
                                  || convert_to(c.seq || ' ' || c.source || ' ' || r.canonical, 'UTF8'))) AS recomputed_by_hand
FROM mcp_notes.audit_chain c
LEFT JOIN mcp_notes.audit_chain p ON p.seq = c.seq - 1
JOIN LATERAL (SELECT (SELECT jsonb_object_agg(key, value) FROM jsonb_each(j) WHERE value <> 'null')::text
              FROM (SELECT to_jsonb(a) AS j FROM mcp_notes.change_audit a WHERE c.source = 'change_audit' AND a.audit_id = c.audit_id
                    UNION ALL
                    SELECT to_jsonb(a) FROM mcp_notes.delete_audit a WHERE c.source = 'delete_audit' AND a.audit_id = c.audit_id) x)
     AS r(canonical) ON true;
RESET TimeZone;
-- Null members are left out, so a nullable column added later leaves the
-- rows before it verifying; its values on later rows are covered with no
-- change to the chain (every column is in the encoding).
SELECT mcp_notes._audit_canonical('{"b": 1, "a": null, "longer": "x", "c": {"d": null}}');
ALTER TABLE mcp_notes.change_audit ADD COLUMN regress_extra text;
SELECT pg_temp.verdict();
SET default_transaction_isolation = serializable;
SELECT pg_temp.update(:'f', 'fourth body of f') AS updated;
RESET default_transaction_isolation;
-- (as if the writer had set it: the append-only trigger out of the way
-- for the statement, before the row is linked)
BEGIN;
ALTER TABLE mcp_notes.change_audit DISABLE TRIGGER change_audit_append_only;
UPDATE mcp_notes.change_audit SET regress_extra = 'set by the writer'
WHERE audit_id = (SELECT max(audit_id) FROM mcp_notes.change_audit);
ALTER TABLE mcp_notes.change_audit ENABLE TRIGGER change_audit_append_only;
COMMIT;
SELECT seq, chained FROM mcp_notes.audit_tick();
SELECT pg_temp.verdict();
BEGIN;
ALTER TABLE mcp_notes.change_audit DISABLE TRIGGER USER;
UPDATE mcp_notes.change_audit SET regress_extra = 'changed afterwards' WHERE regress_extra IS NOT NULL;
SELECT pg_temp.verdict();
ROLLBACK;

-- The export: the head as a gateway logs it.
SELECT seq AS exported_seq, head AS exported_head FROM mcp_notes.audit_head() \gset
SELECT pg_temp.verdict(:exported_seq, :'exported_head');
SELECT pg_temp.verdict(3);
SELECT pg_temp.verdict(NULL, :'exported_head');

-- Tampering as the owner, with the append-only triggers disabled; each in a
-- transaction rolled back afterwards.  The link of a row:
CREATE FUNCTION pg_temp.link(source text, audit_id bigint) RETURNS bigint LANGUAGE sql AS $$
    SELECT c.seq FROM mcp_notes.audit_chain c WHERE c.source = $1 AND c.audit_id = $2
$$;
SELECT pg_temp.link('change_audit', 3) AS link_of_change_3, pg_temp.link('delete_audit', 1) AS link_of_delete_1,
       pg_temp.link('delete_audit', 2) AS link_of_delete_2;

-- 1. An UPDATE of one field of one row.
BEGIN;
ALTER TABLE mcp_notes.change_audit DISABLE TRIGGER USER;
UPDATE mcp_notes.change_audit SET principal = 'mallory' WHERE audit_id = 3;
SELECT pg_temp.verdict();
ROLLBACK;
BEGIN;
ALTER TABLE mcp_notes.delete_audit DISABLE TRIGGER USER;
UPDATE mcp_notes.delete_audit SET client_info = NULL WHERE audit_id = 2;
SELECT pg_temp.verdict();
ROLLBACK;

-- 2. A DELETE of a row in the middle, then of the row and its link.
BEGIN;
DELETE FROM mcp_notes.delete_audit WHERE audit_id = 1;
SELECT pg_temp.verdict();
DELETE FROM mcp_notes.audit_chain WHERE source = 'delete_audit' AND audit_id = 1;
SELECT pg_temp.verdict();
ROLLBACK;

-- 3. A swap of two rows: their contents, then their places in the chain.
BEGIN;
ALTER TABLE mcp_notes.delete_audit DISABLE TRIGGER USER;
UPDATE mcp_notes.delete_audit d SET outcome = o.outcome, note_id = o.note_id, note_uri = o.note_uri, title = o.title
FROM mcp_notes.delete_audit o WHERE (d.audit_id, o.audit_id) IN ((1, 3), (3, 1));
SELECT pg_temp.verdict();
ROLLBACK;
BEGIN;
ALTER TABLE mcp_notes.audit_chain DISABLE TRIGGER USER;
UPDATE mcp_notes.audit_chain SET seq = 1000000 WHERE seq = 4;
UPDATE mcp_notes.audit_chain SET seq = 4 WHERE seq = 5;
UPDATE mcp_notes.audit_chain SET seq = 5 WHERE seq = 1000000;
SELECT pg_temp.verdict();
ROLLBACK;

-- 4. A truncate of the tail: the last rows go.  With their links kept the
-- chain names the first; with the links gone too, only the exported head
-- shows it.
BEGIN;
DELETE FROM mcp_notes.change_audit WHERE audit_id >= 7;
DELETE FROM mcp_notes.delete_audit WHERE audit_id >= 3;
SELECT pg_temp.verdict();
DELETE FROM mcp_notes.audit_chain WHERE seq >= (SELECT min(seq) FROM mcp_notes.audit_chain c
                                               WHERE (c.source, c.audit_id) IN (('change_audit', 7), ('delete_audit', 3)));
SELECT pg_temp.verdict();
SELECT pg_temp.verdict(:exported_seq, :'exported_head');
ROLLBACK;

-- 5. A rewrite: one row changed and every link from it recomputed, so the
-- chain is consistent again; the exported head is not.
BEGIN;
ALTER TABLE mcp_notes.change_audit DISABLE TRIGGER USER;
ALTER TABLE mcp_notes.audit_chain DISABLE TRIGGER USER;
UPDATE mcp_notes.change_audit SET principal = 'mallory' WHERE audit_id = 3;
SELECT pg_temp.link('change_audit', 3) AS rewritten_from \gset
INSERT INTO mcp_notes.audit_pending (source, audit_id)
SELECT c.source, c.audit_id FROM mcp_notes.audit_chain c WHERE c.seq >= :rewritten_from ORDER BY c.seq;
DELETE FROM mcp_notes.audit_chain WHERE seq >= :rewritten_from;
SELECT seq = :exported_seq AS same_length, chained FROM mcp_notes.audit_tick();
SELECT pg_temp.verdict();
SELECT pg_temp.verdict(:exported_seq, :'exported_head');
ROLLBACK;

-- 6. A row slipped in with the queueing trigger disabled: in no link.
BEGIN;
ALTER TABLE mcp_notes.delete_audit DISABLE TRIGGER USER;
INSERT INTO mcp_notes.delete_audit (principal, workspace_uri, outcome) VALUES ('mallory', 'file:///t/chain', 'decline');
SELECT pg_temp.verdict();
ROLLBACK;

-- A restore's COPY queues every row again: the tick drops what is linked.
INSERT INTO mcp_notes.audit_pending (source, audit_id) SELECT 'delete_audit', audit_id FROM mcp_notes.delete_audit;
SELECT seq, chained FROM mcp_notes.audit_tick();
SELECT count(*) AS queued FROM mcp_notes.audit_pending;
SELECT pg_temp.verdict();

-- Nobody updates a link.
UPDATE mcp_notes.audit_chain SET chained_at = now() WHERE seq = 1;

-- Retention: prune_audit() removes the old rows with their links and
-- records where the chain now starts, in a row that is chained itself.
SELECT mcp_notes.prune_audit('1 hour');
SELECT mcp_notes.prune_audit();
BEGIN;
ALTER TABLE mcp_notes.audit_chain DISABLE TRIGGER USER;
UPDATE mcp_notes.audit_chain SET chained_at = now() - interval '500 days' WHERE seq <= 4;
ALTER TABLE mcp_notes.audit_chain ENABLE TRIGGER USER;
COMMIT;
SELECT mcp_notes.prune_audit() AS rows_pruned;
SELECT action, detail ->> 'throughSeq' AS through_seq, detail -> 'rows' AS rows FROM mcp_notes.operator_audit;
SELECT min(seq) AS first_link_kept FROM mcp_notes.audit_chain;
SELECT pg_temp.verdict();
SELECT seq, chained FROM mcp_notes.audit_tick();
SELECT pg_temp.verdict();
SELECT pg_temp.verdict(:exported_seq, :'exported_head');
SELECT pg_temp.verdict(2);
-- A prefix removed without prune_audit is a missing link.
BEGIN;
DELETE FROM mcp_notes.operator_audit;
SELECT pg_temp.verdict();
ROLLBACK;
