"""Hostile HTTP requests against real gateways (tests/suites/hostile runs them).

Run from the repository root inside tests/with-cluster (or pg_virtualenv with the extension installed):

    python3 -m unittest discover -s tests/hostile -t . -v

MCP_NOTES_GATEWAY names the binary, as for tests/e2e (whose harness this reuses).
"""
