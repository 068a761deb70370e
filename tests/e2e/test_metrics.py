"""GET /metrics on --metrics-listen: Prometheus text that promtool accepts,
and counts that follow the requests actually made."""
import re
import shutil
import socket
import subprocess

from tests.e2e import harness
from tests.e2e.harness import GatewayTestCase

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$')


def parse(text):
    """{(name, 'label="v",...'): float} of an exposition."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise AssertionError(f"not a sample line: {line!r}")
        samples[(m.group(1), (m.group(2) or "{}")[1:-1])] = float(m.group(3))
    return samples


class MetricsTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway("--metrics-listen", "127.0.0.1:0", "--pool-size", "3")
        ports = [line["port"] for line in cls.gw.log_lines() if line.get("event") == "metrics_listening"]
        assert ports, cls.gw.log()
        cls.metrics_port = int(ports[0])

    def scrape(self, path="/metrics", method="GET"):
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", self.metrics_port, timeout=10)
        try:
            conn.request(method, path)
            r = conn.getresponse()
            return r.status, r.getheader("Content-Type"), r.read().decode()
        finally:
            conn.close()

    def samples(self):
        status, ctype, body = self.scrape()
        self.assertEqual(status, 200, body)
        return parse(body)

    def test_promtool_accepts_the_exposition(self):
        promtool = shutil.which("promtool")
        self.assertIsNotNone(promtool, "promtool is not installed (apt-get install -y prometheus)")
        self.gw.rpc("tools/list", token=self.token)        # some non-zero series too
        status, ctype, body = self.scrape()
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/plain; version=0.0.4"), ctype)
        proc = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # promtool only warns about style: there must be no warning either
        self.assertEqual(proc.stdout.strip() + proc.stderr.strip(), "", "promtool: " + proc.stdout + proc.stderr)

    def test_tools_list_counted_exactly(self):
        key = ("mcp_notes_requests_total", 'method="tools/list",outcome="ok"')
        hist = ("mcp_notes_request_duration_seconds_count", 'method="tools/list"')
        inf = ("mcp_notes_request_duration_seconds_bucket", 'method="tools/list",le="+Inf"')
        before = self.samples()
        n = 7
        for i in range(n):
            self.assertEqual(self.gw.rpc("tools/list", id=i + 1, token=self.token).status, 200)
        after = self.samples()
        self.assertEqual(after[key] - before[key], n)
        self.assertEqual(after[hist] - before[hist], n)
        self.assertEqual(after[inf] - before[inf], n)
        self.assertGreater(after[("mcp_notes_request_duration_seconds_sum", 'method="tools/list"')],
                           before[("mcp_notes_request_duration_seconds_sum", 'method="tools/list"')])

    def test_errors_counted_by_code_and_method(self):
        err = ("mcp_notes_jsonrpc_errors_total", 'code="-32601"')
        other = ("mcp_notes_requests_total", 'method="other",outcome="error"')
        rejected = ("mcp_notes_requests_total", 'method="none",outcome="rejected"')
        before = self.samples()
        resp = self.gw.rpc("no/such/method", token=self.token)
        self.assertEqual(resp.error["code"], -32601, resp)
        self.assertEqual(self.gw.post_raw("{}", content_type="text/plain").status, 415)
        after = self.samples()
        self.assertEqual(after[err] - before[err], 1)
        self.assertEqual(after[other] - before[other], 1)
        self.assertEqual(after[rejected] - before[rejected], 1)

    def test_tools_call_round_trips_pool_and_build_info(self):
        before = self.samples()
        title = harness.unique_title()
        self.db.add_note(f"{harness.WORKSPACE}/{title.replace(' ', '-')}.md", title)
        state, ids = harness.form_of(self.gw.call_delete(self.token, harness.WORKSPACE, title))
        resp = self.gw.call_delete(self.token, harness.WORKSPACE, title, id=2, responses=harness.accept(ids[0]),
                                   state=state)
        self.assertEqual(resp.result["resultType"], "complete", resp)
        after = self.samples()
        calls = ("mcp_notes_requests_total", 'method="tools/call",outcome="ok"')
        self.assertEqual(after[calls] - before[calls], 2)
        trips = ("mcp_notes_db_round_trips_total", "")
        self.assertGreaterEqual(after[trips] - before[trips], 2)
        self.assertEqual(after[("mcp_notes_db_pool_size", "")], 3)
        self.assertEqual(after[("mcp_notes_db_pool_in_use", "")], 0)
        self.assertEqual(after[("mcp_notes_db_pool_waiting", "")], 0)
        self.assertGreaterEqual(after[("mcp_notes_worker_threads", "")], 1)
        self.assertGreaterEqual(after[("mcp_notes_http_open_connections", "")], 0)
        info = [labels for (name, labels) in after if name == "mcp_notes_build_info"]
        self.assertEqual(len(info), 1)
        self.assertIn(f'extension="{harness.EXTENSION_VERSION}"', info[0])
        self.assertIn('gateway="', info[0])

    def test_token_cache_hits_and_invalidations(self):
        hits = ("mcp_notes_token_cache_lookups_total", 'result="hit"')
        inval = ("mcp_notes_token_cache_invalidations_total", "")
        # the listener subscribes shortly after start: wait for the cache to be on
        self.assertTrue(harness.wait_until(lambda: any(
            line.get("event") == "auth_cache_on" for line in self.gw.log_lines()), 15), self.gw.log())
        before = self.samples()
        for i in range(3):
            self.gw.rpc("tools/list", id=i, token=self.token)
        self.assertGreaterEqual(self.samples()[hits] - before[hits], 1)
        spare = self.db.issue_token()           # an insert notifies nobody: a new token was never cached
        self.db.sql(f"SELECT mcp_notes.revoke_token({harness.lit(spare)})")     # an update does
        self.assertTrue(harness.wait_until(lambda: self.samples()[inval] > before[inval], 15))

    def test_only_get_metrics(self):
        self.assertEqual(self.scrape("/mcp")[0], 404)
        self.assertEqual(self.scrape("/metrics", "POST")[0], 405)
        self.assertEqual(self.scrape("/metrics", "HEAD")[0], 200)

    def test_off_by_default_and_never_on_the_mcp_listener(self):
        gw = self.start_gateway()
        self.assertFalse([line for line in gw.log_lines() if line.get("event") == "metrics_listening"])
        self.assertEqual(gw.get("/metrics").status, 404)
        self.assertEqual(self.gw.get("/metrics").status, 404)

    def test_metrics_listen_address_taken(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            port = s.getsockname()[1]
            proc = subprocess.run([str(harness.GATEWAY), "--listen", "127.0.0.1:0", "--db", self.db.conninfo(),
                                   "--metrics-listen", f"127.0.0.1:{port}"],
                                  capture_output=True, text=True, timeout=30)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("metrics-listen", proc.stderr)

    def test_bad_metrics_address_refused(self):
        proc = subprocess.run([str(harness.GATEWAY), "--metrics-listen", "nonsense"],
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--metrics-listen expects HOST:PORT", proc.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
