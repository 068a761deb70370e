"""The notes tools (notes_create, notes_read, notes_update, notes_list,
notes_search, notes_move) through real gateways over real HTTP, as curl
sends them: results, refusals as tool errors, containment, cursors, the
audit, two gateways updating one note from the same version, the lengths
the inputSchemas declare, and titles printable wherever they label a
note."""
import json
import re
import threading
import uuid

from .harness import EVIL_WORKSPACE, WORKSPACE, GatewayTestCase, lit

TOOLS = ("notes_create", "notes_read", "notes_update", "notes_list", "notes_search", "notes_move")
# Characters that would not show as themselves in a dialog or a terminal.
INVISIBLE = re.compile("[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


class NotesToolsTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()
        cls.db.sql("SELECT mcp_notes.grant_workspace('bob', " + lit(WORKSPACE) + ")")
        cls.bob = cls.db.issue_token("bob")

    def call(self, name, arguments, token=None, gw=None, id=7):
        params = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return (gw or self.gw).rpc("tools/call", params, id=id, token=token or self.token)

    def ok(self, name, arguments, **kw):
        """A successful call: its structuredContent (checked against the text content)."""
        r = self.call(name, arguments, **kw)
        result = self.assertResult(r)
        self.assertFalse(result.get("isError", False), r)
        self.assertEqual(json.loads(result["content"][0]["text"]), result["structuredContent"], r)
        return result["structuredContent"]

    def refused(self, name, arguments, **kw):
        """A tool error: its text."""
        r = self.call(name, arguments, **kw)
        result = self.assertResult(r)
        self.assertIs(result.get("isError"), True, r)
        self.assertNotIn("structuredContent", result, r)
        self.assertEqual(result["content"][0]["type"], "text")
        return result["content"][0]["text"]

    def folder(self):
        return f"{WORKSPACE}/e2e-{uuid.uuid4().hex[:10]}"

    def create(self, uri, title, body=None, **kw):
        args = {"workspaceUri": WORKSPACE, "uri": uri, "title": title}
        if body is not None:
            args["body"] = body
        return self.ok("notes_create", args, **kw)

    # ---- descriptors ----

    def test_tools_list_describes_every_tool(self):
        r = self.gw.rpc("tools/list", {}, token=self.token)
        tools = {t["name"]: t for t in self.assertResult(r)["tools"]}
        for name in TOOLS:
            t = tools[name]
            for key in ("title", "description", "inputSchema", "outputSchema", "annotations"):
                self.assertIn(key, t, name)
            self.assertEqual(t["inputSchema"]["type"], "object")
            self.assertEqual(t["inputSchema"]["$schema"], "https://json-schema.org/draft/2020-12/schema")
            self.assertIn("workspaceUri", t["inputSchema"]["required"])
        self.assertTrue(tools["notes_read"]["annotations"]["readOnlyHint"])
        self.assertTrue(tools["notes_list"]["annotations"]["readOnlyHint"])
        self.assertTrue(tools["notes_search"]["annotations"]["readOnlyHint"])
        self.assertFalse(tools["notes_create"]["annotations"]["destructiveHint"])
        self.assertTrue(tools["notes_update"]["annotations"]["destructiveHint"])
        self.assertTrue(tools["notes_move"]["annotations"]["destructiveHint"])
        self.assertFalse(tools["notes_move"]["annotations"]["readOnlyHint"])

    # ---- the whole life of a note ----

    def test_create_read_update_list_search(self):
        folder = self.folder()
        title = f"Quarterly plan {uuid.uuid4().hex[:8]}"
        made = self.create(f"{folder}/plan.md", title, "draft")
        self.assertEqual(made["uri"], f"{folder}/plan.md")
        note_id = made["noteId"]
        read = self.ok("notes_read", {"workspaceUri": WORKSPACE, "noteId": note_id})
        self.assertEqual((read["title"], read["body"], read["uri"]), (title, "draft", f"{folder}/plan.md"))
        updated = self.ok("notes_update", {"workspaceUri": WORKSPACE, "noteId": note_id, "body": "final",
                                           "expectedUpdatedAt": read["updatedAt"]})
        self.assertGreater(updated["updatedAt"], read["updatedAt"])
        self.assertEqual(self.ok("notes_read", {"workspaceUri": folder, "noteId": note_id})["body"], "final")
        listed = self.ok("notes_list", {"workspaceUri": folder})
        self.assertEqual([(n["noteId"], n["title"], n["updatedAt"]) for n in listed["notes"]],
                         [(note_id, title, updated["updatedAt"])])
        self.assertNotIn("nextCursor", listed)
        found = self.ok("notes_search", {"workspaceUri": WORKSPACE, "query": title.upper()})
        self.assertEqual([n["noteId"] for n in found["notes"]], [note_id])

        audit = json.loads(self.db.sql(
            "SELECT json_agg(a ORDER BY audit_id) FROM mcp_notes.change_audit a WHERE note_id = " + lit(note_id)))
        self.assertEqual([(a["action"], a["fields"]) for a in audit], [("create", ["title", "body"]), ("update", ["body"])])
        for a in audit:
            self.assertEqual(a["principal"], "alice")
            self.assertEqual(a["gateway_id"], self.gw.gateway_id)
            self.assertEqual(a["request_id"], "7")
            self.assertEqual(a["client_info"], {"name": "mcp-notes-e2e", "version": "1.0"})

    def test_stale_expected_updated_at_is_refused_with_the_current_version(self):
        note_id = self.create(f"{self.folder()}/v.md", "Versioned")["noteId"]
        v0 = self.ok("notes_read", {"workspaceUri": WORKSPACE, "noteId": note_id})["updatedAt"]
        v1 = self.ok("notes_update", {"workspaceUri": WORKSPACE, "noteId": note_id, "title": "Versioned 1",
                                      "expectedUpdatedAt": v0})["updatedAt"]
        text = self.refused("notes_update", {"workspaceUri": WORKSPACE, "noteId": note_id, "title": "Versioned 2",
                                             "expectedUpdatedAt": v0})
        self.assertIn("changed", text)
        self.assertIn(v1, text)
        self.assertEqual(self.ok("notes_read", {"workspaceUri": WORKSPACE, "noteId": note_id})["title"], "Versioned 1")

    def test_two_gateways_update_from_one_version_one_wins(self):
        """The loser waits on the row, fails to serialize, is retried by its
        gateway and then refused: no lost update, whatever the interleaving."""
        other = self.start_gateway()
        for round_ in range(3):
            note_id = self.create(f"{self.folder()}/race.md", "Race")["noteId"]
            v0 = self.ok("notes_read", {"workspaceUri": WORKSPACE, "noteId": note_id})["updatedAt"]
            barrier = threading.Barrier(2)
            results = {}

            def update(label, gw):
                barrier.wait(10)
                results[label] = self.call("notes_update", {"workspaceUri": WORKSPACE, "noteId": note_id,
                                                            "body": label, "expectedUpdatedAt": v0}, gw=gw)

            threads = [threading.Thread(target=update, args=(label, gw))
                       for label, gw in (("one", self.gw), ("two", other))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            winners = [label for label, r in results.items() if not self.assertResult(r).get("isError")]
            self.assertEqual(len(winners), 1, (round_, results))
            body = self.ok("notes_read", {"workspaceUri": WORKSPACE, "noteId": note_id})["body"]
            self.assertEqual(body, winners[0])
            updates = self.db.sql("SELECT count(*) FROM mcp_notes.change_audit WHERE action = 'update' "
                                  "AND note_id = " + lit(note_id))
            self.assertEqual(updates, "1")

    # ---- scope ----

    def test_outside_the_workspace_is_refused_and_reveals_nothing(self):
        secret = self.db.add_note(f"{EVIL_WORKSPACE}/secret-{uuid.uuid4().hex[:6]}.md", "Secret", "classified")
        for uri in (f"{EVIL_WORKSPACE}/x.md", f"{WORKSPACE}/../notes-evil/x.md",
                    f"{WORKSPACE}/%2e%2e/notes-evil/x.md", "file:///work/notesx.md"):
            text = self.refused("notes_create", {"workspaceUri": WORKSPACE, "uri": uri, "title": "x"})
            self.assertIn("not inside the workspace", text)
        self.assertIn("not a usable file: URI",
                      self.refused("notes_create", {"workspaceUri": WORKSPACE, "uri": "file:///work/notes/a b", "title": "x"}))
        self.assertEqual(self.db.sql(f"SELECT count(*) FROM mcp_notes.notes WHERE uri LIKE {lit(EVIL_WORKSPACE + '/x%')}"), "0")
        # a note outside and a note that does not exist: one answer
        outside = self.refused("notes_read", {"workspaceUri": WORKSPACE, "noteId": secret})
        missing = self.refused("notes_read", {"workspaceUri": WORKSPACE, "noteId": "no-such-note"})
        self.assertEqual(outside.replace(secret, "ID"), missing.replace("no-such-note", "ID"))
        self.assertNotIn("Secret", outside)
        self.assertNotIn("classified", outside)
        self.refused("notes_update", {"workspaceUri": WORKSPACE, "noteId": secret, "body": "mine"})
        self.assertEqual(self.db.sql(f"SELECT body FROM mcp_notes.notes WHERE note_id = {lit(secret)}"), "classified")
        # a workspace not granted and one that does not exist: one answer
        not_granted = self.refused("notes_list", {"workspaceUri": EVIL_WORKSPACE})
        nowhere = self.refused("notes_list", {"workspaceUri": "file:///work/nowhere"})
        self.assertEqual(not_granted.replace(EVIL_WORKSPACE, "W"), nowhere.replace("file:///work/nowhere", "W"))
        # listing and searching the granted workspace never shows the look-alike
        listed = self.ok("notes_search", {"workspaceUri": WORKSPACE, "query": "Secret"})
        self.assertNotIn(secret, [n["noteId"] for n in listed["notes"]])

    # ---- arguments ----

    def test_argument_errors_are_tool_errors_and_malformed_params_are_rpc_errors(self):
        self.assertIn("missing argument(s): noteId", self.refused("notes_read", {"workspaceUri": WORKSPACE}))
        self.assertIn("noteId must be a string", self.refused("notes_read", {"workspaceUri": WORKSPACE, "noteId": 3}))
        self.assertIn("unknown argument(s): path",
                      self.refused("notes_list", {"workspaceUri": WORKSPACE, "path": "/"}))
        self.assertIn("missing argument(s)", self.refused("notes_search", None))
        r = self.call("notes_read", ["not", "an", "object"])
        self.assertRpcError(r, -32602, 200, id=7)
        self.assertEqual(r.error["data"]["reason"], "invalid_arguments")

    # ---- paging ----

    def test_paging_is_stable_under_inserts_and_cursors_are_bound(self):
        folder = self.folder()
        self.db.sql("INSERT INTO mcp_notes.notes (uri, title) SELECT format('%s/n%s.md', "
                    f"{lit(folder)}, lpad(i::text, 3, '0')), 'Paged ' || i FROM generate_series(1, 110) i")
        page1 = self.ok("notes_list", {"workspaceUri": folder})
        self.assertEqual(len(page1["notes"]), 50)
        cursor = page1["nextCursor"]
        self.assertLess(len(cursor), 2000)
        # inserted before and after the cursor while paging
        self.create(f"{folder}/n000.md", "Inserted before")
        self.create(f"{folder}/n075a.md", "Inserted after")
        seen = [n["uri"] for n in page1["notes"]]
        while cursor:
            page = self.ok("notes_list", {"workspaceUri": folder, "cursor": cursor})
            seen += [n["uri"] for n in page["notes"]]
            cursor = page.get("nextCursor")
            self.assertLess(len(seen), 200)
        self.assertEqual(len(seen), len(set(seen)))
        originals = {f"{folder}/n{i:03d}.md" for i in range(1, 111)}
        self.assertEqual(originals - set(seen), set())
        self.assertIn(f"{folder}/n075a.md", seen)
        self.assertEqual(seen, sorted(seen, key=lambda u: u.encode()))

        # bound to the principal, the query and the tool
        for token, args, tool in ((self.bob, {"workspaceUri": folder}, "notes_list"),
                                  (self.token, {"workspaceUri": WORKSPACE}, "notes_list"),
                                  (self.token, {"workspaceUri": folder, "query": "Paged"}, "notes_search")):
            text = self.refused(tool, dict(args, cursor=page1["nextCursor"]), token=token)
            self.assertIn("cursor is not valid", text)
        tampered = page1["nextCursor"][:-2] + ("AA" if not page1["nextCursor"].endswith("AA") else "BB")
        self.assertIn("cursor is not valid", self.refused("notes_list", {"workspaceUri": folder, "cursor": tampered}))

    def test_search_pages_best_first(self):
        folder = self.folder()
        word = uuid.uuid4().hex[:8]
        self.db.sql("INSERT INTO mcp_notes.notes (uri, title) SELECT format('%s/c%s.md', "
                    f"{lit(folder)}, lpad(i::text, 3, '0')), 'about {word} ' || i FROM generate_series(1, 60) i")
        exact = self.create(f"{folder}/z.md", word)["noteId"]
        prefix = self.create(f"{folder}/y.md", f"{word} first")["noteId"]
        page1 = self.ok("notes_search", {"workspaceUri": folder, "query": word})
        self.assertEqual([n["noteId"] for n in page1["notes"][:2]], [exact, prefix])
        page2 = self.ok("notes_search", {"workspaceUri": folder, "query": word, "cursor": page1["nextCursor"]})
        self.assertNotIn("nextCursor", page2)
        ids = [n["noteId"] for n in page1["notes"] + page2["notes"]]
        self.assertEqual(len(ids), 62)
        self.assertEqual(len(set(ids)), 62)


    # ---- lengths ----

    def test_every_declared_max_length_is_enforced(self):
        """For each argument of each tool with a maxLength in tools/list, one
        character more is refused by name; a 400 KB value is refused the same
        way and the answer quotes none of it."""
        tools = self.assertResult(self.gw.rpc("tools/list", {}, token=self.token))["tools"]
        checked = 0
        for t in tools:
            props = t["inputSchema"]["properties"]
            # the required arguments and the first of anyOf's alternatives, valid
            names = t["inputSchema"].get("required", []) + (t["inputSchema"].get("anyOf") or [{}])[0].get("required", [])
            base = {r: (WORKSPACE if r == "workspaceUri" else f"{WORKSPACE}/len.md" if r == "uri" else "x")
                    for r in names}
            for name, prop in props.items():
                # (a body of 1 MiB + 1 does not fit the gateway's --max-body:
                # the regress file notes_tools checks that one)
                if "maxLength" not in prop or prop["maxLength"] > 500_000:
                    continue
                for length in (prop["maxLength"] + 1, 400_000):
                    text = self.refused(t["name"], dict(base, **{name: "y" * length}))
                    self.assertIn(f"{name} must be at most {prop['maxLength']} characters", text, (t["name"], name))
                    self.assertLess(len(text), 300, (t["name"], name))
                checked += 1
        self.assertGreaterEqual(checked, 15)

    # ---- titles ----

    def test_titles_are_printable_in_lists_and_exact_in_read(self):
        folder = self.folder()
        title = "invoice \u202egpj.exe\u202c line\nbreak esc\x1b[2J"
        note_id = self.create(f"{folder}/bidi.md", title)["noteId"]
        for tool, extra in (("notes_list", {}), ("notes_search", {"query": "invoice"})):
            r = self.call(tool, dict({"workspaceUri": folder}, **extra))
            result = self.assertResult(r)
            [shown] = result["structuredContent"]["notes"]
            self.assertIsNone(INVISIBLE.search(shown["title"]), (tool, shown))
            self.assertEqual(shown["title"], "invoice \\u202Egpj.exe\\u202C line\\u000Abreak esc\\u001B[2J")
            self.assertIsNone(INVISIBLE.search(result["content"][0]["text"]), tool)
            self.assertEqual(json.loads(result["content"][0]["text"]), result["structuredContent"])
        # a model can only copy the label: it names the note
        found = self.ok("notes_search", {"workspaceUri": folder, "query": shown["title"]})
        self.assertEqual([n["noteId"] for n in found["notes"]], [note_id])
        self.assertEqual(self.ok("notes_read", {"workspaceUri": folder, "noteId": note_id})["title"], title)
        audited = self.db.sql("SELECT string_agg(title, '|') FROM mcp_notes.change_audit WHERE note_id = " + lit(note_id))
        self.assertEqual(audited, shown["title"])

    # ---- notes_move ----

    def test_move_inside_the_workspace_only_and_audited(self):
        folder = self.folder()
        note_id = self.create(f"{folder}/draft.md", "Movable")["noteId"]
        self.create(f"{folder}/taken.md", "Taken")
        v0 = self.ok("notes_read", {"workspaceUri": WORKSPACE, "noteId": note_id})["updatedAt"]
        moved = self.ok("notes_move", {"workspaceUri": WORKSPACE, "noteId": note_id, "uri": f"{folder}/done/final.md",
                                       "expectedUpdatedAt": v0})
        self.assertEqual(moved["uri"], f"{folder}/done/final.md")
        self.assertGreater(moved["updatedAt"], v0)
        self.assertEqual(self.ok("notes_read", {"workspaceUri": folder, "noteId": note_id})["uri"], moved["uri"])
        for target in (f"{folder}/taken.md", EVIL_WORKSPACE + "/x.md", f"{WORKSPACE}/../notes-evil/x.md", WORKSPACE):
            text = self.refused("notes_move", {"workspaceUri": WORKSPACE, "noteId": note_id, "uri": target})
            self.assertIn("nothing was moved" if target.endswith("taken.md") else "is not inside the workspace", text)
        text = self.refused("notes_move", {"workspaceUri": WORKSPACE, "noteId": note_id, "uri": f"{folder}/x.md",
                                           "expectedUpdatedAt": v0})
        self.assertIn("changed since", text)
        self.assertIn("not granted", self.refused("notes_move", {"workspaceUri": EVIL_WORKSPACE, "noteId": note_id,
                                                                 "uri": EVIL_WORKSPACE + "/x.md"}))
        self.assertEqual(self.ok("notes_read", {"workspaceUri": folder, "noteId": note_id})["uri"], moved["uri"])
        audit = json.loads(self.db.sql(
            "SELECT json_agg(a ORDER BY audit_id) FROM mcp_notes.change_audit a WHERE note_id = " + lit(note_id)))
        self.assertEqual([(a["action"], a["fields"], a["note_uri"]) for a in audit],
                         [("create", ["title", "body"], f"{folder}/draft.md"), ("move", ["uri"], moved["uri"])])
        self.assertEqual(audit[1]["gateway_id"], self.gw.gateway_id)


class NotesToolsDevPrincipalTest(GatewayTestCase):
    """The dev principal (handle_as) reaches the same tools."""

    DEV = True

    def test_dev_principal_creates_and_reads(self):
        gw = self.start_gateway("--insecure-dev-principal", "alice")
        r = gw.rpc("tools/call", {"name": "notes_create", "arguments": {
            "workspaceUri": WORKSPACE, "uri": f"{WORKSPACE}/dev-{uuid.uuid4().hex[:6]}.md", "title": "Dev"}})
        note_id = self.assertResult(r)["structuredContent"]["noteId"]
        r = gw.rpc("tools/call", {"name": "notes_read", "arguments": {"workspaceUri": WORKSPACE, "noteId": note_id}})
        self.assertEqual(self.assertResult(r)["structuredContent"]["title"], "Dev")


if __name__ == "__main__":
    import unittest
    unittest.main()
