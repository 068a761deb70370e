"""End-to-end tests: real mcp-notes-gateway processes over real HTTP against
the mcp_notes extension.  Run from the repository root inside tests/with-cluster (or pg_virtualenv with the extension installed):

    python3 -m unittest discover -s tests/e2e -t . -v

MCP_NOTES_GATEWAY names the binary (default gateway/mcp-notes-gateway).
"""
