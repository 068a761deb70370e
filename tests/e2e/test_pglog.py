"""The bearer token never reaches PostgreSQL's log.  With statement logging
on for the gateway role (log_min_duration_statement = 0), every call the
gateway makes is logged with its text; grant_gateway's role settings
(log_parameter_max_length = 0, log_parameter_max_length_on_error = 0) keep
the bind parameters -- the token, the requestState, the client info -- out
of it."""
import os
import pathlib
import subprocess
import time

from .harness import WORKSPACE, GatewayTestCase, form_of, unique_title


def server_log():
    """The log file of the cluster the environment points at."""
    if os.environ.get("MCP_NOTES_PGDATA"):                      # tests/with-cluster
        return pathlib.Path(os.environ["MCP_NOTES_PGDATA"]).parent / "server.log"
    out = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 7 and f[2] == os.environ["PGPORT"]:
            return pathlib.Path(f[6])
    raise RuntimeError("cannot find the server log: run inside tests/with-cluster")


class TokenNotInServerLogTest(GatewayTestCase):

    def test_statement_log_has_no_parameters(self):
        log = server_log()
        start = log.stat().st_size
        # as a superuser: statement logging is superuser-only, like the settings it must not undo
        self.db.sql(f"ALTER ROLE {self.db.role} SET log_min_duration_statement = 0")
        self.addCleanup(self.db.sql, f"ALTER ROLE {self.db.role} RESET log_min_duration_statement")
        gw = self.start_gateway("--auth-cache-ms", "0")
        title = unique_title("log secret")
        self.db.add_note(f"{WORKSPACE}/log.md", title)

        r = gw.rpc("tools/list", id=1, token=self.token)          # authenticate($1)
        self.assertResult(r, id=1)
        r = gw.call_delete(self.token, WORKSPACE, title, id=2)   # handle($1, $2)
        self.assertResult(r, id=2, result_type="input_required")
        state, _ = form_of(r)
        r = gw.call_delete(self.token, WORKSPACE, title, id=3, state=state,
                           responses={"delete_choice": {"action": "decline"}})
        self.assertResult(r, id=3)
        r = gw.rpc("tools/call", {"name": 7}, id=4, token="mcpn_" + "A" * 43)
        gw.stop()

        deadline = time.monotonic() + 10
        text = ""
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace")[start:]
            if "mcp_notes.handle" in text and "mcp_notes.authenticate" in text:
                break
            time.sleep(0.2)
        self.assertIn("mcp_notes.handle", text, "statement logging did not log the gateway's calls")
        self.assertIn("mcp_notes.authenticate", text)
        self.assertNotIn(self.token, text)
        self.assertNotIn(self.token[5:], text)
        self.assertNotIn("mcpn_" + "A" * 43, text)
        self.assertNotIn(state, text)
        self.assertNotIn("mcp-notes-e2e", text)       # the client info
        self.assertNotIn("parameters: $1", text)
