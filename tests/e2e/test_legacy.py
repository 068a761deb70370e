"""The legacy-era adapter (MCP 2025-11-25, 2025-06-18, 2025-03-26) over real HTTP:
initialize and the Mcp-Session-Id (bound to the principal, expiring, ended by DELETE),
tools over the session's capabilities, and notes_delete's form as a server-initiated
elicitation/create on the tools/call's SSE stream, answered by a POSTed JSON-RPC
response (accept, decline, cancel, no answer, disconnect), also with the answer
posted to another gateway than the one holding the stream, directly and behind
HAProxy round-robin (docs/legacy-era.md)."""
import http.client
import json
import time
import unittest

from tests.e2e.harness import (GatewayTestCase, WORKSPACE, PRINCIPAL, unique_title, wait_until)

LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


class LegacyClient:
    """A 2025-era client: a session per instance, SSE streams read line by line."""

    def __init__(self, gw, token, caps=None, version=LEGACY, port=None):
        self.gw, self.token = gw, token
        self.port = port or gw.port
        self.session = None
        self.version = version
        self.caps = {"elicitation": {}} if caps is None else caps

    def headers(self, session=True, extra=None):
        h = {"Content-Type": "application/json", "Accept": ACCEPT}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        if session and self.session:
            h["Mcp-Session-Id"] = self.session
            h["MCP-Protocol-Version"] = self.version
        h.update(extra or {})
        return h

    def conn(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def post(self, body, session=True, extra=None, port=None):
        c = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=30)
        try:
            c.request("POST", "/mcp", body=json.dumps(body), headers=self.headers(session, extra))
            r = c.getresponse()
            data = r.read().decode()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, (json.loads(data) if data else None)
        finally:
            c.close()

    def initialize(self, version=None):
        status, headers, body = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version or self.version, "capabilities": self.caps,
            "clientInfo": {"name": "e2e-legacy", "version": "1"}}}, session=False)
        self.session = headers.get("mcp-session-id")
        if body and "result" in body:
            self.version = body["result"]["protocolVersion"]
        return status, headers, body

    def request(self, method, params=None, id=1, **kw):
        return self.post({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}, **kw)

    def open_call(self, name, arguments, id=7):
        """POST tools/call and return (connection, response) with the stream still open."""
        c = self.conn()
        body = {"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}
        c.request("POST", "/mcp", body=json.dumps(body), headers=self.headers())
        return c, c.getresponse()

    def answer(self, request_id, result=None, error=None, port=None):
        msg = {"jsonrpc": "2.0", "id": request_id}
        if error is not None:
            msg["error"] = error
        else:
            msg["result"] = result
        return self.post(msg, port=port)


def next_event(resp):
    """The next SSE message event's JSON (comments skipped); None at the end of the stream."""
    data = []
    while True:
        line = resp.readline()
        if not line:
            return None
        line = line.decode().rstrip("\r\n")
        if line == "":
            if data:
                return json.loads("\n".join(data))
            continue
        if line.startswith(":"):
            continue
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))


def delete_args(title):
    return {"workspaceUri": WORKSPACE, "title": title}


class LegacySessionTest(GatewayTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway("--legacy-wait-ms", "3000")
        cls.other_token = cls.db.issue_token("bob")

    def client(self, **kw):
        c = LegacyClient(self.gw, self.token, **kw)
        status, _, _ = c.initialize()
        self.assertEqual(status, 200)
        return c

    def test_initialize(self):
        c = LegacyClient(self.gw, self.token)
        status, headers, body = c.initialize()
        self.assertEqual(status, 200, body)
        result = body["result"]
        self.assertEqual(result["protocolVersion"], LEGACY)
        self.assertEqual(result["serverInfo"]["name"], "mcp-notes")
        self.assertIn("tools", result["capabilities"])
        self.assertIn("notes_delete", result["instructions"])
        self.assertGreaterEqual(len(c.session), 40)
        self.assertRegex(c.session, r"^[A-Za-z0-9_-]+$")
        # the database keeps it hashed, for this principal
        self.assertEqual(self.db.sql(
            "SELECT count(*) FROM mcp_notes.legacy_sessions WHERE session_hash = "
            f"mcp_notes._legacy_session_hash('{c.session}') AND principal = '{PRINCIPAL}'"), "1")
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_sessions WHERE "
                                     f"session_hash = convert_to('{c.session}', 'UTF8')"), "0")
        # initialized, ping, tools/list
        self.assertEqual(c.post({"jsonrpc": "2.0", "method": "notifications/initialized"})[0], 202)
        status, _, body = c.request("ping", id=2)
        self.assertEqual((status, body["result"]), (200, {}))
        status, _, body = c.request("tools/list", id=3)
        self.assertEqual(status, 200, body)
        self.assertIn("notes_delete", [t["name"] for t in body["result"]["tools"]])
        self.assertNotIn("resultType", body["result"])

    def test_version_negotiation(self):
        for asked, answered in (("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"),
                                ("2024-11-05", LEGACY), ("2099-01-01", LEGACY)):
            with self.subTest(asked=asked):
                c = LegacyClient(self.gw, self.token)
                status, _, body = c.initialize(asked)
                self.assertEqual(status, 200, body)
                self.assertEqual(body["result"]["protocolVersion"], answered)

    def test_modern_initialize_stays_method_not_found(self):
        r = self.gw.rpc("initialize", id=5, token=self.token)
        self.assertRpcError(r, -32601, 404, id=5)

    def test_initialize_needs_a_valid_token(self):
        status, headers, body = LegacyClient(self.gw, None).initialize()
        self.assertEqual(status, 401)
        self.assertIn("www-authenticate", headers)
        status, _, body = LegacyClient(self.gw, "not-a-token").initialize()
        self.assertEqual(status, 401, body)

    def test_requests_need_a_session(self):
        c = LegacyClient(self.gw, self.token)
        status, _, body = c.request("tools/list")
        self.assertEqual(status, 400, body)
        self.assertEqual(body["error"]["code"], -32602)
        self.assertIn("2025-11-25", body["error"]["data"]["supported"])
        c.session = "made-up-session-id"
        status, _, body = c.request("tools/list")
        self.assertEqual(status, 404, body)

    def test_session_is_bound_to_its_principal(self):
        alice = self.client()
        bob = LegacyClient(self.gw, self.other_token)
        bob.session = alice.session
        status, _, body = bob.request("tools/list")
        self.assertEqual(status, 404, body)
        status, _, body = bob.request("tools/call", {"name": "notes_delete", "arguments": delete_args("x")})
        self.assertEqual(status, 404, body)
        # a session is never authorization: a revoked token ends its use at once
        token = self.db.issue_token()
        carol = LegacyClient(self.gw, token)
        carol.initialize()
        self.assertEqual(carol.request("ping")[0], 200)
        self.db.sql(f"SELECT mcp_notes.revoke_token('{token}')")
        self.assertEqual(carol.request("ping")[0], 401)

    def test_delete_ends_the_session(self):
        c = self.client()
        conn = c.conn()
        conn.request("DELETE", "/mcp", headers=c.headers())
        r = conn.getresponse()
        r.read()
        self.assertEqual(r.status, 200)
        self.assertEqual(c.request("ping")[0], 404)
        conn.request("DELETE", "/mcp", headers=c.headers())
        r = conn.getresponse()
        r.read()
        self.assertEqual(r.status, 404)
        conn.close()

    def test_a_modern_request_never_borrows_a_session(self):
        c = self.client()                            # declared elicitation at initialize
        r = self.gw.call_delete(self.token, WORKSPACE, "x", caps={}, headers={"Mcp-Session-Id": c.session})
        self.assertRpcError(r, -32021, 400, id=1)    # this request's own _meta decides
        # and a legacy notification needs no session
        self.assertEqual(LegacyClient(self.gw, None).post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, session=False)[0], 202)

    def test_unknown_method_and_version_header(self):
        c = self.client()
        # a 2026-07-28-only method (resources/subscribe is served: tests/e2e/test_subscriptions.py)
        status, _, body = c.request("subscriptions/listen", {"notifications": {}}, id=9)
        self.assertEqual((status, body["error"]["code"]), (200, -32601))
        status, _, body = c.request("ping", extra={"MCP-Protocol-Version": "1999-01-01"})
        self.assertEqual(status, 400, body)

    def test_capabilities_come_from_the_session(self):
        c = self.client(caps={})
        status, _, body = c.request("tools/call", {
            "name": "notes_delete", "arguments": delete_args("x"),
            "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["error"]["code"], -32602, body)
        self.assertEqual(body["error"]["data"]["requiredCapabilities"], {"elicitation": {"form": {}}})


class LegacyExpiryTest(GatewayTestCase):
    def test_an_unused_session_expires_and_use_renews_it(self):
        gw = self.start_gateway("--legacy-session-ttl", "2")
        kept, idle = LegacyClient(gw, self.token), LegacyClient(gw, self.token)
        kept.initialize()
        idle.initialize()
        deadline = time.monotonic() + 3.5
        while time.monotonic() < deadline:           # used every 0.5 s: renewed each time
            self.assertEqual(kept.request("ping")[0], 200)
            time.sleep(0.5)
        self.assertEqual(idle.request("ping")[0], 404)
        self.assertEqual(kept.request("ping")[0], 200)
        # expired sessions are pruned by the next initialize
        self.assertTrue(wait_until(lambda: idle.request("ping")[0] == 404, 5))
        LegacyClient(gw, self.token).initialize()
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_sessions "
                                     "WHERE expires_at <= clock_timestamp()"), "0")


class LegacyDeleteTest(GatewayTestCase):
    # Long enough that a loaded machine never lets a stream run out while a
    # test answers it; test_no_answer_ends_with_a_tool_error has its own.
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway("--legacy-wait-ms", "60000")

    def start(self, c=None):
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
        c = c or LegacyClient(self.gw, self.token)
        if not c.session:
            c.initialize()
        conn, resp = c.open_call("notes_delete", delete_args(title))
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("Content-Type"), "text/event-stream")
        ask = next_event(resp)
        self.assertEqual(ask["method"], "elicitation/create", ask)
        self.assertEqual(ask["params"]["mode"], "form")
        ids = [o["const"] for o in ask["params"]["requestedSchema"]["properties"]["note_id"]["oneOf"]]
        self.assertEqual(ids, [note])
        return c, conn, resp, ask, note

    def audit_outcomes(self, note=None):
        return [a["outcome"] for a in self.db.audit() if note is None or a.get("note_id") in (note, None)]

    def test_accept_deletes_once(self):
        before = len(self.db.audit())
        c, conn, resp, ask, note = self.start()
        status, _, _ = c.answer(ask["id"], {"action": "accept", "content": {"note_id": note, "confirm": True}})
        self.assertEqual(status, 202)
        final = next_event(resp)
        self.assertEqual(final["id"], 7, final)
        self.assertEqual(final["result"]["structuredContent"]["deleted"], True, final)
        self.assertNotIn("resultType", final["result"])
        self.assertIsNone(next_event(resp))          # the stream ends with the result
        conn.close()
        self.assertFalse(self.db.note_exists(note))
        audit = self.db.audit()[before:]
        self.assertEqual([a["outcome"] for a in audit], ["accept"], audit)
        # the same answer again is refused: nothing waits for it any more
        status, _, body = c.answer(ask["id"], {"action": "accept", "content": {"note_id": note, "confirm": True}})
        self.assertEqual(status, 400, body)
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending"), "0")

    def test_decline(self):
        before = len(self.db.audit())
        c, conn, resp, ask, note = self.start()
        self.assertEqual(c.answer(ask["id"], {"action": "decline"})[0], 202)
        final = next_event(resp)
        self.assertEqual(final["result"]["structuredContent"], {"deleted": False}, final)
        conn.close()
        self.assertTrue(self.db.note_exists(note))
        self.assertEqual([a["outcome"] for a in self.db.audit()[before:]], ["decline"])

    def test_cancel_and_client_error(self):
        for answer in ({"result": {"action": "cancel"}}, {"error": {"code": -1, "message": "user closed it"}}):
            with self.subTest(answer=answer):
                c, conn, resp, ask, note = self.start()
                self.assertEqual(c.answer(ask["id"], **answer)[0], 202)
                final = next_event(resp)
                self.assertTrue(final["result"]["structuredContent"]["cancelled"], final)
                conn.close()
                self.assertTrue(self.db.note_exists(note))

    def test_answer_from_another_principal_is_refused(self):
        c, conn, resp, ask, note = self.start()
        mallory = LegacyClient(self.gw, self.db.issue_token("mallory"))
        mallory.initialize()
        for session in (c.session, mallory.session):
            mallory.session = session
            status, _, body = mallory.answer(ask["id"], {"action": "accept",
                                                         "content": {"note_id": note, "confirm": True}})
            self.assertIn(status, (400, 404), body)
        self.assertEqual(c.answer(ask["id"], {"action": "decline"})[0], 202)
        self.assertEqual(next_event(resp)["result"]["structuredContent"], {"deleted": False})
        conn.close()
        self.assertTrue(self.db.note_exists(note))

    def test_no_answer_ends_with_a_tool_error(self):
        gw = self.start_gateway("--legacy-wait-ms", "2000")
        started = time.monotonic()
        c, conn, resp, ask, note = self.start(LegacyClient(gw, self.token))
        final = next_event(resp)
        waited = time.monotonic() - started
        self.assertTrue(final["result"]["isError"], final)
        self.assertIn("No answer", final["result"]["content"][0]["text"])
        self.assertGreater(waited, 1.5)
        self.assertLess(waited, 10)
        conn.close()
        self.assertTrue(self.db.note_exists(note))
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending"), "0")
        # the late answer finds nothing waiting
        self.assertEqual(c.answer(ask["id"], {"action": "decline"})[0], 400)

    def test_disconnect_frees_the_pending_request(self):
        c, conn, resp, ask, note = self.start()
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending"), "1")
        conn.close()
        self.assertTrue(wait_until(lambda: self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending") == "0", 8))
        self.assertTrue(self.db.note_exists(note))
        # the gateway carries on
        self.assertEqual(c.request("ping")[0], 200)

    def test_many_streams_wait_without_database_connections(self):
        # --pool-size 8 (default): 12 waiting streams hold no pooled connection
        # (two principals, one session each stream: the database lets one
        # principal keep 8 requests for input waiting, a session 4)
        others = [self.db.issue_token(p) for p in ("carl", "dora")]
        for p in ("carl", "dora"):
            self.db.sql(f"SELECT mcp_notes.grant_workspace('{p}', '{WORKSPACE}')")
        opened = [self.start(LegacyClient(self.gw, others[i % 2])) for i in range(12)]
        self.assertEqual(c_ping(opened[0][0]), 200)
        for c, conn, resp, ask, note in opened:
            self.assertEqual(c.answer(ask["id"], {"action": "decline"})[0], 202)
            self.assertIn("result", next_event(resp))
            conn.close()


def c_ping(client):
    return client.request("ping")[0]


class LegacyHeldStreamsTest(GatewayTestCase):
    """One principal's waiting streams cannot take a gateway from everyone
    (issue 18.2): the database caps the requests for input waiting per
    principal (8) and per session (4), the next one gets a prompt tool
    error; revoking the token or closing the session ends its waits."""

    def start_delete(self, c, title):
        conn, resp = c.open_call("notes_delete", delete_args(title))
        return conn, resp

    def test_32_streams_of_one_token_leave_room_for_others(self):
        # every connection slot is one client's to take: the per-address
        # limit does not save the others (they all come from 127.0.0.1 here)
        gw = self.start_gateway("--max-connections", "32", "--max-connections-per-ip", "32",
                                "--legacy-wait-ms", "60000")
        title = unique_title()
        self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
        held, refused = [], 0
        for i in range(32):
            c = LegacyClient(gw, self.token)
            self.assertEqual(c.initialize()[0], 200)
            conn, resp = self.start_delete(c, title)
            if resp.getheader("Content-Type") == "text/event-stream":
                self.assertEqual(next_event(resp)["method"], "elicitation/create")
                held.append((c, conn, resp))
            else:
                body = json.loads(resp.read())
                self.assertTrue(body["result"]["isError"], body)
                self.assertIn("Too many requests for input", body["result"]["content"][0]["text"])
                conn.close()
                refused += 1
        self.assertEqual((len(held), refused), (8, 24))
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending WHERE answer IS NULL "
                                     "AND expires_at > clock_timestamp()"), "8")
        # another client is served at once, in both eras
        other = self.db.issue_token("erin")
        self.assertEqual(gw.rpc("tools/list", id=1, token=other, timeout=5).status, 200)
        e = LegacyClient(gw, other)
        self.assertEqual(e.initialize()[0], 200)
        self.assertEqual(e.request("ping")[0], 200)
        for c, conn, resp in held:
            conn.close()

    def test_revoking_the_token_ends_its_waiting_streams(self):
        gw = self.start_gateway("--legacy-wait-ms", "60000")
        token = self.db.issue_token()
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
        streams = []
        for i in range(3):
            c = LegacyClient(gw, token)
            c.initialize()
            conn, resp = self.start_delete(c, title)
            self.assertEqual(next_event(resp)["method"], "elicitation/create")
            streams.append((conn, resp))
        started = time.monotonic()
        self.assertEqual(self.db.sql(f"SELECT mcp_notes.revoke_token('{token}')"), "t")
        for conn, resp in streams:
            final = next_event(resp)                 # told through the notify channel, not at the 60 s deadline
            self.assertIn("error", final, final)
            self.assertIsNone(next_event(resp))
            conn.close()
        self.assertLess(time.monotonic() - started, 20)
        # (other tests' streams may still be waiting out a stopped gateway: count this token's)
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending "
                                     f"WHERE opened_by = mcp_notes._token_hash('{token}')"), "0")
        self.assertTrue(self.db.note_exists(note))

    def test_closing_the_session_ends_its_waiting_stream(self):
        gw = self.start_gateway("--legacy-wait-ms", "60000")
        title = unique_title()
        self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
        c = LegacyClient(gw, self.token)
        c.initialize()
        conn, resp = self.start_delete(c, title)
        self.assertEqual(next_event(resp)["method"], "elicitation/create")
        started = time.monotonic()
        h = c.conn()
        h.request("DELETE", "/mcp", headers=c.headers())
        r = h.getresponse()
        r.read()
        h.close()
        self.assertEqual(r.status, 200)
        final = next_event(resp)
        self.assertEqual(final["error"]["code"], -32001, final)   # Session not found
        conn.close()
        self.assertLess(time.monotonic() - started, 20)

    def test_an_oversized_initialize_is_refused(self):
        gw = self.start_gateway()
        c = LegacyClient(gw, self.token, caps={"elicitation": {}, "experimental": {"blob": "x" * 400000}})
        status, headers, body = c.initialize()
        self.assertEqual(status, 200, body)
        self.assertEqual(body["error"]["code"], -32602, body)
        self.assertIn("16384", body["error"]["message"])
        self.assertNotIn("mcp-session-id", headers)
        # what a session keeps: the keys the server reads, nothing else
        c = LegacyClient(gw, self.token, caps={"elicitation": {"form": {}}, "experimental": {"x": 1},
                                               "roots": {"listChanged": True}})
        self.assertEqual(c.initialize()[0], 200)
        self.assertEqual(self.db.sql(
            "SELECT client_capabilities FROM mcp_notes.legacy_sessions WHERE session_hash = "
            f"mcp_notes._legacy_session_hash('{c.session}')"), '{"roots": {"listChanged": true}, "elicitation": {"form": {}}}')


class LegacyScaleOutTest(GatewayTestCase):
    """The answer reaches another gateway than the one holding the stream."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.a = cls.start_class_gateway("--gateway-id", "legacy-a")
        cls.b = cls.start_class_gateway("--gateway-id", "legacy-b")

    def test_answer_posted_to_the_other_gateway(self):
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
        c = LegacyClient(self.a, self.token)
        c.initialize()                                  # the session opened on A ...
        self.assertEqual(c.post({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {}},
                                port=self.b.port)[0], 200)  # ... is known to B
        conn, resp = c.open_call("notes_delete", delete_args(title))
        ask = next_event(resp)
        status, _, _ = c.answer(ask["id"], {"action": "accept", "content": {"note_id": note, "confirm": True}},
                                port=self.b.port)
        self.assertEqual(status, 202)
        final = next_event(resp)
        self.assertTrue(final["result"]["structuredContent"]["deleted"], final)
        conn.close()
        self.assertFalse(self.db.note_exists(note))
        audit = [a for a in self.db.audit() if a.get("note_id") == note]
        self.assertEqual([(a["outcome"], a["gateway_id"]) for a in audit], [("accept", "legacy-a")])

    def test_a_gateway_restart_loses_only_its_streams(self):
        c = LegacyClient(self.a, self.token)
        c.initialize()
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
        gw = self.start_gateway("--gateway-id", "legacy-c")
        c.port = gw.port
        conn, resp = c.open_call("notes_delete", delete_args(title))
        ask = next_event(resp)
        self.assertEqual(gw.stop(), 0)               # drains: the stream ends with an error
        final = next_event(resp)
        self.assertIn("error", final, final)
        conn.close()
        self.assertTrue(self.db.note_exists(note))
        c.port = self.b.port                         # the session lives on in the database
        self.assertEqual(c.request("ping")[0], 200)
        self.assertEqual(c.answer(ask["id"], {"action": "decline"})[0], 400)  # nothing waits any more

    def test_behind_haproxy_round_robin(self):
        from tests.reliability.stack import HAProxy
        lb = HAProxy([("legacy-a", "127.0.0.1", self.a.port), ("legacy-b", "127.0.0.1", self.b.port)])
        self.addCleanup(lb.stop)
        self.assertTrue(wait_until(lambda: set(lb.server_status().values()) == {"UP"}, 10))
        served = set()
        for attempt in range(4):
            title = unique_title()
            note = self.db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)
            c = LegacyClient(None, self.token, port=lb.port)
            c.initialize()
            conn, resp = c.open_call("notes_delete", delete_args(title))
            stream_by = resp.getheader("X-Served-By")
            ask = next_event(resp)
            body = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept",
                                                                  "content": {"note_id": note, "confirm": True}}}
            h = http.client.HTTPConnection("127.0.0.1", lb.port, timeout=30)
            h.request("POST", "/mcp", body=json.dumps(body), headers=c.headers())
            r = h.getresponse()
            r.read()
            answer_by = r.getheader("X-Served-By")
            h.close()
            self.assertEqual(r.status, 202)
            final = next_event(resp)
            conn.close()
            self.assertTrue(final["result"]["structuredContent"]["deleted"], final)
            self.assertFalse(self.db.note_exists(note))
            served.add((stream_by, answer_by))
        self.assertTrue(any(s != a for s, a in served), served)


if __name__ == "__main__":
    unittest.main()
