-- A gateway role owns its session's temporary schema (PUBLIC has TEMP on a
-- database by default).  No SECURITY DEFINER code of the extension may use
-- an object there: a table the role creates first, with a default or a
-- trigger calling a function of its own, would run that function as the
-- extension's owner (a superuser).  Extension 1.3 did, through the title
-- key counting triggers; this file shows it did, and that 1.4 does not.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

CREATE ROLE regress_definer_gateway LOGIN;

-- What a gateway role plants in its temporary schema: every name the
-- extension's code used there (title_keys_written), and the extension's own
-- table names, each with a default and a trigger that record who ran them.
CREATE FUNCTION pg_temp.plant() RETURNS void LANGUAGE plpgsql AS $plant$
BEGIN
    CREATE TEMP TABLE seen (who text, what text);
    CREATE FUNCTION pg_temp.record_who(what text) RETURNS bigint LANGUAGE sql
        AS $$ INSERT INTO pg_temp.seen VALUES (current_user, what) RETURNING 0::bigint $$;
    CREATE FUNCTION pg_temp.record_trigger() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN INSERT INTO pg_temp.seen VALUES (current_user, TG_TABLE_NAME); RETURN NULL; END $$;
    CREATE TEMP TABLE title_keys_written (title_key bigint, shard smallint,
                                          x bigint DEFAULT pg_temp.record_who('default'));
    CREATE TRIGGER planted AFTER INSERT OR TRUNCATE ON title_keys_written
        FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.record_trigger();
    CREATE TEMP TABLE notes (note_id text, uri text, title text, x bigint DEFAULT pg_temp.record_who('notes'));
    CREATE TEMP TABLE title_key_counts (title_key bigint, shard smallint, notes bigint,
                                        x bigint DEFAULT pg_temp.record_who('counts'));
    CREATE TEMP TABLE title_key_decrements (shard smallint, title_keys bigint[],
                                            x bigint DEFAULT pg_temp.record_who('decrements'));
    CREATE TEMP TABLE change_audit (x bigint DEFAULT pg_temp.record_who('change_audit'));
END;
$plant$;
GRANT EXECUTE ON FUNCTION pg_temp.plant() TO regress_definer_gateway;

-- One notes_create and one notes_update through handle(), as a gateway does:
-- the counting triggers fire on both, the deferred one at commit.
CREATE FUNCTION pg_temp.write_notes(token text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    created jsonb;
BEGIN
    created := mcp_notes.handle(token, jsonb_build_object('method', 'tools/call', 'params', jsonb_build_object(
        'name', 'notes_create', 'arguments', jsonb_build_object(
            'workspaceUri', 'file:///t/definer', 'uri', 'file:///t/definer/n' || pg_catalog.txid_current() || '.md',
            'title', 'planted title'))));
    RETURN created #>> '{result,structuredContent,noteId}';
END;
$$;
GRANT EXECUTE ON FUNCTION pg_temp.write_notes(text) TO regress_definer_gateway;

-- 1.3, as released: the planted default runs as the owner.
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.3';
RESET client_min_messages;
SELECT mcp_notes.grant_gateway('regress_definer_gateway');
SELECT mcp_notes.add_workspace('file:///t/definer'), mcp_notes.grant_workspace('gina', 'file:///t/definer');
SELECT mcp_notes.issue_token('gina') AS tok \gset
SET default_transaction_isolation = serializable;
SET ROLE regress_definer_gateway;
SELECT pg_temp.plant();
SELECT pg_temp.write_notes(:'tok') IS NOT NULL AS created;
RESET ROLE;
SELECT s.what, count(*) > 0 AS ran,
       bool_and(s.who = (SELECT e.extowner::regrole::text FROM pg_extension e WHERE e.extname = 'mcp_notes'))
       AS as_the_owner
FROM pg_temp.seen s GROUP BY 1 ORDER BY 1;
DROP TABLE pg_temp.seen, pg_temp.title_keys_written, pg_temp.notes, pg_temp.title_key_counts,
           pg_temp.title_key_decrements, pg_temp.change_audit;
DROP FUNCTION pg_temp.record_who(text), pg_temp.record_trigger();

-- The update to 1.4, and the same again: nothing planted runs, and the
-- counts are the extension's own.
ALTER EXTENSION mcp_notes UPDATE;
SET ROLE regress_definer_gateway;
SELECT pg_temp.plant();
SELECT pg_temp.write_notes(:'tok') AS note \gset
SELECT mcp_notes.handle(:'tok', jsonb_build_object('method', 'tools/call', 'params', jsonb_build_object(
    'name', 'notes_update', 'arguments', jsonb_build_object(
        'workspaceUri', 'file:///t/definer', 'noteId', :'note', 'title', 'retitled')))) #> '{result,isError}' AS update_error;
SELECT count(*) AS planted_code_ran FROM pg_temp.seen;
RESET ROLE;
RESET default_transaction_isolation;
SELECT count(*) AS planted_code_ran FROM pg_temp.seen;
WITH exact AS (SELECT k AS title_key, (hashtext(n.note_id) & 7)::smallint AS shard, count(*) AS notes
               FROM mcp_notes.notes n, unnest(mcp_notes._title_keys(n.uri, n.title)) k GROUP BY 1, 2)
SELECT NOT EXISTS (SELECT * FROM exact EXCEPT SELECT * FROM mcp_notes.title_key_counts)
   AND NOT EXISTS (SELECT * FROM mcp_notes.title_key_counts EXCEPT SELECT * FROM exact) AS counts_are_exact;

-- Every function of the extension may run as the owner (the internal ones
-- run inside a SECURITY DEFINER entry point): none names the temporary
-- schema, every SECURITY DEFINER one pins its search_path (so does every
-- other one that runs SQL: catalog.sql), so an unqualified name never
-- resolves there first.
SELECT p.oid::regprocedure AS naming_pg_temp
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'mcp_notes'
WHERE p.prosrc ~* 'pg_temp\s*\.';
SELECT p.oid::regprocedure AS definer_without_pinned_path
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'mcp_notes'
WHERE p.prosecdef AND NOT coalesce('search_path=mcp_notes, pg_temp' = ANY (p.proconfig), false);
-- Dynamic SQL, each case on this list (a new one shows as a difference):
-- registry handler names quoted with %I (rows only the owner writes), and
-- role names (regrole) in the operator's grant functions.
SELECT p.oid::regprocedure AS with_dynamic_sql
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'mcp_notes'
WHERE p.prosrc ~* '\mEXECUTE\s+format' ORDER BY p.oid::regprocedure::text;

SELECT mcp_notes.revoke_token(:'tok');
DROP OWNED BY regress_definer_gateway;
DROP ROLE regress_definer_gateway;
