-------------------------------------------------------------------------------
-- File-backed workspaces: gateway roles made before 1.4 (an upgrade) get
-- file_op_outcome as grant_gateway now gives it; on a fresh install there
-- is no such role and this does nothing.
-------------------------------------------------------------------------------

DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT a.grantee::regrole AS role, p.oid::regprocedure::text AS entry
             FROM pg_catalog.pg_proc p, LATERAL pg_catalog.aclexplode(p.proacl) a
             WHERE p.oid IN ('mcp_notes.handle(text, jsonb)'::regprocedure, 'mcp_notes.handle_as(text, jsonb)'::regprocedure)
               AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0
               AND a.grantee <> (SELECT e.extowner FROM pg_catalog.pg_extension e WHERE e.extname = 'mcp_notes')
    LOOP
        PERFORM mcp_notes._grant_file_ops(r.role, r.entry LIKE '%handle_as%');
    END LOOP;
END;
$$;
