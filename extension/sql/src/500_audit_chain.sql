-------------------------------------------------------------------------------
-- The audit hash chain (docs/security.md, "The audit chain")
-------------------------------------------------------------------------------

-- Writers only queue: each audit row's insert adds its key to
-- audit_pending (_audit_queued).  audit_tick(), which gateways call every
-- few seconds on a read committed connection of their own, links the
-- queued rows that have committed into audit_chain, one link per row, in
-- queue order.  So no request updates a row every writer updates or reads
-- a range another inserts into: the chain adds no serialization conflict.

-- The canonical encoding of an audit row: the row as to_jsonb gives it
-- (every column, so a column added later is covered without a change
-- here), without its top-level members that are null (so adding a nullable
-- column does not change the encoding of rows written before it), as
-- jsonb's text: members ordered by key length and then bytewise, ", " and
-- ": " between them.  to_jsonb's times depend on TimeZone, so the callers
-- fix the settings (_chain_audit, verify_audit: TimeZone UTC and the rest).
CREATE OR REPLACE FUNCTION _audit_canonical(audit_row jsonb) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_object_agg(m.key, m.value), '{}'::jsonb)::text
    FROM jsonb_each(audit_row) AS m(key, value)
    WHERE jsonb_typeof(m.value) <> 'null'
$$;
COMMENT ON FUNCTION _audit_canonical(jsonb) IS
'Internal: the canonical text of an audit row (to_jsonb of the row without its null members) that its chain link digests';

-- Link seq's digest: sha256(previous digest || UTF-8 of "seq table
-- canonical").  The link before the first has 32 zero bytes.
CREATE OR REPLACE FUNCTION _audit_link_digest(prev bytea, seq bigint, source text, canonical text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT sha256(prev || convert_to(seq::text || ' ' || source || ' ' || canonical, 'UTF8'))
$$;
COMMENT ON FUNCTION _audit_link_digest(bytea, bigint, text, text) IS
'Internal: the digest of chain link seq: sha256(prev || UTF-8 of seq, table and canonical row, space-separated)';

CREATE OR REPLACE FUNCTION _audit_genesis() RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT decode(repeat('00', 32), 'hex') $$;
COMMENT ON FUNCTION _audit_genesis() IS 'Internal: the digest before the first link of the audit chain (32 zero bytes)';

CREATE OR REPLACE FUNCTION _audit_queued() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    INSERT INTO audit_pending (source, audit_id) VALUES (TG_TABLE_NAME, NEW.audit_id);
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _audit_queued() IS
'Internal: trigger that queues a new audit row for the chain (audit_pending), so audit_tick() links it once committed';

-- A table joins the chain: its name in audit_sources and the trigger that
-- queues its rows (firing ALWAYS, so rows arriving by logical replication
-- or a restore are chained too).  An audit kind added later calls this
-- once from its src/ file; the table needs audit_id bigint and at
-- timestamptz.  Run by the extension's scripts only (owner).
CREATE OR REPLACE FUNCTION _chain_audit_table(source text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    INSERT INTO audit_sources (source) VALUES (_chain_audit_table.source) ON CONFLICT DO NOTHING;
    EXECUTE format('CREATE OR REPLACE TRIGGER audit_queued AFTER INSERT ON mcp_notes.%I '
                   'FOR EACH ROW EXECUTE FUNCTION mcp_notes._audit_queued()', source);
    EXECUTE format('ALTER TABLE mcp_notes.%I ENABLE ALWAYS TRIGGER audit_queued', source);
END;
$$;
COMMENT ON FUNCTION _chain_audit_table(text) IS
'Internal: adds an audit table (with audit_id and at) to the hash chain: its row in audit_sources and its audit_queued trigger';

SELECT _chain_audit_table(s) FROM unnest('{delete_audit,change_audit,operator_audit}'::text[]) AS s;

-- The canonical text of the row that k.source/k.audit_id name, for every
-- table of the chain: a LATERAL subquery with one branch per table (only
-- the branch of k's table finds a row).  Table names come from
-- audit_sources only.
CREATE OR REPLACE FUNCTION _audit_rows_sql() RETURNS text
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT string_agg(format('SELECT mcp_notes._audit_canonical(pg_catalog.to_jsonb(t)) AS canonical '
                             'FROM mcp_notes.%I t WHERE k.source OPERATOR(pg_catalog.=) %L '
                             'AND t.audit_id OPERATOR(pg_catalog.=) k.audit_id', s.source, s.source),
                      ' UNION ALL ' ORDER BY s.source)
    FROM audit_sources s
$$;
COMMENT ON FUNCTION _audit_rows_sql() IS
'Internal: SQL of a LATERAL subquery giving the canonical text of the audit row k.source, k.audit_id (one branch per table of audit_sources)';

-- The chaining step, under audit_tick's lock: the oldest max_rows queued
-- entries, linked in queue order after the chain's tail.  An entry whose
-- row is already linked (a restore queues every row again) or gone is
-- dropped without a link.  The settings make to_jsonb's text the same in
-- every session.
CREATE OR REPLACE FUNCTION _chain_audit(max_rows integer) RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres'
SET bytea_output = 'hex' SET extra_float_digits = 1
AS $$
DECLARE
    taken bigint[];
    link record;
    next_seq bigint;
    prev_digest bytea;
    seqs bigint[] := '{}';
    sources text[] := '{}';
    ids bigint[] := '{}';
    digests bytea[] := '{}';
BEGIN
    SELECT array_agg(q.queue_id) INTO taken
    FROM (SELECT p.queue_id FROM audit_pending p ORDER BY p.queue_id LIMIT max_rows) q;
    IF taken IS NULL THEN
        RETURN 0;
    END IF;
    SELECT c.seq, c.digest INTO next_seq, prev_digest FROM audit_chain c ORDER BY c.seq DESC LIMIT 1;
    next_seq := coalesce(next_seq, 0);
    prev_digest := coalesce(prev_digest, _audit_genesis());
    FOR link IN EXECUTE format(
        'SELECT d.source, d.audit_id, d.canonical FROM ('
        '  SELECT DISTINCT ON (k.source, k.audit_id) k.queue_id, k.source, k.audit_id, r.canonical'
        '  FROM mcp_notes.audit_pending k CROSS JOIN LATERAL (%s) r'
        '  WHERE k.queue_id = ANY ($1) AND NOT EXISTS (SELECT FROM mcp_notes.audit_chain c'
        '        WHERE c.source = k.source AND c.audit_id = k.audit_id)'
        '  ORDER BY k.source, k.audit_id, k.queue_id) d '
        'ORDER BY d.queue_id', _audit_rows_sql()) USING taken
    LOOP
        next_seq := next_seq + 1;
        prev_digest := _audit_link_digest(prev_digest, next_seq, link.source, link.canonical);
        seqs := seqs || next_seq;
        sources := sources || link.source;
        ids := ids || link.audit_id;
        digests := digests || prev_digest;
    END LOOP;
    INSERT INTO audit_chain (seq, source, audit_id, digest)
    SELECT * FROM unnest(seqs, sources, ids, digests);
    DELETE FROM audit_pending p WHERE p.queue_id = ANY (taken);
    RETURN cardinality(seqs);
END;
$$;
COMMENT ON FUNCTION _chain_audit(integer) IS
'Internal: links up to max_rows queued audit rows into audit_chain in queue order (caller holds the chain''s lock); returns the links added';

-- The head an operator exports: the last link's seq and digest (seq 0 and
-- the zero digest while the chain is empty).
CREATE OR REPLACE FUNCTION audit_head() RETURNS TABLE (seq bigint, head text, chained_at timestamptz)
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(c.seq, 0), encode(coalesce(c.digest, _audit_genesis()), 'hex'), c.chained_at
    FROM (SELECT 1) AS one
    LEFT JOIN (SELECT a.seq, a.digest, a.chained_at FROM audit_chain a ORDER BY a.seq DESC LIMIT 1) c ON true
$$;
COMMENT ON FUNCTION audit_head() IS
'The audit chain''s head: the last link''s seq and digest (hex) and when it was linked; what to export and later check with verify_audit(up_to => seq, head => head)';

-- What gateways call every --audit-tick-ms (and cron may): link what has
-- committed, fold the version accounting, return the head (which the
-- gateway logs: the copy kept outside the database).  Read committed only:
-- under serializable its reads of the queue would join every writer's
-- conflict checks, and its snapshot could predate the last tick's links.
-- One tick works at a time (the chain's lock, not waited for: chained is
-- NULL when another tick held it, and this one did nothing but read the
-- head).  Bounded: at most max_rows links.
CREATE OR REPLACE FUNCTION audit_tick(max_rows integer DEFAULT 10000)
RETURNS TABLE (seq bigint, head text, chained integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    locked boolean := false;
    linked integer;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'audit_tick must run at isolation level read committed'
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = format('It ran at %s, where its reads of the audit queue would take part in the writers'' conflict checks.',
                                  current_setting('transaction_isolation')),
                  HINT = 'SET default_transaction_isolation = ''read committed'' on its connection, as mcp-notes-gateway does.';
    END IF;
    BEGIN
        LOCK TABLE audit_chain IN EXCLUSIVE MODE NOWAIT;
        locked := true;
    EXCEPTION WHEN lock_not_available THEN
        locked := false;
    END;
    IF locked THEN
        linked := _chain_audit(least(greatest(coalesce(max_rows, 10000), 1), 100000));
        PERFORM _fold_version_usage();
    END IF;
    RETURN QUERY SELECT h.seq, h.head, linked FROM audit_head() h;
END;
$$;
COMMENT ON FUNCTION audit_tick(integer) IS
'Gateways, every --audit-tick-ms: links committed audit rows into the hash chain (at most max_rows), folds the version accounting, returns the chain''s head to log; read committed only';

-- Gateway roles granted before 1.4 get it too (grant_gateway lists it in
-- _gateway_entry_points for roles granted from now on).
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT DISTINCT a.grantee::regrole AS role
             FROM pg_proc p, aclexplode(p.proacl) a
             WHERE p.oid = 'mcp_notes.handle(text, jsonb)'::regprocedure
               AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.audit_tick(integer) TO %s', r.role);
    END LOOP;
END;
$$;
