"""Shared test-case plumbing for the reliability suite (the stack itself is in
stack.py): a database per test class, a long-lived psql session, bulk note
creation, the delete flow, and database-wide consistency checks."""
import collections
import json
import random
import secrets
import threading
import time
import unittest

from tests.e2e.harness import PRINCIPAL, Database, accept, form_of, lit
from tests.reliability.stack import PsqlSession, say

DECLINE = {"delete_choice": {"action": "decline"}}


class Summary:
    """Figures printed after a test class (never in the middle of unittest's
    'name ... ok' lines, which tests/summarize.py counts)."""

    lines = []

    @classmethod
    def add(cls, line):
        cls.lines.append(line)

    @classmethod
    def flush(cls):
        for line in cls.lines:
            say(line)
        cls.lines.clear()


class ReliabilityCase(unittest.TestCase):
    """A fresh database (harness.Database), a token and a psql session per class."""

    LABEL = "rel"

    @classmethod
    def setUpClass(cls):
        cls.db = Database(cls.LABEL)
        cls.addClassCleanup(cls.db.drop)
        cls.token = cls.db.issue_token()
        cls.sql = PsqlSession(cls.db.name)
        cls.addClassCleanup(cls.sql.close)

    @classmethod
    def tearDownClass(cls):
        Summary.flush()

    # ---- data ----

    def make_notes(self, n, workspace):
        """n notes in `workspace` with unique titles; returns [(note_id, title, uri)]."""
        tag = secrets.token_hex(4)
        rows = self.sql.query(
            f"SELECT mcp_notes.add_note({lit(workspace)} || '/' || {lit(tag)} || '-' || i || '.md', "
            f"'note ' || {lit(tag)} || ' n' || lpad(i::text, 6, '0') || '#') || '|' || i "
            f"FROM generate_series(0, {n - 1}) i")
        notes = [None] * n
        for row in rows:
            note_id, i = row.split("|")
            i = int(i)
            notes[i] = (note_id, f"note {tag} n{i:06d}#", f"{workspace}/{tag}-{i}.md")
        self.assertEqual(sum(1 for x in notes if x), n, rows)
        return notes

    def note_count(self, note_id):
        return int(self.sql.query(f"SELECT count(*) FROM mcp_notes.notes WHERE note_id = {lit(note_id)}")[0])

    def note_uri(self, note_id):
        rows = self.sql.query(f"SELECT uri FROM mcp_notes.notes WHERE note_id = {lit(note_id)}")
        return rows[0] if rows else None

    def audit_rows(self, where):
        rows = self.sql.query(
            "SELECT coalesce(json_agg(json_build_object('outcome', outcome, 'note_id', note_id, "
            "'note_uri', note_uri, 'request_id', request_id, 'gateway_id', gateway_id) ORDER BY audit_id), '[]') "
            f"FROM mcp_notes.delete_audit WHERE {where}")
        return json.loads(rows[0])

    def audit_for_requests(self, request_ids):
        return self.audit_rows("request_id IN (" + ", ".join(lit(r) for r in request_ids) + ")")

    # ---- the flow ----

    def step1(self, endpoint, workspace, title, id, **kw):
        r = endpoint.call_delete(self.token, workspace, title, id=id, **kw)
        self.assertEqual(r.status, 200, r)
        self.assertIsNotNone(r.result, r)
        self.assertEqual(r.result.get("resultType"), "input_required", r)
        state, ids = form_of(r)
        self.assertEqual(len(ids), 1, r)
        return state, ids, r

    def answer(self, endpoint, workspace, title, state, responses, id, **kw):
        return endpoint.call_delete(self.token, workspace, title, id=id, responses=responses,
                                    state=state, **kw)

    # ---- consistency of the whole database ----

    def assert_spent_matches_audit(self):
        """Every spent nonce has its audit row and vice versa.

        The nonce is not in the audit, but accept, decline and stale write
        their spent_states row and their delete_audit row in the same
        transaction, and both tables default their timestamp to now(), the
        transaction's start time.  So the multiset of (timestamp, outcome)
        over spent_states must equal the one over delete_audit without
        'cancel' (which spends nothing).  Nothing else writes either table in
        these tests (prune_spent_states is never called).  A transaction that
        spent a nonce without its audit row, or the reverse, breaks the
        equality."""
        rows = self.sql.query("""
            WITH s AS (SELECT spent_at AS t, outcome, count(*) AS c FROM mcp_notes.spent_states GROUP BY 1, 2),
                 a AS (SELECT at AS t, outcome, count(*) AS c FROM mcp_notes.delete_audit
                       WHERE outcome <> 'cancel' GROUP BY 1, 2)
            SELECT (SELECT count(*) FROM s FULL JOIN a USING (t, outcome) WHERE s.c IS DISTINCT FROM a.c)
                   || '|' || (SELECT count(*) FROM mcp_notes.spent_states)
                   || '|' || (SELECT count(*) FROM mcp_notes.delete_audit WHERE outcome <> 'cancel')""")
        mismatched, spent, audited = (int(x) for x in rows[0].split("|"))
        self.assertEqual(mismatched, 0, f"spent_states and delete_audit disagree: {spent} spent, {audited} audited")
        self.assertEqual(spent, audited)
        return spent

    def assert_each_deleted_note_audited_once(self, note_ids):
        """For these notes: deleted <=> exactly one 'accept' audit row; present <=> none.
        Returns (deleted, present)."""
        values = ", ".join(f"({lit(n)})" for n in note_ids)
        rows = self.sql.query(f"""
            SELECT v.id, (SELECT count(*) FROM mcp_notes.notes n WHERE n.note_id = v.id),
                   (SELECT count(*) FROM mcp_notes.delete_audit a WHERE a.note_id = v.id AND a.outcome = 'accept')
            FROM (VALUES {values}) v(id)""")
        deleted = present = 0
        bad = []
        for row in rows:
            note_id, exists, accepts = row.split("|")
            if exists == "0" and accepts == "1":
                deleted += 1
            elif exists == "1" and accepts == "0":
                present += 1
            else:
                bad.append(row)
        self.assertEqual(bad, [], "notes neither (deleted, one accept row) nor (present, no accept row)")
        self.assertEqual(deleted + present, len(note_ids))
        return deleted, present


def is_deleted(resp):
    res = resp.result
    return (resp.status == 200 and res is not None and res.get("resultType") == "complete"
            and not res.get("isError") and (res.get("structuredContent") or {}).get("deleted") is True)


def is_declined(resp):
    res = resp.result
    return (resp.status == 200 and res is not None and res.get("resultType") == "complete"
            and not res.get("isError") and res.get("structuredContent") == {"deleted": False})


def is_already_used(resp):
    err = resp.error
    return (resp.status == 200 and err is not None and err.get("code") == -32602
            and (err.get("data") or {}).get("reason") == "state_already_used")


def tool_error_text(resp):
    """The text of a complete isError tool result, or None."""
    res = resp.result
    if resp.status != 200 or res is None or res.get("resultType") != "complete" or not res.get("isError"):
        return None
    return " ".join(c.get("text", "") for c in res.get("content", []))


def run_together(funcs, delays=None, timeout=60):
    """Run the callables in threads released by one barrier (each after its
    delay in seconds); returns their results (an exception is re-raised)."""
    n = len(funcs)
    delays = delays or [0.0] * n
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = [None] * n

    def body(i):
        try:
            barrier.wait(timeout)
            if delays[i] > 0:
                time.sleep(delays[i])
            results[i] = funcs[i]()
        except BaseException as e:  # noqa: reported below
            errors[i] = e
    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        if t.is_alive():
            raise AssertionError(f"a racing thread did not finish within {timeout}s")
    for e in errors:
        if e is not None:
            raise e
    return results


class Offset:
    """Adaptive head start between two racers: after each run the side that
    won gets less head start, so the runs settle where the two requests
    really overlap (and both sides keep winning), whatever the machine's
    latencies.  delays() returns [delay_a, delay_b] in seconds."""

    def __init__(self, start=0.0, step=0.0004, noise=0.0008):
        self.value = start
        self.step = step
        self.noise = noise

    def delays(self):
        v = self.value + random.uniform(-self.noise, self.noise)
        return [max(0.0, -v), max(0.0, v)]

    def won(self, a_won):
        self.value += -self.step if a_won else self.step


def retries_by_rpc_id(gateways):
    """{rpc_id: retries} from the request lines of the gateways' logs."""
    out = collections.Counter()
    for gw in gateways:
        for line in gw.log_lines():
            if line.get("event") == "request" and "rpc_id" in line:
                rpc_id = line["rpc_id"]     # logged as JSON: "abc" with its quotes, 7 without
                if rpc_id.startswith('"'):
                    rpc_id = json.loads(rpc_id)
                out[rpc_id] += int(line.get("retries", 0))
    return out


__all__ = ["ReliabilityCase", "Summary", "DECLINE", "PRINCIPAL", "accept", "is_deleted", "is_declined",
           "is_already_used", "tool_error_text", "run_together", "Offset", "retries_by_rpc_id"]
