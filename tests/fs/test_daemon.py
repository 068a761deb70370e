"""The daemon from the outside: its role logs in with exactly its password
and can do nothing but its entry points; one daemon per volume; a root
replaced by an empty or another directory (a new volume after a failover)
is refused, never taken for "every note was removed"; and the operator's
reattach makes the directory now there the workspace's."""
import os
import shutil
import subprocess
import unittest

from tests.e2e.harness import lit, wait_until
from tests.fs.fsharness import FsDatabase


def psql_as(fsdb, password, sql):
    env = dict(os.environ, PGPASSWORD=password)
    return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", os.environ["PGHOST"],
                           "-p", os.environ["PGPORT"], "-U", fsdb.fsd_role, "-d", fsdb.db.name, "-c", sql],
                          capture_output=True, text=True, env=env, timeout=60)


class DaemonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fsdb = FsDatabase("fsdaemon")
        cls.addClassCleanup(cls.fsdb.drop)

    def setUp(self):
        self.s = self.fsdb.space(self)

    def test_the_role_logs_in_with_exactly_its_password(self):
        self.s.write("a.md", "# A\n")
        wrong = self.s.start_daemon(password=self.s.fsd_password + "x")
        self.assertTrue(wait_until(lambda: "password authentication failed" in wrong.log(), 15), wrong.log())
        self.assertFalse(self.s.attached(timeout=1))
        wrong.stop()
        right = self.s.start_daemon()
        self.assertTrue(right.wait_event("ready"), right.log())
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 1))

    def test_the_role_can_do_nothing_but_its_entry_points(self):
        ok = psql_as(self.fsdb, self.s.fsd_password, f"SELECT count(*) FROM mcp_notes.fsd_attach({lit(self.s.volume)})")
        self.assertEqual((ok.returncode, ok.stdout.strip()), (0, "1"), ok.stderr)
        for sql, why in (("SELECT count(*) FROM mcp_notes.notes", "permission denied for table notes"),
                         ("SELECT count(*) FROM mcp_notes.file_ops", "permission denied for table file_ops"),
                         ("DELETE FROM mcp_notes.notes", "permission denied for table notes"),
                         ("SELECT mcp_notes.handle('t', '{}')", "permission denied for function handle"),
                         ("SELECT mcp_notes.add_file_workspace('file:///x', 'v1', 'x')",
                          "permission denied for function add_file_workspace"),
                         ("SELECT * FROM mcp_notes.fsd_pending('not-mine')", 'not the daemon of volume "not-mine"')):
            r = psql_as(self.fsdb, self.s.fsd_password, sql)
            self.assertNotEqual(r.returncode, 0, sql)
            self.assertIn(why, r.stderr, sql)
        r = psql_as(self.fsdb, "not the password", "SELECT 1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("password authentication failed", r.stderr)

    def test_one_daemon_per_volume(self):
        self.s.write("a.md", "# A\n")
        first = self.s.start_daemon()
        self.assertTrue(first.wait_event("ready"), first.log())
        second = self.s.start_daemon()
        self.assertTrue(second.wait_event("volume_busy"), second.log())
        self.assertFalse(second.has_event("ready"))
        first.stop()
        self.assertTrue(second.wait_event("ready", timeout=30), second.log())

    def test_an_empty_directory_in_place_of_the_root_is_refused_then_reattached(self):
        for i in range(3):
            self.s.write(f"n{i}.md", f"# Note {i}\n")
        d = self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 3), d.log())
        self.assertTrue((self.s.root / ".mcp-workspace").exists())
        d.stop()
        # the volume comes back empty (a failover to a host without the files)
        shutil.move(str(self.s.root), str(self.s.base / "vault.saved"))
        self.s.root.mkdir()
        d = self.s.start_daemon()
        self.assertTrue(d.wait_event("root_refused"), d.log())
        self.assertTrue(d.wait_event("ready"), d.log())
        self.assertEqual(len(self.s.notes()), 3, "an empty root never removes the notes")
        refused = self.s.db.sql(f"SELECT refused FROM mcp_notes.file_workspaces WHERE workspace_uri = {lit(self.s.ws)}")
        self.assertIn("no marker", refused)
        self.s.write("intruder.md", "# Written into the refused root\n")
        self.assertFalse(self.s.wait_notes(lambda n: len(n) != 3, timeout=2), "nothing below a refused root is read")
        # the operator puts the right files back and reattaches
        d.stop()
        shutil.rmtree(self.s.root)
        shutil.move(str(self.s.base / "vault.saved"), str(self.s.root))
        os.unlink(self.s.root / "n2.md")
        self.s.db.sql(f"SELECT mcp_notes.reattach_file_workspace({lit(self.s.ws)})")
        d = self.s.start_daemon()
        self.assertTrue(self.s.attached(), d.log())
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 2), (self.s.notes(), d.log()))


if __name__ == "__main__":
    unittest.main()
