#!/usr/bin/env python3
"""A/B of two gateway builds (or settings) in one run, alternating, to
measure a change before making it (docs/performance.md).  Same cluster, data
and client as run.py.

    python3 bench/ab.py --a-env MCP_NOTES_AUTH_CACHE_MS=0 --label auth-cache \\
        --modes tools,discover,flow --levels 1,8,32,128 --rounds 3 [--b /tmp/gw/mcp-notes-gateway] \\
        [--b-args '--pool-size 16']

Prints and writes bench/results/ab-<label>.json: per mode and level the
median B/A ratio with min/max, and nginx static for reference.
"""
import argparse
import json
import pathlib
import shlex
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run as R  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", default=str(R.ROOT / "gateway" / "mcp-notes-gateway"))
    ap.add_argument("--a-env", action="append", default=[])
    ap.add_argument("--a-args", default="")
    ap.add_argument("--b", default=str(R.ROOT / "gateway" / "mcp-notes-gateway"))
    ap.add_argument("--b-env", action="append", default=[])
    ap.add_argument("--b-args", default="")
    ap.add_argument("--modes", default="tools,discover")
    ap.add_argument("--levels", default="1,8,32,128")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=float, default=2)
    ap.add_argument("--label", default="b")
    args = ap.parse_args()
    ns = argparse.Namespace(mode="quick", variant="current", gateway=args.a, lb_mode="server-close")
    suite = R.Suite(ns)
    suite.p.update(flow_secs=args.secs, flow_warm=1)
    out = {"a": {"binary": args.a, "env": args.a_env, "args": args.a_args},
           "b": {"binary": args.b, "env": args.b_env, "args": args.b_args}, "results": {}}
    try:
        c = suite.cluster = R.Cluster(suite.tmp)
        suite.token = R.setup_database(c, "current")
        R.add_filler(c, 10_000)
        env = lambda kv: dict(x.split("=", 1) for x in kv)  # noqa: E731
        ga = R.Gateway(args.a, c, suite.tmp, "gw-a", extra=shlex.split(args.a_args), env=env(args.a_env))
        gb = R.Gateway(args.b, c, suite.tmp, "gw-b", extra=shlex.split(args.b_args), env=env(args.b_env))
        nginx = R.start_nginx(suite.tmp, suite.tools_list_body(ga.port))
        for mode in args.modes.split(","):
            for lvl in [int(x) for x in args.levels.split(",")]:
                rates = {"a": [], "b": [], "nginx": []}
                lat = {"a": [], "b": []}
                for rnd in range(args.rounds):
                    order = ["a", "b", "nginx"] if rnd % 2 == 0 else ["b", "a", "nginx"]
                    for who in order:
                        if who == "nginx":
                            if mode != "tools":
                                continue
                            r = R.loadgen(nginx, "get", lvl, args.secs, 0.3, suite.token, path="/tools.json")
                            rates["nginx"].append(r["requests_per_s"])
                            continue
                        gw = ga if who == "a" else gb
                        if mode == "flow":
                            suite.gw1 = gw
                            r = suite.flow_run("gw1", lvl)
                            rates[who].append(r["rate"])
                            lat[who].append(r["step1"]["p50_ms"] if r.get("step1") else None)
                        else:
                            r = R.loadgen(gw.port, mode, lvl, args.secs, 0.3, suite.token)
                            if r["errors"]:
                                print("errors:", r["error_samples"])
                            rates[who].append(r["requests_per_s"])
                            lat[who].append(r["latency"]["p50_ms"])
                res = {"rate_median": {k: R.median(v) for k, v in rates.items() if v},
                       "ratio_b_vs_a": R.ratio_summary(rates["b"], rates["a"]),
                       "p50_ms_median": {k: R.median([x for x in v if x]) for k, v in lat.items()}}
                if rates["nginx"]:
                    res["ratio_a_vs_nginx"] = R.ratio_summary(rates["a"], rates["nginx"])
                    res["ratio_b_vs_nginx"] = R.ratio_summary(rates["b"], rates["nginx"])
                out["results"][f"{mode}/c{lvl}"] = res
                print(f"{mode:9} c={lvl:<4} A {res['rate_median']['a']:8.0f}/s  B {res['rate_median']['b']:8.0f}/s  "
                      f"B/A {res['ratio_b_vs_a']['median']:.3f} {res['ratio_b_vs_a']['min_max']}"
                      + (f"  nginx {res['rate_median']['nginx']:.0f}/s  A/nginx {res['ratio_a_vs_nginx']['median']:.3f}"
                         f"  B/nginx {res['ratio_b_vs_nginx']['median']:.3f}" if rates["nginx"] else ""), flush=True)
    finally:
        suite.close()
    path = R.RESULTS / f"ab-{args.label}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"results: {path}")


if __name__ == "__main__":
    main()
