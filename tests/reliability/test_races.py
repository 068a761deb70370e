"""Races on one requestState through four gateways behind HAProxy.  Each race
is repeated (reps(check, soak)); every run must end in exactly the stated
outcome, and the figures are printed after the class."""
import collections
import time

from tests.e2e.harness import PRINCIPAL, WORKSPACE, lit
from tests.reliability.base import (DECLINE, Offset, ReliabilityCase, Summary, accept, is_already_used,
                                    is_declined, is_deleted, retries_by_rpc_id, run_together,
                                    tool_error_text)
from tests.reliability.stack import Stack, reps

GATEWAYS = 4


class RaceTest(ReliabilityCase):
    LABEL = "race"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.stack = Stack(cls.db, GATEWAYS)
        cls.addClassCleanup(cls.stack.close)

    def setUp(self):
        self.lb = self.stack.lb
        self.started = time.monotonic()

    def tearDown(self):
        for gw in self.stack.gateways:
            self.assertIsNone(gw.proc.poll(), f"gateway {gw.gateway_id} died: {gw.log()[-2000:]}")

    def elapsed(self):
        return f"{time.monotonic() - self.started:.1f} s"

    def connected(self):
        conn = self.lb.connection(timeout=60)
        conn.connect()
        self.addCleanup(conn.close)
        return conn

    # ------------------------------------------------------------------

    def test_64_concurrent_retries_of_one_state(self):
        runs = reps(50, 500)
        width = 64
        ws = f"{WORKSPACE}/race64"
        notes = self.make_notes(runs, ws)
        spent_before = self.assert_spent_matches_audit()
        served = collections.Counter()
        for run, (note_id, title, uri) in enumerate(notes):
            state, _, _ = self.step1(self.lb, ws, title, id=f"m{run}-ask")
            conns = [self.connected() for _ in range(width)]
            calls = [(lambda k=k: self.answer(self.lb, ws, title, state, accept(note_id), id=f"m{run}-{k}",
                                              conn=conns[k], timeout=60))
                     for k in range(width)]
            results = run_together(calls)
            for c in conns:
                c.close()
            deleted = [r for r in results if is_deleted(r)]
            used = [r for r in results if is_already_used(r)]
            self.assertEqual((len(deleted), len(used)), (1, width - 1),
                             [r for r in results if not is_deleted(r) and not is_already_used(r)][:3])
            self.assertEqual([r for r in results if r.status >= 500], [])
            self.assertEqual(deleted[0].result["structuredContent"], {"deleted": True, "noteId": note_id})
            by = collections.Counter(self.stack.served_by(r) for r in results)
            self.assertEqual(set(by), set(self.stack.ids), f"not spread over {GATEWAYS} gateways: {by}\n"
                             f"{self.stack.haproxy.log()[-2000:]}")
            served.update(by)
            audit = self.audit_rows(f"note_id = {lit(note_id)}")
            self.assertEqual([(a["outcome"], a["gateway_id"]) for a in audit],
                             [("accept", self.stack.served_by(deleted[0]))])
            self.assertEqual(self.note_count(note_id), 0)
        self.assertEqual(self.assert_spent_matches_audit() - spent_before, runs)
        retries = retries_by_rpc_id(self.stack.gateways)
        retried = [v for k, v in retries.items() if k.startswith("m") and not k.endswith("-ask")]
        Summary.add(f"race 64-retries-of-one-state: {runs} runs x {width} requests over {GATEWAYS} gateways "
                    f"(served {dict(sorted(served.items()))}), deletes {runs}, audit rows {runs}, "
                    f"already-used {runs * (width - 1)}, 5xx 0, retries-exhausted 0, "
                    f"requests retried on 40001 {sum(1 for v in retried if v)}, most retries of one request "
                    f"{max(retried, default=0)}, violations 0 ({self.elapsed()})")

    # ------------------------------------------------------------------

    def test_accept_races_decline(self):
        runs = reps(200, 1000)
        ws = f"{WORKSPACE}/race-ad"
        notes = self.make_notes(runs, ws)
        wins = collections.Counter()
        offset = Offset()
        for run, (note_id, title, uri) in enumerate(notes):
            state, _, _ = self.step1(self.lb, ws, title, id=f"ad{run}-ask")
            ca, cd = self.connected(), self.connected()
            ra, rd = run_together(
                [lambda: self.answer(self.lb, ws, title, state, accept(note_id), id=f"ad{run}-a", conn=ca),
                 lambda: self.answer(self.lb, ws, title, state, DECLINE, id=f"ad{run}-d", conn=cd)],
                delays=offset.delays())
            audit = [a["outcome"] for a in self.audit_for_requests([f"ad{run}-a", f"ad{run}-d"])]
            exists = self.note_count(note_id)
            if is_deleted(ra) and is_already_used(rd):
                self.assertEqual((audit, exists), (["accept"], 0), f"run {run}: accept won")
                wins["accept"] += 1
            elif is_declined(rd) and is_already_used(ra):
                self.assertEqual((audit, exists), (["decline"], 1), f"run {run}: decline won")
                wins["decline"] += 1
            else:
                self.fail(f"run {run}: not exactly one winner: accept {ra}, decline {rd}, audit {audit}")
            offset.won(is_deleted(ra))
        self.assert_spent_matches_audit()
        retries = retries_by_rpc_id(self.stack.gateways)
        contended = sum(1 for run in range(runs) if retries[f"ad{run}-a"] or retries[f"ad{run}-d"])
        Summary.add(f"race accept-vs-decline: {runs} runs, accept won {wins['accept']}, decline won "
                    f"{wins['decline']}, loser retried after 40001 in {contended}, violations 0 ({self.elapsed()})")
        self.assertGreater(wins["accept"], 0, "the race never went to accept: the runs did not overlap")
        self.assertGreater(wins["decline"], 0, "the race never went to decline: the runs did not overlap")

    # ------------------------------------------------------------------

    def test_accept_races_operator_move(self):
        runs = reps(200, 1000)
        ws = f"{WORKSPACE}/race-mv"
        notes = self.make_notes(runs, ws)
        wins = collections.Counter()
        offset = Offset(start=-0.002)
        for run, (note_id, title, uri) in enumerate(notes):
            state, _, _ = self.step1(self.lb, ws, title, id=f"mv{run}-ask")
            outside = f"file:///work/moved-out/{note_id}.md"
            if run % 2 == 0:
                move_sql = (f"WITH u AS (UPDATE mcp_notes.notes SET uri = {lit(outside)}, updated_at = now() "
                            f"WHERE note_id = {lit(note_id)} RETURNING 1) SELECT count(*) FROM u")
            else:
                move_sql = f"SELECT 'moved' || mcp_notes.move_note({lit(note_id)}, {lit(outside)})::text"
            conn = self.connected()
            ra, moved_out = run_together(
                [lambda: self.answer(self.lb, ws, title, state, accept(note_id), id=f"mv{run}-a", conn=conn),
                 lambda: self.sql.query(move_sql, check=False)],
                delays=offset.delays())
            moved = moved_out in (["1"], ["moved"])
            not_moved = moved_out == ["0"] or (bool(moved_out) and moved_out[0].startswith("ERROR:")
                                               and "does not exist" in moved_out[0])
            self.assertTrue(moved or not_moved, f"run {run}: unexpected operator result {moved_out}")
            audit = self.audit_for_requests([f"mv{run}-a"])
            final_uri = self.note_uri(note_id)
            if is_deleted(ra):
                # accept committed first: the operator found nothing to move
                self.assertFalse(moved, f"run {run}: moved AND deleted")
                self.assertIsNone(final_uri)
                self.assertEqual([(a["outcome"], a["note_uri"]) for a in audit], [("accept", uri)])
                wins["accept"] += 1
            else:
                text = tool_error_text(ra)
                self.assertIsNotNone(text, f"run {run}: {ra}")
                self.assertIn("no longer exists", text)
                self.assertTrue(moved, f"run {run}: refused but not moved: {moved_out}")
                self.assertEqual(final_uri, outside, f"run {run}: the note must survive, moved")
                self.assertEqual([(a["outcome"], a["note_uri"]) for a in audit], [("stale", outside)])
                wins["move"] += 1
            offset.won(is_deleted(ra))
        self.assert_spent_matches_audit()
        retries = retries_by_rpc_id(self.stack.gateways)
        contended = sum(1 for run in range(runs) if retries[f"mv{run}-a"])
        Summary.add(f"race accept-vs-move: {runs} runs (half UPDATE as superuser, half move_note), accept won "
                    f"{wins['accept']}, move won {wins['move']}, accept retried after 40001 in {contended}, "
                    f"moved-and-deleted 0, violations 0 ({self.elapsed()})")
        self.assertGreater(wins["accept"], 0)
        self.assertGreater(wins["move"], 0)

    # ------------------------------------------------------------------

    def test_accept_races_revoke(self):
        runs = reps(200, 1000)
        tag = f"rv{int(time.time() * 1000) % 100000}"
        workspaces = [f"file:///work/{tag}/ws{run}" for run in range(runs)]
        self.sql.query("SELECT mcp_notes.add_workspace(w), "
                       f"mcp_notes.grant_workspace({lit(PRINCIPAL)}, w) FROM unnest(ARRAY["
                       + ", ".join(lit(w) for w in workspaces) + "]) w")
        wins = collections.Counter()
        offset = Offset(start=-0.002)
        for run, ws in enumerate(workspaces):
            (note_id, title, uri), = self.make_notes(1, ws)
            state, _, _ = self.step1(self.lb, ws, title, id=f"rv{run}-ask")
            # The operator's transaction revokes, then (still inside it, read
            # committed) looks at the note.  A delete the accept committed
            # before the revoke took effect is visible there; one committed
            # after the revoke (outside the authorization) would not be.
            revoke_sql = (f"BEGIN; SELECT mcp_notes.revoke_workspace({lit(PRINCIPAL)}, {lit(ws)}); "
                          f"SELECT count(*) FROM mcp_notes.notes WHERE note_id = {lit(note_id)}; COMMIT")
            conn = self.connected()
            ra, revoke_out = run_together(
                [lambda: self.answer(self.lb, ws, title, state, accept(note_id), id=f"rv{run}-a", conn=conn),
                 lambda: self.sql.query(revoke_sql)],
                delays=offset.delays())
            self.assertEqual(len(revoke_out), 2, revoke_out)
            self.assertEqual(revoke_out[0], "t", "the grant existed and was revoked")
            seen_by_revoke = int(revoke_out[1])
            audit = [a["outcome"] for a in self.audit_for_requests([f"rv{run}-a"])]
            exists = self.note_count(note_id)
            if is_deleted(ra):
                self.assertEqual(seen_by_revoke, 0, f"run {run}: deleted after the revoke took effect")
                self.assertEqual((audit, exists), (["accept"], 0))
                wins["accept"] += 1
            else:
                text = tool_error_text(ra)
                self.assertIsNotNone(text, f"run {run}: {ra}")
                self.assertIn("no longer granted", text)
                self.assertEqual((audit, exists, seen_by_revoke), (["stale"], 1, 1))
                wins["revoke"] += 1
            offset.won(is_deleted(ra))
        self.assert_spent_matches_audit()
        retries = retries_by_rpc_id(self.stack.gateways)
        contended = sum(1 for run in range(runs) if retries[f"rv{run}-a"])
        Summary.add(f"race accept-vs-revoke: {runs} runs, accept won {wins['accept']} (committed before the "
                    f"revoke), revoke won {wins['revoke']}, accept retried after 40001 in {contended}, "
                    f"deleted-after-revoke 0, violations 0 ({self.elapsed()})")
        self.assertGreater(wins["accept"], 0)
        self.assertGreater(wins["revoke"], 0)

    # ------------------------------------------------------------------

    def test_two_states_for_one_note(self):
        runs = reps(200, 1000)
        ws = f"{WORKSPACE}/race-2s"
        notes = self.make_notes(runs, ws)
        wins = collections.Counter()
        offset = Offset()
        for run, (note_id, title, uri) in enumerate(notes):
            state1, _, _ = self.step1(self.lb, ws, title, id=f"ts{run}-ask1")
            state2, _, _ = self.step1(self.lb, ws, title, id=f"ts{run}-ask2")
            self.assertNotEqual(state1, state2)
            c1, c2 = self.connected(), self.connected()
            r1, r2 = run_together(
                [lambda: self.answer(self.lb, ws, title, state1, accept(note_id), id=f"ts{run}-1", conn=c1),
                 lambda: self.answer(self.lb, ws, title, state2, accept(note_id), id=f"ts{run}-2", conn=c2)],
                delays=offset.delays())
            if is_deleted(r1):
                winner, loser, first = r1, r2, True
            elif is_deleted(r2):
                winner, loser, first = r2, r1, False
            else:
                self.fail(f"run {run}: no delete: {r1} {r2}")
            text = tool_error_text(loser)
            self.assertIsNotNone(text, f"run {run}: the other state must get a tool error: {loser}")
            self.assertIn("no longer exists", text)
            audit = sorted(a["outcome"] for a in self.audit_rows(f"note_id = {lit(note_id)}"))
            self.assertEqual((audit, self.note_count(note_id)), (["accept", "stale"], 0), f"run {run}")
            wins["first" if first else "second"] += 1
            offset.won(first)
        self.assert_spent_matches_audit()
        retries = retries_by_rpc_id(self.stack.gateways)
        contended = sum(1 for run in range(runs) if retries[f"ts{run}-1"] or retries[f"ts{run}-2"])
        Summary.add(f"race two-states-one-note: {runs} runs, one delete + one 'no longer exists' every run "
                    f"(first state won {wins['first']}, second {wins['second']}), loser retried after 40001 in "
                    f"{contended}, violations 0 ({self.elapsed()})")
