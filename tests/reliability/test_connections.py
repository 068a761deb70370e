"""Hostile connections: clients that disconnect mid-request, slowloris clients
and 10,000 idle connections.  The gateway must keep serving other clients,
and its memory (VmRSS) and thread count must stay bounded and come back.

The attacking connections come from 127.0.0.2 and the well-behaved client
from 127.0.0.1: two hosts, as far as the gateway can tell.  (A gateway has a
connection limit, and requests waiting on the database each hold a worker
thread; what it can promise is that one client address cannot take every
slot: --max-connections-per-ip.  Against
many attacking addresses the load balancer in front is the defence; the
last test shows HAProxy absorbing 10,000 idle connections from 200 addresses.)"""
import errno
import json
import socket
import threading
import time

from tests.e2e.harness import PROTOCOL_VERSION, WORKSPACE, Gateway, meta
from tests.reliability.base import ReliabilityCase, Summary, accept, is_already_used, is_deleted
from tests.reliability.stack import (Endpoint, Stack, proc_status, psql, raise_nofile, reps, wait_until)

ATTACKER = "127.0.0.2"
# HAProxy needs two descriptors per proxied connection and this machine's hard
# RLIMIT_NOFILE may be as low as 20,000
LB_MAXCONN = 9800
MB = 1024


def connect_from(port, source=ATTACKER, timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def reset_close(s):
    """Close with RST instead of FIN."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()


def closed_by_peer(s):
    """True when the server has given up on the connection: closed or reset
    it, or answered (an error such as 408) a request that is not complete."""
    timeout = s.gettimeout()
    s.settimeout(0.0)               # a socket with a timeout would wait for data
    try:
        s.recv(1, socket.MSG_PEEK)
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.settimeout(timeout)


def mcp_request(token, method, params, id):
    p = dict(params)
    p["_meta"] = meta({"elicitation": {}} if method == "tools/call" else None)
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": p}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nMCP-Protocol-Version: {PROTOCOL_VERSION}\r\n"
            f"Mcp-Method: {method}\r\nAuthorization: Bearer {token}\r\n")
    if method == "tools/call":
        head += f"Mcp-Name: {p['name']}\r\n"
    return head.encode() + b"\r\n" + body


def slowloris(port, sockets, seconds, on_tick):
    """`sockets` connections from ATTACKER sending a never-ending header a
    byte at a time (one byte per connection every 0.2 s), reopening every
    connection the server closes; on_tick() runs between rounds.
    Returns (connections attempted, closed by the server)."""
    line = b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + b"X-Slow: " + b"a" * 10000
    conns = []
    attempted = closed = 0

    def open_one():
        nonlocal attempted
        attempted += 1
        try:
            return [connect_from(port, timeout=2), 0]
        except OSError:
            return None
    for _ in range(sockets):
        conns.append(open_one())
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            for i, c in enumerate(conns):
                if c is None or closed_by_peer(c[0]):
                    if c is not None:
                        closed += 1
                        c[0].close()
                    conns[i] = open_one()
                    continue
                try:
                    c[0].send(line[c[1]:c[1] + 1])
                    c[1] += 1
                except OSError:
                    pass
            on_tick()
            time.sleep(0.2)
    finally:
        for c in conns:
            if c is not None:
                c[0].close()
    return attempted, closed


def idle_flood(port, total, batch, sources, between, pause=0.2):
    """Open `total` idle connections in batches, `pause` seconds apart; keep
    the ones the server keeps, close the ones it refuses.  Returns (held,
    refused)."""
    held, refused = [], 0
    k = 0
    while k < total:
        fresh = []
        for _ in range(min(batch, total - k)):
            src = sources[k % len(sources)]
            k += 1
            try:
                fresh.append(connect_from(port, src, timeout=2))
            except OSError as e:
                if e.errno not in (errno.ECONNREFUSED, errno.ECONNRESET, errno.ETIMEDOUT, None):
                    raise
                refused += 1
        time.sleep(pause)
        for s in fresh:
            if closed_by_peer(s):
                refused += 1
                s.close()
            else:
                held.append(s)
        between()
    return held, refused


def settle_threads(pid, timeout=5):
    """Wait until the process's thread count stops changing (worker threads
    of earlier requests have ended)."""
    last = proc_status(pid)["Threads"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = proc_status(pid)["Threads"]
        if now == last:
            return now
        last = now
    return last


class Sampler:
    """VmRSS / Threads of one process: before, the maximum during, after."""

    def __init__(self, pid):
        self.pid = pid
        self.before = proc_status(pid)
        self.peak = dict(self.before)
        self.after = None

    def sample(self):
        st = proc_status(self.pid)
        for k in ("VmRSS", "Threads", "fds"):
            self.peak[k] = max(self.peak[k], st[k])
        return st

    def finish(self):
        self.after = proc_status(self.pid)
        return self.after

    def text(self):
        return (f"VmRSS before {self.before['VmRSS']} kB, peak during {self.peak['VmRSS']} kB, after "
                f"{self.after['VmRSS']} kB; threads {self.before['Threads']}/{self.peak['Threads']}/"
                f"{self.after['Threads']}")


class ConnectionAbuseTest(ReliabilityCase):
    LABEL = "conn"

    def setUp(self):
        self.gw = Gateway(self.db.conninfo(), gateway_id=f"conn-{self._testMethodName[-12:]}")
        self.addCleanup(self.gw.cleanup)
        self.ep = Endpoint(self.gw.port)
        listening = [l for l in self.gw.log_lines() if l.get("event") == "listening"][0]
        self.max_conn = listening["max_connections"]
        self.per_ip = listening["max_connections_per_ip"]
        self.assertLess(self.per_ip, self.max_conn, "one address must not be able to take every slot")
        # warm up (tool descriptors cached, a pooled connection open), then measure
        self.assertEqual(self.ep.rpc("tools/list", id=0, token=self.token).status, 200)
        settle_threads(self.gw.proc.pid)
        self.sampler = Sampler(self.gw.proc.pid)
        self.served = []

    def serve_other_client(self):
        """The well-behaved client (127.0.0.1): tools/list must answer 200 promptly."""
        t = time.monotonic()
        try:
            r = self.ep.rpc("tools/list", id="other", token=self.token, timeout=10)
        except OSError as e:
            self.fail(f"another client was refused: {e!r}")
        latency = time.monotonic() - t
        self.assertEqual(r.status, 200, f"another client was not served: {r}")
        self.served.append(latency)
        self.sampler.sample()
        return latency

    def assert_recovers(self):
        """Threads back to the idle count; memory bounded."""
        self.assertTrue(wait_until(lambda: proc_status(self.gw.proc.pid)["Threads"] <= self.sampler.before["Threads"],
                                   10), f"worker threads not released: {proc_status(self.gw.proc.pid)}")
        after = self.sampler.finish()
        # at most max_conn workers of 512 KiB stack + 16 KiB buffers: anything
        # near that bound means a leak or unbounded growth
        self.assertLess(self.sampler.peak["VmRSS"] - self.sampler.before["VmRSS"], 48 * MB, self.sampler.text())
        self.assertLess(after["VmRSS"] - self.sampler.before["VmRSS"], 16 * MB, self.sampler.text())
        # the attacking address held at most its cap (+ the other client's connection)
        self.assertLessEqual(self.sampler.peak["Threads"], self.sampler.before["Threads"] + self.per_ip + 2,
                             self.sampler.text())
        self.assertIsNone(self.gw.proc.poll())
        self.assertLess(max(self.served), 2.0, f"other clients waited: {max(self.served):.2f} s")

    # ------------------------------------------------------------------

    def test_clients_disconnecting_mid_request(self):
        port = self.gw.port
        # (a) headers and part of the body, then FIN or RST, in batches below the per-address cap
        batches = reps(15, 100)
        batch = min(20, self.per_ip - 2)
        for b in range(batches):
            socks = []
            for i in range(batch):
                s = connect_from(port)
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 4000\r\n\r\n" + b'{"jsonrpc":"2.0","id":1,' + b" " * 500)
                socks.append(s)
            for i, s in enumerate(socks):
                reset_close(s) if i % 2 else s.close()
            self.serve_other_client()

        # (b) complete tools/call requests waiting in the database when their clients leave.
        # Six of them: each holds one of the 8 pooled database connections (--pool-size)
        # while it waits, and the pool is what bounds database work by design.
        ws = f"{WORKSPACE}/disconnect"
        n_held = 6
        notes = self.make_notes(n_held + 1, ws)
        states = [self.step1(self.ep, ws, title, id=f"ask{i}")[0] for i, (_, title, _) in enumerate(notes)]
        held = notes[:n_held]
        self.sql.query("BEGIN")
        self.addCleanup(lambda: self.sql.query("ROLLBACK", check=False))
        self.sql.query("SELECT note_id FROM mcp_notes.notes WHERE note_id IN ("
                       + ", ".join(f"'{n[0]}'" for n in held) + ") FOR UPDATE")
        socks = []
        for i, (note_id, title, _) in enumerate(held):
            s = connect_from(port)
            s.sendall(mcp_request(self.token, "tools/call",
                                  {"name": "notes_delete", "arguments": {"workspaceUri": ws, "title": title},
                                   "inputResponses": accept(note_id), "requestState": states[i]}, f"gone{i}"))
            socks.append(s)
            self.addCleanup(s.close)
        waiting = lambda: int(psql(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{self.db.name}' "
                                   f"AND wait_event_type = 'Lock'"))
        self.assertTrue(wait_until(lambda: waiting() == n_held, 15), "the accepts did not reach the row lock")
        for i, s in enumerate(socks):
            reset_close(s) if i % 2 else s.close()
        # their workers are blocked in the database: others are still served, flows too
        self.serve_other_client()
        note_id, title, _ = notes[n_held]
        r = self.ep.call_delete(self.token, ws, title, id="free", responses=accept(note_id), state=states[n_held])
        self.assertTrue(is_deleted(r), r)
        self.sql.query("COMMIT")
        # the abandoned requests complete (their decision stands), are logged, and their workers end
        self.assertTrue(wait_until(lambda: sum(1 for l in self.gw.log_lines() if l.get("event") == "request"
                                               and str(l.get("rpc_id", "")).startswith('"gone')) == n_held, 15),
                        self.gw.log()[-3000:])
        self.assertEqual(self.assert_each_deleted_note_audited_once([n[0] for n in notes]), (n_held + 1, 0))
        # a client that lost its answer and asks again learns the state was used
        r = self.ep.call_delete(self.token, ws, held[0][1], id="again", responses=accept(held[0][0]),
                                state=states[0])
        self.assertTrue(is_already_used(r), r)
        self.serve_other_client()
        self.assert_recovers()
        self.assert_spent_matches_audit()
        Summary.add(f"fault client disconnects: {batches * batch} partial requests dropped (FIN/RST), {n_held} complete "
                    f"accepts abandoned while waiting in the database (all completed: deleted once, retry -> "
                    f"already used); other client served {len(self.served)}/{len(self.served)}, slowest "
                    f"{max(self.served) * 1000:.0f} ms; {self.sampler.text()}")

    # ------------------------------------------------------------------

    def test_slowloris(self):
        seconds = reps(6, 30)
        attempted, closed = slowloris(self.gw.port, 100, seconds, self.serve_other_client)
        self.serve_other_client()
        self.assert_recovers()
        self.assertGreaterEqual(attempted, 100)
        Summary.add(f"fault slowloris (direct): 100 slow connections from one address for {seconds} s "
                    f"({attempted} attempted, {closed} refused/closed by the gateway, at most {self.per_ip} held); "
                    f"other client served {len(self.served)}/{len(self.served)}, slowest "
                    f"{max(self.served) * 1000:.0f} ms; {self.sampler.text()}")

    # ------------------------------------------------------------------

    def test_10000_idle_connections(self):
        total = 10_000
        limit = raise_nofile(total + 2000)
        self.assertGreaterEqual(limit, total // 2 + 1000, "RLIMIT_NOFILE too low for this test")
        batch = 1000
        held, refused = idle_flood(self.gw.port, total, batch, [ATTACKER], self.serve_other_client)
        try:
            self.assertLessEqual(len(held), self.per_ip, "the gateway held more than its per-address cap")
            self.assertEqual(len(held) + refused, total)
            self.serve_other_client()
            during = self.sampler.sample()
        finally:
            for s in held:
                s.close()
        self.serve_other_client()
        self.assert_recovers()
        Summary.add(f"fault 10,000 idle connections (direct, one address): held {len(held)} (cap {self.per_ip} of "
                    f"{self.max_conn}), refused {refused}; other client served {len(self.served)}/{len(self.served)}, "
                    f"slowest {max(self.served) * 1000:.0f} ms; VmRSS with them held {during['VmRSS']} kB; "
                    f"{self.sampler.text()}")


class BalancerAbuseTest(ReliabilityCase):
    """The same abuse at the load balancer of the production shape."""
    LABEL = "lbconn"

    def test_slowloris_and_10000_idle_connections_at_the_balancer(self):
        raise_nofile(14000)
        stack = Stack(self.db, 2, lb_maxconn=LB_MAXCONN)
        self.addCleanup(stack.close)
        lb = stack.lb
        for gw in stack.gateways:
            settle_threads(gw.proc.pid)
        samplers = [Sampler(gw.proc.pid) for gw in stack.gateways]
        served = []

        def other():
            t = time.monotonic()
            try:
                r = lb.rpc("tools/list", id="other", token=self.token, timeout=10)
            except OSError as e:
                self.fail(f"another client was refused: {e!r}")
            self.assertEqual(r.status, 200, r)
            served.append(time.monotonic() - t)
            for s in samplers:
                s.sample()

        # slowloris at HAProxy: it keeps incomplete requests to itself and drops them after
        # `timeout http-request` (5 s); the gateways never see them
        seconds = reps(7, 20)
        t0 = time.monotonic()
        attempted, closed = slowloris(stack.haproxy.port, 200, seconds, other)
        self.assertGreaterEqual(closed, 200, "HAProxy did not drop the slow requests")
        for s in samplers:
            self.assertLessEqual(s.peak["Threads"], s.before["Threads"] + 4, "slow requests reached a gateway")
        # 10,000 idle connections from 200 addresses
        sources = [f"127.0.0.{i}" for i in range(2, 202)]
        # HAProxy drops a connection that sends no request within `timeout http-request`
        # (5 s); at this pace it holds at most ~8,000 at once, within its maxconn here
        held, refused = idle_flood(stack.haproxy.port, 10_000, 1000, sources, other, pause=0.6)
        try:
            other()
        finally:
            for s in held:
                s.close()
        other()
        for s in samplers:
            s.finish()
            self.assertLessEqual(s.peak["Threads"], s.before["Threads"] + 4, "idle connections reached a gateway")
        self.assertLess(max(served), 2.0)
        Summary.add(f"fault at HAProxy: slowloris 200 connections for {seconds} s ({closed} dropped by "
                    f"timeout http-request), then 10,000 idle connections from 200 addresses (held {len(held)}, "
                    f"refused {refused}); other client served {len(served)}/{len(served)}, slowest "
                    f"{max(served) * 1000:.0f} ms; gateway threads never above idle+4; gateway "
                    + "; ".join(s.text() for s in samplers))
