"""Changes made on disk reach the notes without a restart (new, changed,
renamed, removed files), what is not a note never does (hidden names,
symlinks, other files, invalid text), and writes through notes_create and
notes_update reach the file atomically."""
import os
import time
import unittest

from tests.e2e.harness import wait_until
from tests.fs.fsharness import FsDatabase


class SyncTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fsdb = FsDatabase("fssync")
        cls.addClassCleanup(cls.fsdb.drop)

    def setUp(self):
        self.s = self.fsdb.space(self)

    def test_files_present_at_start_become_notes(self):
        self.s.write("a.md", "# Alpha\n\nalpha body\n")
        self.s.write("sub/deep/b.md", "no heading\n")
        d = self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 2), d.log())
        notes = self.s.notes()
        self.assertEqual(notes[f"{self.s.ws}/a.md"][1:], ("Alpha", "alpha body\n"))
        self.assertEqual(notes[f"{self.s.ws}/sub/deep/b.md"][1:], ("b", "no heading\n"))

    def test_new_changed_renamed_removed_files_reach_the_notes(self):
        self.s.write("a.md", "# Alpha\n\none\n")
        self.s.write("b.md", "# Beta\n\ntwo\n")
        self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 2))
        beta_id = self.s.note_id("b.md")
        self.s.write("a.md", "# Alpha edited\n\nthree\n")                 # changed
        os.rename(self.s.root / "b.md", self.s.root / "renamed b.md")      # renamed
        self.s.write("new/c.md", "# Gamma\n\nfour\n")                      # new
        self.assertTrue(self.s.wait_notes(lambda n: set(n) == {f"{self.s.ws}/a.md", f"{self.s.ws}/renamed%20b.md", f"{self.s.ws}/new/c.md"}
                                          and n[f"{self.s.ws}/a.md"][1] == "Alpha edited"), self.s.notes())
        self.assertEqual(self.s.note_id("renamed%20b.md"), beta_id, "a rename keeps the note")
        os.unlink(self.s.root / "a.md")                                     # removed
        self.assertTrue(self.s.wait_notes(lambda n: f"{self.s.ws}/a.md" not in n and len(n) == 2), self.s.notes())

    def test_what_is_not_a_note_never_becomes_one(self):
        (self.s.root / ".git").mkdir()
        self.s.write(".git/HEAD.md", "hidden directory\n")
        self.s.write(".hidden.md", "hidden file\n")
        self.s.write("notes.txt", "not markdown\n")
        os.symlink(self.s.outside / "secret.md", self.s.root / "link.md")
        os.symlink(self.s.outside / "notes", self.s.root / "linkdir")
        os.link(self.s.outside / "a.md", self.s.root / "hard.md")
        (self.s.root / "bad.md").write_bytes(b"\xff\xfe not UTF-8\n")
        self.s.write("ok.md", "# Fine\n")
        d = self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) >= 1))
        time.sleep(1)       # several more scans
        self.assertEqual(set(self.s.notes()), {f"{self.s.ws}/ok.md"})
        self.assertTrue(any(e.get("event") == "file_refused" and "bad.md" in e.get("msg", "") for e in d.events()),
                        d.log())
        refusals = [e for e in d.events() if e.get("event") == "file_refused" and "bad.md" in e.get("msg", "")]
        self.assertEqual(len(refusals), 1, "a refused file is not read again while it stays the same")
        self.assertTrue(self.s.canaries_alive())

    def test_tool_writes_reach_the_file_atomically(self):
        self.s.start_daemon()
        self.assertTrue(self.s.attached())
        r = self.s.call("notes_create", {"workspaceUri": self.s.ws, "uri": f"{self.s.ws}/made/by%20tool.md",
                                          "title": "Made by a tool", "body": "first body\n"})
        note_id = r["result"]["structuredContent"]["noteId"]
        path = self.s.root / "made" / "by tool.md"
        self.assertTrue(wait_until(path.exists, 10))
        self.assertEqual(path.read_text(), "# Made by a tool\n\nfirst body\n")
        ino = path.stat().st_ino
        self.s.call("notes_update", {"workspaceUri": self.s.ws, "noteId": note_id, "body": "second body\n"})
        self.assertTrue(wait_until(lambda: path.read_text() == "# Made by a tool\n\nsecond body\n", 10))
        self.assertNotEqual(path.stat().st_ino, ino, "a new file renamed into place, never written in place")
        leftovers = [p.name for p in path.parent.iterdir() if p.name != "by tool.md"]
        self.assertEqual(leftovers, [], "no temporary file is left")
        time.sleep(0.6)
        self.assertEqual(self.s.notes()[f"{self.s.ws}/made/by%20tool.md"][2], "second body\n",
                         "the daemon's own write is not read back as a change")

    def test_an_edit_on_disk_beats_a_write_pending_through_the_database(self):
        self.s.write("e.md", "# Edited\n\nv1\n")
        d = self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 1))
        note_id = self.s.note_id("e.md")
        d.stop()
        self.s.call("notes_update", {"workspaceUri": self.s.ws, "noteId": note_id, "body": "from the tool\n"})
        self.s.write("e.md", "# Edited\n\nfrom the editor\n")     # while the daemon was down
        self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: n[f"{self.s.ws}/e.md"][2] == "from the editor\n"), self.s.notes())
        self.assertEqual((self.s.root / "e.md").read_text(), "# Edited\n\nfrom the editor\n")
        conflicts = [o for o in self.s.ops() if o["kind"] == "write" and o["status"] == "conflict"]
        self.assertEqual(len(conflicts), 1, self.s.ops())

    def test_notes_create_refuses_a_name_the_daemon_would_not_take(self):
        self.s.start_daemon()
        for uri in (f"{self.s.ws}/notes.txt", f"{self.s.ws}/.hidden.md", f"{self.s.ws}/.git/x.md"):
            r = self.s.call("notes_create", {"workspaceUri": self.s.ws, "uri": uri, "title": "x"})
            self.assertTrue(r["result"]["isError"], (uri, r))
            self.assertIn(".md", r["result"]["content"][0]["text"] + "hidden", (uri, r))
        self.assertEqual(self.s.notes(), {})


if __name__ == "__main__":
    unittest.main()
