"""An upgrade must not break a running fleet mid-rollout.

- The released gateways, built from git (1.0.0 at 9a4f2c5, which speaks the
  1.1 entry points call_tool and tool_descriptors; 2.0.0 at 367b206, which
  speaks contract 2; 2.1.0 at 6a52a19, which also speaks the 2025 era through
  the 1.3 entry points legacy_session_open ... legacy_pending_take), each run
  a whole notes_delete flow against the current extension (2.1.0 also a
  2025-era one, with its SSE stream and the answer posted back): it keeps the
  entry points of the versions before it.
- THIS gateway in front of an extension that is still 1.1 refuses clearly:
  /readyz 503, one log line naming what it found and what it needs, and 503
  -32603 for requests; after ALTER EXTENSION mcp_notes UPDATE it serves
  without a restart.
"""
import pathlib
import shutil
import subprocess
import tempfile

from .harness import (EXTENSION_VERSION, ROOT, WORKSPACE, Database, Gateway, GatewayTestCase, accept, form_of,
                      require_environment, unique_title, wait_until)

def build_previous_gateway(tmp, release):
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", release, "gateway"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    subprocess.run(["make", "-s", "-C", str(tmp / "gateway")], check=True, capture_output=True, text=True)
    return tmp / "gateway" / "mcp-notes-gateway"


class PreviousGatewayTest(GatewayTestCase):
    """The released gateway 1.0.0 against the current extension."""
    RELEASE, VERSION = "9a4f2c5", "1.0.0"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = pathlib.Path(tempfile.mkdtemp(prefix="mcp-notes-prev-gw-"))
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.binary = build_previous_gateway(cls.tmp, cls.RELEASE)
        cls.gw = cls.start_class_gateway(binary=cls.binary)

    def test_extension_is_current(self):
        self.assertEqual(self.db.sql("SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes'"), EXTENSION_VERSION)

    def test_previous_gateway_is_the_release(self):
        listening = [l for l in self.gw.log_lines() if l.get("event") == "listening"][0]
        self.assertEqual(listening["version"], self.VERSION)

    def test_full_delete_flow(self):
        self.assertEqual(self.gw.get("/readyz").status, 200)
        tools = self.assertResult(self.gw.rpc("tools/list", id=1, token=self.token), id=1)["tools"]
        self.assertIn("notes_delete", [t["name"] for t in tools])
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/compat-{title[-12:]}.md", title)
        first = self.gw.call_delete(self.token, WORKSPACE, title, id=2)
        self.assertResult(first, id=2, result_type="input_required")
        state, ids = form_of(first)
        self.assertEqual(ids, [note])
        done = self.gw.call_delete(self.token, WORKSPACE, title, id=3, responses=accept(note), state=state)
        self.assertEqual(self.assertResult(done, id=3)["structuredContent"]["deleted"], True)
        self.assertFalse(self.db.note_exists(note))
        replay = self.gw.call_delete(self.token, WORKSPACE, title, id=4, responses=accept(note), state=state)
        self.assertRpcError(replay, -32602, 200, id=4)
        self.assertEqual(replay.error["data"]["reason"], "state_already_used")


class Gateway200Test(PreviousGatewayTest):
    """The released gateway 2.0.0 (contract 2) against the current extension:
    extension first, then the gateways one at a time."""
    RELEASE, VERSION = "367b206", "2.0.0"


class Gateway210Test(PreviousGatewayTest):
    """The released gateway 2.1.0 against the current extension: its 2025-era
    adapter calls the 1.3 entry points, now thin wrappers over handle()."""
    RELEASE, VERSION = "6a52a19", "2.1.0"

    def test_legacy_era_delete_flow(self):
        from .test_legacy import LegacyClient, next_event, delete_args
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/compat-{title[-12:]}.md", title)
        c = LegacyClient(self.gw, self.token)
        self.assertEqual(c.initialize()[0], 200)
        self.assertEqual(c.request("ping")[0], 200)
        conn, resp = c.open_call("notes_delete", delete_args(title))
        self.assertEqual(resp.getheader("Content-Type"), "text/event-stream")
        ask = next_event(resp)
        self.assertEqual(ask["method"], "elicitation/create", ask)
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending"), "1")
        status, _, _ = c.answer(ask["id"], {"action": "accept", "content": {"note_id": note, "confirm": True}})
        self.assertEqual(status, 202)
        final = next_event(resp)
        conn.close()
        self.assertTrue(final["result"]["structuredContent"]["deleted"], final)
        self.assertFalse(self.db.note_exists(note))
        # the same answer again: nothing waits for it (400), a foreign session is 404
        self.assertEqual(c.answer(ask["id"], {"action": "decline"})[0], 400)
        c.session = "made-up"
        self.assertEqual(c.request("ping")[0], 404)


class NewGatewayOldExtensionTest(GatewayTestCase):
    """This gateway against extension 1.1: a clear refusal, then an upgrade."""

    @classmethod
    def setUpClass(cls):
        require_environment()
        cls.db = Database("compat11", version="1.1")
        cls.addClassCleanup(cls.db.drop)
        cls.token = cls.db.issue_token()

    def test_refuses_then_serves_after_the_upgrade(self):
        self.assertEqual(self.db.sql("SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes'"), "1.1")
        gw = self.start_gateway()
        ready = gw.get("/readyz")
        self.assertEqual(ready.status, 503, ready)
        self.assertEqual(ready.json["status"], "unavailable")
        self.assertEqual(ready.json["reason"], "incompatible extension")
        self.assertEqual(ready.json["extension"], "1.1")
        self.assertIsInstance(ready.json["gateway"], str)

        lines = [l for l in gw.log_lines() if l.get("event") == "extension_incompatible"]
        self.assertEqual(len(lines), 1, gw.log())
        self.assertEqual(lines[0]["level"], "error")
        self.assertIn("mcp_notes 1.1", lines[0]["found"])
        self.assertEqual(lines[0]["needed_contract"], 2)
        self.assertIn("ALTER EXTENSION mcp_notes UPDATE", lines[0]["msg"])

        for method, params in (("tools/list", None), ("server/discover", None),
                               ("tools/call", {"name": "notes_delete", "arguments": {}})):
            with self.subTest(method=method):
                r = gw.rpc(method, params, id=7, token=self.token)
                self.assertRpcError(r, -32603, 503, id=7)
                self.assertIn("ALTER EXTENSION mcp_notes UPDATE", r.error["message"])
                self.assertEqual(r.headers.get("retry-after"), "1")
        # refused requests do not repeat the log line
        self.assertEqual(len([l for l in gw.log_lines() if l.get("event") == "extension_incompatible"]), 1)

        self.db.sql("ALTER EXTENSION mcp_notes UPDATE")
        self.assertTrue(wait_until(lambda: gw.get("/readyz").status == 200, 10), gw.log())
        self.assertEqual(gw.get("/readyz").json["extension"], EXTENSION_VERSION)
        self.assertResult(gw.rpc("tools/list", id=8, token=self.token), id=8)
        self.assertIn("extension_ready", [l.get("event") for l in gw.log_lines()])
