"""The compose stack with the file service (docker/compose.fs.yaml over
docker/compose.yaml), for real with rootful podman: the images built FROM
debian:12, the stack up with mcp-notes-fsd and its volume, a directory
registered as a workspace, its files read into notes, and a notes_delete
through HAProxy that removes the confirmed file (and nothing else) from the
volume; then everything down, volumes included.

It reuses the Stack of tests/suites/compose (engine checks, build, up, the
balancer, teardown) and adds the override file and the fsd image.  Run by
tests/suites/fs as its part "compose"; fails, never skips, when podman
cannot run here."""
import importlib.machinery
import importlib.util
import json
import secrets
import shutil
import subprocess
import sys
import time

from tests.e2e import harness
from tests.fs.fsharness import ROOT

_loader = importlib.machinery.SourceFileLoader("compose_suite", str(ROOT / "tests" / "suites" / "compose"))
_spec = importlib.util.spec_from_loader("compose_suite", _loader)
compose = importlib.util.module_from_spec(_spec)
_loader.exec_module(compose)

WS = "file:///srv/vault"


class FsStack(compose.Stack):
    def __init__(self):
        super().__init__()
        self.fsd_password = secrets.token_hex(16)
        self.passwords.append(self.fsd_password)
        self.env["MCP_FSD_PASSWORD"] = self.fsd_password

    def compose(self, *args, timeout=300):
        proc = self.run(["podman-compose", "-p", self.project, "-f", str(ROOT / "docker" / "compose.yaml"),
                         "-f", str(ROOT / "docker" / "compose.fs.yaml"), *args], timeout=timeout, check=False)
        with self.compose_log.open("a") as f:
            f.write(self.redact(proc.stdout + proc.stderr))
        return proc

    def build(self):
        super().build()
        self.podman("build", "--network=host", "--format", "docker", "-q", "-t", f"mcp-notes-fsd:{self.tag}",
                    "-f", "docker/fsd.Dockerfile", str(ROOT), timeout=compose.BUILD_TIMEOUT)

    def fsd(self, *cmd, check=True):
        return self.podman("exec", "-u", "mcp-fsd", self.container("fsd"), *cmd, check=check)

    def register(self):
        """The operator's part: the daemon's role, the volume, a directory with two notes, the grant."""
        deadline = time.monotonic() + 60
        while self.container("fsd") not in self.podman("ps", "--format", "{{.Names}}").stdout.split():
            if time.monotonic() > deadline:
                raise compose.StepFailed("the fsd container is not running")
            time.sleep(1)
        self.fsd("mkdir", "-p", "/srv/notes/vault/sub")
        self.fsd("sh", "-c", "printf '# Compose file report\\n\\nremove me\\n' > /srv/notes/vault/victim.md; "
                             "printf '# Bystander\\n\\nstay\\n' > /srv/notes/vault/sub/bystander.md")
        self.psql(f"CREATE ROLE mcp_fsd LOGIN PASSWORD {harness.lit(self.fsd_password)}")
        self.psql("SELECT mcp_notes.add_file_volume('vol1', 'mcp_fsd')")
        self.psql(f"SELECT mcp_notes.add_file_workspace({harness.lit(WS)}, 'vol1', 'vault')")
        self.psql(f"SELECT mcp_notes.grant_workspace('demo', {harness.lit(WS)})")
        deadline = time.monotonic() + 90
        while self.psql(f"SELECT count(*) FROM mcp_notes.notes WHERE mcp_notes.uri_contains({harness.lit(WS)}, uri)") != "2":
            if time.monotonic() > deadline:
                logs = self.podman("logs", "--tail", "20", self.container("fsd"), check=False)
                raise compose.StepFailed(f"the files did not become notes: {self.redact(logs.stderr + logs.stdout)}")
            time.sleep(1)

    def delete_file(self):
        args = {"workspaceUri": WS, "title": "Compose file report"}
        status, js, _ = self.mcp("tools/call", {"name": "notes_delete", "arguments": args})
        state, ids = harness.form_of(harness.Response(status, [], json.dumps(js)))
        status, js, _ = self.mcp("tools/call", {"name": "notes_delete", "arguments": args,
                                                "inputResponses": harness.accept(ids[0]), "requestState": state})
        sc = ((js or {}).get("result") or {}).get("structuredContent") or {}
        if status != 200 or sc.get("deleted") is not True:
            raise compose.StepFailed(f"step 2: HTTP {status} {json.dumps(js)[:400]}")
        if self.fsd("test", "-e", "/srv/notes/vault/victim.md", check=False).returncode == 0:
            raise compose.StepFailed("the answer said deleted, but the file is still in the volume")
        if self.fsd("cat", "/srv/notes/vault/sub/bystander.md").stdout != "# Bystander\n\nstay\n":
            raise compose.StepFailed("the other file changed")
        audit = self.psql("SELECT string_agg(outcome, ',') FROM mcp_notes.delete_audit "
                          f"WHERE workspace_uri = {harness.lit(WS)}")
        if audit != "accept":
            raise compose.StepFailed(f"audit {audit!r}, want one accept")

    def diagnostics(self):
        logs = self.podman("logs", "--tail", "30", self.container("fsd"), check=False)
        return super().diagnostics() + f"\n--- {self.container('fsd')}\n" + self.redact(logs.stdout + logs.stderr)


def main():
    stack = FsStack()
    problem = compose.podman_problem(stack.env)
    if problem:
        print(f"compose podman available ... FAIL: podman cannot run on this machine: {problem}", flush=True)
        shutil.rmtree(stack.tmp, ignore_errors=True)
        return 1
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
            print(f"{name} ... ok", flush=True)
            print(f"#   {name}: {time.monotonic() - t0:.1f} s", flush=True)
        except (compose.StepFailed, subprocess.TimeoutExpired, OSError, KeyError, ValueError) as e:
            print(f"{name} ... FAIL: {' '.join(str(e).split())[:600]}", flush=True)
            failures += 1
            broken = name

    try:
        step("compose fs build the images, fsd included", stack.build)
        step("compose fs stack up with the file service", stack.up)
        step("compose fs balancer answers", lambda: stack.wait_ready(1))
        step("compose fs a directory registered: its files are notes", stack.register)
        step("compose fs a delete through HAProxy removes the file from the volume", stack.delete_file)
        if broken and "build" not in broken:
            print(stack.diagnostics(), file=sys.stderr)
    finally:
        broken = None
        step("compose fs down removes everything", stack.down)
        stack.remove_images()
        stack.podman("rmi", "-f", f"mcp-notes-fsd:{stack.tag}", check=False) \
            if __import__("os").environ.get("MCP_NOTES_COMPOSE_RMI") == "1" else None
        shutil.rmtree(stack.tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
