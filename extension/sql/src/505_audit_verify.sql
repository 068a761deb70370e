-------------------------------------------------------------------------------
-- Checking the audit chain, and pruning it
-------------------------------------------------------------------------------

-- Where the chain starts: link 0 and the zero digest, or, after
-- prune_audit() removed old links, the last link it removed and that
-- link's digest (kept in its own chained operator_audit row).
CREATE OR REPLACE FUNCTION _audit_chain_start(OUT seq bigint, OUT digest bytea, OUT cut_by bigint)
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(c.seq, 0), coalesce(c.digest, _audit_genesis()), c.audit_id
    FROM (SELECT 1) AS one
    LEFT JOIN (SELECT (o.detail ->> 'throughSeq')::bigint AS seq, decode(o.detail ->> 'throughDigest', 'hex') AS digest,
                      o.audit_id
               FROM operator_audit o WHERE o.action = 'prune_audit'
               ORDER BY (o.detail ->> 'throughSeq')::bigint DESC LIMIT 1) c ON true
$$;
COMMENT ON FUNCTION _audit_chain_start() IS
'Internal: the link the audit chain continues from (0 and the zero digest, or the last link prune_audit removed) and the operator_audit row that removed it';

-- The first audit row that is in no link and not queued for one (inserted
-- with the queueing trigger disabled, or its link deleted), and how many.
CREATE OR REPLACE FUNCTION _audit_unchained(OUT source text, OUT audit_id bigint, OUT how_many bigint)
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('SELECT u.source, u.audit_id, count(*) OVER () FROM (%s) u '
                   'WHERE NOT EXISTS (SELECT FROM mcp_notes.audit_chain c WHERE c.source = u.source AND c.audit_id = u.audit_id) '
                   'AND NOT EXISTS (SELECT FROM mcp_notes.audit_pending p WHERE p.source = u.source AND p.audit_id = u.audit_id) '
                   'ORDER BY u.source, u.audit_id LIMIT 1',
                   (SELECT string_agg(format('SELECT %L AS source, t.audit_id FROM mcp_notes.%I t', s.source, s.source),
                                      ' UNION ALL ')
                    FROM audit_sources s))
    INTO source, audit_id, how_many;
    how_many := coalesce(how_many, 0);
END;
$$;
COMMENT ON FUNCTION _audit_unchained() IS
'Internal: the first audit row neither linked nor queued for the chain, and how many there are';

-- Recomputes every link from the rows (or up to link up_to) and stops at
-- the first that does not hold: a missing link, a missing row, a row that
-- is not what was linked.  With up_to and head (an exported head), the
-- recomputed digest of link up_to must be head.  Without up_to, rows that
-- no link covers are reported too.  ok is true when nothing was found.
CREATE OR REPLACE FUNCTION verify_audit(up_to bigint DEFAULT NULL, head text DEFAULT NULL)
RETURNS TABLE (ok boolean, links bigint, last_seq bigint, last_head text,
               broken_seq bigint, source text, audit_id bigint, problem text)
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres'
SET bytea_output = 'hex' SET extra_float_digits = 1
AS $$
DECLARE
    start record := _audit_chain_start();
    link record;
    prev bytea := start.digest;
    loose record;
BEGIN
    IF head IS NOT NULL AND up_to IS NULL THEN
        RAISE EXCEPTION 'verify_audit: head needs up_to'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'An exported head is a link''s seq and digest; pass both: verify_audit(up_to => seq, head => digest).';
    END IF;
    links := 0;
    last_seq := start.seq;
    IF up_to < start.seq THEN
        problem := format('link %s is before the oldest link kept: links up to %s were removed by prune_audit (operator_audit row %s), so it cannot be checked',
                          up_to, start.seq, start.cut_by);
        broken_seq := up_to;
    END IF;
    FOR link IN EXECUTE format(
        'SELECT k.seq, k.source, k.audit_id, k.digest, r.canonical FROM mcp_notes.audit_chain k '
        'LEFT JOIN LATERAL (%s) r ON true WHERE k.seq > $1 AND ($2 IS NULL OR k.seq <= $2) ORDER BY k.seq',
        _audit_rows_sql()) USING start.seq, up_to
    LOOP
        EXIT WHEN problem IS NOT NULL;
        IF link.seq <> last_seq + 1 THEN
            broken_seq := last_seq + 1;
            problem := format('link %s is missing: the chain goes from link %s to link %s', last_seq + 1, last_seq, link.seq);
        ELSIF link.canonical IS NULL THEN
            SELECT link.seq, link.source, link.audit_id INTO broken_seq, source, audit_id;
            problem := format('%s row %s, which link %s covers, is missing', link.source, link.audit_id, link.seq);
        ELSE
            prev := _audit_link_digest(prev, link.seq, link.source, link.canonical);
            IF prev <> link.digest THEN
                SELECT link.seq, link.source, link.audit_id INTO broken_seq, source, audit_id;
                problem := format('%s row %s is not what link %s holds: the row was changed, or the links rewritten or reordered, after it was linked',
                                  link.source, link.audit_id, link.seq);
            ELSE
                links := links + 1;
                last_seq := link.seq;
            END IF;
        END IF;
    END LOOP;
    last_head := encode(prev, 'hex');
    IF problem IS NULL AND up_to > last_seq THEN
        broken_seq := last_seq + 1;
        problem := format('the chain ends at link %s, but the head to check is link %s: links %s to %s were removed',
                          last_seq, up_to, last_seq + 1, up_to);
    ELSIF problem IS NULL AND head IS NOT NULL AND lower(head) <> last_head THEN
        broken_seq := up_to;
        problem := format('link %s is not the exported head: the chain up to it was rewritten', up_to);
    END IF;
    IF problem IS NULL AND up_to IS NULL THEN
        loose := _audit_unchained();
        IF loose.how_many > 0 THEN
            SELECT loose.source, loose.audit_id INTO source, audit_id;
            problem := format('%s audit row(s) are in no link and not queued for one (the first: %s row %s): written with the chain''s trigger disabled, or their links deleted',
                              loose.how_many, loose.source, loose.audit_id);
        END IF;
    END IF;
    ok := problem IS NULL;
    RETURN NEXT;
END;
$$;
COMMENT ON FUNCTION verify_audit(bigint, text) IS
'Recomputes the audit hash chain from the rows (up to link up_to) and names the first broken link; with up_to and head, checks an exported head; without up_to, also reports rows no link covers';

-- Retention for the audit: removes the links chained before now() -
-- older_than (with every link before them) and the rows they cover, and
-- records the cut in operator_audit (itself chained), with the last removed
-- link's seq and digest, which verify_audit() continues from.
CREATE OR REPLACE FUNCTION prune_audit(older_than interval DEFAULT '400 days') RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    start record := _audit_chain_start();
    cut record;
    removed jsonb := '{}';
    n bigint;
    total bigint := 0;
    s text;
BEGIN
    IF older_than IS NULL OR older_than < interval '1 day' THEN
        RAISE EXCEPTION 'prune_audit keeps at least one day'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Rows younger than a day may not be linked yet, and their heads not exported yet.';
    END IF;
    LOCK TABLE audit_chain IN EXCLUSIVE MODE;
    SELECT c.seq, c.digest INTO cut FROM audit_chain c
    WHERE c.seq = (SELECT max(x.seq) FROM audit_chain x WHERE x.chained_at < now() - older_than AND x.seq > start.seq);
    IF cut.seq IS NULL THEN
        RETURN 0;
    END IF;
    FOR s IN SELECT a.source FROM audit_sources a ORDER BY a.source LOOP
        EXECUTE format('DELETE FROM mcp_notes.%I t USING mcp_notes.audit_chain c '
                       'WHERE c.source = %L AND c.audit_id = t.audit_id AND c.seq <= $1', s, s) USING cut.seq;
        GET DIAGNOSTICS n = ROW_COUNT;
        removed := removed || jsonb_build_object(s, n);
        total := total + n;
    END LOOP;
    DELETE FROM audit_chain c WHERE c.seq <= cut.seq;
    INSERT INTO operator_audit (actor, action, detail)
    VALUES (current_user, 'prune_audit', jsonb_build_object(
        'olderThan', older_than::text, 'throughSeq', cut.seq, 'throughDigest', encode(cut.digest, 'hex'), 'rows', removed));
    RETURN total;
END;
$$;
COMMENT ON FUNCTION prune_audit(interval) IS
'Audit retention: removes the audit rows (and their chain links) linked more than older_than ago (default 400 days, at least a day), audited in operator_audit with the seq and digest verify_audit() continues from; returns the rows removed';
