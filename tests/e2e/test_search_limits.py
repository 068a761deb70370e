"""Search limits through a real gateway: a statement that runs past the
gateway role's statement_timeout is a retryable JSON-RPC error (503 with
Retry-After), not a hang; grant_gateway sets that timeout (default 5s,
mcp_notes.gateway_statement_timeout); a text shorter than three characters
finds the note with that whole title, or is told to give more of it."""
import time

from .harness import WORKSPACE, GatewayTestCase, TableLock, form_of, lit, unique_title


class SearchLimitsTest(GatewayTestCase):

    def role_settings(self):
        return self.db.sql(f"SELECT array_to_string(s.setconfig, ' ') FROM pg_db_role_setting s "
                           f"WHERE s.setrole = {lit(self.db.role)}::regrole AND s.setdatabase = 0")

    def test_grant_gateway_sets_a_statement_timeout_of_5s_by_default(self):
        self.assertIn("statement_timeout=5s", self.role_settings().split())

    def test_a_statement_past_the_timeout_is_a_retryable_error_not_a_hang(self):
        self.db.sql(f"SET mcp_notes.gateway_statement_timeout = '300ms'; "
                    f"SELECT mcp_notes.grant_gateway({lit(self.db.role)})")
        self.addCleanup(self.db.sql, f"SELECT mcp_notes.grant_gateway({lit(self.db.role)})")
        self.assertIn("statement_timeout=300ms", self.role_settings().split())
        gw = self.start_gateway()       # its connections take the role's new setting
        title = unique_title("timeout")
        self.db.add_note(f"{WORKSPACE}/timeout/{title.split()[-1]}.md", title)
        lock = TableLock(self.db, "mcp_notes.notes", 30)     # step 1 must wait for it
        self.addCleanup(lock.release)
        start = time.monotonic()
        r = gw.call_delete(self.token, WORKSPACE, title, id=7)
        elapsed = time.monotonic() - start
        self.assertRpcError(r, -32603, 503, id=7)
        self.assertIn("timed out", r.error["message"])
        self.assertEqual(r.headers.get("retry-after"), "1", r)
        self.assertLess(elapsed, 5, "the timeout did not cut the statement off")
        lines = [l for l in gw.log_lines() if l.get("status") == 503]
        self.assertTrue(lines, gw.log())
        lock.release()
        # and once nothing blocks it, the same request works
        r = gw.call_delete(self.token, WORKSPACE, title, id=8)
        self.assertResult(r, id=8, result_type="input_required")

    def test_a_short_text_finds_the_note_with_that_title_or_asks_for_more(self):
        gw = self.start_gateway()
        note_id = self.db.add_note(f"{WORKSPACE}/short/{unique_title('q').split()[-1]}.md", "Qx")
        r = gw.call_delete(self.token, WORKSPACE, "qX", id=1)
        self.assertResult(r, id=1, result_type="input_required")
        self.assertEqual(form_of(r)[1], [note_id])
        start = time.monotonic()
        r = gw.call_delete(self.token, WORKSPACE, "zq", id=2)
        result = self.assertResult(r, id=2)
        self.assertTrue(result["isError"], r)
        self.assertIn("give at least 3 characters", result["content"][0]["text"])
        self.assertLess(time.monotonic() - start, 2)

    def test_an_over_long_title_argument_is_refused(self):
        gw = self.start_gateway()
        r = gw.call_delete(self.token, WORKSPACE, "x" * 201, id=3)
        # an argument error a model can correct: a tool result, not -32602
        result = self.assertResult(r, id=3)
        self.assertTrue(result["isError"], r)
        self.assertIn("title must be at most 200 characters", result["content"][0]["text"])
