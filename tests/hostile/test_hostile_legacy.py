"""The hostile table's 2025-era rows (docs/legacy-era.md): sessions that are
forged, too long, doubled or another principal's; requests and answers
without a session; answers for a pending id that is unknown, of another
session or answered by another principal; initialize over the body cap or
with capabilities over their cap.  Raw sockets, as in test_hostile.py, whose
Expect/check it uses; a row with expect None makes its own assertions.

The pending-request rows hold a real elicitation open (a notes_delete of a
real note, asked on its SSE stream) and answer it from the wrong place with
"accept": if any such answer were taken, the note would be deleted.  After
the rows (test_999): the note exists, the audit has no accept row, no
pending row is left answered, the gateway is alive and its log is JSON.
"""
import base64
import json
import os
import unittest

import tests.hostile.test_hostile as table
from tests.e2e.harness import WORKSPACE, GatewayTestCase, unique_title, wait_until
from tests.e2e.test_legacy import LegacyClient, delete_args, next_event

LEGACY = "2025-11-25"
MiB = 1024 * 1024
NOT_FOUND = table.err(-32001, 404)      # the SDKs' "Session not found"
NO_SESSION = table.err(-32602, 400)     # session_required: data.supported lists the versions
NO_PENDING = table.err(-32600, 400)


def legacy_headers(ctx, session=None, token=..., extra=()):
    token = ctx.token if token is ... else token
    h = [b"Content-Type: application/json", b"Accept: application/json, text/event-stream"]
    if token is not None:
        h.append(b"Authorization: Bearer " + token.encode())
    if session is not None:
        h += [b"Mcp-Session-Id: " + (session if isinstance(session, bytes) else session.encode()),
              b"MCP-Protocol-Version: " + LEGACY.encode()]
    return h + list(extra)


def legacy_body(method="tools/list", params=None, id=1):
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}).encode()


def initialize_body(caps=None, pad=0):
    info = {"name": "hostile-legacy", "version": "1"}
    if pad:
        info["description"] = "p" * pad
    return legacy_body("initialize", {"protocolVersion": LEGACY, "capabilities": caps or {"elicitation": {}},
                                      "clientInfo": info}, id=0)


def post(ctx, body, headers, **kw):
    return table.exchange(ctx.gw.port, table.http_request(body, headers), **kw)


def forged_session_id():
    return base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=")


def answer_body(request_id, result=None):
    return json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "result": result if result is not None else {"action": "decline"}}).encode()


ROWS = []


def row(name, expect=None):
    def register(fn):
        ROWS.append((name, fn, expect))
        return fn
    return register


# ---- sessions (every request but initialize names a live session of its principal)

row("forged_session_id", NOT_FOUND)(lambda c: post(c, legacy_body(), legacy_headers(c, forged_session_id())))
row("session_id_of_another_principal", NOT_FOUND)(
    lambda c: post(c, legacy_body(), legacy_headers(c, c.session, token=c.bob_token)))
row("session_id_of_another_principal_on_tools_call", NOT_FOUND)(
    lambda c: post(c, legacy_body("tools/call", {"name": "notes_delete", "arguments": delete_args(c.title)}),
                   legacy_headers(c, c.session, token=c.bob_token)))
row("session_id_closed_by_delete", NOT_FOUND)(lambda c: post(c, legacy_body(), legacy_headers(c, c.closed_session)))
row("session_id_over_200_bytes", NO_SESSION)(lambda c: post(c, legacy_body(), legacy_headers(c, b"A" * 300)))
row("session_id_sent_twice", table.INVALID)(
    lambda c: post(c, legacy_body(), legacy_headers(c, c.session, extra=[b"Mcp-Session-Id: " + c.session.encode()])))
row("session_id_with_its_last_character_changed", NOT_FOUND)(
    lambda c: post(c, legacy_body(), legacy_headers(c, c.session[:-1] + ("A" if c.session[-1] != "A" else "B"))))
row("request_without_session", NO_SESSION)(lambda c: post(c, legacy_body(), legacy_headers(c)))
row("ping_without_session", NO_SESSION)(lambda c: post(c, legacy_body("ping"), legacy_headers(c)))
row("session_without_token", table.UNAUTH)(lambda c: post(c, legacy_body(), legacy_headers(c, c.session, token=None)))
row("delete_of_a_forged_session", table.err(-32001, 404, id=None))(
    lambda c: table.exchange(c.gw.port, table.http_request(b"", legacy_headers(c, forged_session_id()),
                                                           method=b"DELETE")))

# ---- answers (a posted JSON-RPC response): bound to session + principal + pending id

row("answer_without_session", table.err(-32600, 400, id=...))(
    lambda c: post(c, answer_body("x-1"), legacy_headers(c)))
row("answer_with_a_forged_session", table.err(-32001, 404, id=...))(
    lambda c: post(c, answer_body("x-1"), legacy_headers(c, forged_session_id())))
row("answer_for_an_unknown_pending_id", table.err(-32600, 400, id=...))(
    lambda c: post(c, answer_body("no-such-pending-id"), legacy_headers(c, c.session)))
row("answer_with_an_object_id", table.err(-32600, 400, id=None))(
    lambda c: post(c, b'{"jsonrpc":"2.0","id":{"a":1},"result":{}}', legacy_headers(c, c.session)))


def held_elicitation(c):
    """A notes_delete of c.title on a session of its own, held at its
    elicitation/create: (client, connection, response, ask)."""
    owner = LegacyClient(c.gw, c.token)
    status, _, _ = owner.initialize()
    assert status == 200, status
    conn, resp = owner.open_call("notes_delete", delete_args(c.title))
    assert resp.status == 200, resp.status
    ask = next_event(resp)
    assert ask and ask.get("method") == "elicitation/create", ask
    return owner, conn, resp, ask


def accept_of(c, ask):
    return {"action": "accept", "content": {"note_id": c.note, "confirm": True}}


@row("answer_for_a_pending_id_of_another_session")
def foreign_session_answer(c):
    owner, conn, resp, ask = held_elicitation(c)
    try:
        other = LegacyClient(c.gw, c.token)          # the same principal, another session
        other.initialize()
        status, _, body = other.answer(ask["id"], accept_of(c, ask))
        c.assertEqual(status, 400, body)
        c.assertEqual(body["error"]["code"], -32600, body)
        # another principal with the owner's own session id
        bob = LegacyClient(c.gw, c.bob_token)
        bob.session, bob.version = owner.session, owner.version
        status, _, body = bob.answer(ask["id"], accept_of(c, ask))
        c.assertEqual(status, 404, body)
        c.assertEqual(body["error"]["code"], -32001, body)
        # the owner's request still waits: nothing of the above reached it
        c.assertEqual(c.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending WHERE answer IS NOT NULL"), "0")
    finally:
        conn.close()                                  # the stream ends unanswered; nothing is deleted
    c.assertTrue(c.db.note_exists(c.note))


@row("answer_for_a_pending_id_replayed_after_its_stream_ended")
def replayed_answer(c):
    owner, conn, resp, ask = held_elicitation(c)
    conn.close()
    # the gateway notices the closed stream within about a second and removes the pending row
    # (an answer inside that second is still the owner's own, and would be taken)
    c.assertTrue(wait_until(lambda: c.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending") == "0", 15),
                 "the pending row of a closed stream was not removed")
    status, _, body = owner.answer(ask["id"], accept_of(c, ask))
    c.assertEqual(status, 400, body)
    c.assertEqual(body["error"]["code"], -32600, body)
    c.assertTrue(c.db.note_exists(c.note))


# ---- initialize: the body cap, the capability cap, the token

row("initialize_over_the_body_cap", table.TOO_LARGE)(
    lambda c: post(c, initialize_body(pad=2 * MiB), legacy_headers(c), probe_close=5))
row("initialize_with_capabilities_over_16_kib", table.err(-32602, 200, id=0, reason="capabilities_too_large"))(
    lambda c: post(c, initialize_body(caps={"elicitation": {}, "experimental": {"x": "y" * 20000}}), legacy_headers(c)))
row("initialize_with_kept_capabilities_over_4_kib", table.err(-32602, 200, id=0, reason="capabilities_too_large"))(
    lambda c: post(c, initialize_body(caps={"elicitation": {"x": "y" * 5000}}), legacy_headers(c)))
row("initialize_without_token", table.UNAUTH)(lambda c: post(c, initialize_body(), legacy_headers(c, token=None)))
row("initialize_with_a_revoked_token", table.UNAUTH)(
    lambda c: post(c, initialize_body(), legacy_headers(c, token=c.revoked_token)))


class HostileLegacyTest(GatewayTestCase):
    """One test per row (generated below), then the checks after the rows."""

    check = table.HostileRequestsTest.check

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway("--legacy-wait-ms", "20000")
        cls.bob_token = cls.db.issue_token("bob")
        cls.revoked_token = cls.db.issue_token()
        cls.db.sql(f"SELECT mcp_notes.revoke_token('{cls.revoked_token}')")
        cls.title = unique_title("Hostile legacy target")
        cls.note = cls.db.add_note(f"{WORKSPACE}/hostile-legacy-{cls.title[-12:]}.md", cls.title, "keep me")
        cls.session = cls.open_session()
        cls.closed_session = cls.open_session()
        r = table.exchange(cls.gw.port, table.http_request(b"", legacy_headers(cls, cls.closed_session),
                                                           method=b"DELETE"))
        assert r.status == 200, r

    @classmethod
    def open_session(cls):
        r = table.exchange(cls.gw.port, table.http_request(initialize_body(), legacy_headers(cls)))
        sid = r.header("mcp-session-id")
        if r.status != 200 or not sid:
            raise RuntimeError(f"initialize failed: {r}")
        return sid

    def test_999_nothing_was_deleted(self):
        self.assertTrue(self.db.note_exists(self.note))
        outcomes = [a["outcome"] for a in self.db.audit()]
        self.assertNotIn("accept", outcomes, outcomes)

    def test_999_gateway_alive_and_log_valid(self):
        self.assertIsNone(self.gw.proc.poll(), f"gateway exited: {self.gw.log()[-2000:]}")
        self.assertEqual(self.gw.get("/healthz").status, 200)
        with open(self.gw.log_file.name, "rb") as f:
            for n, line in enumerate(f.read().splitlines(), 1):
                json.loads(line.decode("utf-8"))
                self.assertNotIn(self.token.encode(), line, f"log line {n} leaks the token")
                self.assertNotIn(self.session.encode(), line, f"log line {n} leaks a session id")


def make_test(fn, expect):
    def test(self):
        reply = fn(self)
        if expect is not None:
            self.check(reply, expect)
    return test


for number, (name, fn, expect) in enumerate(ROWS, 1):
    setattr(HostileLegacyTest, f"test_{number:03d}_legacy_{name}", make_test(fn, expect))


if __name__ == "__main__":
    unittest.main()
