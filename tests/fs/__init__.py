"""Tests of file-backed workspaces against a real cluster, a real mcp-notes-fsd
and real gateways (run by tests/suites/fs inside make check)."""
