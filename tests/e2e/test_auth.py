"""Bearer tokens: missing, wrong, malformed, revoked, expired; and logs that
never contain a token, a requestState or a note body."""
import json
import time

from .harness import (WORKSPACE, GatewayTestCase, PROTOCOL_VERSION, TableLock, accept, form_of, lit, meta,
                      psql, unique_title, wait_until)

METHODS = ("server/discover", "tools/list", "tools/call")


class AuthTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # a minute of token cache: only the database's notification can make
        # a revocation reach tools/list and server/discover within the test
        cls.gw = cls.start_class_gateway("--auth-cache-ms", "60000")

    def call(self, method, token, id=1, headers=None):
        params = None
        if method == "tools/call":
            params = {"name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": "x"}}
        return self.gw.rpc(method, params, id=id, token=token, caps={"elicitation": {}}, headers=headers)

    def assertUnauthorized(self, r, id):
        # What the spec (authorization: OAuth 2.1 section 5.3 / RFC 6750) and the official SDK's
        # bearer-auth answer (bearerAuthChallengeResponse) send: HTTP 401, a Bearer challenge and
        # the OAuth error object, no JSON-RPC code (it was -32001, in the range 2026-07-28 calls
        # legacy).  `id` is no longer echoed: the body is not a JSON-RPC message.
        self.assertEqual(r.status, 401, r)
        self.assertTrue(r.headers.get("www-authenticate", "").startswith("Bearer realm=\"mcp-notes\""), r.headers)
        self.assertEqual(r.headers.get("content-type", "").split(";")[0], "application/json", r)
        self.assertIsNotNone(r.json, r)
        self.assertEqual(set(r.json), {"error", "error_description"}, r)
        self.assertEqual(r.json["error"], "invalid_token", r)
        self.assertIsInstance(r.json["error_description"], str, r)

    def test_missing_token_is_401(self):
        for n, method in enumerate(METHODS):
            with self.subTest(method=method):
                r = self.call(method, None, id=n)
                self.assertUnauthorized(r, n)
                # RFC 6750 section 3.1: no error code in the challenge when no credentials were sent
                self.assertEqual(r.headers.get("www-authenticate"), 'Bearer realm="mcp-notes"')

    def test_wrong_token_is_401(self):
        for n, method in enumerate(METHODS):
            with self.subTest(method=method):
                r = self.call(method, "mcpn_" + "A" * 43, id=n)
                self.assertUnauthorized(r, n)
                self.assertEqual(r.headers.get("www-authenticate"), 'Bearer realm="mcp-notes", error="invalid_token"')

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
        # tools/call checks the token in its own transaction: refused at once
        self.assertUnauthorized(self.call("tools/call", token, id=9), 9)
        # the public answers forget the cached acceptance when the NOTIFY
        # arrives (milliseconds), long before the 60 s cache lifetime
        for n, method in enumerate(METHODS[:2]):
            with self.subTest(method=method):
                self.assertTrue(wait_until(lambda: self.call(method, token).status == 401, 5, interval=0.05),
                                f"{method} still accepts a revoked token")
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


class TokenCacheTest(GatewayTestCase):
    """--auth-cache-ms: tools/list and server/discover reuse a recent
    acceptance; tools/call never does; any change to the tokens table and any
    loss of the LISTEN connection forget every acceptance.

    Whether a request asked the database is observed directly: while another
    session holds an ACCESS EXCLUSIVE lock on mcp_notes.tokens, a request that
    checks its token in the database waits for the lock, and a cached one
    does not."""

    LOCK_SECONDS = 2.5
    WAITED = 1.2        # a request that took longer than this waited for the lock

    def elapsed_under_lock(self, gw, method, token):
        lock = TableLock(self.db, "mcp_notes.tokens", self.LOCK_SECONDS)
        self.addCleanup(lock.release)
        params = None
        if method == "tools/call":
            params = {"name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": "x"}}
        start = time.monotonic()
        r = gw.rpc(method, params, token=token, caps={"elicitation": {}}, timeout=30)
        elapsed = time.monotonic() - start
        lock.release()
        self.assertEqual(r.status, 200, r)
        return elapsed

    def listener_pids(self, gw):
        # the gateway's one LISTEN connection (notify.c), listening on the token channel
        return psql(f"SELECT string_agg(pid::text, ',') FROM pg_stat_activity "
                    f"WHERE application_name = {lit(gw.gateway_id)} AND query LIKE 'LISTEN %' "
                    f"AND query LIKE '%mcp_notes_tokens%'")

    def events(self, gw):
        return [l.get("event") for l in gw.log_lines() if l.get("event", "").startswith("auth_cache")]

    def test_public_answers_reuse_an_acceptance_and_tools_call_does_not(self):
        gw = self.start_gateway("--auth-cache-ms", "60000")
        self.assertTrue(wait_until(lambda: "auth_cache_on" in self.events(gw), 10), gw.log())
        self.assertEqual(gw.rpc("tools/list", token=self.token).status, 200)
        self.assertLess(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)
        self.assertLess(self.elapsed_under_lock(gw, "server/discover", self.token), self.WAITED)
        self.assertGreater(self.elapsed_under_lock(gw, "tools/call", self.token), self.WAITED)

    def test_a_change_to_any_token_forgets_every_acceptance(self):
        gw = self.start_gateway("--auth-cache-ms", "60000")
        self.assertTrue(wait_until(lambda: "auth_cache_on" in self.events(gw), 10), gw.log())
        other = self.db.issue_token()
        self.assertEqual(gw.rpc("tools/list", token=self.token).status, 200)
        self.assertEqual(self.db.sql(f"SELECT mcp_notes.revoke_token({lit(other)})"), "t")
        self.assertGreater(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)
        # the answer the database gave after the change is cached again
        self.assertLess(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)

    def test_losing_the_listener_forgets_every_acceptance(self):
        gw = self.start_gateway("--auth-cache-ms", "60000")
        self.assertTrue(wait_until(lambda: self.listener_pids(gw) != "", 10), gw.log())
        self.assertEqual(gw.rpc("tools/list", token=self.token).status, 200)
        self.assertLess(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)
        pid = self.listener_pids(gw)
        self.assertEqual(psql(f"SELECT pg_terminate_backend({pid})"), "t")
        # notifications sent while nobody listened are lost: the gateway must
        # forget, say so, and listen again
        self.assertTrue(wait_until(lambda: self.events(gw)[-2:] == ["auth_cache_off", "auth_cache_on"], 10),
                        self.events(gw))
        self.assertNotEqual(self.listener_pids(gw), pid)
        self.assertGreater(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)

    def test_no_cache_when_features_names_no_token_channel(self):
        # contract 2: the gateway trusts its token cache only when features()
        # names the channel the database notifies token changes on
        self.db.sql("ALTER FUNCTION mcp_notes.features() RENAME TO features_real")
        self.addCleanup(self.db.sql, "ALTER FUNCTION mcp_notes.features_real() RENAME TO features")
        self.db.sql("CREATE FUNCTION mcp_notes.features() RETURNS jsonb LANGUAGE sql SECURITY DEFINER "
                    "AS $$ SELECT mcp_notes.features_real() - 'tokenChannel' $$")
        self.addCleanup(self.db.sql, "DROP FUNCTION mcp_notes.features()")
        self.db.sql(f"GRANT EXECUTE ON FUNCTION mcp_notes.features() TO {self.db.role}")
        gw = self.start_gateway("--auth-cache-ms", "60000")
        self.assertTrue(wait_until(lambda: "auth_cache_off" in self.events(gw), 10), gw.log())
        self.assertIn("names no tokenChannel", gw.log())
        self.assertEqual(gw.rpc("tools/list", token=self.token).status, 200)
        self.assertGreater(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)
        self.assertEqual(self.listener_pids(gw), "")

    def test_zero_turns_the_cache_off(self):
        gw = self.start_gateway("--auth-cache-ms", "0")
        self.assertEqual(gw.rpc("tools/list", token=self.token).status, 200)
        self.assertGreater(self.elapsed_under_lock(gw, "tools/list", self.token), self.WAITED)
        self.assertEqual(self.listener_pids(gw), "")
        self.assertEqual(self.events(gw), [])


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
        # a 401 is not a JSON-RPC error: no code in its line, the OAuth error as its reason
        self.assertNotIn("code", requests[1])
        self.assertEqual(requests[1]["reason"], "invalid_token")
        self.assertTrue(all(e["gateway"] == gw.gateway_id for e in requests))
