-- The SQL floor of tools/list and server/discover: the one statement the
-- gateway sends for each (tool descriptors are cached in the gateway), as
-- the gateway role, -M extended.  An unknown token is an error.
SELECT mcp_notes.authenticate(:tok::text) IS NOT NULL AS ok
\gset
\if :ok
\else
SELECT 1 / 0 AS unknown_token;
\endif
