"""notes_delete hardening through a real gateway: a confirmation is bound to
what the form showed, asking again re-checks what step 1 checked, and what
reaches the user's dialog and the audit is printable."""
import re

from .harness import (EVIL_WORKSPACE, WORKSPACE, GatewayTestCase, accept, form_of, lit,
                      unique_title)

# Characters that would not show as themselves in a dialog or a terminal.
INVISIBLE = re.compile("[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def text_of(resp):
    raw = resp.raw
    return raw.decode() if isinstance(raw, bytes) else raw


def labels(resp):
    schema = resp.result["inputRequests"]["delete_choice"]["params"]["requestedSchema"]
    return [o["title"] for o in schema["properties"]["note_id"]["oneOf"]]


class DeleteHardeningTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()

    def note(self, title=None, folder="hard"):
        title = title or unique_title("hardening")
        uri = f"{WORKSPACE}/{folder}/{unique_title('n').replace(' ', '-')}.md"
        return title, self.db.add_note(uri, title)

    def test_a_note_moved_and_retitled_after_the_form_is_not_deleted(self):
        title, note_id = self.note()
        r = self.gw.call_delete(self.token, WORKSPACE, title, id=1)
        self.assertResult(r, id=1, result_type="input_required")
        state, offered = form_of(r)
        self.assertEqual(offered, [note_id])
        self.db.sql(f"SELECT mcp_notes.move_note({lit(note_id)}, {lit(WORKSPACE + '/hr/payroll-' + note_id + '.md')})")
        self.db.sql(f"UPDATE mcp_notes.notes SET title = '2025 payroll (master copy)' WHERE note_id = {lit(note_id)}")
        r = self.gw.call_delete(self.token, WORKSPACE, title, id=2, responses=accept(note_id), state=state)
        result = self.assertResult(r, id=2)
        self.assertTrue(result["isError"], r)
        self.assertIn("changed since the form was shown", result["content"][0]["text"])
        self.assertTrue(self.db.note_exists(note_id))
        self.assertEqual([a["outcome"] for a in self.db.audit() if a["note_id"] == note_id], ["stale"])
        again = self.gw.call_delete(self.token, WORKSPACE, title, id=3, responses=accept(note_id), state=state)
        self.assertRpcError(again, -32602, 200, id=3)
        self.assertEqual(again.error["data"]["reason"], "state_already_used")

    def test_asking_again_after_move_retitle_and_revoke_reveals_nothing(self):
        principal = "bob_" + unique_title("x").split()[-1]
        self.db.sql(f"SELECT mcp_notes.grant_workspace({lit(principal)}, {lit(WORKSPACE)})")
        token = self.db.issue_token(principal)
        title, note_id = self.note()
        r = self.gw.call_delete(token, WORKSPACE, title, id=1)
        state, offered = form_of(r)
        self.assertEqual(offered, [note_id])
        self.db.sql(f"SELECT mcp_notes.move_note({lit(note_id)}, {lit(EVIL_WORKSPACE + '/secret-' + note_id + '.md')})")
        self.db.sql(f"UPDATE mcp_notes.notes SET title = 'SECRET merger' WHERE note_id = {lit(note_id)}")
        self.db.sql(f"SELECT mcp_notes.revoke_workspace({lit(principal)}, {lit(WORKSPACE)})")
        r = self.gw.call_delete(token, WORKSPACE, title, id=2, state=state)
        result = self.assertResult(r, id=2)
        self.assertTrue(result["isError"], r)
        self.assertNotIn("SECRET", text_of(r))
        self.assertNotIn("secret-", text_of(r))
        # granted again, the note is still outside: a tool error, not a form offering nothing
        self.db.sql(f"SELECT mcp_notes.grant_workspace({lit(principal)}, {lit(WORKSPACE)})")
        r = self.gw.call_delete(token, WORKSPACE, title, id=3, state=state)
        result = self.assertResult(r, id=3)
        self.assertTrue(result["isError"], r)
        self.assertNotIn("inputRequests", result)
        self.assertNotIn("SECRET", text_of(r))
        self.assertTrue(self.db.note_exists(note_id))

    def test_labels_and_the_audited_request_id_are_printable(self):
        prefix = unique_title("invoice")
        title, note_id = self.note(prefix + " \u202egpj.exe\u202c line\nbreak esc\x1b[2J")
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id="ask\x1b]0;owned\x07\r\n\u202e")
        self.assertResult(r, result_type="input_required")
        [label] = labels(r)
        self.assertIsNone(INVISIBLE.search(label), label)
        self.assertIn("\\u202Egpj.exe\\u202C line\\u000Abreak esc\\u001B[2J", label)
        state, _ = form_of(r)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id="cancel\x1b[2J\r\n\u2066",
                                responses={"delete_choice": {"action": "cancel"}}, state=state)
        self.assertResult(r)
        r = self.gw.call_delete(self.token, WORKSPACE, prefix, id=7, responses=accept(note_id), state=state)
        text = self.assertResult(r, id=7)["content"][0]["text"]
        self.assertIsNone(INVISIBLE.search(text), text)
        ids = [a["request_id"] for a in self.db.audit()
               if a["note_id"] == note_id or (a["request_id"] or "").startswith("cancel")]
        self.assertEqual(ids, ["cancel\\u001B[2J\\u000D\\u000A\\u2066", "7"])
        # the audit's title is the title as the labels show it: an operator's
        # terminal shows what it is, and nothing reorders or clears it
        [audited] = [a["title"] for a in self.db.audit() if a["note_id"] == note_id]
        self.assertIsNone(INVISIBLE.search(audited), audited)
        self.assertEqual(audited, label.split(" — ")[0])
