-- The daemon's role (add_file_volume) can execute the fsd_* entry points
-- and nothing else, only for its own volume; it reads and writes no table;
-- gateway roles cannot execute the daemon's entry points.  Checked from the
-- outside: a session whose user is the role (SET SESSION AUTHORIZATION).
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all

CREATE ROLE regress_fsd_a;
CREATE ROLE regress_fsd_b;
CREATE ROLE regress_fsd_gateway;
SELECT mcp_notes.add_file_volume('va', 'regress_fsd_a');
SELECT mcp_notes.add_file_volume('vb', 'regress_fsd_b');
SELECT mcp_notes.grant_gateway('regress_fsd_gateway');
SELECT mcp_notes.add_file_workspace('file:///t/fsp/a', 'va', 'a');

-- What each role may execute, over every function of the extension.
SELECT r.role, array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) AS executes
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'mcp_notes'
CROSS JOIN (VALUES ('regress_fsd_a')) r(role)
WHERE has_function_privilege(r.role, p.oid, 'EXECUTE')
GROUP BY r.role;
SELECT count(*) AS fsd_entry_points_a_gateway_may_execute
FROM unnest(mcp_notes._fsd_entry_points()) f(sig)
WHERE has_function_privilege('regress_fsd_gateway', ('mcp_notes.' || f.sig)::regprocedure, 'EXECUTE');
-- no table, column or sequence
SELECT c.oid::regclass AS rel FROM pg_class c
WHERE c.relnamespace = 'mcp_notes'::regnamespace AND c.relkind IN ('r', 'S', 'v')
  AND (has_table_privilege('regress_fsd_a', c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
       OR (c.relkind <> 'S' AND has_any_column_privilege('regress_fsd_a', c.oid, 'SELECT, INSERT, UPDATE, REFERENCES')));
-- its settings: serializable, no bind parameters (note bodies) in the server log
SELECT unnest(s.setconfig) AS setting FROM pg_db_role_setting s WHERE s.setrole = 'regress_fsd_a'::regrole ORDER BY 1;

-- As the daemon of volume va: its own volume works, the other one does not.
SET SESSION AUTHORIZATION regress_fsd_a;
SELECT workspace, root_path FROM mcp_notes.fsd_attach('va');
SELECT * FROM mcp_notes.fsd_attach('vb');
SELECT * FROM mcp_notes.fsd_pending('vb');
SELECT mcp_notes.fsd_trashed('vb', 'x');
SELECT count(*) FROM mcp_notes.notes;
SELECT count(*) FROM mcp_notes.file_ops;
SELECT mcp_notes.handle('a token', '{"method": "tools/list", "params": {}}');
SELECT mcp_notes.add_file_workspace('file:///t/fsp/mine', 'va', 'mine');
RESET SESSION AUTHORIZATION;
-- (one daemon per volume, the lock fsd_attach takes: tests/fs/test_daemon.py, two processes)
SELECT pg_advisory_unlock_all() IS NULL AS unlocked;

-- A gateway cannot act as a daemon.
SET SESSION AUTHORIZATION regress_fsd_gateway;
SELECT * FROM mcp_notes.fsd_attach('va');
SELECT mcp_notes.fsd_failed('va', 'x', 'missing', '');
RESET SESSION AUTHORIZATION;

DROP OWNED BY regress_fsd_a, regress_fsd_b, regress_fsd_gateway;
DROP ROLE regress_fsd_a, regress_fsd_b, regress_fsd_gateway;
