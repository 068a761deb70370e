"""Every message the gateway sends in a real flow validates against the MCP
2026-07-28 JSON schema that the conformance package embeds
(tests/node/validate-wire.mjs, ajv from the same package).

The conformance suite checks the wire of its own scenarios, but it never
makes a valid notes_delete call: this records the answers of a whole
session with the real surface, notes_delete's input_required form included,
and validates each one.  401 answers are left out: they are the OAuth error
object of RFC 6750, not JSON-RPC (docs/protocol.md).
"""
import json
import subprocess

from .harness import (ROOT, EVIL_WORKSPACE, GatewayTestCase, WORKSPACE, accept, form_of, unique_title)

VALIDATOR = ROOT / "tests" / "node" / "validate-wire.mjs"


def node_binary():
    out = subprocess.run([str(ROOT / "scripts" / "install-node")], capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"scripts/install-node failed: {out.stderr.strip()}")
    return out.stdout.strip().splitlines()[-1]


def validate(records):
    """[(request method, message)] -> [errors per message]"""
    lines = "".join(json.dumps({"requestMethod": m, "message": msg}) + "\n" for m, msg in records)
    proc = subprocess.run([node_binary(), str(VALIDATOR)], input=lines, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"validate-wire.mjs failed ({proc.returncode}): {proc.stderr.strip()}")
    return [json.loads(line).get("errors", []) for line in proc.stdout.splitlines()]


class WireSchemaTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()

    def setUp(self):
        self.records = []

    def send(self, method, params=None, name=None, **kw):
        headers = dict(kw.pop("headers", None) or {})
        if name is not None:
            headers["Mcp-Name"] = name
        r = self.gw.rpc(method, params or {}, token=kw.pop("token", self.token), headers=headers or None, **kw)
        self.assertIsNotNone(r.json, r)
        self.records.append((method, r.json))
        return r

    def delete(self, title, **kw):
        r = self.gw.call_delete(self.token, WORKSPACE, title, **kw)
        self.assertIsNotNone(r.json, r)
        self.records.append(("tools/call", r.json))
        return r

    def test_validator_rejects_what_the_schema_forbids(self):
        """The check can fail: known-bad messages are refused."""
        bad = [("tools/list", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": []}}),
               ("tools/call", {"jsonrpc": "2.0", "id": None, "error": {"code": -32602, "message": "x"}}),
               ("resources/read", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "contents": [{}],
                                                                         "ttlMs": 0, "cacheScope": "private"}})]
        self.assertTrue(all(validate(bad)), validate(bad))

    def test_a_whole_session_validates(self):
        title = unique_title("Schema check")
        note = self.db.add_note(f"{WORKSPACE}/schema/{title.split()[-1]}.md", title, "text")
        other = unique_title("Schema decline")
        self.db.add_note(f"{WORKSPACE}/schema/{other.split()[-1]}.md", other, "text")
        self.db.add_note(f"{EVIL_WORKSPACE}/schema.md", title, "outside")
        self.send("server/discover")
        self.send("tools/list")
        self.send("resources/list")
        self.send("resources/templates/list")
        self.send("resources/read", {"uri": f"{WORKSPACE}/schema/{title.split()[-1]}.md"},
                  name=f"{WORKSPACE}/schema/{title.split()[-1]}.md")
        self.send("resources/read", {"uri": f"{EVIL_WORKSPACE}/schema.md"}, name=f"{EVIL_WORKSPACE}/schema.md")
        self.send("prompts/list")
        self.send("prompts/get", {"name": "review_note", "arguments": {"workspaceUri": WORKSPACE, "noteId": note}},
                  name="review_note")
        self.send("prompts/get", {"name": "review_note", "arguments": {"workspaceUri": EVIL_WORKSPACE, "noteId": note}},
                  name="review_note")
        self.send("completion/complete", {"ref": {"type": "ref/prompt", "name": "review_note"},
                                          "argument": {"name": "workspaceUri", "value": "file:"}})
        # notes_delete: the form, a cancel, a decline, an accept, a replay, no capability
        step1 = self.delete(title, id=10)
        self.assertEqual(step1.result["resultType"], "input_required", step1)
        state, ids = form_of(step1)
        self.delete(title, id=11, state=state, responses={"delete_choice": {"action": "cancel"}})
        self.delete(title, id=12, state=state)
        self.delete(title, id=13, state=state, responses=accept(ids[0]))
        self.delete(title, id=14, state=state, responses=accept(ids[0]))
        declined, _ = form_of(self.delete(other, id=15))
        self.delete(other, id=16, state=declined, responses={"delete_choice": {"action": "decline"}})
        self.delete(title, id=17, caps={})
        self.delete(unique_title("nothing"), id=18)
        # envelope errors
        self.send("unknown/method")
        self.send("tools/list", headers={"Mcp-Method": "prompts/list"})
        self.send("tools/list", version="1999-01-01", headers={"MCP-Protocol-Version": "1999-01-01"})
        self.send("tools/call", {"name": "no_such_tool", "arguments": {}}, name="no_such_tool")
        self.assertGreaterEqual(len(self.records), 22)
        errors = validate(self.records)
        bad = [(m, msg, e) for (m, msg), e in zip(self.records, errors) if e]
        self.assertEqual(bad, [], json.dumps(bad, indent=1)[:4000])
        self.assertFalse(self.db.note_exists(note))


class ProgressStreamTest(GatewayTestCase):
    """Notifications an outcome carries go out as an SSE stream before the
    response (docs/contract.md); the fixture's progress tool reports them."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.fresh_tools = [t["name"] for t in json.loads(cls.db.sql(
            "SELECT mcp_notes.tool_descriptors()"))]
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", cls.db.name,
                        "-f", str(ROOT / "share" / "conformance-fixture.sql")],
                       check=True, capture_output=True, text=True, timeout=120)
        cls.gw = cls.start_class_gateway()

    def progress_call(self, meta_extra):
        params = {"name": "test_tool_with_progress", "arguments": {}}
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}, **meta_extra}
        params["_meta"] = meta
        return self.gw.rpc("tools/call", params, id=41, token=self.token,
                           headers={"Accept": "application/json, text/event-stream"})

    def test_fixture_is_not_installed_by_default(self):
        self.assertFalse([t for t in self.fresh_tools if t.startswith("test_")], self.fresh_tools)

    def test_progress_is_streamed_before_the_result(self):
        r = self.progress_call({"progressToken": "p-1"})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.headers.get("content-type"), "text/event-stream", r)
        events = [json.loads(line[len("data: "):]) for line in r.raw.splitlines() if line.startswith("data: ")]
        self.assertEqual(len(r.raw.split("\n\n")) - 1, 4, r.raw)
        self.assertEqual([e["params"]["progress"] for e in events[:3]], [0, 50, 100])
        self.assertTrue(all(e["method"] == "notifications/progress" and e["params"]["progressToken"] == "p-1"
                            and "id" not in e for e in events[:3]), events)
        self.assertEqual(events[3]["id"], 41)
        self.assertEqual(events[3]["result"]["resultType"], "complete")
        errors = validate([("tools/call", e) for e in events])
        self.assertEqual([e for e in errors if e], [])

    def test_without_a_token_the_answer_is_plain_json(self):
        r = self.progress_call({})
        self.assertEqual(r.headers.get("content-type"), "application/json", r)
        self.assertEqual(r.result["resultType"], "complete")
        r = self.progress_call({"progressToken": {"not": "a token"}})
        self.assertEqual(r.headers.get("content-type"), "application/json", r)
