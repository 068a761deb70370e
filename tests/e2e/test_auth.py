"""Bearer tokens: missing, wrong, malformed, revoked, expired; and logs that
never contain a token, a requestState or a note body."""
import json
import time

from .harness import WORKSPACE, GatewayTestCase, PROTOCOL_VERSION, accept, form_of, lit, meta, unique_title

METHODS = ("server/discover", "tools/list", "tools/call")


class AuthTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()

    def call(self, method, token, id=1, headers=None):
        params = None
        if method == "tools/call":
            params = {"name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": "x"}}
        return self.gw.rpc(method, params, id=id, token=token, caps={"elicitation": {}}, headers=headers)

    def assertUnauthorized(self, r, id):
        self.assertRpcError(r, -32001, 401, id=id)
        self.assertTrue(r.headers.get("www-authenticate", "").startswith("Bearer"), r.headers)

    def test_missing_token_is_401(self):
        for n, method in enumerate(METHODS):
            with self.subTest(method=method):
                self.assertUnauthorized(self.call(method, None, id=n), n)

    def test_wrong_token_is_401(self):
        for n, method in enumerate(METHODS):
            with self.subTest(method=method):
                self.assertUnauthorized(self.call(method, "mcpn_" + "A" * 43, id=n), n)

    def test_malformed_authorization_is_401(self):
        for value in ("Basic YWxpY2U6cHc=", "Bearer", "Bearer ", "Bearer a b", "Token abc",
                      "Bearer " + "a" * 5000, f"bearer {self.token}x"):
            for method in METHODS:
                with self.subTest(value=value[:30], method=method):
                    self.assertUnauthorized(self.call(method, None, id=7, headers={"Authorization": value}), 7)

    def test_scheme_is_case_insensitive(self):
        r = self.call("tools/list", None, headers={"Authorization": f"bearer {self.token}"})
        self.assertEqual(r.status, 200, r)

    def test_two_authorization_headers_are_refused(self):
        conn = self.gw.connection()
        try:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
            conn.putrequest("POST", "/mcp")
            for k, v in (("Content-Type", "application/json"), ("MCP-Protocol-Version", PROTOCOL_VERSION),
                         ("Mcp-Method", "tools/list"), ("Authorization", f"Bearer {self.token}"),
                         ("Authorization", "Bearer mcpn_other"), ("Content-Length", str(len(body)))):
                conn.putheader(k, v)
            conn.endheaders(body.encode())
            r = conn.getresponse()
            self.assertEqual(r.status, 401)
            r.read()
        finally:
            conn.close()

    def test_revoked_token_is_401(self):
        token = self.db.issue_token()
        for method in METHODS:
            r = self.call(method, token)
            self.assertNotEqual(r.status, 401, r)
        self.assertEqual(self.db.sql(f"SELECT mcp_notes.revoke_token({lit(token)})"), "t")
        for n, method in enumerate(METHODS):
            with self.subTest(method=method):
                self.assertUnauthorized(self.call(method, token, id=n), n)

    def test_expired_token_is_401(self):
        token = self.db.issue_token(ttl="1 second")
        time.sleep(1.5)
        for n, method in enumerate(METHODS):
            with self.subTest(method=method):
                self.assertUnauthorized(self.call(method, token, id=n), n)

    def test_token_of_another_principal_cannot_use_the_workspace(self):
        bob = self.db.issue_token("bob")
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/bob-{title[-12:]}.md", title)
        r = self.gw.call_delete(bob, WORKSPACE, title, id=1)
        self.assertEqual(self.assertResult(r, id=1)["isError"], True)
        # nor a state issued to alice
        state, _ = form_of(self.gw.call_delete(self.token, WORKSPACE, title, id=2))
        r = self.gw.call_delete(bob, WORKSPACE, title, id=3, responses=accept(note), state=state)
        self.assertRpcError(r, -32602, 200, id=3)
        self.assertEqual(r.error["data"]["reason"], "state_wrong_principal")
        self.assertTrue(self.db.note_exists(note))


class LogTest(GatewayTestCase):
    """One JSON line per request; no secrets."""

    def test_logs_contain_no_token_state_or_body(self):
        gw = self.start_gateway()
        title = unique_title()
        body_marker = "BODY-" + unique_title().replace(" ", "-")
        note = self.db.add_note(f"{WORKSPACE}/log-{title[-12:]}.md", title, body_marker)
        wrong = "mcpn_" + "Z" * 43
        gw.rpc("server/discover", id=1, token=self.token)
        gw.rpc("tools/list", id=2, token=wrong)
        r = gw.call_delete(self.token, WORKSPACE, title, id=3)
        state, _ = form_of(r)
        r = gw.call_delete(self.token, WORKSPACE, title, id=4, responses=accept(note), state=state)
        self.assertEqual(r.result["structuredContent"]["deleted"], True)
        gw.call_delete(self.token, WORKSPACE, title, id=5, responses=accept(note), state=state)
        gw.rpc("tools/list", id=6, headers={"Authorization": f"Basic {self.token}"})
        self.assertEqual(gw.stop(), 0)

        text = gw.log()
        for secret in (self.token, wrong, state, body_marker, self.token[5:25], state[10:40]):
            self.assertNotIn(secret, text)
        lines = text.splitlines()
        for line in lines:
            json.loads(line)            # every line is one JSON object
        requests = [json.loads(l) for l in lines if json.loads(l).get("event") == "request"
                    and json.loads(l).get("path") == "/mcp"]
        self.assertEqual(len(requests), 6, requests)
        for field in ("time", "level", "gateway", "status", "duration_ms", "rpc_method", "rpc_id", "retries"):
            for entry in requests:
                self.assertIn(field, entry)
        self.assertEqual([e["status"] for e in requests], [200, 401, 200, 200, 200, 401])
        self.assertEqual(requests[2]["tool"], "notes_delete")
        self.assertEqual(requests[4]["reason"], "state_already_used")
        self.assertEqual(requests[4]["code"], -32602)
        self.assertTrue(all(e["gateway"] == gw.gateway_id for e in requests))
