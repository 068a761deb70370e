"""mcp-notes-gateway --stdio: newline-delimited JSON-RPC on stdin/stdout in both eras,
the token from MCP_NOTES_TOKEN, the legacy era's elicitation/create written to stdout
and answered on stdin, logs on stderr only, exit 0 at end of input."""
import json
import os
import select
import subprocess
import tempfile
import time
import unittest

from tests.e2e.harness import (GATEWAY, GatewayTestCase, WORKSPACE, meta, unique_title, accept)

LEGACY = "2025-11-25"


class StdioGateway:
    def __init__(self, db, token, *args, env=None):
        self.stderr = tempfile.TemporaryFile()
        full_env = dict(os.environ)
        full_env.pop("MCP_NOTES_TOKEN", None)
        if token is not None:
            full_env["MCP_NOTES_TOKEN"] = token
        full_env.update(env or {})
        self.proc = subprocess.Popen([str(GATEWAY), "--stdio", "--db", db.conninfo(), *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     env=full_env)
        self.lines = []         # every line read from stdout
        self.pending = b""

    def send(self, msg):
        data = msg if isinstance(msg, (bytes, str)) else json.dumps(msg)
        if isinstance(data, str):
            data = data.encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout=15):
        """The next stdout line as JSON (None at end of output)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no output within {timeout}s; stderr: {self.log()}")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        self.lines.append(line)
        return json.loads(line)

    def call(self, msg, timeout=15):
        self.send(msg)
        return self.read(timeout)

    def close(self, timeout=15):
        """End of input; the exit status and the rest of stdout."""
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.proc.wait(timeout)
        for line in rest.split(b"\n"):
            if line:
                self.lines.append(line)
        return self.proc.returncode

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for f in (self.proc.stdin, self.proc.stdout, self.stderr):
            if not f.closed:
                f.close()


class StdioTest(GatewayTestCase):
    def start(self, token=..., *args, **kw):
        gw = StdioGateway(self.db, self.token if token is ... else token, *args, **kw)
        self.addCleanup(gw.kill)
        return gw

    def assertOnlyJsonRpc(self, gw):
        for line in gw.lines:
            msg = json.loads(line)
            self.assertEqual(msg.get("jsonrpc"), "2.0", line)
        for line in gw.log().splitlines():
            json.loads(line)                    # stderr: JSON log lines only

    def note(self):
        title = unique_title()
        return title, self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)

    def initialize(self, gw, caps=None):
        r = gw.call({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {"elicitation": {}} if caps is None else caps,
            "clientInfo": {"name": "e2e-stdio", "version": "1"}}})
        gw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def legacy_delete(self, gw, title, id=5):
        gw.send({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                 "params": {"name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": title}}})
        ask = gw.read()
        self.assertEqual(ask["method"], "elicitation/create", ask)
        return ask

    def test_legacy_era(self):
        gw = self.start()
        r = self.initialize(gw)
        self.assertEqual(r["result"]["protocolVersion"], LEGACY)
        self.assertEqual(r["result"]["serverInfo"]["name"], "mcp-notes")
        r = gw.call({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        self.assertIn("notes_delete", [t["name"] for t in r["result"]["tools"]])
        self.assertEqual(gw.call({"jsonrpc": "2.0", "id": 2, "method": "ping"})["result"], {})
        # accept: a ping answered while the form is open, then the answer
        title, note = self.note()
        before = len(self.db.audit())
        ask = self.legacy_delete(gw, title)
        self.assertEqual(gw.call({"jsonrpc": "2.0", "id": 3, "method": "ping"})["id"], 3)
        final = gw.call({"jsonrpc": "2.0", "id": ask["id"], "result": accept(note)["delete_choice"]})
        self.assertEqual(final["id"], 5)
        self.assertTrue(final["result"]["structuredContent"]["deleted"], final)
        self.assertFalse(self.db.note_exists(note))
        self.assertEqual([a["outcome"] for a in self.db.audit()[before:]], ["accept"])
        # decline and cancel
        for action, expected in (("decline", {"deleted": False}), ("cancel", {"deleted": False, "cancelled": True})):
            title, note = self.note()
            ask = self.legacy_delete(gw, title, id=6)
            final = gw.call({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": action}})
            self.assertEqual(final["result"]["structuredContent"], expected, final)
            self.assertTrue(self.db.note_exists(note))
        self.assertEqual(gw.close(), 0)
        self.assertOnlyJsonRpc(gw)

    def test_no_answer_then_end_of_input(self):
        gw = self.start(..., "--legacy-wait-ms", "1000")
        self.initialize(gw)
        title, note = self.note()
        self.legacy_delete(gw, title)
        final = gw.read()
        self.assertTrue(final["result"]["isError"], final)
        self.assertIn("No answer", final["result"]["content"][0]["text"])
        # end of input while a form is open: exit 0, nothing deleted
        title, note = self.note()
        self.legacy_delete(gw, title, id=8)
        self.assertEqual(gw.close(), 0)
        self.assertTrue(self.db.note_exists(note))
        self.assertOnlyJsonRpc(gw)

    def test_modern_era(self):
        gw = self.start()
        r = gw.call({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
        self.assertIn("notes_delete", [t["name"] for t in r["result"]["tools"]])
        r = gw.call({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"_meta": meta()}})
        self.assertEqual(r["error"]["code"], -32601)
        title, note = self.note()
        params = {"name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": title},
                  "_meta": meta({"elicitation": {}})}
        r = gw.call({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params})
        self.assertEqual(r["result"]["resultType"], "input_required", r)
        params.update(inputResponses=accept(note), requestState=r["result"]["requestState"])
        r = gw.call({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params})
        self.assertTrue(r["result"]["structuredContent"]["deleted"], r)
        self.assertFalse(self.db.note_exists(note))
        self.assertEqual(gw.call("{not json")["error"]["code"], -32700)
        self.assertEqual(gw.close(), 0)
        self.assertOnlyJsonRpc(gw)

    def test_bad_token_is_a_json_rpc_error(self):
        gw = self.start("not-a-token")
        r = gw.call({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": "x"}, "_meta": meta()}})
        self.assertEqual((r["id"], r["error"]["code"]), (1, -32001), r)
        r = self.initialize(gw)
        self.assertEqual(r["error"]["code"], -32001, r)
        self.assertEqual(gw.close(), 0)
        self.assertOnlyJsonRpc(gw)

    def test_no_token_refuses_to_start(self):
        gw = self.start(None)
        self.assertEqual(gw.close(), 2)
        self.assertEqual(gw.lines, [])
        self.assertIn("MCP_NOTES_TOKEN", gw.log())


if __name__ == "__main__":
    unittest.main()
