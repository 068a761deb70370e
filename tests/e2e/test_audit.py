"""The audit chain and note versions through real gateways: an update then
an operator's restore, the chain linked by the gateways' ticks and verified
after a mixed concurrent workload over several gateways (every call commits,
the logged heads check), and versions and chain through pg_dump/pg_restore."""
import json
import os
import subprocess
import tempfile
import threading
import uuid

from .harness import ROOT, WORKSPACE, GatewayTestCase, accept, form_of, lit, psql, wait_until


class AuditTest(GatewayTestCase):

    def call(self, gw, name, arguments):
        r = gw.rpc("tools/call", {"name": name, "arguments": {"workspaceUri": WORKSPACE, **arguments}},
                   token=self.token)
        result = self.assertResult(r)
        self.assertFalse(result.get("isError", False), r)
        return result["structuredContent"]

    def verdict(self, db=None, up_to=None, head=None):
        row = (db or self.db).sql(
            "SELECT row_to_json(v) FROM mcp_notes.verify_audit("
            f"{'NULL' if up_to is None else int(up_to)}, {lit(head)}) v")
        return json.loads(row)

    def drained(self, db=None):
        return (db or self.db).sql("SELECT count(*) FROM mcp_notes.audit_pending") == "0"

    def test_update_then_restore(self):
        gw = self.start_gateway("--audit-tick-ms", "100")
        uri = f"{WORKSPACE}/e2e-{uuid.uuid4().hex[:10]}/plan.md"
        note = self.call(gw, "notes_create", {"uri": uri, "title": "Plan", "body": "the real plan"})["noteId"]
        self.call(gw, "notes_update", {"noteId": note, "body": "."})
        versions = json.loads(self.db.sql(
            f"SELECT json_agg(v ORDER BY v.version_id) FROM mcp_notes.note_versions({lit(note)}) v"))
        self.assertEqual([(v["reason"], v["excerpt"], v["principal"]) for v in versions],
                         [("update", "the real plan", "alice")])
        restored = json.loads(self.db.sql(
            f"SELECT mcp_notes.restore_note_version({versions[0]['version_id']})"))
        self.assertTrue(restored["restored"], restored)
        self.assertEqual(self.call(gw, "notes_read", {"noteId": note})["body"], "the real plan")
        self.assertEqual(self.db.sql(
            f"SELECT action || ' ' || version_id FROM mcp_notes.operator_audit WHERE note_id = {lit(note)}"),
            f"restore {versions[0]['version_id']}")
        # the restore is chained by the gateway's tick like the tool's writes
        self.assertTrue(wait_until(self.drained, 15), gw.log())
        self.assertEqual(self.db.sql(
            "SELECT count(*) FROM mcp_notes.audit_chain c JOIN mcp_notes.operator_audit o "
            f"ON c.source = 'operator_audit' AND c.audit_id = o.audit_id WHERE o.note_id = {lit(note)}"), "1")
        self.assertTrue(self.verdict()["ok"], self.verdict())

    def test_chain_after_mixed_concurrent_workload(self):
        # a wait for a pooled connection long enough for a slow gateway (the
        # sanitizer reruns run this under valgrind): the workload is the point
        # here, not shedding it with 503s
        gateways = [self.start_gateway("--audit-tick-ms", "150", "--pool-acquire-timeout-ms", "30000")
                    for _ in range(3)]
        folder = f"{WORKSPACE}/e2e-{uuid.uuid4().hex[:10]}"
        notes = [(f"mixed {uuid.uuid4().hex[:12]}", None) for _ in range(24)]
        notes = [(title, self.db.add_note(f"{folder}/{i}.md", title, f"text {i}")) for i, (title, _) in enumerate(notes)]
        failures = []

        def work(i, title, note_id):
            gw = gateways[i % len(gateways)]
            try:
                if i % 2:
                    for n in range(3):
                        self.call(gw, "notes_update", {"noteId": note_id, "body": f"edit {n} of {title}"})
                else:
                    state, ids = form_of(gw.call_delete(self.token, WORKSPACE, title))
                    r = gw.call_delete(self.token, WORKSPACE, title, responses=accept(ids[0]), state=state)
                    if (r.result or {}).get("structuredContent") != {"deleted": True, "noteId": note_id}:
                        failures.append(r)
            except Exception as e:      # collected: the main thread reports them
                failures.append(e)

        threads = [threading.Thread(target=work, args=(i, t, n)) for i, (t, n) in enumerate(notes)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(failures, [])
        self.assertTrue(wait_until(self.drained, 20), [g.log() for g in gateways])
        rows = int(self.db.sql("SELECT (SELECT count(*) FROM mcp_notes.change_audit)"
                               " + (SELECT count(*) FROM mcp_notes.delete_audit)"
                               " + (SELECT count(*) FROM mcp_notes.operator_audit)"))
        v = self.verdict()
        self.assertTrue(v["ok"], v)
        self.assertEqual(v["links"], rows)
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.kept_versions "
                                     f"WHERE uri LIKE {lit(folder + '/%')}"), str(12 * 3 + 12))
        # the heads the gateways logged (the copy outside the database) check
        heads = [line for g in gateways for line in g.log_lines() if line.get("event") == "audit_head"]
        self.assertTrue(heads, [g.log() for g in gateways])
        for line in heads:
            seq, head = line["msg"].split("seq=")[1].split(" head=")
            head = head.split(" ")[0]
            checked = self.verdict(up_to=int(seq), head=head)
            self.assertTrue(checked["ok"], (line, checked))
        # and one rewritten row is caught at its link (then put back)
        first = int(self.db.sql("SELECT max(audit_id) FROM mcp_notes.change_audit"))

        def rewrite(principal):
            psql("BEGIN; ALTER TABLE mcp_notes.change_audit DISABLE TRIGGER USER; "
                 f"UPDATE mcp_notes.change_audit SET principal = {lit(principal)} WHERE audit_id = {first}; "
                 "ALTER TABLE mcp_notes.change_audit ENABLE TRIGGER USER; COMMIT;", dbname=self.db.name)
        rewrite("mallory")
        self.addCleanup(rewrite, "alice")
        broken = self.verdict()
        self.assertFalse(broken["ok"], broken)
        self.assertEqual((broken["source"], broken["audit_id"]), ("change_audit", first))
        rewrite("alice")
        self.assertTrue(self.verdict()["ok"])
        # the operators' queries run on this data
        queries = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.db.name,
                                  "-f", str(ROOT / "share" / "audit-queries.sql")],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(queries.returncode, 0, queries.stderr)
        self.assertIn("Unconfirmed writes", queries.stdout)

    def test_dump_restore_keeps_versions_and_chain(self):
        gw = self.start_gateway("--audit-tick-ms", "100")
        uri = f"{WORKSPACE}/e2e-{uuid.uuid4().hex[:10]}/kept.md"
        note = self.call(gw, "notes_create", {"uri": uri, "title": "Kept", "body": "one"})["noteId"]
        self.call(gw, "notes_update", {"noteId": note, "body": "two"})
        self.assertTrue(wait_until(self.drained, 15), gw.log())
        # one more after the last tick: queued, not yet linked, at dump time
        self.call(gw, "notes_update", {"noteId": note, "body": "three"})
        gw.stop()
        snapshot = ("SELECT json_build_object('versions', (SELECT json_agg(v.body ORDER BY v.version_id)"
                    f" FROM mcp_notes.kept_versions v WHERE v.note_id = {lit(note)}), 'usage', (SELECT json_agg(u.bytes) FROM mcp_notes.version_usage u),"
                    " 'links', (SELECT count(*) FROM mcp_notes.audit_chain))")
        before = json.loads(self.db.sql(snapshot))
        self.assertEqual(before["versions"], ["one", "two"])
        target = f"{self.db.name}_restored"
        with tempfile.TemporaryDirectory() as tmp:
            dump = os.path.join(tmp, "db.dump")
            subprocess.run(["pg_dump", "-Fc", "-f", dump, self.db.name], check=True, capture_output=True, timeout=120)
            psql(f"CREATE DATABASE {target}")
            self.addCleanup(psql, f"DROP DATABASE IF EXISTS {target} WITH (FORCE)", None, False)
            subprocess.run(["pg_restore", "-d", target, dump], check=True, capture_output=True, timeout=120)
        after = json.loads(psql(snapshot, dbname=target))
        self.assertEqual(after, before)
        psql("SELECT * FROM mcp_notes.audit_tick()", dbname=target)
        v = json.loads(psql("SELECT row_to_json(v) FROM mcp_notes.verify_audit() v", dbname=target))
        self.assertTrue(v["ok"], v)
        self.assertEqual(v["links"], int(psql("SELECT (SELECT count(*) FROM mcp_notes.change_audit)"
                                              " + (SELECT count(*) FROM mcp_notes.delete_audit)"
                                              " + (SELECT count(*) FROM mcp_notes.operator_audit)", dbname=target)))
        restored = json.loads(psql(
            "SELECT mcp_notes.restore_note_version((SELECT min(version_id) FROM mcp_notes.kept_versions"
            f" WHERE note_id = {lit(note)}))", dbname=target))
        self.assertTrue(restored["restored"], restored)
