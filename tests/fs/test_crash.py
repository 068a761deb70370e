"""Crash tests of the delete: the daemon killed (SIGKILL) after each step,
and the database stopped with pg_ctl -m immediate at each step, then
recovery.  After every one: the confirmed file is removed exactly once, the
delete is audited exactly once (one accept for its nonce), nothing else on
disk is touched (the other notes, the outside canaries), and the operation
ends done.

The steps (fsd/src/ops.h): before-F1 (the intent is read, nothing moved),
after-F1 (the file is in the trash, the database not told), after-T2 (the
note row deleted and audited, the file still in the trash), after-F2 (the
file unlinked, the operation not yet marked done), after-done."""
import os
import signal
import subprocess
import time
import unittest

from tests.e2e.harness import lit, wait_until
from tests.fs.fsharness import FSD_FAILPOINTS, FsDatabase

STEPS = ("before-F1", "after-F1", "after-T2", "after-F2", "after-done")


def stopped(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def pg_ctl(*args):
    subprocess.run([os.environ["MCP_NOTES_PGCTL"], *args], check=True, capture_output=True, timeout=180)


class CrashTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not FSD_FAILPOINTS.exists():
            raise RuntimeError(f"{FSD_FAILPOINTS} is missing: make -C fsd tests")
        cls.fsdb = FsDatabase("fscrash")
        cls.addClassCleanup(cls.fsdb.drop)

    def prepare(self, failpoint):
        s = self.fsdb.space(self)
        s.write("victim.md", "# Victim report\n\nto be removed\n")
        s.write("bystander.md", "# Bystander\n\nmust stay\n")
        s.write("sub/other.md", "# Other\n\nmust stay too\n")
        d = s.start_daemon(binary=FSD_FAILPOINTS, failpoint=failpoint)
        self.assertTrue(s.wait_notes(lambda n: len(n) == 3), d.log())
        return s, d

    def outcome(self, s, op_id):
        """Final state after recovery, checked in full."""
        self.assertTrue(wait_until(lambda: [o["status"] for o in s.ops() if o["op_id"] == op_id] == ["done"], 30),
                        (s.ops(), [d.log()[-2000:] for d in s.daemons]))
        self.assertFalse((s.root / "victim.md").exists())
        self.assertEqual(sorted(os.listdir(s.root / ".mcp-trash")), [], "nothing left in the trash")
        self.assertEqual((s.root / "bystander.md").read_text(), "# Bystander\n\nmust stay\n")
        self.assertEqual((s.root / "sub" / "other.md").read_text(), "# Other\n\nmust stay too\n")
        self.assertTrue(s.canaries_alive())
        op = [o for o in s.ops() if o["op_id"] == op_id][0]
        audits = [a for a in s.audit() if a["note_id"] == op["note_id"]]
        self.assertEqual([a["outcome"] for a in audits], ["accept"], audits)
        self.assertEqual(s.db.sql(f"SELECT count(*) FROM mcp_notes.spent_states WHERE nonce = {lit(op['nonce'])}"), "1")
        self.assertEqual(set(s.notes()), {s.uri("bystander.md"), s.uri("sub/other.md")})

    def _killed_at(self, step):
        s, d = self.prepare(step)
        op_id = s.confirm_delete("Victim")["await"]["key"]
        self.assertTrue(wait_until(lambda: d.proc.poll() is not None, 20), f"the daemon did not die at {step}")
        self.assertEqual(d.proc.returncode, -signal.SIGKILL, d.log()[-1000:])
        if step == "after-F1":
            self.assertTrue((s.root / ".mcp-trash" / op_id).exists(), "killed after F1: the file is in the trash")
            self.assertEqual([o["status"] for o in s.ops()], ["intent"])
        if step == "after-T2":
            self.assertEqual([o["status"] for o in s.ops()], ["trashed"])
        s.start_daemon()
        self.outcome(s, op_id)

    def _database_crashed_at(self, step):
        s, d = self.prepare(f"{step}:stop")
        op_id = s.confirm_delete("Victim")["await"]["key"]
        self.assertTrue(wait_until(lambda: stopped(d.proc.pid), 20), f"the daemon did not stop at {step}: {d.log()}")
        pg_ctl("stop", "-m", "immediate")
        pg_ctl("start")
        d.proc.send_signal(signal.SIGCONT)
        self.assertTrue(wait_until(lambda: d.has_event("db_lost") or d.has_event("deleted"), 30), d.log()[-2000:])
        self.outcome(s, op_id)
        self.assertIsNone(d.proc.poll(), "the same daemon reconnected and recovered")


def _make(step, kind):
    def test(self):
        getattr(self, kind)(step)
    test.__doc__ = f"{kind.strip('_').replace('_', ' ')} {step}"
    return test


for _step in STEPS:
    _name = _step.replace("-", "_").lower()
    setattr(CrashTest, f"test_daemon_killed_{_name}", _make(_step, "_killed_at"))
    setattr(CrashTest, f"test_database_immediate_stop_{_name}", _make(_step, "_database_crashed_at"))


if __name__ == "__main__":
    unittest.main()
