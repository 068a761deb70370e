#!/usr/bin/env python3
"""The cost of the audit chain on the delete flow: A with the chain off (the
queueing triggers disabled, the gateway's tick off: --audit-tick-ms 0) and B
with it on (triggers enabled ALWAYS, the gateway ticking every second, five
times the default rate), alternating rounds on the same cluster, data and
client as run.py.  The note versions a delete keeps are in both (they are
not optional).  Writes bench/results/ab-audit.json and prints B/A per
concurrency (1.00 = free) and each side's errors (exhausted retries).

    python3 bench/audit.py [--levels 1,8,32] [--rounds 3] [--secs 2]
    make -C bench audit
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run as R  # noqa: E402

TABLES = ("delete_audit", "change_audit", "operator_audit")


def chain(cluster, on):
    for t in TABLES:
        cluster.psql(f"ALTER TABLE mcp_notes.{t} {'ENABLE ALWAYS' if on else 'DISABLE'} TRIGGER audit_queued")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", default="1,8,32")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=float, default=2)
    args = ap.parse_args()
    binary = str(R.ROOT / "gateway" / "mcp-notes-gateway")
    ns = argparse.Namespace(mode="quick", variant="current", gateway=binary, lb_mode="server-close")
    suite = R.Suite(ns)
    suite.p.update(flow_secs=args.secs, flow_warm=1)
    out = {"a": "chain off (triggers disabled, --audit-tick-ms 0)",
           "b": "chain on (triggers ALWAYS, --audit-tick-ms 1000)", "results": {}}
    try:
        c = suite.cluster = R.Cluster(suite.tmp)
        suite.token = R.setup_database(c, "current")
        R.add_filler(c, 10_000)
        gws = {"a": R.Gateway(binary, c, suite.tmp, "gw-a", extra=["--audit-tick-ms", "0"], env={}),
               "b": R.Gateway(binary, c, suite.tmp, "gw-b", extra=["--audit-tick-ms", "1000"], env={})}
        for lvl in [int(x) for x in args.levels.split(",")]:
            rates = {"a": [], "b": []}
            errors = {"a": 0, "b": 0}
            for rnd in range(args.rounds):
                for who in (["a", "b"] if rnd % 2 == 0 else ["b", "a"]):
                    chain(c, who == "b")
                    suite.gw1 = gws[who]
                    r = suite.flow_run("gw1", lvl)
                    rates[who].append(r["rate"])
                    errors[who] += r["errors"]
            res = {"rate_median": {k: R.median(v) for k, v in rates.items()},
                   "ratio_b_vs_a": R.ratio_summary(rates["b"], rates["a"]), "errors": errors}
            out["results"][f"flow/c{lvl}"] = res
            print(f"flow c={lvl:<4} A {res['rate_median']['a']:8.0f}/s  B {res['rate_median']['b']:8.0f}/s  "
                  f"B/A {res['ratio_b_vs_a']['median']:.3f} {res['ratio_b_vs_a']['min_max']}  errors {errors}",
                  flush=True)
        # (no verify_audit here: the rows of the A rounds were written with
        # the queueing trigger disabled, which verify_audit rightly reports)
        chain(c, True)
    finally:
        suite.close()
    path = R.RESULTS / "ab-audit.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"results: {path}")


if __name__ == "__main__":
    main()
