"""The daemon from the outside: its role logs in with exactly its password
and can do nothing but its entry points; one daemon per volume; a root
replaced by an empty or another directory (a new volume after a failover)
is refused, never taken for "every note was removed"; and the operator's
reattach makes the directory now there the workspace's."""
import os
import secrets
import shutil
import subprocess
import tempfile
import types
import unittest

from tests.e2e.harness import lit, psql, wait_until
from tests.fs.fsharness import Daemon, FsDatabase


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

    def test_a_restored_database_takes_the_files_as_they_are(self):
        """pg_dump keeps the workspaces and the operations, not file_notes (derived): after a
        restore every note is confirmed against its file, which is neither rewritten nor
        taken for a conflict."""
        self.s.write("a.md", "# Alpha\n\nwith a heading\n")
        self.s.write("sub/b.md", "no heading, the name is the title\n")
        d = self.s.start_daemon()
        self.assertTrue(self.s.wait_notes(lambda n: len(n) == 2), d.log())
        before = self.s.notes()
        d.stop()
        inodes = {p: p.stat().st_ino for p in (self.s.root / "a.md", self.s.root / "sub" / "b.md")}
        restored = f"{self.s.db.name}_r"
        with tempfile.NamedTemporaryFile(suffix=".dump") as dump:
            subprocess.run(["pg_dump", "-Fc", "-d", self.s.db.name, "-f", dump.name], check=True, capture_output=True)
            psql(f"CREATE DATABASE {restored}")
            self.addCleanup(psql, f"DROP DATABASE IF EXISTS {restored} WITH (FORCE)", check=False)
            r = subprocess.run(["pg_restore", "-d", restored, dump.name], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
        psql(f"SELECT mcp_notes.add_file_volume({lit(self.s.volume)}, {lit(self.fsdb.fsd_role)})", dbname=restored)
        other = types.SimpleNamespace(volume=self.s.volume, base=self.s.base, fsd_password=self.s.fsd_password,
                                      fsd_conninfo=lambda: self.s.fsd_conninfo().replace(
                                          f"dbname={self.s.db.name} ", f"dbname={restored} "))
        d = Daemon(other)
        self.addCleanup(d.cleanup)
        settled = "SELECT count(*) FROM mcp_notes.file_notes WHERE dev IS NOT NULL AND write_seq = written_seq"
        self.assertTrue(wait_until(lambda: psql(settled, dbname=restored) == "2", 20), d.log())
        self.assertEqual(psql("SELECT count(*) FROM mcp_notes.file_ops", dbname=restored), "0", "no conflict")
        self.assertEqual({p: p.stat().st_ino for p in inodes}, inodes, "no file rewritten")
        after = psql("SELECT json_agg(json_build_array(uri, note_id, title, body) ORDER BY uri) FROM mcp_notes.notes",
                     dbname=restored)
        self.assertEqual({r[0]: tuple(r[1:]) for r in __import__("json").loads(after)}, before)


if __name__ == "__main__":
    unittest.main()
