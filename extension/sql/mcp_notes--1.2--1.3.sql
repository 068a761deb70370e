-- mcp_notes 1.2 -> 1.3: candidate search that keeps its own statistics and
-- is scoped to the workspace first, limits on titles and bodies and a
-- statement timeout for gateway roles; the notes surface (create, read,
-- update, list, search, resources, prompts, completion); legacy-era
-- sessions for the 2025-11-25 adapter; the operators' view of the delete
-- flow.  What this script creates is the same as sql/mcp_notes.sql
-- (test/sql/zz_upgrade.sql).
\echo Use "ALTER EXTENSION mcp_notes UPDATE TO '1.3'" to load this file. \quit

-------------------------------------------------------------------------------
-- Search: statistics of its own, workspace first, limits, statement timeout
-------------------------------------------------------------------------------

-- (end of search)

-------------------------------------------------------------------------------
-- Notes tools: create, read, update, list, search; audit of changes
-------------------------------------------------------------------------------

-- (end of notes tools)

-------------------------------------------------------------------------------
-- Resources, prompts, completion
-------------------------------------------------------------------------------

-- (end of resources, prompts, completion)

-------------------------------------------------------------------------------
-- Legacy-era sessions (2025-11-25 adapter)
-------------------------------------------------------------------------------

-- (end of legacy sessions)

-------------------------------------------------------------------------------
-- Operators' view of the delete flow
-------------------------------------------------------------------------------

-- (end of operators' view)
