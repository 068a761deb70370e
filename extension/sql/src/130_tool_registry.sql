-------------------------------------------------------------------------------
-- The tool registry
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tool_descriptors() RETURNS jsonb
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(t.descriptor ORDER BY t.position), '[]') FROM tools t
$$;
COMMENT ON FUNCTION tool_descriptors() IS 'The tools/list descriptors from the tool registry, in position order';

-- A tool's row, written by the file that defines the tool, for a fresh
-- install and an upgrade alike: the handler is _tool_<name>.
CREATE OR REPLACE FUNCTION _register_tool(tool_position integer, descriptor jsonb) RETURNS void
LANGUAGE sql VOLATILE STRICT
SET search_path = mcp_notes, pg_temp
AS $$
    INSERT INTO tools AS t (name, position, descriptor, handler)
    VALUES (descriptor ->> 'name', tool_position, descriptor, '_tool_' || (descriptor ->> 'name'))
    ON CONFLICT (name) DO UPDATE SET position = excluded.position, descriptor = excluded.descriptor,
                                     handler = excluded.handler
$$;
COMMENT ON FUNCTION _register_tool(integer, jsonb) IS
'Internal: adds or replaces a tool''s row in the registry (the scripts that define the tools call it)';
