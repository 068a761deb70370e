#!/usr/bin/env python3
"""Bounded input and completion cost (issue 18, items 3 and 6): `make -C bench
bounds` (full) and `make -C bench bounds-quick`.

Two parts, each in a database of its own in a throw-away cluster (run.py's
Cluster and Gateway), measured through one real gateway over HTTP, one
request at a time on a kept-alive connection:

  strings     requests that carry one 400 KB string where the extension
              might work in proportion to its length -- a noteId, an unknown
              argument's name, review_note's title, completion values of a
              prompt and of a template -- each against a notes_search whose
              query is a 400 KB string too, which every version refuses at
              once by its length (the floor: the same bytes parsed, one
              cheap refusal).  Result: per case, the ratio of its latency
              median to the floor's; 1 means "costs no more than a refusal".
  completion  completion/complete in a workspace of 50,000 notes: a path
              prefix that names a dozen notes, 8 typed characters of a note
              id, and text a title contains, each against a selective
              notes_search (a query one note matches).  Result: ratios of
              medians.

Each comparison alternates its members (order rotated per round) for several
rounds; the result is the median of the per-round ratios with min/max, as in
run.py.  The gateway role's statement_timeout is raised to 60 s here, so a
request that costs more than the 5 s a deployment allows is measured rather
than cut off.  Absolute numbers are in the JSON, but the ratios are the
result (this machine is shared and noisy).

    python3 bench/bounds.py --mode full|quick [--only strings,completion] [--out FILE]

To compare with an older tree, run this file from a checkout of that tree
(it needs nothing but run.py beside it): docs/performance.md says how the
before/after numbers in bench/results/ were made.
"""
import argparse
import http.client
import json
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run  # noqa: E402  (bench/run.py: Cluster, Gateway, helpers)
from run import PRINCIPAL, Cluster, Gateway, lit, median, ratio_summary, say, title_sql  # noqa: E402

PROTOCOL_VERSION = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench-bounds", "version": "1"}}
BIG = 400_000                       # characters of "a 400 KB string"

SIZES = {
    "full": dict(rounds=5, per_round=5, string_notes=5_000, complete_notes=50_000),
    "quick": dict(rounds=3, per_round=3, string_notes=2_000, complete_notes=50_000),
}


class Client:
    """One kept-alive HTTP connection to a gateway; post() returns (ms, reply)."""

    def __init__(self, port, token):
        self.port, self.token, self.n = port, token, 0
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def post(self, method, params):
        self.n += 1
        p = dict(params, _meta=META)
        body = json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": p}).encode()
        headers = {"Content-Type": "application/json", "MCP-Protocol-Version": PROTOCOL_VERSION,
                   "Mcp-Method": method, "Authorization": f"Bearer {self.token}"}
        if method in ("tools/call", "prompts/get"):
            headers["Mcp-Name"] = params["name"]
        t0 = time.perf_counter()
        try:
            self.conn.request("POST", "/mcp", body=body, headers=headers)
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            raise
        ms = (time.perf_counter() - t0) * 1000
        return ms, resp.status, json.loads(data) if data else None


def describe(status, doc):
    """A short, stable summary of an answer, kept in the JSON to show what was measured."""
    if doc is None:
        return f"http {status}"
    if "error" in doc:
        return f"http {status} error {doc['error'].get('code')} {(doc['error'].get('data') or {}).get('reason')}"
    r = doc.get("result", {})
    if r.get("isError"):
        return f"http {status} tool error: {r['content'][0]['text'][:90]}"
    if "completion" in r:
        return f"http {status} {len(r['completion']['values'])} values"
    if "structuredContent" in r:
        return f"http {status} {len(r['structuredContent'].get('notes', []))} notes"
    return f"http {status} {r.get('resultType')}"


class Parts:
    def __init__(self, args, tmp):
        self.args = args
        self.z = SIZES[args.mode]
        self.tmp = tmp
        self.c = Cluster(tmp)
        self.out = {}

    def database(self, name, workspace):
        c = self.c
        c.psql(f"CREATE DATABASE {name}", db="postgres")
        c.psql_file(f"""
DO $$ BEGIN CREATE ROLE bench_gw LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
CREATE EXTENSION mcp_notes;
SELECT mcp_notes.grant_gateway('bench_gw');
ALTER ROLE bench_gw SET statement_timeout = '60s';
SELECT mcp_notes.add_workspace({lit(workspace)});
SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(workspace)});
""", db=name)
        token = self.c.psql(f"SELECT mcp_notes.issue_token({lit(PRINCIPAL)})", db=name)
        gw = Gateway(self.args.gateway, c, self.tmp, f"gw-{name}", threads=8, db=name)
        return Client(gw.port, token)

    def compare(self, client, cases, floor):
        """cases: name -> (method, params); floor names one of them.  Alternating rounds."""
        z = self.z
        names = list(cases)
        samples = {n: [] for n in names}
        answers = {}
        for n in names:                                   # warm the plans and caches once
            _, status, doc = client.post(*cases[n])
            answers[n] = describe(status, doc)
        for rnd in range(z["rounds"]):
            for n in names[rnd % len(names):] + names[:rnd % len(names)]:
                got = [client.post(*cases[n])[0] for _ in range(z["per_round"])]
                samples[n].append(median(got))
        res = {"answers": answers, "p50_ms_per_round": samples,
               "p50_ms": {n: round(median(samples[n]), 2) for n in names}, "ratios": {}}
        for n in names:
            if n != floor:
                res["ratios"][n] = ratio_summary(samples[n], samples[floor])
        return res

    # -- 18.3: one 400 KB string in each place the extension reads one
    def strings(self):
        ws = "file:///bench/bounds"
        z = self.z
        say(f"strings: a {BIG // 1000} KB string in each argument vs a refused query of the same size")
        client = self.database("bounds_strings", ws)
        self.c.psql_file(f"""
SELECT count(mcp_notes.add_note(format('{ws}/d%s/n%s.md', g / 100, g), {title_sql('g')}))
FROM generate_series(1, {z['string_notes']}) g;
VACUUM ANALYZE mcp_notes.notes;
""", db="bounds_strings")
        plain = "q" * BIG
        # a bidi control up front: a _printable that escapes before it cuts works on all of it
        hostile = "\u202e" + "z" * (BIG - 1)
        words = " ".join(["budget review"] * (BIG // 14))[:BIG]
        prompt = {"type": "ref/prompt", "name": "review_note"}
        cases = {
            "refused_query": ("tools/call", {"name": "notes_search",
                                             "arguments": {"workspaceUri": ws, "query": plain}}),
            "note_id": ("tools/call", {"name": "notes_read", "arguments": {"workspaceUri": ws, "noteId": hostile}}),
            "argument_name": ("tools/call", {"name": "notes_list", "arguments": {"workspaceUri": ws, hostile: 1}}),
            "prompt_title": ("prompts/get", {"name": "review_note",
                                             "arguments": {"workspaceUri": ws, "title": words}}),
            "completion_title": ("completion/complete", {
                "ref": prompt, "argument": {"name": "title", "value": words},
                "context": {"arguments": {"workspaceUri": ws}}}),
            "completion_path": ("completion/complete", {
                "ref": {"type": "ref/resource", "uri": ws + "/{+path}"},
                "argument": {"name": "path", "value": "d1/" + plain}}),
        }
        res = self.compare(client, cases, "refused_query")
        res["string_chars"] = BIG
        self.out["strings"] = res
        for n, r in res["ratios"].items():
            say(f"  {n:<18} p50 {res['p50_ms'][n]:9.1f} ms  x{r['median']:.2f} of the refusal "
                f"({res['p50_ms']['refused_query']:.1f} ms)  -- {res['answers'][n]}")

    # -- 18.6: completion at 50,000 notes vs a selective search
    def completion(self):
        ws = "file:///bench/complete"
        z = self.z
        n = z["complete_notes"]
        say(f"completion: at {n} notes, vs a selective notes_search")
        client = self.database("bounds_complete", ws)
        self.c.psql_file(f"""
SELECT count(mcp_notes.add_note(format('{ws}/d%s/n%s.md', g / 1000, g), {title_sql('g')}))
FROM generate_series(1, {n}) g;
SELECT mcp_notes.add_note('{ws}/d17/unique.md', 'quarry ledger omega');
VACUUM ANALYZE mcp_notes.notes;
""", db="bounds_complete")
        some_id = self.c.psql(f"SELECT note_id FROM mcp_notes.notes WHERE uri = '{ws}/d17/n17017.md'",
                              db="bounds_complete")
        prompt = {"type": "ref/prompt", "name": "review_note"}
        context = {"arguments": {"workspaceUri": ws}}
        cases = {
            "search": ("tools/call", {"name": "notes_search",
                                      "arguments": {"workspaceUri": ws, "query": "quarry ledger omega"}}),
            "path": ("completion/complete", {"ref": {"type": "ref/resource", "uri": ws + "/{+path}"},
                                             "argument": {"name": "path", "value": "d17/n1701"}}),
            "note_id": ("completion/complete", {"ref": prompt, "argument": {"name": "noteId", "value": some_id[:8]},
                                                "context": context}),
            "title": ("completion/complete", {"ref": prompt, "argument": {"name": "title", "value": "quarry ledger"},
                                              "context": context}),
        }
        res = self.compare(client, cases, "search")
        res["notes"] = n
        self.out["completion"] = res
        for k, r in res["ratios"].items():
            say(f"  {k:<8} p50 {res['p50_ms'][k]:8.2f} ms  x{r['median']:.2f} of the search "
                f"({res['p50_ms']['search']:.2f} ms)  -- {res['answers'][k]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=SIZES, default="quick")
    ap.add_argument("--only", default="strings,completion")
    ap.add_argument("--gateway", default=str(run.ROOT / "gateway" / "mcp-notes-gateway"))
    ap.add_argument("--out")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/bounds.py must run as root (it starts PostgreSQL as the postgres user with runuser)")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mcpn-bounds-"))
    t0 = time.monotonic()
    result = {"suite": "mcp_notes bench bounds", "mode": args.mode, "tree": str(run.ROOT)}
    try:
        parts = Parts(args, tmp)
        result["postgres"] = parts.c.psql("SHOW server_version", db="postgres")
        for name in args.only.split(","):
            getattr(parts, name)()
        result.update(parts.out)
    finally:
        for fn in reversed(run._cleanup):
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                print(f"cleanup: {e}", file=sys.stderr)
        run._cleanup.clear()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - t0, 1)
    out = pathlib.Path(args.out) if args.out else run.RESULTS / f"bounds-{args.mode}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    say(f"results: {out} ({result['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
