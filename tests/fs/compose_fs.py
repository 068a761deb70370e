"""The compose stack with the file service (docker/compose.fs.yaml over
docker/compose.yaml), for real with rootful podman: the images built FROM
debian:12, the stack up with mcp-notes-fsd and its volume, a directory
registered as a workspace, its files read into notes, and a notes_delete
through HAProxy that removes the confirmed file (and nothing else) from the
volume; then everything down, volumes included, and the host as it was.

Built on tests/compose/engine.py (the engine, the stack, the host state) of
the compose suite.  Run by tests/suites/fs as its part "compose"; fails,
never skips, when podman cannot run here."""
import hashlib
import http.client
import json
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from tests.compose.engine import HostState, Podman, Stack, StepFailed
from tests.e2e import harness
from tests.fs.fsharness import ROOT

TAG = "ci-" + hashlib.sha256(str(ROOT).encode()).hexdigest()[:10]
PREFIX = "localhost/mcp-notes"
IMAGES = [("db", "postgres"), ("gateway", "gateway"), ("haproxy", "haproxy"), ("fsd", "fsd")]
WS = "file:///srv/vault"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FsCompose:
    def __init__(self, engine):
        self.engine = engine
        self.port = free_port()
        self.pw = {name: secrets.token_hex(16) for name in ("POSTGRES_PASSWORD", "MCP_GATEWAY_PASSWORD",
                                                             "MCP_FSD_PASSWORD")}
        self.token = None
        env = {"MCP_NOTES_DEMO": "1", "MCP_NOTES_PORT": str(self.port), "MCP_NOTES_GATEWAYS": "1",
               "MCP_NOTES_IMAGE_PREFIX": PREFIX, "MCP_NOTES_IMAGE_TAG": TAG, **self.pw}
        self.stack = Stack(engine, f"mcpn-fs-{secrets.token_hex(3)}",
                           ["docker/compose.yaml", "docker/compose.fs.yaml"], env=env, secrets=self.pw.values())

    def build(self):
        base = subprocess.run([str(ROOT / "scripts" / "base-image")], env=self.engine.env, timeout=1200,
                              capture_output=True, text=True)
        if base.returncode != 0:
            raise StepFailed(f"scripts/base-image exited {base.returncode}: {base.stderr[-600:]}")
        for name, dockerfile in IMAGES:
            self.stack.cli("build", "--format", "docker", "--network=host", "-q", "-t", f"{PREFIX}-{name}:{TAG}",
                           "-f", f"docker/{dockerfile}.Dockerfile", str(ROOT), timeout=1500)

    def up(self):
        self.stack.compose("up", "-d", "--no-build", timeout=400, check=True)
        self.stack.wait_running([("db", 1), ("gateway", 1), ("lb", 1), ("fsd", 1)])
        prefix = "mcp_notes demo token for principal demo: "
        deadline = time.monotonic() + 180
        while self.token is None:
            for line in self.stack.logs("db").splitlines():
                if line.startswith(prefix):
                    self.token = line[len(prefix):].strip()
            if self.token is None and time.monotonic() > deadline:
                raise StepFailed("no demo token line in the db log within 180 s")
            time.sleep(1)

    def psql(self, sql):
        s = self.stack
        return s.cli("exec", "-u", "postgres", s.container("db"), "psql", "-X", "-q", "-A", "-t",
                     "-v", "ON_ERROR_STOP=1", "-d", "notes", "-c", sql).stdout.strip()

    def fsd(self, *cmd, check=True):
        return self.stack.cli("exec", "-u", "mcp-fsd", self.stack.container("fsd"), *cmd, check=check)

    def mcp(self, params, timeout=30):
        p = dict(params, _meta=harness.meta(caps={"elicitation": {}}))
        body = json.dumps({"jsonrpc": "2.0", "id": secrets.randbelow(10**6), "method": "tools/call", "params": p})
        h = {"Content-Type": "application/json", "MCP-Protocol-Version": harness.PROTOCOL_VERSION,
             "Mcp-Method": "tools/call", "Mcp-Name": p["name"], "Authorization": f"Bearer {self.token}"}
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("POST", "/mcp", body=body, headers=h)
            r = conn.getresponse()
            return r.status, json.loads(r.read().decode() or "null")
        finally:
            conn.close()

    def wait_ready(self, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            try:
                status, _ = self.mcp({"name": "notes_list", "arguments": {"workspaceUri": harness.WORKSPACE}}, 5)
                if status == 200:
                    return
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise StepFailed(f"the balancer did not answer within {timeout} s")
            time.sleep(1)

    def register(self):
        """The operator's part: the daemon's role, the volume, a directory with two notes, the grant."""
        self.fsd("mkdir", "-p", "/srv/notes/vault/sub")
        self.fsd("sh", "-c", "printf '# Compose file report\\n\\nremove me\\n' > /srv/notes/vault/victim.md; "
                             "printf '# Bystander\\n\\nstay\\n' > /srv/notes/vault/sub/bystander.md")
        self.psql(f"CREATE ROLE mcp_fsd LOGIN PASSWORD {harness.lit(self.pw['MCP_FSD_PASSWORD'])}")
        self.psql("SELECT mcp_notes.add_file_volume('vol1', 'mcp_fsd')")
        self.psql(f"SELECT mcp_notes.add_file_workspace({harness.lit(WS)}, 'vol1', 'vault')")
        self.psql(f"SELECT mcp_notes.grant_workspace('demo', {harness.lit(WS)})")
        deadline = time.monotonic() + 90
        count = f"SELECT count(*) FROM mcp_notes.notes WHERE mcp_notes.uri_contains({harness.lit(WS)}, uri)"
        while self.psql(count) != "2":
            if time.monotonic() > deadline:
                raise StepFailed(f"the files did not become notes: {self.stack.redact(self.stack.logs('fsd'))[-800:]}")
            time.sleep(1)

    def delete_file(self):
        args = {"workspaceUri": WS, "title": "Compose file report"}
        status, js = self.mcp({"name": "notes_delete", "arguments": args})
        state, ids = harness.form_of(harness.Response(status, [], json.dumps(js)))
        status, js = self.mcp({"name": "notes_delete", "arguments": args,
                               "inputResponses": harness.accept(ids[0]), "requestState": state})
        sc = ((js or {}).get("result") or {}).get("structuredContent") or {}
        if status != 200 or sc.get("deleted") is not True:
            raise StepFailed(f"step 2: HTTP {status} {json.dumps(js)[:400]}")
        if self.fsd("test", "-e", "/srv/notes/vault/victim.md", check=False).returncode == 0:
            raise StepFailed("the answer said deleted, but the file is still in the volume")
        if self.fsd("cat", "/srv/notes/vault/sub/bystander.md").stdout != "# Bystander\n\nstay\n":
            raise StepFailed("the other file changed")
        audit = self.psql(f"SELECT string_agg(outcome, ',') FROM mcp_notes.delete_audit WHERE workspace_uri = {harness.lit(WS)}")
        if audit != "accept":
            raise StepFailed(f"audit {audit!r}, want one accept")

    def diagnostics(self):
        return "\n".join(f"--- {svc}\n{self.stack.redact(self.stack.logs(svc, tail=25))}"
                         for svc in ("db", "gateway", "lb", "fsd"))

    def down(self):
        left = self.stack.down()
        if any(left.values()):
            raise StepFailed(f"left behind: {left}")


def main():
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mcpn-composefs-"))
    tmp.chmod(0o700)
    engine = Podman(tmp)
    problem = engine.problem()
    if problem:
        print(f"compose fs podman available ... FAIL: podman cannot run on this machine: {problem}", flush=True)
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    host = HostState()
    run = FsCompose(engine)
    failures, broken = 0, None

    def step(name, fn):
        nonlocal failures, broken
        if broken:
            print(f"{name} ... FAIL: not run: {broken} failed", flush=True)
            failures += 1
            return
        t0 = time.monotonic()
        try:
            fn()
            print(f"{name} ... ok\n#   {name}: {time.monotonic() - t0:.1f} s", flush=True)
        except (StepFailed, subprocess.TimeoutExpired, OSError, KeyError, ValueError) as e:
            print(f"{name} ... FAIL: {' '.join(str(e).split())[:700]}", flush=True)
            failures += 1
            broken = name

    try:
        step("compose fs build the images, fsd included", run.build)
        step("compose fs stack up with the file service", run.up)
        step("compose fs balancer answers", run.wait_ready)
        step("compose fs a directory registered: its files are notes", run.register)
        step("compose fs a delete through HAProxy removes the file from the volume", run.delete_file)
        if broken and "build" not in broken:
            print(run.diagnostics(), file=sys.stderr)
    finally:
        broken = None
        step("compose fs down removes everything", run.down)
        host.restore(engine.running_elsewhere())
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
