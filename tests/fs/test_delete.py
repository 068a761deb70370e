"""notes_delete of a file-backed note through a real gateway: the file the
user confirmed is removed, exactly once, after it is in the trash; a file
replaced, edited or swapped for a symlink after the form was shown is not
removed and the answer says so; with the daemon down the answer is an honest
"recorded, removal pending" with the operation id, and the removal happens
when the daemon is back."""
import os
import threading
import time
import unittest

from tests.e2e import harness
from tests.e2e.harness import wait_until
from tests.fs.fsharness import FsDatabase, delete_via


def structured(resp):
    return (resp.result or {}).get("structuredContent") or {}


def text(resp):
    return (resp.result or {}).get("content", [{}])[0].get("text", "")


class DeleteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fsdb = FsDatabase("fsdelete")
        cls.addClassCleanup(cls.fsdb.drop)
        cls.gw = harness.Gateway(cls.fsdb.db.conninfo())
        cls.addClassCleanup(cls.gw.cleanup)

    def setUp(self):
        self.s = self.fsdb.space(self)

    def ready(self, files):
        for rel, content in files.items():
            self.s.write(rel, content)
        d = self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == len(files)), d.log())
        return d

    def accepts(self):
        return [a for a in self.s.audit() if a["outcome"] == "accept"]

    def test_the_confirmed_file_is_removed_and_nothing_else(self):
        self.ready({"doomed.md": "# Doomed report\n\nbye\n", "kept.md": "# Kept report\n\nstays\n"})
        resp, note_id, took = delete_via(self.gw, self.s.token, "Doomed", self.s.ws)
        self.assertEqual(structured(resp).get("deleted"), True, resp)
        self.assertEqual(structured(resp).get("noteId"), note_id)
        self.assertFalse((self.s.root / "doomed.md").exists(), "the answer comes after the file is gone from its place")
        self.assertTrue((self.s.root / "kept.md").exists())
        self.assertTrue(wait_until(lambda: [o["status"] for o in self.s.ops()] == ["done"], 10), self.s.ops())
        self.assertEqual(os.listdir(self.s.root / ".mcp-trash"), [])
        self.assertEqual(len(self.accepts()), 1)
        self.assertNotIn(self.s.uri("doomed.md"), self.s.notes())
        self.assertTrue(self.s.canaries_alive())

    def _confirm_with_daemon_down(self, d, title, change):
        """Shows the form, stops the daemon, applies change() to the disk, sends
        the accept (its gateway waits), starts the daemon again: the answer."""
        first = self.gw.call_delete(self.s.token, self.s.ws, title, caps={"elicitation": {"form": {}}})
        state, ids = harness.form_of(first)
        d.stop()
        change()
        answer = {}
        t = threading.Thread(target=lambda: answer.update(resp=self.gw.call_delete(
            self.s.token, self.s.ws, title, id=2, state=state, responses=harness.accept(ids[0]),
            caps={"elicitation": {"form": {}}})))
        t.start()
        self.assertTrue(wait_until(lambda: any(o["status"] == "intent" for o in self.s.ops()), 10), self.s.ops())
        self.s.start_daemon()
        t.join(30)
        return answer["resp"]

    def test_a_file_replaced_after_the_form_is_not_removed(self):
        d = self.ready({"r.md": "# Replaced report\n\nv1\n"})
        path = self.s.root / "r.md"

        def replace():
            tmp = self.s.root / "r.md.new"
            tmp.write_text("# Replaced report\n\nsomeone else's v2\n")
            os.rename(tmp, path)

        resp = self._confirm_with_daemon_down(d, "Replaced", replace)
        self.assertTrue(resp.result.get("isError"), resp)
        self.assertIn("Nothing was deleted", text(resp))
        self.assertEqual(path.read_text(), "# Replaced report\n\nsomeone else's v2\n")
        self.assertEqual([o["status"] for o in self.s.ops()], ["conflict"])
        self.assertEqual(self.accepts(), [])
        self.assertEqual([a["outcome"] for a in self.s.audit()], ["stale"])

    def test_a_symlink_swapped_in_after_the_form_is_not_followed(self):
        d = self.ready({"s.md": "# Swapped report\n\nv1\n"})
        target = self.s.outside / "secret.md"

        def swap():
            os.rename(self.s.root / "s.md", self.s.root / "elsewhere.md.bak")
            os.symlink(target, self.s.root / "s.md")

        resp = self._confirm_with_daemon_down(d, "Swapped", swap)
        self.assertTrue(resp.result.get("isError"), resp)
        self.assertIn("Nothing was deleted", text(resp))
        self.assertTrue((self.s.root / "s.md").is_symlink(), "the symlink is left where it was")
        self.assertTrue(self.s.canaries_alive(), "its target is untouched")
        self.assertTrue((self.s.root / "elsewhere.md.bak").exists())
        self.assertEqual(self.accepts(), [])

    def test_a_file_edited_after_the_form_is_stale(self):
        self.ready({"e.md": "# Edited report\n\nv1\n"})
        first = self.gw.call_delete(self.s.token, self.s.ws, "Edited", caps={"elicitation": {"form": {}}})
        state, ids = harness.form_of(first)
        self.s.write("e.md", "# Edited report\n\nv2, longer than before\n")
        self.assertTrue(self.s.wait_notes(lambda n: n[self.s.uri("e.md")][2].startswith("v2")))
        resp = self.gw.call_delete(self.s.token, self.s.ws, "Edited", id=2, state=state,
                                   responses=harness.accept(ids[0]), caps={"elicitation": {"form": {}}})
        self.assertTrue(resp.result.get("isError"), resp)
        self.assertIn("changed since the form was shown", text(resp))
        self.assertTrue((self.s.root / "e.md").exists())
        self.assertEqual(self.s.ops(), [], "a stale confirmation records no intent")

    def test_a_file_replaced_by_an_identical_copy_after_the_form_is_not_removed(self):
        """The state binds the file's identity, not only what the note says:
        a copy with the same bytes is another file than the one confirmed."""
        self.ready({"c.md": "# Copied report\n\nsame bytes\n"})
        first = self.gw.call_delete(self.s.token, self.s.ws, "Copied", caps={"elicitation": {"form": {}}})
        state, ids = harness.form_of(first)
        before = self.s.db.sql("SELECT ino FROM mcp_notes.file_notes WHERE rel_path = 'c.md'")
        tmp = self.s.root / "c.md.new"
        tmp.write_text("# Copied report\n\nsame bytes\n")
        os.rename(tmp, self.s.root / "c.md")
        self.assertTrue(wait_until(lambda: self.s.db.sql(
            "SELECT ino FROM mcp_notes.file_notes WHERE rel_path = 'c.md'") != before, 10))
        resp = self.gw.call_delete(self.s.token, self.s.ws, "Copied", id=2, state=state,
                                   responses=harness.accept(ids[0]), caps={"elicitation": {"form": {}}})
        self.assertTrue(resp.result.get("isError"), resp)
        self.assertTrue((self.s.root / "c.md").exists())
        self.assertEqual(self.accepts(), [])

    def test_with_the_daemon_down_the_answer_is_pending_then_the_file_goes(self):
        d = self.ready({"p.md": "# Pending report\n\nwait\n"})
        d.stop()
        resp, note_id, took = delete_via(self.gw, self.s.token, "Pending", self.s.ws)
        sc = structured(resp)
        self.assertEqual((sc.get("deleted"), sc.get("pending")), (False, True), resp)
        self.assertIsInstance(sc.get("operationId"), str)
        self.assertIn("pending", text(resp))
        self.assertNotIn("Deleted", text(resp))
        self.assertGreaterEqual(took, 4.5, "the gateway waited (bounded) for the daemon")
        self.assertLess(took, 12)
        self.assertTrue((self.s.root / "p.md").exists(), "never 'deleted' for a file still in place")
        self.assertEqual(self.accepts(), [])
        self.s.start_daemon()
        self.assertTrue(wait_until(lambda: not (self.s.root / "p.md").exists(), 15))
        self.assertTrue(wait_until(lambda: [o["status"] for o in self.s.ops()] == ["done"], 10), self.s.ops())
        self.assertEqual(self.s.ops()[0]["op_id"], sc["operationId"])
        self.assertEqual(len(self.accepts()), 1)

    def test_the_same_confirmation_twice_removes_once(self):
        self.ready({"t.md": "# Twice report\n\nonce\n", "u.md": "# Other\n"})
        first = self.gw.call_delete(self.s.token, self.s.ws, "Twice", caps={"elicitation": {"form": {}}})
        state, ids = harness.form_of(first)
        answers = []

        def send(i):
            answers.append(self.gw.call_delete(self.s.token, self.s.ws, "Twice", id=10 + i, state=state,
                                               responses=harness.accept(ids[0]),
                                               caps={"elicitation": {"form": {}}}))

        threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        deleted = [a for a in answers if structured(a).get("deleted") is True]
        self.assertEqual(len(deleted), 1, answers)
        self.assertEqual(len(self.accepts()), 1)
        self.assertEqual(len(self.s.ops()), 1)
        self.assertTrue((self.s.root / "u.md").exists())


if __name__ == "__main__":
    unittest.main()
