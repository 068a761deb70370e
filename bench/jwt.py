#!/usr/bin/env python3
"""What a JWT access token costs against an operator token: the same SQL a
gateway sends, as the gateway role, with pgbench (-M extended), side by side
and alternating, on a throw-away cluster (bench/run.py's).

  auth    SELECT mcp_notes.authenticate($tok)   (tools/list, server/discover)
  list    SELECT mcp_notes.handle($tok, tools/call notes_list)   (a tools/call)

for an operator token, and JWTs signed ES256, EdDSA and RS256 (2048-bit) by
a configured issuer (keys stored as the key fetcher stores them).  Prints
calls/s and the ratio JWT / operator per kind and concurrency (1.00 = free),
medians of the per-round ratios with min and max; writes
bench/results/jwt[-quick].json.

    python3 bench/jwt.py [--quick] [--levels 1,2] [--rounds 5] [--secs 3]
    make -C bench jwt | jwt-quick
"""
import argparse
import json
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import run  # noqa: E402  (bench/run.py: Cluster, pgbench, ratio_summary)
from tests.oauth import jose  # noqa: E402

RESOURCE = "https://notes.example/mcp"
ISSUER = "https://idp.example/oidc"
WORKSPACE = "file:///bench/jwt"


def tokens(cluster):
    """{kind: token}: an operator token and one JWT per algorithm, all for principal bench."""
    out = {"operator": cluster.psql("SELECT mcp_notes.issue_token('bench')")}
    keys = [jose.Key.generate("ES256", "es"), jose.Key.generate("EdDSA", "ed"), jose.Key.generate("RS256", "rs")]
    cluster.psql(f"SELECT mcp_notes.set_oauth_resource({run.lit(RESOURCE)})")
    cluster.psql(f"SELECT mcp_notes.add_oauth_issuer({run.lit(ISSUER)})")
    jwks = json.dumps({"keys": [k.public_jwk for k in keys]})
    kept = cluster.psql(f"SELECT mcp_notes.jwks_store({run.lit(ISSUER)}, {run.lit(ISSUER + '/jwks')}, {run.lit(jwks)})")
    assert kept == "3", kept
    cluster.psql(f"SELECT mcp_notes.map_oauth_identity({run.lit(ISSUER)}, 'svc', 'bench')")
    now = int(time.time())
    for k in keys:
        claims = {"iss": ISSUER, "sub": "svc", "aud": RESOURCE, "client_id": "svc", "jti": f"j-{k.kid}",
                  "iat": now, "nbf": now, "exp": now + 86400, "scope": "notes.read notes.delete"}
        out[f"jwt_{k.alg.lower()}"] = jose.compact({"typ": "at+jwt", "alg": k.alg, "kid": k.kid}, claims, k)
        k.remove()
    for kind, tok in out.items():
        who = cluster.psql(f"SELECT mcp_notes.authenticate({run.lit(tok)})")
        assert who == "bench", (kind, who)
    return out


def scripts(tmp):
    auth = tmp / "auth.sql"
    auth.write_text((HERE / "pgbench" / "auth.sql").read_text())
    request = json.dumps({"method": "tools/call", "params": {"name": "notes_list", "arguments": {"workspaceUri": WORKSPACE}},
                          "clientCapabilities": {}, "requestId": 1, "gatewayId": "bench"})
    lst = tmp / "list.sql"
    lst.write_text(f"SELECT mcp_notes.handle(:tok::text, {run.lit(request)}::jsonb) #>> '{{result,isError}}' "
                   "IS DISTINCT FROM 'true' AS ok\n\\gset\n\\if :ok\n\\else\nSELECT 1 / 0 AS refused;\n\\endif\n")
    return {"auth": auth, "list": lst}


def measure(cluster, scr, toks, levels, rounds, secs):
    """{kind: {c: {token_kind: [tps per round]}}}, members alternating, the order rotated per round."""
    kinds = list(toks)
    out = {name: {str(c): {k: [] for k in kinds} for c in levels} for name in scr}
    for r in range(rounds):
        order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]
        for name, path in scr.items():
            for c in levels:
                for k in order:
                    res = run.pgbench(cluster, path, c, secs, 1.0, {"tok": toks[k]})
                    if res["aborted"] or res["failed"]:
                        raise RuntimeError(f"pgbench {name} {k} c={c}: {res['tail']}")
                    out[name][str(c)][k].append(res["tps"])
        run.say(f"round {r + 1}/{rounds} done")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 rounds of 2 s (default 5 of 3 s)")
    ap.add_argument("--levels", default="1,2")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--secs", type=float)
    args = ap.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    secs = args.secs or (2.0 if args.quick else 3.0)
    levels = [int(x) for x in args.levels.split(",")]
    with tempfile.TemporaryDirectory(prefix="mcpn-bench-jwt-") as d:
        tmp = pathlib.Path(d)
        try:
            cluster = run.Cluster(tmp)
            cluster.psql("CREATE DATABASE bench", db="postgres")
            cluster.psql_file(f"CREATE EXTENSION mcp_notes; CREATE ROLE bench_gw LOGIN; "
                              f"SELECT mcp_notes.grant_gateway('bench_gw'); "
                              f"SELECT mcp_notes.add_workspace({run.lit(WORKSPACE)}); "
                              f"SELECT mcp_notes.grant_workspace('bench', {run.lit(WORKSPACE)}); "
                              f"SELECT mcp_notes.add_note({run.lit(WORKSPACE + '/a.md')}, 'a');")
            toks = tokens(cluster)
            raw = measure(cluster, scripts(tmp), toks, levels, rounds, secs)
        finally:
            for fn in reversed(run._cleanup):
                fn()
    result = {"note": "calls/s of the same SQL as the gateway role; ratio = JWT kind / operator token, "
                      "median of per-round ratios [min, max]",
              "rounds": rounds, "secs": secs, "results": {}}
    for name, by_c in raw.items():
        for c, by_kind in by_c.items():
            entry = {"tps_median": {k: round(run.median(v), 1) for k, v in by_kind.items()}}
            for k in by_kind:
                if k != "operator":
                    entry[f"ratio_{k}"] = run.ratio_summary(by_kind[k], by_kind["operator"])
            result["results"][f"{name}_c{c}"] = entry
    out = run.RESULTS / ("jwt-quick.json" if args.quick else "jwt.json")
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"JWT vs operator token ({rounds} rounds of {secs:g} s; {out.relative_to(run.ROOT)})")
    for key, e in result["results"].items():
        tps = "  ".join(f"{k} {v:.0f}/s" for k, v in e["tps_median"].items())
        ratios = "  ".join(f"{k[6:]} {e[k]['median']:.2f}" for k in e if k.startswith("ratio_"))
        print(f"  {key:9} {tps}\n  {'':9} ratio {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
