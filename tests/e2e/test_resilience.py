"""The database going away and coming back under running gateways, and
SIGTERM draining in-flight requests."""
import signal
import subprocess
import threading
import time

from .harness import (WORKSPACE, Gateway, GatewayTestCase, TableLock, accept, form_of, pg_ctl,
                      unique_title, wait_until)
from .test_legacy import LegacyClient


def cluster_up():
    return subprocess.run(["psql", "-X", "-q", "-c", "SELECT 1"], capture_output=True).returncode == 0


class DatabaseRestartTest(GatewayTestCase):

    def tearDown(self):
        # whatever happened, leave the cluster running for the other tests
        if not cluster_up():
            pg_ctl("start")

    def test_database_stopped_and_restarted_under_the_gateway(self):
        gw = self.start_gateway("--pool-acquire-timeout-ms", "1000")
        title = unique_title()
        note = self.db.add_note(f"{WORKSPACE}/restart-{title[-12:]}.md", title)
        state, _ = form_of(gw.call_delete(self.token, WORKSPACE, title, id=1))
        self.assertEqual(gw.get("/readyz").status, 200)
        legacy = LegacyClient(gw, self.token)
        self.assertEqual(legacy.initialize()[0], 200)

        pg_ctl("stop")
        try:
            self.assertEqual(gw.get("/healthz").status, 200)
            r = gw.get("/readyz")
            self.assertEqual(r.status, 503, r)
            start = time.monotonic()
            r = gw.call_delete(self.token, WORKSPACE, title, id=2, responses=accept(note), state=state)
            self.assertLess(time.monotonic() - start, 5, "a down database must fail fast")
            self.assertRpcError(r, -32603, 503, id=2)
            self.assertEqual(r.headers.get("retry-after"), "1")
            r = gw.rpc("tools/list", id=3, token=self.token)
            self.assertRpcError(r, -32603, 503, id=3)
            # the 2025 era's own call path fails the same way (it once freed
            # an outcome it never read and crashed the gateway)
            status, _, body = legacy.request("tools/list", id=5)
            self.assertEqual(status, 503, body)
            self.assertEqual(body["error"]["code"], -32603, body)
            self.assertIsNone(gw.proc.poll(), "the gateway must stay up")
        finally:
            pg_ctl("start")

        self.assertTrue(wait_until(lambda: gw.get("/readyz").status == 200, 30), gw.log())
        r = gw.call_delete(self.token, WORKSPACE, title, id=4, responses=accept(note), state=state)
        self.assertEqual(self.assertResult(r, id=4)["structuredContent"]["deleted"], True)
        events = [line.get("event") for line in gw.log_lines()]
        self.assertIn("db_down", events)
        self.assertIn("db_up", events)

    def test_restart_between_requests_is_invisible(self):
        gw = self.start_gateway()
        self.assertEqual(gw.rpc("tools/list", id=1, token=self.token).status, 200)
        title = unique_title()
        self.db.add_note(f"{WORKSPACE}/r2-{title[-12:]}.md", title)
        pg_ctl("restart")
        self.assertTrue(wait_until(cluster_up, 30))
        # pooled connections died with the server; the pool notices and reconnects
        r = gw.call_delete(self.token, WORKSPACE, title, id=2)
        self.assertResult(r, id=2, result_type="input_required")

    def test_gateway_started_while_the_database_is_unreachable(self):
        gw = Gateway("host=127.0.0.1 port=1 dbname=nothing user=nobody connect_timeout=2",
                     "--pool-acquire-timeout-ms", "500")
        self.addCleanup(gw.cleanup)
        self.assertEqual(gw.get("/healthz").status, 200)
        self.assertEqual(gw.get("/readyz").status, 503)
        self.assertRpcError(gw.rpc("server/discover", id=1, token=self.token), -32603, 503, id=1)
        self.assertEqual(gw.stop(), 0)


class ShutdownTest(GatewayTestCase):

    def test_sigterm_drains_in_flight_requests_and_exits_0(self):
        gw = self.start_gateway("--drain-timeout-ms", "15000")
        keep_alive = gw.connection()
        self.addCleanup(keep_alive.close)
        self.assertEqual(gw.get("/readyz", conn=keep_alive).status, 200)

        # hold a lock that authenticate() needs, so a request stays in flight
        lock = TableLock(self.db, "mcp_notes.tokens", 3)
        self.addCleanup(lock.release)
        results = {}

        def slow():
            results["slow"] = gw.rpc("tools/list", id="slow", token=self.token, timeout=30)
        t = threading.Thread(target=slow)
        t.start()
        self.assertTrue(wait_until(lambda: lock.waiters() > 0, 10), "the request never reached the database")

        gw.proc.send_signal(signal.SIGTERM)
        self.assertTrue(wait_until(lambda: any(l.get("event") == "draining" for l in gw.log_lines()), 5))
        # stage 1: no new connections, not ready, but alive
        time.sleep(0.2)
        with self.assertRaises(OSError):
            gw.get("/healthz", timeout=2)
        r = gw.get("/readyz", conn=keep_alive)
        self.assertEqual(r.status, 503, r)
        self.assertEqual(r.headers.get("connection"), "close")
        self.assertIsNone(gw.proc.poll())

        t.join(30)
        self.assertEqual(results["slow"].status, 200, f"{results['slow']}\n{gw.log()}")
        self.assertEqual(results["slow"].json["id"], "slow")
        self.assertEqual(gw.proc.wait(20), 0)
        events = [l.get("event") for l in gw.log_lines()]
        self.assertIn("draining", events)
        self.assertEqual(events[-1], "stopped")

    def test_sigint_on_an_idle_gateway_exits_0(self):
        gw = self.start_gateway()
        self.assertEqual(gw.stop(signal.SIGINT), 0)

    def test_drain_deadline_cancels_and_still_exits_0(self):
        gw = self.start_gateway("--drain-timeout-ms", "500")
        lock = TableLock(self.db, "mcp_notes.tokens", 30)
        self.addCleanup(lock.release)
        results = {}
        t = threading.Thread(target=lambda: results.update(
            r=gw.rpc("tools/list", id=1, token=self.token, timeout=30)))
        t.start()
        self.assertTrue(wait_until(lambda: lock.waiters() > 0, 10))
        start = time.monotonic()
        gw.proc.send_signal(signal.SIGTERM)
        self.assertEqual(gw.proc.wait(15), 0)
        self.assertLess(time.monotonic() - start, 10)
        t.join(10)
        self.assertEqual(results["r"].status, 503, results["r"])
        self.assertEqual(results["r"].error["code"], -32603)
        self.assertIn("drain_deadline", [l.get("event") for l in gw.log_lines()])
