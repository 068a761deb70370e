#!/usr/bin/env python3
"""Statements per request and LISTEN connections per gateway, this gateway
against an earlier one built from git, side by side on one database.

  tests/with-cluster python3 bench/statements.py [REV]   (default REV: 8ac358d,
                                                          gateway 2.2.0 before the 2025-era adapter)

For each gateway, the statements it sent (its mcp_notes_db_round_trips_total
counter, read before and after) for: a 2025-era tools/list and ping inside a
session, a whole 2025-era notes_delete accept (tools/call stream + the
answer POST), a modern notes_delete (two steps), and the LISTEN connections
it holds (pg_stat_activity).  Prints one JSON object; counts, not timings,
so one run is the result.
"""
import json
import pathlib
import shutil
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tests.e2e.harness import (WORKSPACE, Database, Gateway, accept, form_of, psql, lit,  # noqa: E402
                               unique_title, wait_until)
from tests.e2e.test_compat import build_previous_gateway  # noqa: E402
from tests.e2e.test_legacy import LegacyClient, delete_args, next_event  # noqa: E402


def round_trips(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return int(next(l.split()[1] for l in text.splitlines() if l.startswith("mcp_notes_db_round_trips_total ")))


def counted(port, fn):
    before = round_trips(port)
    fn()
    time.sleep(0.3)              # a stream's last statement ends after its last event
    return round_trips(port) - before


def measure(db, token, binary, label):
    gw = Gateway(db.conninfo(), "--metrics-listen", "127.0.0.1:0",
                 gateway_id=f"stmts-{label}", binary=binary)
    try:
        mport = int(next(l["port"] for l in gw.log_lines() if l.get("event") == "metrics_listening"))
        c = LegacyClient(gw, token)
        c.initialize()
        c.request("ping")                            # features() read, pool warm
        out = {"2025 tools/list": counted(mport, lambda: c.request("tools/list")),
               "2025 ping": counted(mport, lambda: c.request("ping")),
               "2025 initialize": counted(mport, lambda: LegacyClient(gw, token).initialize())}
        title = unique_title()
        note = db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)

        def legacy_delete():
            conn, resp = c.open_call("notes_delete", delete_args(title))
            ask = next_event(resp)
            c.answer(ask["id"], {"action": "accept", "content": {"note_id": note, "confirm": True}})
            assert next_event(resp)["result"]["structuredContent"]["deleted"]
            conn.close()
        out["2025 notes_delete accept (stream + answer)"] = counted(mport, legacy_delete)
        title = unique_title()
        note = db.add_note(f"{WORKSPACE}/{title.replace(' ', '-')}.md", title)

        def modern_delete():
            state, _ = form_of(gw.call_delete(token, WORKSPACE, title, id=1))
            gw.call_delete(token, WORKSPACE, title, id=2, responses=accept(note), state=state)
        out["2026 notes_delete accept (two steps)"] = counted(mport, modern_delete)
        wait_until(lambda: False, 1)         # the listener is up (the token cache waits for it)
        out["LISTEN connections"] = int(psql(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE "
            f"{lit(gw.gateway_id + '%')} AND query LIKE 'LISTEN%'"))
        return out
    finally:
        gw.stop()


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else "8ac358d"
    db = Database("statements")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mcp-notes-stmts-"))
    try:
        token = db.issue_token()
        old = build_previous_gateway(tmp, rev)
        result = {f"before ({rev})": measure(db, token, old, "before"),
                  "after (this checkout)": measure(db, token, None, "after")}
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(tmp, True)
        db.drop()


if __name__ == "__main__":
    main()
