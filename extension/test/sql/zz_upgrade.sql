-- The upgrade paths 1.0 -> 1.1 -> 1.2 -> 1.3 -> 1.4, 1.1 -> 1.4, 1.2 -> 1.4
-- and 1.3 -> 1.4.  A fresh install runs the script built from sql/src and
-- sql/tables; an old database runs the update scripts (the newest built
-- from sql/upgrade and the same sql/src).  All must give the same catalog (functions, tables, columns,
-- indexes, triggers, constraints, comments, privileges, the tool registry),
-- and what older gateways were granted must carry over to the entry points
-- of the current version.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

-- The extension's catalog, one row per fact, so two databases compare
-- with EXCEPT.  Privileges are compared as sorted lists: grant order is
-- history, not state.
CREATE FUNCTION pg_temp.sorted_acl(acl aclitem[]) RETURNS text LANGUAGE sql AS $$
    SELECT array_to_string(ARRAY(SELECT x::text FROM unnest(acl) x ORDER BY 1), ' ')
$$;
-- (A function, not a view: a view would depend on mcp_notes.tools and go
-- with the extension.)
CREATE FUNCTION pg_temp.ext_catalog() RETURNS TABLE (kind text, object text, fact text)
LANGUAGE sql AS $$
WITH ext AS (SELECT e.oid FROM pg_extension e WHERE e.extname = 'mcp_notes'),
members AS (SELECT d.classid, d.objid FROM pg_depend d, ext
            WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
rels AS (SELECT c.oid, c.relname, c.relkind, c.relacl, c.reloptions FROM pg_class c
         WHERE c.relnamespace = 'mcp_notes'::regnamespace)
SELECT 'member', pg_describe_object(m.classid, m.objid, 0), '' FROM members m
UNION ALL
SELECT 'function', p.oid::regprocedure::text, f.fact
FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
CROSS JOIN LATERAL (VALUES
    ('prosrc ' || p.prosrc), ('probin ' || coalesce(p.probin, '')),
    ('proconfig ' || coalesce(array_to_string(p.proconfig, ','), '')),
    ('attributes ' || concat_ws(' ', p.provolatile, p.prosecdef, p.proisstrict, p.proparallel, p.proretset,
                                (SELECT l.lanname FROM pg_language l WHERE l.oid = p.prolang),
                                p.prorettype::regtype, pg_get_function_arguments(p.oid))),
    ('proacl ' || coalesce(pg_temp.sorted_acl(p.proacl), 'default')),
    ('comment ' || coalesce(obj_description(p.oid, 'pg_proc'), ''))) AS f(fact)
UNION ALL
SELECT 'relation', r.relname, concat_ws(' ', r.relkind, coalesce(pg_temp.sorted_acl(r.relacl), 'default'),
                                        array_to_string(r.reloptions, ','), obj_description(r.oid, 'pg_class'))
FROM rels r
UNION ALL
SELECT 'column', r.relname || '.' || a.attname,
       concat_ws(' ', a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,
                 pg_get_expr(ad.adbin, ad.adrelid), (SELECT c.collname FROM pg_collation c WHERE c.oid = a.attcollation),
                 pg_temp.sorted_acl(a.attacl), col_description(r.oid, a.attnum))
FROM rels r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_attrdef ad ON ad.adrelid = r.oid AND ad.adnum = a.attnum
WHERE r.relkind IN ('r', 'p')
UNION ALL
SELECT 'index', i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i JOIN rels r ON r.oid = i.indrelid
UNION ALL
SELECT 'trigger', r.relname || '.' || t.tgname, pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text
FROM pg_trigger t JOIN rels r ON r.oid = t.tgrelid WHERE NOT t.tgisinternal
UNION ALL
SELECT 'constraint', r.relname || '.' || c.conname, pg_get_constraintdef(c.oid)
FROM pg_constraint c JOIN rels r ON r.oid = c.conrelid
UNION ALL
SELECT 'config_dump', e.extconfig[i]::regclass::text, coalesce(e.extcondition[i], '')
FROM pg_extension e, generate_subscripts(e.extconfig, 1) i WHERE e.extname = 'mcp_notes'
UNION ALL
SELECT 'schema', n.nspname, concat_ws(' ', pg_get_userbyid(n.nspowner), pg_temp.sorted_acl(n.nspacl))
FROM pg_namespace n WHERE n.nspname = 'mcp_notes'
UNION ALL
SELECT 'tool', t.name, concat_ws(' ', t.position, t.handler, t.descriptor::text) FROM mcp_notes.tools t
UNION ALL
SELECT 'prompt', p.name, concat_ws(' ', p.position, p.handler, p.completer, p.descriptor::text) FROM mcp_notes.prompts p
UNION ALL
SELECT 'resource_kind', k.name, concat_ws(' ', k.position, k.handler) FROM mcp_notes.resource_kinds k
$$;

CREATE TEMP TABLE snapshots (label text, kind text, object text, fact text);

-- Must be empty: what one catalog has and the other has not.
CREATE FUNCTION pg_temp.catalog_diff(a text, b text) RETURNS TABLE (only_in text, kind text, object text, fact text)
LANGUAGE sql AS $$
    SELECT d.only_in, d.kind, d.object, left(d.fact, 100)
    FROM (SELECT a AS only_in, x.* FROM (SELECT s.kind, s.object, s.fact FROM snapshots s WHERE s.label = a
                                         EXCEPT SELECT s.kind, s.object, s.fact FROM snapshots s WHERE s.label = b) x
          UNION ALL
          SELECT b, y.* FROM (SELECT s.kind, s.object, s.fact FROM snapshots s WHERE s.label = b
                              EXCEPT SELECT s.kind, s.object, s.fact FROM snapshots s WHERE s.label = a) y) d
    ORDER BY 1, 2, 3, 4
$$;

-- Roles set up the way each version does it, so privileges compare too.
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_upgrade_gateway;
DROP ROLE IF EXISTS regress_upgrade_dev_gateway;
RESET client_min_messages;
CREATE ROLE regress_upgrade_gateway;
CREATE ROLE regress_upgrade_dev_gateway;

CREATE FUNCTION pg_temp.snapshot(label text) RETURNS bigint LANGUAGE sql AS $$
    WITH s AS (INSERT INTO snapshots SELECT label, c.* FROM pg_temp.ext_catalog() c RETURNING 1)
    SELECT count(*) FROM s
$$;

-- A fresh install of the default version.
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.features() ->> 'extensionVersion' AS features_version;
SELECT mcp_notes.grant_gateway('regress_upgrade_gateway'), mcp_notes.grant_dev_gateway('regress_upgrade_dev_gateway');
SELECT pg_temp.snapshot('fresh') > 0 AS snapshot_fresh;
SELECT kind, count(*) FROM snapshots WHERE label = 'fresh' GROUP BY 1 ORDER BY 1;

-- Role settings are cluster-wide: forget those the fresh grant made, so
-- what the update gives the roles of 1.0 is seen below.
ALTER ROLE regress_upgrade_gateway RESET ALL;
ALTER ROLE regress_upgrade_dev_gateway RESET ALL;

-- 1.0, set up by 1.0's grant functions, then 1.1.
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.0';
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.grant_gateway('regress_upgrade_gateway'), mcp_notes.grant_dev_gateway('regress_upgrade_dev_gateway');
SELECT count(*) AS tokens_changed_triggers FROM pg_trigger
WHERE tgrelid = 'mcp_notes.tokens'::regclass AND tgname = 'tokens_changed';
SELECT l.lanname AS authenticate_language FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.oid = 'mcp_notes.authenticate(text)'::regprocedure;

-- a token and a note of 1.0 keep working across both upgrades
CREATE TEMP TABLE upgrade_token AS SELECT mcp_notes.issue_token('ursula') AS t;
SELECT mcp_notes.add_workspace('file:///t/upgrade'), mcp_notes.grant_workspace('ursula', 'file:///t/upgrade');
SELECT mcp_notes.add_note('file:///t/upgrade/old.md', 'old note') IS NOT NULL AS added;

ALTER EXTENSION mcp_notes UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT tgenabled, tgtype FROM pg_trigger
WHERE tgrelid = 'mcp_notes.tokens'::regclass AND tgname = 'tokens_changed';
SELECT l.lanname AS authenticate_language, p.provolatile, p.prosecdef,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.oid = 'mcp_notes.authenticate(text)'::regprocedure;
SELECT has_function_privilege('public', 'mcp_notes._tokens_changed()', 'EXECUTE') AS public_may_run_trigger_fn;
SELECT mcp_notes.authenticate(t) AS principal_after_upgrade FROM upgrade_token;

-- the trigger belongs to the extension, so DROP EXTENSION removes it
SELECT count(*) AS members FROM pg_depend d
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mcp_notes')
  AND d.objid = 'mcp_notes._tokens_changed()'::regprocedure AND d.deptype = 'e';

-- And on to the default version.
ALTER EXTENSION mcp_notes UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.features() ->> 'extensionVersion' AS features_version;
-- the roles 1.0 granted keep their rights under the new entry points
SELECT r.role, f.fn, has_function_privilege(r.role, f.fn, 'EXECUTE') AS executable
FROM (VALUES ('regress_upgrade_gateway'), ('regress_upgrade_dev_gateway')) r(role),
     (VALUES ('mcp_notes.handle(text, jsonb)'), ('mcp_notes.features()'), ('mcp_notes.handle_as(text, jsonb)')) f(fn)
ORDER BY 1, 2;
-- and the role settings of the current grant_gateway
SELECT r.rolname, unnest(s.setconfig) AS setting
FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
WHERE r.rolname LIKE 'regress\_upgrade\_%' ORDER BY 1, 2;
SELECT mcp_notes.handle(t, '{"method": "tools/call", "params": {"name": "notes_delete",
           "arguments": {"workspaceUri": "file:///t/upgrade", "title": "old"}},
           "clientCapabilities": {"elicitation": {}}}') #>> '{result,resultType}' AS old_token_old_note
FROM upgrade_token;
SELECT pg_temp.snapshot('from 1.0') > 0 AS snapshot_from_10;
-- the data of 1.0 is not part of the comparison
SELECT * FROM pg_temp.catalog_diff('fresh', 'from 1.0');

-- revocation still works (that it notifies is shown by specs/token-notify.spec)
SELECT mcp_notes.revoke_token(t) FROM upgrade_token;
SELECT mcp_notes.authenticate(t) AS principal_after_revoke FROM upgrade_token;

-- 1.1 (installed as 1.0 plus its update script), granted by 1.1, then the
-- default version.
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.1';
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.grant_gateway('regress_upgrade_gateway'), mcp_notes.grant_dev_gateway('regress_upgrade_dev_gateway');
ALTER EXTENSION mcp_notes UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT pg_temp.snapshot('from 1.1') > 0 AS snapshot_from_11;
SELECT * FROM pg_temp.catalog_diff('fresh', 'from 1.1');

-- 1.2 (1.0 plus two update scripts), granted by 1.2, with a note and a
-- token, then the default version.
ALTER ROLE regress_upgrade_gateway RESET ALL;
ALTER ROLE regress_upgrade_dev_gateway RESET ALL;
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.2';
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.grant_gateway('regress_upgrade_gateway'), mcp_notes.grant_dev_gateway('regress_upgrade_dev_gateway');
DELETE FROM upgrade_token;
INSERT INTO upgrade_token SELECT mcp_notes.issue_token('ursula');
SELECT mcp_notes.add_workspace('file:///t/upgrade'), mcp_notes.grant_workspace('ursula', 'file:///t/upgrade');
SELECT mcp_notes.add_note('file:///t/upgrade/old.md', 'old note') IS NOT NULL AS added;
ALTER EXTENSION mcp_notes UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT r.rolname, unnest(s.setconfig) AS setting
FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
WHERE r.rolname LIKE 'regress\_upgrade\_%' ORDER BY 1, 2;
SELECT mcp_notes.handle(t, '{"method": "tools/call", "params": {"name": "notes_delete",
           "arguments": {"workspaceUri": "file:///t/upgrade", "title": "old"}},
           "clientCapabilities": {"elicitation": {}}}') #>> '{result,resultType}' AS old_token_old_note
FROM upgrade_token;
SELECT pg_temp.snapshot('from 1.2') > 0 AS snapshot_from_12;
SELECT * FROM pg_temp.catalog_diff('fresh', 'from 1.2');

-- 1.3 (1.0 plus three update scripts), granted by 1.3, with a note, a
-- token and a legacy session, then the default version.
ALTER ROLE regress_upgrade_gateway RESET ALL;
ALTER ROLE regress_upgrade_dev_gateway RESET ALL;
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.3';
RESET client_min_messages;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT mcp_notes.grant_gateway('regress_upgrade_gateway'), mcp_notes.grant_dev_gateway('regress_upgrade_dev_gateway');
DELETE FROM upgrade_token;
INSERT INTO upgrade_token SELECT mcp_notes.issue_token('ursula');
SELECT mcp_notes.add_workspace('file:///t/upgrade'), mcp_notes.grant_workspace('ursula', 'file:///t/upgrade');
SELECT mcp_notes.add_note('file:///t/upgrade/old.md', 'old note') IS NOT NULL AS added;
CREATE TEMP TABLE upgrade_session AS
SELECT mcp_notes.legacy_session_open(t, '2025-11-25', '{"elicitation": {}}', '{"name": "old"}', '1 hour') ->> 'sessionId' AS id
FROM upgrade_token;
ALTER EXTENSION mcp_notes UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT r.rolname, unnest(s.setconfig) AS setting
FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
WHERE r.rolname LIKE 'regress\_upgrade\_%' ORDER BY 1, 2;
SELECT mcp_notes.handle(t, '{"method": "tools/call", "params": {"name": "notes_delete",
           "arguments": {"workspaceUri": "file:///t/upgrade", "title": "old"}},
           "clientCapabilities": {"elicitation": {}}}') #>> '{result,resultType}' AS old_token_old_note
FROM upgrade_token;
SELECT mcp_notes.legacy_session_check(t, s.id) ->> 'protocolVersion' AS old_session
FROM upgrade_token, upgrade_session s;
SELECT pg_temp.snapshot('from 1.3') > 0 AS snapshot_from_13;
SELECT * FROM pg_temp.catalog_diff('fresh', 'from 1.3');

-- The comparison would see a difference: a function missing its REVOKE.
CREATE FUNCTION mcp_notes._forgotten() RETURNS int LANGUAGE sql AS 'SELECT 1';
ALTER EXTENSION mcp_notes ADD FUNCTION mcp_notes._forgotten();
DELETE FROM snapshots WHERE label = 'from 1.1';
SELECT pg_temp.snapshot('from 1.1') > 0 AS snapshot_from_11;
SELECT only_in, kind, object, split_part(fact, ' ', 1) AS fact FROM pg_temp.catalog_diff('fresh', 'from 1.1');

-- Clean up.
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
DROP SCHEMA mcp_notes CASCADE;
RESET client_min_messages;
DROP ROLE regress_upgrade_gateway, regress_upgrade_dev_gateway;
