-- Last, so that it covers every function above: nothing is executable by
-- PUBLIC but the two pure URI functions, which USAGE on the schema lets
-- anyone call by name (it reveals nothing: the catalogs are world-readable).
REVOKE ALL ON ALL TABLES IN SCHEMA mcp_notes FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA mcp_notes FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA mcp_notes FROM PUBLIC;
GRANT EXECUTE ON FUNCTION normalize_uri(text), uri_contains(text, text) TO PUBLIC;
GRANT USAGE ON SCHEMA mcp_notes TO PUBLIC;
