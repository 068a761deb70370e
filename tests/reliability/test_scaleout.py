"""Scale-out on one machine: N = 1, 2, 4 gateways behind HAProxy, one database.
Step 1 of notes_delete on one gateway and the retry on another, every time."""
import collections

from tests.e2e.harness import WORKSPACE
from tests.reliability.base import ReliabilityCase, Summary, accept, is_deleted
from tests.reliability.stack import Stack, reps


class ScaleOutTest(ReliabilityCase):
    LABEL = "scale"

    def flows_through_balancer(self, n):
        flows = reps(30, 300)
        stack = Stack(self.db, n)
        self.addCleanup(stack.close)
        notes = self.make_notes(flows, f"{WORKSPACE}/scale{n}")
        pairs = collections.Counter()
        for k, (note_id, title, uri) in enumerate(notes):
            state, ids, r1 = self.step1(stack.lb, f"{WORKSPACE}/scale{n}", title, id=f"s1-{n}-{k}")
            self.assertEqual(ids, [note_id])
            r2 = self.answer(stack.lb, f"{WORKSPACE}/scale{n}", title, state, accept(note_id), id=f"s2-{n}-{k}")
            self.assertTrue(is_deleted(r2), r2)
            a, b = stack.served_by(r1), stack.served_by(r2)
            self.assertIn(a, stack.ids)
            self.assertIn(b, stack.ids)
            if n >= 2:
                self.assertNotEqual(a, b, f"flow {k}: step 1 and the retry were both served by {a}")
            else:
                self.assertEqual(a, b)
            pairs[(a, b)] += 1
            audit = self.audit_for_requests([f"s2-{n}-{k}"])
            self.assertEqual([(x["outcome"], x["note_id"], x["gateway_id"]) for x in audit],
                             [("accept", note_id, b)], "the audit names the gateway that served the retry")
        used = {g for pair in pairs for g in pair}
        self.assertEqual(used, set(stack.ids), "round-robin must use every gateway")
        self.assertEqual(self.assert_each_deleted_note_audited_once([x[0] for x in notes]), (flows, 0))
        for gw in stack.gateways:
            self.assertIsNone(gw.proc.poll())
        Summary.add(f"scale-out n={n}: {flows} flows through HAProxy, step 1 and retry on different gateways "
                    f"{sum(c for (a, b), c in pairs.items() if a != b)}/{flows}, gateway pairs used {len(pairs)}")

    def test_one_gateway(self):
        self.flows_through_balancer(1)

    def test_two_gateways(self):
        self.flows_through_balancer(2)

    def test_four_gateways(self):
        self.flows_through_balancer(4)

    def test_stack_reports_health_and_kills(self):
        stack = Stack(self.db, 2)
        self.addCleanup(stack.close)
        self.assertEqual({s.split(" ")[0] for s in stack.server_status().values()}, {"UP"})
        stack.kill(0)
        self.assertIsNotNone(stack.gateways[0].proc.poll())
        stack.wait_server_status(stack.ids[0], "DOWN", timeout=5)
        for k in range(6):
            r = stack.lb.get("/readyz")
            self.assertEqual((r.status, stack.served_by(r)), (200, stack.ids[1]), r)
        self.assertEqual(stack.stop(1), 0, "SIGTERM: clean exit")
        stack.wait_server_status(stack.ids[1], "DOWN", timeout=5)
        r = stack.lb.rpc("tools/list", id=1, token=self.token)
        self.assertEqual(r.status, 503, r)
        self.assertEqual(r.headers.get("x-generated-by"), "haproxy")
        self.assertEqual(r.error["code"], -32603, r)
