"""Resources, prompts and completion over real HTTP: scope, containment,
pagination, one answer for unknown and unauthorized URIs, bounded
arguments, and titles printable wherever they label a note."""
import re

from .harness import (Database, Gateway, GatewayTestCase, EVIL_WORKSPACE, PRINCIPAL, WORKSPACE, unique_title)


# Characters that would not show as themselves in a dialog or a terminal.
INVISIBLE = re.compile("[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


class ResourcesPromptsTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()
        cls.note_md = cls.db.add_note(f"{WORKSPACE}/rp/alpha.md", "Alpha review target", "# Alpha\nbody")
        cls.note_txt = cls.db.add_note(f"{WORKSPACE}/rp/beta.txt", "Beta plain", "beta body")
        cls.evil = cls.db.add_note(f"{EVIL_WORKSPACE}/secret.md", "Evil secret", "do not show")
        cls.bob_token = cls.db.issue_token("bob")

    def call(self, method, params=None, token=None, name=None, **kw):
        headers = {"Mcp-Name": name} if name is not None else None
        return self.gw.rpc(method, params or {}, token=token or self.token, headers=headers, **kw)

    def read(self, uri, token=None):
        return self.call("resources/read", {"uri": uri}, token=token, name=uri)

    def list_all(self, token=None, between_pages=None):
        uris, cursor, pages = [], None, 0
        while pages < 100:
            r = self.call("resources/list", {"cursor": cursor} if cursor else {}, token=token)
            result = self.assertResult(r)
            self.assertEqual(result["cacheScope"], "private")
            uris += [x["uri"] for x in result["resources"]]
            pages += 1
            cursor = result.get("nextCursor")
            if cursor is None:
                return uris, pages
            if between_pages:
                between_pages(pages)
        self.fail("resources/list did not end within 100 pages")

    # ---- resources ----

    def test_list_only_notes_the_caller_may_read(self):
        uris, _ = self.list_all()
        self.assertIn(f"{WORKSPACE}/rp/alpha.md", uris)
        self.assertIn(f"{WORKSPACE}/rp/beta.txt", uris)
        self.assertFalse([u for u in uris if u.startswith(EVIL_WORKSPACE)], uris)
        self.assertEqual(self.list_all(token=self.bob_token)[0], [])

    def test_pagination_is_stable_under_inserts(self):
        self.db.sql("SELECT mcp_notes.add_workspace('file:///work/paged')")
        self.db.sql(f"SELECT mcp_notes.grant_workspace('pager', 'file:///work/paged')")
        self.db.sql("SELECT mcp_notes.add_note(format('file:///work/paged/n%s.md', lpad(i::text, 3, '0')), 'n' || i) "
                    "FROM generate_series(1, 120) i")
        token = self.db.issue_token("pager")
        added = []

        def insert_between(page):
            # one note before the position reached, one after it
            for name in (f"a{page}.md", f"z{page}.md"):
                self.db.add_note(f"file:///work/paged/{name}", name)
                added.append(f"file:///work/paged/{name}")

        uris, pages = self.list_all(token=token, between_pages=insert_between)
        self.assertEqual(pages, 3)
        self.assertEqual(len(uris), len(set(uris)), "a note was listed twice")
        originals = {f"file:///work/paged/n{i:03d}.md" for i in range(1, 121)}
        self.assertTrue(originals <= set(uris), sorted(originals - set(uris)))
        self.assertEqual(uris, sorted(uris, key=lambda u: u.encode()))

    def test_cursor_is_bound_to_the_principal_and_sealed(self):
        self.db.sql("SELECT mcp_notes.add_workspace('file:///work/cursors')")
        self.db.sql("SELECT mcp_notes.grant_workspace('cursorer', 'file:///work/cursors')")
        self.db.sql("SELECT mcp_notes.add_note(format('file:///work/cursors/c%s.md', i), 'c' || i) "
                    "FROM generate_series(1, 60) i")
        token = self.db.issue_token("cursorer")
        cursor = self.assertResult(self.call("resources/list", token=token))["nextCursor"]
        for who, value in ((self.bob_token, cursor), (token, cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")),
                           (token, "not-a-cursor")):
            r = self.call("resources/list", {"cursor": value}, token=who)
            self.assertRpcError(r, -32602, 200)
            self.assertEqual(r.error["data"]["reason"], "invalid_cursor")

    def test_read_text_and_mime_types(self):
        result = self.assertResult(self.read(f"{WORKSPACE}/rp/alpha.md"))
        self.assertEqual(result["cacheScope"], "private")
        self.assertIsInstance(result["ttlMs"], int)
        self.assertEqual(result["contents"], [{"uri": f"{WORKSPACE}/rp/alpha.md", "mimeType": "text/markdown",
                                               "text": "# Alpha\nbody"}])
        result = self.assertResult(self.read(f"{WORKSPACE}/rp/beta.txt"))
        self.assertEqual(result["contents"][0]["mimeType"], "text/plain")
        # the same note through a spelling that normalizes to it
        result = self.assertResult(self.read(f"{WORKSPACE}/rp/./x/../alpha.md"))
        self.assertEqual(result["contents"][0]["uri"], f"{WORKSPACE}/rp/alpha.md")

    def test_unknown_and_unauthorized_are_the_same_answer(self):
        answers = {}
        for uri in (f"{EVIL_WORKSPACE}/secret.md",                  # exists, not granted
                    f"{WORKSPACE}/../notes-evil/secret.md",          # traversal out of the grant
                    f"{WORKSPACE}/%2e%2e/notes-evil/secret.md",      # encoded traversal
                    f"{WORKSPACE}/rp/missing.md",                    # granted, no such note
                    "file:///work/notes%2fevil", "http://example.com/x", "not a uri"):
            r = self.read(uri)
            self.assertRpcError(r, -32602, 200)
            self.assertEqual(r.error["data"], {"uri": uri, "reason": "resource_not_found"})
            answers[uri] = r.error["message"]
        self.assertEqual(len(set(answers.values())), 1, answers)
        # bob is granted nothing: alice's note is "not found" for him too
        r = self.read(f"{WORKSPACE}/rp/alpha.md", token=self.bob_token)
        self.assertRpcError(r, -32602, 200, data={"uri": f"{WORKSPACE}/rp/alpha.md", "reason": "resource_not_found"})

    def test_revoked_grant_hides_the_note(self):
        self.db.sql("SELECT mcp_notes.add_workspace('file:///work/revoked')")
        self.db.sql("SELECT mcp_notes.grant_workspace('revokee', 'file:///work/revoked')")
        self.db.add_note("file:///work/revoked/r.md", "r")
        token = self.db.issue_token("revokee")
        self.assertResult(self.read("file:///work/revoked/r.md", token=token))
        self.db.sql("SELECT mcp_notes.revoke_workspace('revokee', 'file:///work/revoked')")
        self.assertRpcError(self.read("file:///work/revoked/r.md", token=token), -32602, 200)
        self.assertEqual(self.list_all(token=token)[0], [])

    def test_templates_are_the_callers_workspaces(self):
        result = self.assertResult(self.call("resources/templates/list"))
        self.assertEqual(result["cacheScope"], "private")
        self.assertEqual([t["uriTemplate"] for t in result["resourceTemplates"]], [f"{WORKSPACE}/{{+path}}"])
        self.assertEqual(self.assertResult(self.call("resources/templates/list", token=self.bob_token))
                         ["resourceTemplates"], [])

    def test_read_needs_the_mcp_name_header(self):
        r = self.call("resources/read", {"uri": f"{WORKSPACE}/rp/alpha.md"})
        self.assertRpcError(r, -32020, 400)

    # ---- prompts ----

    def test_prompts_list_and_review_note(self):
        prompts = self.assertResult(self.call("prompts/list"))["prompts"]
        self.assertEqual([p["name"] for p in prompts], ["review_note"])
        self.assertEqual([a["name"] for a in prompts[0]["arguments"]], ["workspaceUri", "noteId", "title"])
        for args in ({"workspaceUri": WORKSPACE, "title": "alpha review"},
                     {"workspaceUri": WORKSPACE, "noteId": self.note_md}):
            r = self.call("prompts/get", {"name": "review_note", "arguments": args}, name="review_note")
            messages = self.assertResult(r)["messages"]
            self.assertEqual(messages[1]["content"]["resource"],
                             {"uri": f"{WORKSPACE}/rp/alpha.md", "mimeType": "text/markdown", "text": "# Alpha\nbody"})

    def test_review_note_refuses_the_same_way(self):
        cases = ({"workspaceUri": EVIL_WORKSPACE, "title": "secret"},          # not granted
                 {"workspaceUri": WORKSPACE, "noteId": self.evil},              # id outside the workspace
                 {"workspaceUri": WORKSPACE + "-evil", "noteId": self.evil},    # look-alike prefix
                 {"workspaceUri": WORKSPACE, "title": unique_title()})          # nothing matches
        messages = set()
        for args in cases:
            r = self.call("prompts/get", {"name": "review_note", "arguments": args}, name="review_note")
            self.assertRpcError(r, -32602, 200)
            self.assertEqual(r.error["data"]["reason"], "note_not_found", args)
            self.assertNotIn("do not show", r.raw)
            messages.add(r.error["message"])
        self.assertEqual(len(messages), 1)
        r = self.call("prompts/get", {"name": "review_note", "arguments": {"workspaceUri": WORKSPACE, "title": 7}},
                      name="review_note")
        self.assertRpcError(r, -32602, 200)

    # ---- completion ----

    def complete(self, name, value, context=None, token=None):
        params = {"ref": {"type": "ref/prompt", "name": "review_note"}, "argument": {"name": name, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        return self.assertResult(self.call("completion/complete", params, token=token))["completion"]["values"]

    def test_completion_is_scoped(self):
        self.assertEqual(self.complete("workspaceUri", "file:///work/n"), [WORKSPACE])
        self.assertEqual(self.complete("workspaceUri", "file:///work/n", token=self.bob_token), [])
        self.assertEqual(self.complete("noteId", self.note_md[:8], {"workspaceUri": WORKSPACE}), [self.note_md])
        self.assertEqual(self.complete("noteId", self.evil[:8], {"workspaceUri": WORKSPACE}), [])
        self.assertEqual(self.complete("noteId", self.evil[:8], {"workspaceUri": EVIL_WORKSPACE}), [])
        # ids complete from 4 typed characters, by the primary key: fewer suggest nothing
        self.assertEqual(self.complete("noteId", self.note_md[:3], {"workspaceUri": WORKSPACE}), [])
        self.assertEqual(self.complete("title", "evil", {"workspaceUri": EVIL_WORKSPACE}), [])
        self.assertEqual(self.complete("title", "alpha rev", {"workspaceUri": WORKSPACE}), ["Alpha review target"])
        values = self.assertResult(self.call("completion/complete", {
            "ref": {"type": "ref/resource", "uri": f"{WORKSPACE}/{{+path}}"},
            "argument": {"name": "path", "value": "rp/a"}}))["completion"]["values"]
        self.assertEqual(values, ["rp/alpha.md"])
        r = self.call("completion/complete", {"ref": {"type": "ref/resource", "uri": f"{EVIL_WORKSPACE}/{{+path}}"},
                                              "argument": {"name": "path", "value": ""}})
        self.assertRpcError(r, -32602, 200)

    def test_completion_values_and_prompt_text_are_printable(self):
        title = unique_title("memo") + " \u202etxt.exe\u202c\nnext"
        note_id = self.db.add_note(f"{WORKSPACE}/rp/{note_id_safe(title)}.md", title, "memo body")
        [value] = self.complete("title", title.split(" \u202e")[0], {"workspaceUri": WORKSPACE})
        self.assertIsNone(INVISIBLE.search(value), value)
        self.assertIn("\\u202Etxt.exe\\u202C\\u000Anext", value)
        # the value the user picked names the note
        r = self.call("prompts/get", {"name": "review_note", "arguments": {"workspaceUri": WORKSPACE, "title": value}},
                      name="review_note")
        result = self.assertResult(r)
        self.assertEqual(result["messages"][1]["content"]["resource"]["uri"], f"{WORKSPACE}/rp/{note_id_safe(title)}.md")
        self.assertEqual(result["messages"][1]["content"]["resource"]["text"], "memo body")
        for text in (result["description"], result["messages"][0]["content"]["text"]):
            self.assertIsNone(INVISIBLE.search(text), text)
            self.assertIn(value, text)
        listed = [x for x in self.list_all_resources() if x["uri"].endswith(f"{note_id_safe(title)}.md")]
        self.assertEqual([(x["name"], x["title"]) for x in listed], [(value, value)])
        self.assertTrue(note_id)

    def list_all_resources(self):
        found, cursor = [], None
        for _ in range(100):
            result = self.assertResult(self.call("resources/list", {"cursor": cursor} if cursor else {}))
            found += result["resources"]
            cursor = result.get("nextCursor")
            if not cursor:
                return found
        self.fail("resources/list did not end within 100 pages")

    def test_arguments_are_bounded_before_any_work(self):
        """A 400 KB completion value or prompt argument is refused as such (-32602), and says so."""
        r = self.call("completion/complete", {"ref": {"type": "ref/prompt", "name": "review_note"},
                                              "argument": {"name": "title", "value": "t" * 400_000},
                                              "context": {"arguments": {"workspaceUri": WORKSPACE}}})
        self.assertRpcError(r, -32602, 200)
        self.assertEqual(r.error["data"]["reason"], "invalid_argument")
        r = self.call("prompts/get", {"name": "review_note",
                                      "arguments": {"workspaceUri": WORKSPACE, "title": "t" * 400_000}},
                      name="review_note")
        self.assertRpcError(r, -32602, 200)
        self.assertEqual(r.error["data"]["reason"], "invalid_arguments")
        self.assertIn("title must be at most 500 characters", r.error["message"])
        self.assertLess(len(r.raw), 2000)

    # ---- discovery ----

    def test_discover_advertises_what_exists(self):
        result = self.assertResult(self.call("server/discover"))
        self.assertEqual(result["capabilities"], {"tools": {}, "resources": {"subscribe": True}, "prompts": {},
                                                  "completions": {}, "logging": {}})
        for method in ("resources/subscribe", "logging/setLevel", "ping"):
            self.assertRpcError(self.call(method), -32601, 404)

    def test_discover_follows_the_registries(self):
        """A registry without rows is neither advertised nor served."""
        db = Database("rpempty")
        self.addCleanup(db.drop)
        db.sql("DELETE FROM mcp_notes.prompts")
        gw = Gateway(db.conninfo())
        self.addCleanup(gw.cleanup)
        token = db.issue_token(PRINCIPAL)
        result = self.assertResult(gw.rpc("server/discover", token=token))
        self.assertEqual(result["capabilities"], {"tools": {}, "resources": {"subscribe": True}, "completions": {},
                                                  "logging": {}})
        r = gw.rpc("prompts/list", token=token)
        self.assertRpcError(r, -32601, 404)


def note_id_safe(title):
    """A file name from a title: its unique word."""
    return title.split()[1]
