"""Change notifications across gateways, and logging, in both eras (docs/resources-prompts.md,
"Subscriptions" and "Logging"): a subscriptions/listen on gateway B hears notifications/resources/updated
for a note written through gateway A (a tool) or by the operator (move_note), and nothing for a note
outside its grants; a revoked grant or token ends the stream with its final result; the per-principal
and the per-gateway caps refuse clearly; a 2025-era session's resources/subscribe is delivered on its
GET stream held by another gateway; logging/setLevel answers exactly {}; a 2026 request's _meta log
level is checked (-32602) and only its own messages at or above it come, before the result."""
import http.client
import json
import time

from tests.e2e.harness import (GatewayTestCase, WORKSPACE, EVIL_WORKSPACE, PRINCIPAL, lit, meta)

LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
SUB_ID = "io.modelcontextprotocol/subscriptionId"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
BOUND_S = 5.0  # a change reaches a listener within this (it takes milliseconds; the machine is shared)


class Events:
    """An open SSE response, read event by event with a deadline (comments skipped)."""

    def __init__(self, conn, resp):
        self.conn, self.resp = conn, resp

    def next(self, timeout=BOUND_S):
        """The next message event's JSON; None when the stream ended; TimeoutError after timeout."""
        self.conn.sock.settimeout(timeout)
        deadline = time.monotonic() + timeout
        data = []
        while time.monotonic() < deadline:
            try:
                line = self.resp.readline()
            except TimeoutError:
                break
            if not line:
                return None
            line = line.decode().rstrip("\r\n")
            if line == "" and data:
                return json.loads("\n".join(data))
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
        raise TimeoutError("no event within %.1f s" % timeout)

    def close(self):
        self.conn.close()


def listen(gw, token, uris, id=41, filter_extra=None):
    """POST subscriptions/listen: (status, Events) for a stream, (status, JSON body) otherwise."""
    f = {"resourceSubscriptions": uris, **(filter_extra or {})}
    body = {"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"_meta": meta(), "notifications": f}}
    c = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=30)
    c.request("POST", "/mcp", body=json.dumps(body), headers={
        "Content-Type": "application/json", "Accept": ACCEPT, "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
    r = c.getresponse()
    if r.getheader("Content-Type", "").startswith("text/event-stream"):
        return r.status, Events(c, r)
    data = r.read().decode()
    c.close()
    return r.status, json.loads(data)


class ListenTest(GatewayTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.a = cls.start_class_gateway()
        cls.b = cls.start_class_gateway()
        cls.mine = f"{WORKSPACE}/watched.md"
        cls.theirs = f"{EVIL_WORKSPACE}/hidden.md"
        cls.note = cls.db.add_note(cls.mine, "Watched", "v1")
        cls.hidden = cls.db.add_note(cls.theirs, "Hidden", "h1")

    def open(self, uris, token=None, id=41, gw=None):
        status, ev = listen(gw or self.b, token or self.token, uris, id=id)
        self.assertEqual(status, 200, ev)
        self.assertIsInstance(ev, Events, ev)
        self.addCleanup(ev.close)
        return ev

    def test_ack_names_only_what_may_be_read(self):
        ev = self.open([self.mine, self.theirs, "not a uri"], id=42)
        ack = ev.next()
        self.assertEqual(ack["method"], "notifications/subscriptions/acknowledged", ack)
        self.assertEqual(ack["params"]["_meta"][SUB_ID], 42, ack)
        self.assertEqual(ack["params"]["notifications"], {"resourceSubscriptions": [self.mine]}, ack)

    def test_update_through_another_gateway_and_by_the_operator(self):
        ev = self.open([self.mine, self.theirs])
        ev.next()  # the acknowledgment
        # a note outside the grants changes first: had it leaked, it would be the next event
        self.db.sql(f"UPDATE mcp_notes.notes SET body = 'h2' WHERE note_id = {lit(self.hidden)}")
        started = time.monotonic()
        r = self.a.rpc("tools/call", {"name": "notes_update", "arguments": {
            "workspaceUri": WORKSPACE, "noteId": self.note, "body": "v2"}}, token=self.token)
        self.assertEqual(r.status, 200, r)
        self.assertFalse(r.result.get("isError", False), r)
        got = ev.next()
        self.assertLess(time.monotonic() - started, BOUND_S)
        self.assertEqual(got["method"], "notifications/resources/updated", got)
        self.assertEqual(got["params"], {"uri": self.mine, "_meta": {SUB_ID: 41}}, got)
        # the operator moves it away: the watched URI changed (it is gone)
        self.db.sql(f"SELECT mcp_notes.move_note({lit(self.note)}, {lit(WORKSPACE + '/moved.md')})")
        got = ev.next()
        self.assertEqual(got["params"]["uri"], self.mine, got)
        self.db.sql(f"SELECT mcp_notes.move_note({lit(self.note)}, {lit(self.mine)})")
        self.assertEqual(ev.next()["params"]["uri"], self.mine)

    def test_revoked_grant_ends_the_stream(self):
        self.db.sql(f"SELECT mcp_notes.grant_workspace('rosa', {lit(WORKSPACE)})")
        rosa = self.db.issue_token("rosa")
        ev = self.open([self.mine], token=rosa, id=43)
        ev.next()
        self.db.sql(f"SELECT mcp_notes.revoke_workspace('rosa', {lit(WORKSPACE)})")
        final = ev.next()
        self.assertEqual(final, {"jsonrpc": "2.0", "id": 43, "result": {"resultType": "complete",
                                                                        "_meta": {SUB_ID: 43}}})
        self.assertIsNone(ev.next())

    def test_revoked_token_ends_the_stream(self):
        tok = self.db.issue_token()
        ev = self.open([self.mine], token=tok, id=44)
        ev.next()
        self.db.sql(f"SELECT mcp_notes.revoke_token({lit(tok)})")
        self.assertEqual(ev.next()["id"], 44)
        self.assertIsNone(ev.next())

    def test_a_principal_at_its_cap_is_refused(self):
        self.db.sql(f"SELECT mcp_notes.grant_workspace('capped', {lit(WORKSPACE)})")
        tok = self.db.issue_token("capped")
        streams = [self.open([self.mine], token=tok, id=100 + i, gw=(self.a, self.b)[i % 2]) for i in range(8)]
        for ev in streams:
            ev.next()
        status, body = listen(self.b, tok, [self.mine], id=99)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["error"]["code"], -32603, body)
        self.assertEqual(body["error"]["data"]["reason"], "listen_limit", body)
        self.assertIn("Too many open streams", body["error"]["message"])
        # closing one (the client leaves) frees its place, within the keep-alive tick
        streams[0].close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status, ev = listen(self.b, tok, [self.mine], id=98)
            if isinstance(ev, Events):
                self.addCleanup(ev.close)
                break
            time.sleep(0.3)
        self.assertIsInstance(ev, Events, ev)

    def test_the_gateway_cap(self):
        gw = self.start_gateway("--max-listen-streams", "1")
        self.open([self.mine], gw=gw).next()
        status, body = listen(gw, self.token, [self.mine], id=97)
        self.assertEqual((status, body["error"]["code"]), (200, -32603), body)

    def test_bad_filter(self):
        body = {"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {"_meta": meta()}}
        r = self.b.post_raw(json.dumps(body), headers={"Authorization": f"Bearer {self.token}",
                                                        "MCP-Protocol-Version": "2026-07-28",
                                                        "Mcp-Method": "subscriptions/listen"})
        self.assertEqual(r.json["error"]["code"], -32602, r)

    def test_discover_advertises_subscribe_and_logging(self):
        caps = self.b.rpc("server/discover", token=self.token).result["capabilities"]
        self.assertEqual(caps["resources"].get("subscribe"), True, caps)
        self.assertEqual(caps.get("logging"), {}, caps)

    def test_legacy_methods_stay_unknown_to_a_modern_request(self):
        for method in ("logging/setLevel", "resources/subscribe", "resources/unsubscribe", "ping"):
            r = self.b.rpc(method, {"level": "debug", "uri": self.mine}, token=self.token)
            self.assertRpcError(r, -32601, 404)


class LoggingTest(GatewayTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()

    def delete(self, level=None):
        m = meta({"elicitation": {}})
        if level is not None:
            m[LOG_LEVEL] = level
        return self.gw.rpc("tools/call", {"_meta": m, "name": "notes_delete",
                                          "arguments": {"workspaceUri": WORKSPACE, "title": "nothing like it"}},
                           token=self.token)

    def events(self, r):
        if not r.headers.get("content-type", "").startswith("text/event-stream"):
            return [json.loads(r.raw)]
        return [json.loads(line[5:]) for line in r.raw.splitlines() if line.startswith("data:")]

    def test_an_unknown_level_is_invalid_params(self):
        self.assertRpcError(self.delete("loud"), -32602, 400)
        self.assertRpcError(self.delete(3), -32602, 400)

    def test_no_level_no_message(self):
        evs = self.events(self.delete())
        self.assertEqual([e for e in evs if e.get("method") == "notifications/message"], [])
        self.assertIn("result", evs[-1])

    def test_debug_gets_the_decision_before_the_result(self):
        evs = self.events(self.delete("debug"))
        self.assertEqual(len(evs), 2, evs)
        self.assertEqual(evs[0]["method"], "notifications/message")
        self.assertEqual(evs[0]["params"]["level"], "debug")
        self.assertEqual(evs[0]["params"]["logger"], "notes_delete")
        self.assertNotIn("nothing like it", json.dumps(evs[0]))
        self.assertIn("result", evs[1])

    def test_a_higher_level_filters_it(self):
        evs = self.events(self.delete("warning"))
        self.assertEqual(len(evs), 1, evs)


class LegacyClient:
    def __init__(self, gw, token):
        self.gw, self.token, self.session = gw, token, None

    def headers(self):
        h = {"Content-Type": "application/json", "Accept": ACCEPT, "Authorization": f"Bearer {self.token}"}
        if self.session:
            h.update({"Mcp-Session-Id": self.session, "MCP-Protocol-Version": LEGACY})
        return h

    def post(self, method, params=None, id=1, gw=None):
        c = http.client.HTTPConnection("127.0.0.1", (gw or self.gw).port, timeout=30)
        try:
            body = {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}
            c.request("POST", "/mcp", body=json.dumps(body), headers=self.headers())
            r = c.getresponse()
            if method == "initialize":
                self.session = r.getheader("Mcp-Session-Id")
            return r.status, r.read().decode()
        finally:
            c.close()

    def initialize(self):
        return self.post("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                        "clientInfo": {"name": "e2e", "version": "1"}}, id=0)

    def get_stream(self, gw):
        c = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=30)
        h = self.headers()
        del h["Content-Type"]
        h["Accept"] = "text/event-stream"
        c.request("GET", "/mcp", headers=h)
        r = c.getresponse()
        return r, Events(c, r)


class LegacySubscriptionTest(GatewayTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.a = cls.start_class_gateway()
        cls.b = cls.start_class_gateway()
        cls.mine = f"{WORKSPACE}/legacy-watched.md"
        cls.note = cls.db.add_note(cls.mine, "Legacy watched", "v1")

    def test_set_level_is_exactly_empty(self):
        c = LegacyClient(self.a, self.token)
        c.initialize()
        status, body = c.post("logging/setLevel", {"level": "info"})
        self.assertEqual((status, json.loads(body)), (200, {"jsonrpc": "2.0", "id": 1, "result": {}}))
        status, body = c.post("logging/setLevel", {"level": "loud"})
        self.assertEqual(json.loads(body)["error"]["code"], -32602)
        status, body = c.post("subscriptions/listen", {"notifications": {}})
        self.assertEqual(json.loads(body)["error"]["code"], -32601)

    def test_subscribe_delivers_on_the_get_stream_of_another_gateway(self):
        c = LegacyClient(self.a, self.token)
        c.initialize()
        for uri in (self.mine, "test://watched-resource", f"{EVIL_WORKSPACE}/x.md"):
            status, body = c.post("resources/subscribe", {"uri": uri})
            self.assertEqual((status, json.loads(body)["result"]), (200, {}), body)
        resp, ev = c.get_stream(self.b)
        self.addCleanup(ev.close)
        self.assertEqual(resp.status, 200)
        self.assertTrue(resp.getheader("Content-Type").startswith("text/event-stream"))
        time.sleep(0.3)  # the stream is leased before the first change
        r = self.a.rpc("tools/call", {"name": "notes_update", "arguments": {
            "workspaceUri": WORKSPACE, "noteId": self.note, "body": "v2"}}, token=self.token)
        self.assertFalse(r.result.get("isError", False), r)
        got = ev.next()
        self.assertEqual(got, {"jsonrpc": "2.0", "method": "notifications/resources/updated",
                               "params": {"uri": self.mine}})
        # unsubscribed: no more (the next event is the one of a note subscribed afterwards)
        c.post("resources/unsubscribe", {"uri": self.mine})
        other = f"{WORKSPACE}/legacy-other.md"
        c.post("resources/subscribe", {"uri": other})
        time.sleep(0.5)
        self.db.sql(f"UPDATE mcp_notes.notes SET body = 'v3' WHERE note_id = {lit(self.note)}")
        self.db.add_note(other, "Other", "o")
        self.assertEqual(ev.next()["params"]["uri"], other)

    def test_get_needs_a_session(self):
        r = self.a.request("GET", "/mcp", headers={"Authorization": f"Bearer {self.token}"})
        self.assertEqual(r.status, 400, r)
