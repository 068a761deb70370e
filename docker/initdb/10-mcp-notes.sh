#!/bin/bash
# First start of the database container: the extension, the gateway role,
# and (if MCP_NOTES_DEMO=1) the demo data with a token for principal "demo".
set -euo pipefail
: "${MCP_GATEWAY_PASSWORD:?set MCP_GATEWAY_PASSWORD}"

psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v gw_password="$MCP_GATEWAY_PASSWORD" <<'SQL'
CREATE EXTENSION mcp_notes;
CREATE ROLE mcp_gateway LOGIN PASSWORD :'gw_password';
SELECT mcp_notes.grant_gateway('mcp_gateway');
SQL

if [ "${MCP_NOTES_DEMO:-0}" = 1 ]; then
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -f /opt/mcp_notes/demo.sql
    token=$(psql -At --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -c "SELECT mcp_notes.issue_token('demo', '1 day')")
    echo "mcp_notes demo token for principal demo: $token"
fi
