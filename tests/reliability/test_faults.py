"""Faults under a load of concurrent notes_delete flows through HAProxy:
kill -9 of one gateway, and PostgreSQL restarted with fast and immediate
shutdown.  Afterwards every note is either deleted with exactly one audit row
or still present, and no state was spent without its outcome recorded."""
import collections
import queue
import threading
import time

from tests.e2e.harness import WORKSPACE
from tests.reliability.base import (ReliabilityCase, Summary, accept, is_already_used, is_deleted)
from tests.reliability.stack import (Endpoint, Stack, cluster_up, pg_cluster_restart, pg_cluster_start,
                                     pg_cluster_stop, reps, wait_until)


class Outcome:
    """What one client saw for one request."""
    __slots__ = ("start", "end", "phase", "status", "served_by", "generated_by", "code", "note", "exc")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))

    def __repr__(self):
        return (f"<{self.phase} {self.status} by {self.served_by} gen {self.generated_by} code {self.code} "
                f"exc {self.exc!r} t={self.start:.3f}..{self.end:.3f}>")


class FlowLoad:
    """`clients` threads running the whole delete flow (step 1, accept) for
    every note of the queue through one endpoint.  A request that ends in an
    error is recorded; an accept whose outcome is unknown (5xx) is answered
    again with the same state until the answer is definite (deleted, or
    state_already_used: some earlier attempt committed).  `retry_503_after`
    (seconds) keeps retrying 503s; otherwise a flow whose step 1 failed is
    started over."""

    def __init__(self, case, endpoint, workspace, notes, clients, retry_503_after=0.05, deadline=120):
        self.case = case
        self.ep = endpoint
        self.ws = workspace
        self.todo = queue.Queue()
        for n in notes:
            self.todo.put(n)
        self.outcomes = []
        self.lock = threading.Lock()
        self.done = collections.Counter()        # 'deleted', 'already_used_after_error'
        self.finished = {}                        # note_id -> how the flow ended
        self.completed = 0
        self.retry_503_after = retry_503_after
        self.deadline = time.monotonic() + deadline
        self.failures = []
        self.threads = [threading.Thread(target=self.client, args=(c,), daemon=True) for c in range(clients)]

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def join(self):
        for t in self.threads:
            t.join(max(1, self.deadline - time.monotonic() + 30))
        alive = [t for t in self.threads if t.is_alive()]
        if alive:
            raise AssertionError(f"{len(alive)} load clients still running past the deadline")
        if self.failures:
            raise AssertionError(f"load clients failed: {self.failures[:3]}")

    def send(self, phase, note_id, fn):
        start = time.monotonic()
        try:
            r = fn()
            o = Outcome(start=start, end=time.monotonic(), phase=phase, status=r.status,
                        served_by=r.headers.get("x-served-by"), generated_by=r.headers.get("x-generated-by"),
                        code=(r.error or {}).get("code"), note=note_id)
        except Exception as e:  # noqa: an error the client saw
            r = None
            o = Outcome(start=start, end=time.monotonic(), phase=phase, status=None, exc=e, note=note_id)
        with self.lock:
            self.outcomes.append(o)
        return r, o

    def client(self, c):
        try:
            while time.monotonic() < self.deadline:
                try:
                    note_id, title, uri = self.todo.get_nowait()
                except queue.Empty:
                    return
                self.flow(c, note_id, title)
        except Exception as e:  # noqa: reported by join()
            self.failures.append(repr(e))

    def flow(self, c, note_id, title):
        k = 0
        while True:
            k += 1
            if time.monotonic() > self.deadline:
                raise AssertionError(f"note {note_id}: no definite answer before the deadline")
            r, o = self.send("ask", note_id, lambda: self.ep.call_delete(
                self.case.token, self.ws, title, id=f"ask-{note_id}-{k}", timeout=30))
            if r is not None and r.status == 200 and r.result and r.result.get("resultType") == "input_required":
                break
            time.sleep(self.retry_503_after)
        state = r.result["requestState"]
        ambiguous = False
        while True:
            k += 1
            if time.monotonic() > self.deadline:
                raise AssertionError(f"note {note_id}: no definite answer before the deadline")
            r, o = self.send("accept", note_id, lambda: self.ep.call_delete(
                self.case.token, self.ws, title, id=f"acc-{note_id}-{k}", responses=accept(note_id),
                state=state, timeout=30))
            if r is not None and is_deleted(r):
                how = "deleted" + ("_after_error" if ambiguous else "")
                break
            if r is not None and is_already_used(r) and ambiguous:
                how = "already_used_after_error"     # an attempt that failed for the client had committed
                break
            if r is not None and r.status == 200:
                raise AssertionError(f"note {note_id}: unexpected definite answer {r}")
            ambiguous = True
            time.sleep(self.retry_503_after)
        with self.lock:
            self.done[how] += 1
            self.finished[note_id] = how
            self.completed += 1

    def errors(self):
        return [o for o in self.outcomes if o.status != 200]


class KillGatewayTest(ReliabilityCase):
    LABEL = "kill"

    def test_kill_9_one_of_four_gateways_under_load(self):
        rounds = reps(2, 10)
        totals = collections.Counter()
        for rnd in range(rounds):
            self.kill_one(rnd, totals)
        Summary.add(f"fault kill-9: {rounds} runs, 4 gateways, 16 clients, {totals['flows']} flows; client "
                    f"errors {totals['errors']} (all on the killed gateway, all started before the kill: "
                    f"{totals['errors']}), of which accepts {totals['accept_errors']} -> "
                    f"retried: deleted {totals['deleted_after_error']}, already used (had committed) "
                    f"{totals['already_used_after_error']}; notes deleted once {totals['deleted']}, "
                    f"present 0, spent == audited {totals['spent']}")

    def kill_one(self, rnd, totals):
        flows = reps(240, 600)
        clients = 16
        stack = Stack(self.db, 4, label=f"k{rnd}")
        self.addCleanup(stack.close)
        ws = f"{WORKSPACE}/kill{rnd}"
        notes = self.make_notes(flows, ws)
        spent_before = self.assert_spent_matches_audit()
        load = FlowLoad(self, stack.lb, ws, notes, clients, retry_503_after=0.02).start()
        self.assertTrue(wait_until(lambda: load.completed >= flows // 3, 60, 0.005), "load did not start")
        victim = rnd % 4
        stack.kill(victim)
        t_kill = time.monotonic()
        load.join()

        errors = load.errors()
        for o in errors:
            self.assertEqual(o.served_by, stack.ids[victim], f"an error from another gateway: {o}")
            self.assertLess(o.start, t_kill, f"an error for a request sent after the kill: {o}")
            self.assertEqual(o.status, 502, o)
            self.assertEqual(o.code, -32603, o)
        self.assertLessEqual(len(errors), clients, "at most one request in flight per client")
        for i, gw in enumerate(stack.gateways):
            if i != victim:
                self.assertIsNone(gw.proc.poll(), f"gateway {i} died")
        self.assertEqual(load.completed, flows)
        ids = [n[0] for n in notes]
        self.assertEqual(self.assert_each_deleted_note_audited_once(ids), (flows, 0))
        self.assertEqual(self.assert_spent_matches_audit() - spent_before, flows,
                         "exactly one spent state per note")
        totals["flows"] += flows
        totals["errors"] += len(errors)
        totals["accept_errors"] += sum(1 for o in errors if o.phase == "accept")
        totals["deleted_after_error"] += load.done["deleted_after_error"]
        totals["already_used_after_error"] += load.done["already_used_after_error"]
        totals["deleted"] += flows
        totals["spent"] += flows
        stack.close()


class DatabaseRestartTest(ReliabilityCase):
    LABEL = "pgrestart"

    def tearDown(self):
        if not cluster_up():
            pg_cluster_start()

    def restart_under_load(self, mode, hold):
        """mode: fast | immediate; hold: seconds the server stays down (0: pg_ctlcluster restart)."""
        flows = reps(200, 600)
        clients = 8
        stack = Stack(self.db, 2, gateway_args=("--pool-acquire-timeout-ms", "1000"), label=f"r{mode[0]}{hold}")
        self.addCleanup(stack.close)
        ws = f"{WORKSPACE}/restart-{mode}-{hold}"
        notes = self.make_notes(flows, ws)
        spent_before = self.assert_spent_matches_audit()
        direct = [Endpoint(gw.port) for gw in stack.gateways]

        # the monitor probes each gateway directly (readiness, and a request while down)
        probes = []
        stop_monitor = threading.Event()

        def monitor():
            while not stop_monitor.is_set():
                for i, ep in enumerate(direct):
                    t = time.monotonic()
                    try:
                        r = ep.get("/readyz", timeout=5)
                        probes.append((t, i, "readyz", r.status, None, None))
                        if r.status != 200:
                            q = ep.rpc("tools/list", id="probe", token=self.token, timeout=10)
                            probes.append((t, i, "request", q.status, (q.error or {}).get("code"),
                                           q.headers.get("retry-after")))
                    except OSError as e:
                        probes.append((t, i, "readyz", None, repr(e), None))
                time.sleep(0.05)
        mon = threading.Thread(target=monitor, daemon=True)
        mon.start()
        self.addCleanup(stop_monitor.set)

        load = FlowLoad(self, stack.lb, ws, notes, clients, retry_503_after=0.05).start()
        self.assertTrue(wait_until(lambda: load.completed >= flows // 4, 60, 0.005), "load did not start")
        t_down = time.monotonic()
        if hold:
            pg_cluster_stop(mode)
            time.sleep(hold)
            pg_cluster_start()
        else:
            pg_cluster_restart(mode)
        t_up = time.monotonic()
        self.assertTrue(cluster_up())
        load.join()
        self.assertTrue(wait_until(lambda: any(p[0] > t_up + 0.3 for p in probes), 10))
        stop_monitor.set()
        mon.join(10)

        # gateways stayed up
        for gw in stack.gateways:
            self.assertIsNone(gw.proc.poll(), f"gateway {gw.gateway_id} exited: {gw.log()[-2000:]}")
            self.assertIn("db_up", [l.get("event") for l in gw.log_lines()], "the gateway saw the database return")
        # clients saw only 200 or a clear 503 JSON-RPC -32603
        errors = load.errors()
        unclear = [o for o in errors if not (o.status == 503 and o.code == -32603)]
        self.assertEqual(unclear, [], "every error while the database was away must be 503 + -32603")
        from_lb = sum(1 for o in errors if o.generated_by == "haproxy")
        # each gateway, asked directly while the database was down, answered 503 + -32603 + Retry-After
        # (a probe may find the database back between /readyz and its request: then 200)
        down_answers = [p for p in probes if p[2] == "request" and p[3] != 200]
        self.assertTrue(all(p[3] == 503 and p[4] == -32603 and p[5] == "1" for p in down_answers), down_answers)
        if hold:
            self.assertEqual({p[1] for p in down_answers}, {0, 1}, "both gateways were asked while down")
        # ready again within 5 s of the database's return
        ready_after = []
        for i in range(len(direct)):
            ready = [p[0] for p in probes if p[1] == i and p[2] == "readyz" and p[3] == 200 and p[0] >= t_up]
            self.assertTrue(ready, f"gateway {i} never ready after the restart")
            ready_after.append(max(0.0, ready[0] - t_up))
        self.assertLess(max(ready_after), 5.0, f"readiness after the database returned: {ready_after}")
        # nothing lost, nothing doubled
        self.assertEqual(load.completed, flows)
        self.assertEqual(self.assert_each_deleted_note_audited_once([n[0] for n in notes]), (flows, 0))
        self.assertEqual(self.assert_spent_matches_audit() - spent_before, flows)
        Summary.add(f"fault postgres {'stop -m ' + mode + f', {hold} s down, start' if hold else 'restart -m ' + mode}: "
                    f"{flows} flows, 8 clients, 2 gateways; outage {t_up - t_down:.1f} s; clients saw "
                    f"{len(errors)} x 503/-32603 ({from_lb} from HAProxy with no gateway ready, "
                    f"{len(errors) - from_lb} from gateways), 0 other errors; direct requests while down "
                    f"{len(down_answers)} x 503/-32603; /readyz 200 again {max(ready_after):.2f} s after the "
                    f"database; accepts answered after an error: deleted {load.done['deleted_after_error']}, "
                    f"already used (had committed) {load.done['already_used_after_error']}; deleted once "
                    f"{flows}/{flows}, spent == audited")

    def test_restart_fast(self):
        self.restart_under_load("fast", 0)

    def test_restart_immediate(self):
        self.restart_under_load("immediate", 0)

    def test_stop_fast_hold_start(self):
        self.restart_under_load("fast", 2)

    def test_stop_immediate_hold_start(self):
        self.restart_under_load("immediate", 2)
