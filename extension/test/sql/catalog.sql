-- The catalog of the extension: every function is commented and pins its
-- search_path, and nobody can run or read anything outside an explicit
-- allow-list.  The checks read pg_proc/pg_class through pg_depend (deptype
-- 'e', members of the extension), so a function or table that a future
-- upgrade script adds without a REVOKE, or grants too widely, fails here.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

CREATE VIEW pg_temp.member_functions AS
SELECT p.oid, p.oid::regprocedure AS fn
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT e.oid FROM pg_extension e WHERE e.extname = 'mcp_notes');

-- Relations of the extension: its member tables and sequences, and the
-- sequences that belong to them (identity columns).
CREATE VIEW pg_temp.member_relations AS
SELECT c.oid, c.oid::regclass AS rel, c.relkind
FROM pg_class c
WHERE c.relnamespace = 'mcp_notes'::regnamespace AND c.relkind IN ('r', 'p', 'S', 'v', 'm', 'f');

SELECT count(*) AS functions, count(*) FILTER (WHERE obj_description(oid, 'pg_proc') IS NULL) AS without_comment
FROM pg_temp.member_functions;
SELECT count(*) AS relations_outside_the_extension
FROM pg_temp.member_relations r
WHERE NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = r.oid
                  AND d.deptype IN ('e', 'i', 'a'));

-- Every function that runs SQL pins search_path.  The C functions that run
-- no SQL do not: a SET clause costs a GUC save and restore on every call,
-- and uri_contains() runs once per candidate row.
SELECT f.fn AS without_search_path, coalesce(array_to_string(p.proconfig, ','), '') AS settings
FROM pg_temp.member_functions f JOIN pg_proc p ON p.oid = f.oid
WHERE p.proconfig IS DISTINCT FROM '{"search_path=mcp_notes, pg_temp"}'
ORDER BY 1::text;

SELECT f.fn AS security_definer
FROM pg_temp.member_functions f JOIN pg_proc p ON p.oid = f.oid
WHERE p.prosecdef ORDER BY 1::text;

-- Each security concept is written once (issue 19.3): the functions whose
-- body says it.  The grant rule: only _granted tests a grant (and
-- _readable_notes joins the notes under every grant, for resources/list).
SELECT f.fn AS grant_rule_written_in
FROM pg_temp.member_functions f JOIN pg_proc p ON p.oid = f.oid
WHERE p.prosrc ~ 'uri_contains\(g\.workspace_uri' ORDER BY 1::text;
-- Sealed tokens: only _open_sealed opens one (and _audit reads the nonce
-- of a state _open_sealed has opened); only _seal seals one.
SELECT f.fn AS open_state_called_by
FROM pg_temp.member_functions f JOIN pg_proc p ON p.oid = f.oid
WHERE p.prosrc ~ '(^|[^a-z_])_open_state\(' ORDER BY 1::text;
SELECT f.fn AS seal_bound_to, p.prosrc AS symbol
FROM pg_temp.member_functions f JOIN pg_proc p ON p.oid = f.oid
WHERE p.prolang = (SELECT l.oid FROM pg_language l WHERE l.lanname = 'c') AND p.prosrc ~ 'seal' ORDER BY 1::text;
-- Argument checks: only _schema_problem says "unknown argument" or
-- "missing argument" (the tools read it from their inputSchema).
SELECT f.fn AS argument_checks_written_in
FROM pg_temp.member_functions f JOIN pg_proc p ON p.oid = f.oid
WHERE p.prosrc ~ '(unknown|missing) argument' ORDER BY 1::text;

-- Who may execute what.  A gateway role inherits PUBLIC.
CREATE ROLE regress_catalog_gateway;
CREATE ROLE regress_catalog_dev_gateway;
SELECT mcp_notes.grant_gateway('regress_catalog_gateway');
SELECT mcp_notes.grant_dev_gateway('regress_catalog_dev_gateway');

-- Not listed, so owner-only: the operator API, delete_flow_hourly() and
-- delete_flow_stats() (the operators' view) included.
CREATE TEMP TABLE allowed (role text, fn regprocedure);
INSERT INTO allowed
SELECT r.role, f.fn::regprocedure
FROM (VALUES ('public'), ('regress_catalog_gateway'), ('regress_catalog_dev_gateway')) r(role),
     (VALUES ('mcp_notes.normalize_uri(text)'), ('mcp_notes.uri_contains(text, text)')) f(fn)
UNION ALL
SELECT r.role, f.fn::regprocedure
FROM (VALUES ('regress_catalog_gateway'), ('regress_catalog_dev_gateway')) r(role),
     (VALUES ('mcp_notes.features()'), ('mcp_notes.handle(text, jsonb)'), ('mcp_notes.authenticate(text)'),
             ('mcp_notes.audit_tick(integer)'), ('mcp_notes.tool_descriptors()'),
             ('mcp_notes.call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text)'),
             ('mcp_notes.legacy_session_open(text, text, jsonb, jsonb, interval)'),
             ('mcp_notes.legacy_session_check(text, text)'), ('mcp_notes.legacy_session_close(text, text)'),
             ('mcp_notes.legacy_pending_open(text, text, jsonb, interval)'),
             ('mcp_notes.legacy_answer(text, text, jsonb)'),
             ('mcp_notes.legacy_pending_take(text, bigint, boolean)')) f(fn)
UNION ALL
SELECT 'regress_catalog_dev_gateway', f.fn::regprocedure
FROM (VALUES ('mcp_notes.handle_as(text, jsonb)'),
             ('mcp_notes.call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text)'),
             ('mcp_notes.legacy_session_open_as(text, text, jsonb, jsonb, interval)'),
             ('mcp_notes.legacy_session_check_as(text, text)'), ('mcp_notes.legacy_session_close_as(text, text)'),
             ('mcp_notes.legacy_pending_open_as(text, text, jsonb, interval)'),
             ('mcp_notes.legacy_answer_as(text, text, jsonb)'),
             ('mcp_notes.legacy_pending_take_as(text, bigint, boolean)')) f(fn);

-- Must be empty: executable but not allowed, or allowed but not executable.
SELECT r.role, f.fn, has_function_privilege(r.role, f.oid, 'EXECUTE') AS executable
FROM pg_temp.member_functions f
CROSS JOIN (VALUES ('public'), ('regress_catalog_gateway'), ('regress_catalog_dev_gateway')) r(role)
WHERE has_function_privilege(r.role, f.oid, 'EXECUTE')
      <> EXISTS (SELECT 1 FROM allowed a WHERE a.role = r.role AND a.fn = f.oid)
ORDER BY 1, 2::text;

-- What is true today, stated: PUBLIC may execute the two URI functions but
-- has no USAGE on the schema, so it cannot reach them by name.
SELECT r.role, has_schema_privilege(r.role, 'mcp_notes', 'USAGE') AS schema_usage,
       array_agg(f.fn::text ORDER BY f.fn::text) FILTER (WHERE has_function_privilege(r.role, f.oid, 'EXECUTE')) AS executes
FROM pg_temp.member_functions f
CROSS JOIN (VALUES ('public'), ('regress_catalog_gateway'), ('regress_catalog_dev_gateway')) r(role)
GROUP BY r.role ORDER BY 1;

-- Must be empty: any privilege on any table, column or sequence.
SELECT r.role, m.rel
FROM pg_temp.member_relations m
CROSS JOIN (VALUES ('public'), ('regress_catalog_gateway'), ('regress_catalog_dev_gateway')) r(role)
WHERE CASE WHEN m.relkind = 'S' THEN has_sequence_privilege(r.role, m.oid, 'USAGE, SELECT, UPDATE')
           ELSE has_table_privilege(r.role, m.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                OR has_any_column_privilege(r.role, m.oid, 'SELECT, INSERT, UPDATE, REFERENCES') END
ORDER BY 1, 2::text;
SELECT count(*) AS relations_checked FROM pg_temp.member_relations;

-- Clean up the cluster-wide roles.
DROP OWNED BY regress_catalog_gateway, regress_catalog_dev_gateway;
DROP ROLE regress_catalog_gateway, regress_catalog_dev_gateway;
