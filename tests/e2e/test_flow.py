"""The notes_delete flow through real gateways: ask, answer, and every way an
answer can be refused."""
import json
import threading

from .harness import (EVIL_WORKSPACE, WORKSPACE, Gateway, GatewayTestCase,
                      accept, form_of, unique_title)


class DeleteFlowTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()

    def make_notes(self, n=1, workspace=WORKSPACE):
        """n notes with a shared unique title prefix; returns (prefix, [ids])."""
        prefix = unique_title()
        ids = [self.db.add_note(f"{workspace}/{prefix.replace(' ', '-')}-{i}.md", f"{prefix} #{i}",
                                f"body of {prefix} #{i}")
               for i in range(n)]
        return prefix, ids

    def step1(self, title, gw=None, id=1, workspace=WORKSPACE, caps=None):
        r = (gw or self.gw).call_delete(self.token, workspace, title, id=id, caps=caps)
        result = self.assertResult(r, id=id, result_type="input_required")
        self.assertNotIn("ttlMs", result)
        self.assertNotIn("cacheScope", result)
        return form_of(r)

    def test_id1_returns_the_form_under_delete_choice(self):
        prefix, ids = self.make_notes(2)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=1)
        result = self.assertResult(r, id=1, result_type="input_required")
        req = result["inputRequests"]["delete_choice"]
        self.assertEqual(req["method"], "elicitation/create")
        self.assertNotIn("jsonrpc", req)
        self.assertNotIn("id", req)
        self.assertEqual(req["params"]["mode"], "form")
        schema = req["params"]["requestedSchema"]
        self.assertEqual(schema["type"], "object")
        self.assertEqual(set(schema["required"]), {"note_id", "confirm"})
        self.assertEqual(schema["properties"]["confirm"]["type"], "boolean")
        self.assertEqual(sorted(form_of(r)[1]), sorted(ids))
        self.assertIsInstance(result["requestState"], str)
        for note_id in ids:
            self.assertTrue(self.db.note_exists(note_id), "step 1 must never delete")

    def test_id2_with_echoed_state_deletes(self):
        prefix, ids = self.make_notes(2)
        state, offered = self.step1(prefix)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=2, responses=accept(ids[1]), state=state)
        result = self.assertResult(r, id=2)
        self.assertFalse(result.get("isError", False), r)
        self.assertEqual(result["structuredContent"], {"deleted": True, "noteId": ids[1]})
        self.assertFalse(self.db.note_exists(ids[1]))
        self.assertTrue(self.db.note_exists(ids[0]))
        rows = [a for a in self.db.audit() if a["note_id"] == ids[1]]
        self.assertEqual([a["outcome"] for a in rows], ["accept"])
        self.assertEqual(rows[0]["gateway_id"], self.gw.gateway_id)
        self.assertEqual(rows[0]["request_id"], "2")
        # the same state again is refused
        again = self.gw.call_delete(self.token, WORKSPACE, prefix, id=3, responses=accept(ids[0]), state=state)
        self.assertRpcError(again, -32602, 200, id=3)
        self.assertEqual(again.error["data"]["reason"], "state_already_used")
        self.assertTrue(self.db.note_exists(ids[0]))

    def test_string_ids_are_echoed_and_audited(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix, id="first")
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id="second", responses=accept(ids[0]),
                                state=state)
        self.assertResult(r, id="second")
        self.assertEqual([a["request_id"] for a in self.db.audit() if a["note_id"] == ids[0]], ["second"])

    def test_step1_on_gateway_a_and_step2_on_gateway_b(self):
        other = self.start_gateway()
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix, gw=self.gw)
        r = other.call_delete(self.token, WORKSPACE, prefix, id=2, responses=accept(ids[0]), state=state)
        self.assertEqual(self.assertResult(r, id=2)["structuredContent"]["deleted"], True)
        self.assertFalse(self.db.note_exists(ids[0]))
        self.assertEqual([a["gateway_id"] for a in self.db.audit() if a["note_id"] == ids[0]],
                         [other.gateway_id])

    def test_two_gateways_racing_on_one_state_delete_once(self):
        other = self.start_gateway()
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        results = {}
        barrier = threading.Barrier(2)

        def answer(name, gw, id):
            barrier.wait(10)
            results[name] = gw.call_delete(self.token, WORKSPACE, prefix, id=id,
                                           responses=accept(ids[0]), state=state)
        threads = [threading.Thread(target=answer, args=("a", self.gw, 10)),
                   threading.Thread(target=answer, args=("b", other, 11))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        outcomes = sorted(("deleted" if r.result else r.error["data"]["reason"]) for r in results.values())
        self.assertEqual(outcomes, ["deleted", "state_already_used"], results)
        self.assertFalse(self.db.note_exists(ids[0]))
        self.assertEqual(len([a for a in self.db.audit() if a["note_id"] == ids[0]]), 1)

    def test_prefix_workspace_is_refused(self):
        secret = self.db.add_note(f"{EVIL_WORKSPACE}/secret.md", "TPS report secret", "the secret body")
        r = self.gw.call_delete(self.token, EVIL_WORKSPACE, "TPS", id=1)
        result = self.assertResult(r, id=1)
        self.assertTrue(result["isError"], r)
        self.assertNotIn("secret", json.dumps(result).replace(EVIL_WORKSPACE, ""))
        self.assertNotIn("inputRequests", result)
        self.assertTrue(self.db.note_exists(secret))

    def test_encoded_traversal_is_refused(self):
        secret = self.db.add_note(f"{EVIL_WORKSPACE}/secret2.md", "TPS report secret two", "x")
        for uri in ("file:///work/notes/..%2Fnotes-evil", "file:///work/notes/%2e%2e/notes-evil",
                    "file:///work/notes/%252e%252e/notes-evil", "file:///work/notes/../notes-evil"):
            with self.subTest(uri=uri):
                r = self.gw.call_delete(self.token, uri, "secret", id=1)
                self.assertEqual(r.status, 200, r)
                if r.result is not None:
                    self.assertEqual(r.result["resultType"], "complete", r)
                    self.assertTrue(r.result["isError"], r)
                    self.assertNotIn("inputRequests", r.result)
                else:
                    self.assertEqual(r.error["code"], -32602, r)
        self.assertTrue(self.db.note_exists(secret))

    def test_changed_title_cannot_reuse_the_state(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix + " #0", id=2, responses=accept(ids[0]),
                                state=state)
        self.assertRpcError(r, -32602, 200, id=2)
        self.assertEqual(r.error["data"]["reason"], "state_arguments_changed")
        self.assertTrue(self.db.note_exists(ids[0]))

    def test_decline_keeps_the_note_and_is_final(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=2,
                                responses={"delete_choice": {"action": "decline"}}, state=state)
        result = self.assertResult(r, id=2)
        self.assertFalse(result.get("isError", False))
        self.assertEqual(result["structuredContent"]["deleted"], False)
        self.assertTrue(self.db.note_exists(ids[0]))
        later = self.gw.call_delete(self.token, WORKSPACE, prefix, id=3, responses=accept(ids[0]), state=state)
        self.assertRpcError(later, -32602, 200, id=3)
        self.assertEqual(later.error["data"]["reason"], "state_already_used")
        self.assertTrue(self.db.note_exists(ids[0]))

    def test_cancel_keeps_the_state_usable(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=2,
                                responses={"delete_choice": {"action": "cancel"}}, state=state)
        result = self.assertResult(r, id=2)
        self.assertEqual(result["structuredContent"]["deleted"], False)
        self.assertTrue(self.db.note_exists(ids[0]))
        later = self.gw.call_delete(self.token, WORKSPACE, prefix, id=3, responses=accept(ids[0]), state=state)
        self.assertEqual(self.assertResult(later, id=3)["structuredContent"]["deleted"], True)
        self.assertFalse(self.db.note_exists(ids[0]))

    def test_accept_without_confirm_or_content_is_not_consent(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        for n, answer in enumerate([accept(ids[0], confirm=False),
                                    {"delete_choice": {"action": "accept"}},
                                    {"delete_choice": None},
                                    accept("not-a-candidate")]):
            with self.subTest(answer=answer):
                r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=10 + n, responses=answer, state=state)
                self.assertRpcError(r, -32602, 200, id=10 + n)
        self.assertTrue(self.db.note_exists(ids[0]))
        ok = self.gw.call_delete(self.token, WORKSPACE, prefix, id=20, responses=accept(ids[0]), state=state)
        self.assertEqual(self.assertResult(ok, id=20)["structuredContent"]["deleted"], True)

    def test_tampered_state_is_an_error(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        bad = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=2, responses=accept(ids[0]), state=bad)
        self.assertRpcError(r, -32602, 200, id=2)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=3, responses=accept(ids[0]), state=12)
        self.assertRpcError(r, -32602, 200, id=3)
        self.assertTrue(self.db.note_exists(ids[0]))

    def test_elicitation_empty_and_form_capabilities_work(self):
        prefix, _ = self.make_notes(1)
        for caps in ({"elicitation": {}}, {"elicitation": {"form": {}}},
                     {"elicitation": {"form": {}, "url": {}}}):
            with self.subTest(caps=caps):
                self.step1(prefix, caps=caps)

    def test_url_only_elicitation_gets_exact_32021(self):
        prefix, ids = self.make_notes(1)
        for caps in ({"elicitation": {"url": {}}}, {}):
            with self.subTest(caps=caps):
                r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=7, caps=caps)
                self.assertRpcError(r, -32021, 400, id=7,
                                    data={"requiredCapabilities": {"elicitation": {"form": {}}}})
        self.assertTrue(self.db.note_exists(ids[0]))

    def test_unsupported_version_gets_exact_32022(self):
        for method in ("tools/list", "server/discover", "tools/call"):
            with self.subTest(method=method):
                params = {"name": "notes_delete", "arguments": {}} if method == "tools/call" else None
                r = self.gw.rpc(method, params, id=9, token=self.token, version="2025-11-25")
                self.assertRpcError(r, -32022, 400, id=9,
                                    data={"supported": ["2026-07-28"], "requested": "2025-11-25"})

    def test_notification_gets_202_and_no_body(self):
        r = self.gw.rpc("notifications/initialized", id=None, token=self.token)
        self.assertEqual(r.status, 202)
        self.assertEqual(r.raw, "")

    def test_tools_call_without_id_is_not_executed(self):
        prefix, ids = self.make_notes(1)
        state, _ = self.step1(prefix)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=None, responses=accept(ids[0]), state=state)
        self.assertEqual(r.status, 202)
        self.assertEqual(r.raw, "")
        self.assertTrue(self.db.note_exists(ids[0]))
        self.assertEqual([a for a in self.db.audit() if a["note_id"] == ids[0]], [])
        # the state was not spent
        ok = self.gw.call_delete(self.token, WORKSPACE, prefix, id=5, responses=accept(ids[0]), state=state)
        self.assertEqual(self.assertResult(ok, id=5)["structuredContent"]["deleted"], True)
        self.assertTrue(any(line.get("rpc_method") == "tools/call" and line.get("notification")
                            and line.get("level") == "warn" for line in self.gw.log_lines()))

    def test_unknown_tool_and_bad_name(self):
        r = self.gw.rpc("tools/call", {"name": "notes_rm", "arguments": {}}, id=1, token=self.token)
        self.assertRpcError(r, -32602, 200, id=1)
        r = self.gw.rpc("tools/call", {"name": 7, "arguments": {}}, id=2, token=self.token)
        self.assertRpcError(r, -32602, 200, id=2)

    def test_non_ascii_title(self):
        title = unique_title("Compte rendu — été")
        note = self.db.add_note(f"{WORKSPACE}/cr-{title[-12:]}.md", title)
        state, ids = self.step1(title)
        self.assertEqual(ids, [note])


class DevPrincipalTest(GatewayTestCase):
    """--insecure-dev-principal: no tokens, call_tool_as, loopback only."""

    DEV = True

    def test_dev_principal_runs_the_flow_without_a_token(self):
        gw = self.start_gateway("--insecure-dev-principal", "alice")
        self.assertResult(gw.rpc("server/discover", id=1))
        self.assertResult(gw.rpc("tools/list", id=2))
        prefix = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/dev-{prefix[-12:]}.md", prefix)
        r = gw.call_delete(None, WORKSPACE, prefix, id=3)
        state, ids = form_of(r)
        self.assertEqual(ids, [note])
        r = gw.call_delete(None, WORKSPACE, prefix, id=4, responses=accept(note), state=state)
        self.assertEqual(self.assertResult(r, id=4)["structuredContent"]["deleted"], True)
        self.assertTrue(any("INSECURE" in json.dumps(line) or line.get("event") == "insecure_dev_principal"
                            for line in gw.log_lines()))

    def test_dev_principal_refused_on_a_non_loopback_listener(self):
        with self.assertRaises(RuntimeError) as ctx:
            Gateway(self.db.conninfo(), "--insecure-dev-principal", "alice", listen="0.0.0.0:0")
        self.assertIn("loopback", str(ctx.exception))

    def test_production_gateway_role_cannot_call_as(self):
        # a role given only grant_gateway cannot use the development entry point
        from .harness import Database
        db = Database("nodev")
        self.addCleanup(db.drop)
        gw = Gateway(db.conninfo(), "--insecure-dev-principal", "alice")
        self.addCleanup(gw.cleanup)
        r = gw.call_delete(None, WORKSPACE, "x", id=1)
        self.assertRpcError(r, -32603, 500, id=1)
