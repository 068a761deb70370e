"""Shared helpers of the file-backed workspace tests: a database with a
volume, a workspace whose root is a fresh directory, the daemon
(mcp-notes-fsd, or its failpoint build) as a real process, and outside
canaries.  Python standard library only; everything stopped by PID."""
import json
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import tempfile
import time

from tests.e2e import harness
from tests.e2e.harness import Database, Gateway, lit, psql, wait_until, PRINCIPAL

ROOT = harness.ROOT
FSD = ROOT / "fsd" / "mcp-notes-fsd"
FSD_FAILPOINTS = ROOT / "fsd" / "mcp-notes-fsd-failpoints"
WS = "file:///vault"


def tmpdir(prefix):
    return pathlib.Path(tempfile.mkdtemp(prefix=prefix))


class Daemon:
    """One mcp-notes-fsd process with its own log file."""

    def __init__(self, stack, binary=FSD, failpoint=None, extra=(), password=None, scan_ms=200):
        self.log_file = tempfile.NamedTemporaryFile(prefix="mcp-notes-fsd-", suffix=".log", delete=False)
        env = dict(os.environ, PGPASSWORD=password or stack.fsd_password)
        env.pop("PGUSER", None)
        if failpoint:
            env["MCP_NOTES_FSD_FAILPOINT"] = failpoint
        cmd = [str(binary), "--db", stack.fsd_conninfo(), "--volume", stack.volume, "--base", str(stack.base),
               "--scan-interval-ms", str(scan_ms), "--recover-interval-ms", "1000", *extra]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.log_file, env=env)

    def log(self):
        return pathlib.Path(self.log_file.name).read_text(errors="replace")

    def events(self):
        out = []
        for line in self.log().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def has_event(self, name):
        return any(e.get("event") == name for e in self.events())

    def wait_event(self, name, timeout=15):
        return wait_until(lambda: self.has_event(name) or self.proc.poll() is not None, timeout) and \
            self.has_event(name)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def cleanup(self):
        self.stop()
        self.log_file.close()
        os.unlink(self.log_file.name)


class FsDatabase:
    """A database (harness.Database: a gateway role, dev or not, and alice's
    token) with a daemon role; each test makes a Space of its own in it."""

    def __init__(self, label, dev=False):
        self.db = Database(label, dev=dev)
        self.spaces = 0
        try:
            self.fsd_role = f"mcpn_fsd_{secrets.token_hex(4)}"
            self.fsd_password = secrets.token_urlsafe(18)
            psql(f"CREATE ROLE {self.fsd_role} LOGIN PASSWORD {lit(self.fsd_password)}")
            self.token = self.db.issue_token()
        except Exception:
            self.drop()
            raise

    def space(self, test):
        """A fresh volume and workspace for one test (cleaned up with it)."""
        self.spaces += 1
        s = Space(self, self.spaces)
        test.addCleanup(s.cleanup)
        return s

    def drop(self):
        self.db.drop()
        psql(f"DROP ROLE IF EXISTS {getattr(self, 'fsd_role', 'none')}", check=False)


class Space:
    """Volume vN served from a fresh base directory, the workspace
    file:///vault-N at <base>/vault granted to alice, and an outside
    directory of canaries."""

    def __init__(self, fsdb, n):
        self.fsdb = fsdb
        self.db = fsdb.db
        self.token = fsdb.token
        self.fsd_password = fsdb.fsd_password
        self.volume = f"v{n}"
        self.ws = f"{WS}-{n}"
        self.daemons = []
        self.base = tmpdir("fsd-base-")
        self.outside = tmpdir("fsd-outside-")
        self.root = self.base / "vault"
        self.root.mkdir()
        self.canaries = {}
        for name in ("secret.md", "a.md", "notes/x.md"):
            self.plant_canary(name)
        self.db.sql(f"SELECT mcp_notes.add_file_volume({lit(self.volume)}, {lit(fsdb.fsd_role)})")
        self.db.sql(f"SELECT mcp_notes.add_file_workspace({lit(self.ws)}, {lit(self.volume)}, 'vault')")
        self.db.sql(f"SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(self.ws)})")

    def fsd_conninfo(self):
        return (f"host={os.environ['PGHOST']} port={os.environ['PGPORT']} dbname={self.db.name} "
                f"user={self.fsdb.fsd_role}")

    def uri(self, rel):
        return f"{self.ws}/{rel}"

    def plant_canary(self, rel):
        p = self.outside / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        content = f"outside canary {rel} {secrets.token_hex(4)}\n"
        p.write_text(content)
        self.canaries[p] = (content, p.stat().st_ino)

    def canaries_alive(self):
        for p, (content, ino) in self.canaries.items():
            if not p.is_file() or p.is_symlink() or p.stat().st_ino != ino or p.read_text() != content:
                return False
        return True

    def start_daemon(self, **kw):
        d = Daemon(self, **kw)
        self.daemons.append(d)
        return d

    def attached(self, timeout=15):
        return wait_until(lambda: self.db.sql(
            "SELECT count(*) FROM mcp_notes.file_workspaces "
            f"WHERE workspace_uri = {lit(self.ws)} AND attached_at IS NOT NULL AND refused IS NULL") == "1", timeout)

    def write(self, rel, content):
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
        return p

    def notes(self):
        """{uri: (note_id, title, body)} of the notes in the workspace."""
        rows = self.db.sql("SELECT coalesce(json_agg(json_build_array(uri, note_id, title, body)), '[]') "
                           f"FROM mcp_notes.notes WHERE mcp_notes.uri_contains({lit(self.ws)}, uri)")
        return {r[0]: (r[1], r[2], r[3]) for r in json.loads(rows)}

    def wait_notes(self, predicate, timeout=15):
        return wait_until(lambda: predicate(self.notes()), timeout)

    def note_id(self, rel):
        n = self.notes().get(self.uri(rel))
        return n[0] if n else None

    def ops(self):
        rows = self.db.sql("SELECT coalesce(json_agg(o ORDER BY o.created_at), '[]') FROM mcp_notes.file_ops o "
                           f"WHERE o.workspace_uri = {lit(self.ws)}")
        return json.loads(rows)

    def audit(self):
        return [a for a in self.db.audit() if a["workspace_uri"] == self.ws]

    def confirm_delete(self, title):
        """notes_delete step 1 and an accept of its only candidate, through
        handle_as (as a gateway sends them): the step-2 outcome."""
        first = self.call("notes_delete", {"workspaceUri": self.ws, "title": title})
        result = first["result"]
        ids = [o["const"] for o in result["inputRequests"]["delete_choice"]["params"]["requestedSchema"]
               ["properties"]["note_id"]["oneOf"]]
        assert len(ids) == 1, ids
        return self.call("notes_delete", {"workspaceUri": self.ws, "title": title},
                         {"requestState": result["requestState"],
                          "inputResponses": {"delete_choice": {"action": "accept",
                                                               "content": {"note_id": ids[0], "confirm": True}}}})

    def call(self, tool, arguments, extra=None):
        """One tools/call as alice through handle_as, in its own serializable
        transaction (the dev entry point; the superuser may call it)."""
        out = self.db.sql(
            "BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT mcp_notes.handle_as('alice', jsonb_build_object("
            f"'method', 'tools/call', 'params', jsonb_build_object('name', {lit(tool)}, 'arguments', "
            f"{lit(json.dumps(arguments))}::jsonb) || {lit(json.dumps(extra or {}))}::jsonb, "
            "'requestId', 1, 'gatewayId', 'fs-test', "
            "'clientCapabilities', '{\"elicitation\": {\"form\": {}}}'::jsonb)); COMMIT;")
        return json.loads(out.splitlines()[-1])

    def cleanup(self):
        for d in self.daemons:
            d.cleanup()
        shutil.rmtree(self.base, ignore_errors=True)
        shutil.rmtree(self.outside, ignore_errors=True)


def delete_via(gw, token, title, workspace, choose=None, action="accept"):
    """Step 1 and step 2 of notes_delete through a gateway: (step-2 response,
    the note id chosen, seconds step 2 took).  choose picks among the offered
    ids (default: the only one)."""
    first = gw.call_delete(token, workspace, title, caps={"elicitation": {"form": {}}})
    state, ids = harness.form_of(first)
    chosen = choose(ids) if choose else ids[0]
    responses = harness.accept(chosen) if action == "accept" else {"delete_choice": {"action": action}}
    t = time.monotonic()
    second = gw.call_delete(token, workspace, title, id=2, state=state, responses=responses,
                            caps={"elicitation": {"form": {}}})
    return second, chosen, time.monotonic() - t
