"""The 2025-11-25 server scenarios of the official conformance suite
(@modelcontextprotocol/conformance, `server --spec-version 2025-11-25`)
against one gateway, for tests/suites/clients.

The suite cannot send a bearer token, and the legacy era serves bearer
tokens only (no development principal), so the suite talks to an HAProxy on
loopback that adds `Authorization: Bearer TOKEN` to every request and passes
everything else (SSE streams included) through unchanged.
The suite's fixture tools, resources and prompts come from
share/conformance-fixture.sql, loaded as superuser when the file exists;
without it the scenarios that need a fixture fail (and say why).

One test line per scenario the suite scores, `conformance-2025-11-25.SCENARIO`:
the `server:` list of the pinned package's requirements/2025-11-25.yaml (30
scenarios, logging and resource subscriptions among them); a scenario passes
when none of its checks is a FAILURE, and a scored scenario the suite
produced no result for fails.  What the suite runs beyond that list (e.g.
server-session-lifecycle, which the file does not score) is listed with its
result on stderr and not counted, as the suite counts it.
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e.harness import Database, Gateway, wait_until  # noqa: E402
from tests.reliability.stack import HAPROXY, HAProxy, free_port  # noqa: E402

FIXTURE = ROOT / "share" / "conformance-fixture.sql"
CONFORMANCE = ROOT / "tests" / "node" / "node_modules" / ".bin" / "conformance"
SPEC = "2025-11-25"
PREFIX = f"conformance-{SPEC}"

REQUIREMENTS = ROOT / "tests" / "node" / "node_modules" / "@modelcontextprotocol" / "conformance" / "requirements"


def scored_scenarios():
    """The `server:` list of the frozen 2025-11-25 requirement set the package ships."""
    text = (REQUIREMENTS / f"{SPEC}.yaml").read_text()
    block = re.search(r"^server:\n((?:  - .*\n)+)", text, re.M)
    return [line.strip()[2:] for line in block.group(1).splitlines()]


RESULT_DIR = re.compile(r"^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")


def scenario_results(out_dir):
    """{scenario: [failed check descriptions]} from the suite's output directory."""
    results = {}
    for d in sorted(pathlib.Path(out_dir).iterdir()):
        m = RESULT_DIR.match(d.name)
        checks_file = d / "checks.json"
        if not m or not checks_file.exists():
            continue
        checks = json.loads(checks_file.read_text())
        results[m.group(1)] = [f"{c.get('id')}: {c.get('errorMessage') or c.get('status')}"
                               for c in checks if c.get("status") == "FAILURE"]
    return results


class TokenProxy(HAProxy):
    """HAProxy on a free loopback port in front of one gateway, adding the bearer token
    (the balancer of tests/reliability with another configuration: its wait and stop)."""

    def __init__(self, gateway_port, token):  # noqa: a configuration of its own, not HAProxy's
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="mcp-notes-token-proxy-"))
        self.port = free_port()
        self.sock = self.dir / "admin.sock"
        self.log_path = self.dir / "haproxy.log"
        config = self.dir / "haproxy.cfg"
        config.touch(mode=0o600)
        config.write_text("\n".join([
            "global", "    maxconn 256", f"    stats socket {self.sock} mode 600 level admin",
            "defaults", "    mode http", "    timeout connect 2s", "    timeout client 120s",
            "    timeout server 120s", "    timeout http-request 10s",
            "frontend conformance", f"    bind 127.0.0.1:{self.port}",
            f'    http-request set-header Authorization "Bearer {token}"',
            "    default_backend gateway",
            "backend gateway", f"    server gw 127.0.0.1:{gateway_port}", ""]))
        self.log_file = open(self.log_path, "wb")
        self.proc = subprocess.Popen([HAPROXY, "-f", str(config), "-db"], stdin=subprocess.DEVNULL,
                                     stdout=self.log_file, stderr=subprocess.STDOUT)
        if not wait_until(self._listening, 15, 0.05):
            self.stop()
            raise RuntimeError(f"the token proxy did not listen on {self.port}")


def run_legacy_conformance(node, report, wanted, note, run_node):
    db = Database("clientsconf")
    gw = proxy = None
    work = tempfile.mkdtemp(prefix="mcp-notes-conformance-")
    out_dir = pathlib.Path(work) / "results"
    out_dir.mkdir()
    try:
        if FIXTURE.exists():
            subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db.name, "-f", str(FIXTURE)],
                           check=True, capture_output=True, text=True, timeout=120)
        gw = Gateway(db.conninfo(), gateway_id="clients-conformance")
        proxy = TokenProxy(gw.port, db.issue_token())
        rc, out, err = run_node(node, [str(CONFORMANCE), "server", "--url", f"http://127.0.0.1:{proxy.port}/mcp",
                                       "--spec-version", SPEC, "-o", str(out_dir)], timeout=600)
        results = scenario_results(out_dir)
        if not results:
            report(f"{PREFIX}.run", f"the suite produced no results (rc {rc}): {out[-300:]} {err[-300:]}")
            return
        fixture_note = "" if FIXTURE.exists() else f" (no {FIXTURE.relative_to(ROOT)}: the suite's fixtures are missing)"
        scored = scored_scenarios()
        counted = passed = 0
        for scenario in scored:
            name = f"{PREFIX}.{scenario}"
            if not wanted(name) and not wanted(PREFIX):
                continue
            failed = results.get(scenario, ["the suite produced no result for it"])
            counted += 1
            passed += not failed
            report(name, None if not failed else "; ".join(failed) + fixture_note)
        for scenario, failed in results.items():
            if scenario not in scored:
                note(f"{PREFIX}.{scenario}: {'passes' if not failed else 'fails'}, not scored by {SPEC}")
        note(f"{PREFIX}: {passed} of {counted} scored server scenarios pass{fixture_note}")
    finally:
        if proxy:
            proxy.stop()
        if gw:
            gw.cleanup()
        db.drop()
        shutil.rmtree(work, ignore_errors=True)
