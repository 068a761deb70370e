#!/usr/bin/env python3
"""The mcp_notes benchmark suite: `make bench` (full) and `make bench-quick`.

Everything runs on this machine, on loopback, in processes this script starts
and stops: a throw-away PostgreSQL 15 cluster (unix socket only), the
gateways, HAProxy, nginx, pgbench and bench/loadgen.  Python standard library.

What it measures (see docs/performance.md for the why and the results):

  flows     full notes_delete flows/s (step 1 + step 2, every answer checked)
            through 1 gateway and through N gateways behind HAProxy, against
            the pgbench floor (bench/pgbench/flow.sql: the same two SQL calls,
            same concurrency, same data); step-1/step-2 p50/p99.
  requests  tools/list and server/discover requests/s through 1 gateway and
            HAProxy, against nginx serving the same tools/list JSON as a
            static file (same client) and the pgbench floor of their one SQL
            call (bench/pgbench/auth.sql).
  growth    step-1 latency in a workspace of 1,000 notes and one of
            1,000,000 (10,000 other workspaces around), one matching note.
  memory    gateway RSS idle, with 256 open connections, and before/after
            1,000,000 requests.
  listen    gateway RSS at N held subscriptions/listen streams / idle, and the
            delivery latency of one note change to N streams / to 1 (bench/listen.py).
  peer, growth_import, probe, short
            the candidate search (bench/search.py): against the TypeScript
            SDK v2 server, right after an import, the timing side channel,
            short titles.

Each comparison runs its members in the same run, alternating (order rotated
per round), for several rounds; the results are medians of per-round ratios
with their min/max.  Absolute numbers are kept in the JSON but the ratios are
the result: this machine is shared and noisy.

    python3 bench/run.py --mode full|quick [--only flows,requests,growth,memory]
                         [--variant current|baseline|before] [--gateway PATH] [--out FILE]

Must run as root (the cluster runs as the postgres user via runuser).
"""
import argparse
import datetime
import json
import math
import os
import pathlib
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
LOADGEN = BENCH / "loadgen"
WORKSPACE_FLOW = "file:///bench/flow"
WORKSPACE_SMALL = "file:///bench/small"
WORKSPACE_BIG = "file:///bench/big"
PRINCIPAL = "benchuser"
WORDS = ["budget", "review", "meeting", "roadmap", "design", "incident", "retro", "plan", "weekly",
         "notes", "draft", "summary", "ideas", "todo", "report", "minutes", "spec", "release",
         "hiring", "onboarding", "customer", "launch", "security", "backlog"]

PROFILES = {
    # make bench: must finish in under 15 minutes on the 2-core machine
    "full": dict(levels=[1, 8, 32, 128], rounds=3, flow_warm=1, flow_secs=3,
                 req_warm=0.5, req_secs=1.5, growth_big=1_000_000, growth_small=1_000,
                 growth_workspaces=10_000, growth_rounds=5, growth_secs=3,
                 mem_warm_requests=100_000, mem_requests=1_000_000, hold_conns=256,
                 gateways=2, filler=10_000, listeners=256),
    # make bench-quick: under 2 minutes; the same shape, smaller
    "quick": dict(levels=[1, 32], rounds=1, flow_warm=1, flow_secs=2,
                  req_warm=0.3, req_secs=1, growth_big=50_000, growth_small=1_000,
                  growth_workspaces=1_000, growth_rounds=2, growth_secs=1,
                  mem_warm_requests=5_000, mem_requests=30_000, hold_conns=256,
                  gateways=2, filler=2_000, listeners=64),
}

TARGETS = {
    "flow_vs_pgbench": 0.8,
    "tools_list_vs_nginx": 0.6,
    "growth_step1_p50_1M_vs_1k": 2.0,
    "rss_256_connections_mb": 32.0,
}

_cleanup = []


def say(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, **kw):
    kw.setdefault("check", True)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False


def rss_kb(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "VmSize"):
                out[k] = int(v.split()[0])
            elif k == "Threads":
                out[k] = int(v)
    return out


def median(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    return [min(xs), max(xs)] if xs else None


def ratio_summary(nums, dens):
    rs = [n / d for n, d in zip(nums, dens) if n is not None and d]
    return {"median": round(median(rs), 4) if rs else None,
            "min_max": [round(x, 4) for x in spread(rs)] if rs else None,
            "rounds": [round(x, 4) for x in rs]}


# ---------------------------------------------------------------- processes

class Proc:
    """A child process this script owns; stopped at exit."""

    def __init__(self, cmd, log, env=None, name=None):
        self.name = name or pathlib.Path(cmd[0]).name
        self.log = open(log, "wb")
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                  env=env, start_new_session=True)
        _cleanup.append(self.stop)

    @property
    def pid(self):
        return self.p.pid

    def stop(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            self.p.send_signal(sig)
            try:
                self.p.wait(15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(10)
        if not self.log.closed:
            self.log.close()


class Cluster:
    """A private PostgreSQL cluster in tmp, owned by postgres, unix socket only,
    on a private installation tree with this checkout's extension
    (scripts/pg-tree: nothing is installed into the system PostgreSQL)."""

    def __init__(self, tmp):
        # client programs (pgbench) from the installation, the server from the tree
        self.toolbin = pathlib.Path(run(["pg_config", "--bindir"], capture_output=True).stdout.strip())
        self.bindir = pathlib.Path(run([str(ROOT / "scripts" / "pg-tree"), str(tmp / "tree")],
                                       capture_output=True).stdout.strip())
        self.dir = tmp / "pg"
        self.dir.mkdir()
        shutil.chown(tmp, "postgres")
        shutil.chown(self.dir, "postgres")
        # unix socket only: the port names the socket file in this run's own directory
        self.port = free_port()
        self.data = self.dir / "data"
        run(["runuser", "-u", "postgres", "--", str(self.bindir / "initdb"), "-D", str(self.data),
             "-A", "trust", "-U", "postgres", "--no-sync"], capture_output=True)
        with open(self.data / "postgresql.conf", "a") as f:
            f.write(f"""
listen_addresses = ''
port = {self.port}
unix_socket_directories = '{self.dir}'
max_connections = 400
shared_buffers = 256MB
max_wal_size = 4GB
checkpoint_timeout = 15min
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = 'all'
max_pred_locks_per_transaction = 256
log_min_messages = warning
""")
        run(["runuser", "-u", "postgres", "--", str(self.bindir / "pg_ctl"), "-D", str(self.data),
             "-l", str(self.dir / "postgres.log"), "-w", "start"], capture_output=True)
        _cleanup.append(self.stop)
        self.env = dict(os.environ, PGHOST=str(self.dir), PGPORT=str(self.port), PGUSER="postgres")

    def stop(self):
        subprocess.run(["runuser", "-u", "postgres", "--", str(self.bindir / "pg_ctl"), "-D", str(self.data),
                        "-m", "fast", "-w", "stop"], capture_output=True)

    def conninfo(self, db, user):
        return f"host={self.dir} port={self.port} dbname={db} user={user}"

    def psql(self, sql, db="bench", user="postgres"):
        p = run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db, "-U", user, "-c", sql],
                capture_output=True, env=self.env, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"psql: {p.stderr.strip()}\nSQL: {sql[:500]}")
        return p.stdout.strip()

    def psql_file(self, text, db="bench"):
        p = run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db, "-U", "postgres"],
                input=text, capture_output=True, env=self.env, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"psql: {p.stderr.strip()}")
        return p.stdout.strip()


def lit(s):
    return "'" + str(s).replace("'", "''") + "'"


class Gateway:
    def __init__(self, binary, cluster, tmp, gid, threads=300, extra=(), env=None, db="bench"):
        self.gid = gid
        self.port = free_port()
        args = [str(binary), "--listen", f"127.0.0.1:{self.port}",
                "--db", cluster.conninfo(db, "bench_gw"), "--gateway-id", gid,
                "--threads", str(threads)]
        if "--max-connections-per-ip" in gateway_help(binary):
            args += ["--max-connections-per-ip", str(threads)]
        args += list(extra)
        self.proc = Proc(args, tmp / f"{gid}.log", name=gid, env=dict(os.environ, **(env or {})))
        if not wait_until(self.healthy, 15):
            raise RuntimeError(f"gateway {gid} did not start: {(tmp / f'{gid}.log').read_text()[-2000:]}")

    def healthy(self):
        if self.proc.p.poll() is not None:
            raise RuntimeError(f"gateway {self.gid} exited")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False


_help_cache = {}


def gateway_help(binary):
    if binary not in _help_cache:
        _help_cache[binary] = run([str(binary), "--help"], capture_output=True, check=False).stdout
    return _help_cache[binary]


def start_haproxy(tmp, servers, mode):
    """N gateways behind HAProxy, round robin.  Reuses the reliability
    harness (tests/reliability/stack.py) when it is there, else a minimal
    config of the same shape."""
    try:
        sys.path.insert(0, str(ROOT))
        from tests.reliability.stack import HAProxy  # noqa: E402
        lb = HAProxy(servers, mode=mode, server_maxconn=64)
        _cleanup.append(lb.stop)
        return lb.port, "tests/reliability/stack.py HAProxy"
    except ImportError:
        pass
    port = free_port()
    conn = "option http-server-close" if mode == "server-close" else "option http-keep-alive\n    http-reuse safe"
    cfg = tmp / "haproxy.cfg"
    cfg.write_text("\n".join([
        "global", "    maxconn 4096",
        "defaults", "    mode http", "    timeout connect 2s", "    timeout client 60s",
        "    timeout server 60s", "    timeout queue 20s", f"    {conn}",
        "frontend mcp", f"    bind 127.0.0.1:{port}", "    default_backend gateways",
        "backend gateways", "    balance roundrobin",
        *(f"    server {n} {h}:{p} maxconn 64" for n, h, p in servers)]) + "\n")
    Proc(["haproxy", "-f", str(cfg), "-db"], tmp / "haproxy.log")
    wait_until(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 10)
    return port, "bench/run.py minimal HAProxy"


def start_nginx(tmp, body):
    root = tmp / "www"
    root.mkdir()
    (root / "tools.json").write_bytes(body)
    port = free_port()
    conf = tmp / "nginx.conf"
    conf.write_text(f"""
daemon off;
worker_processes auto;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log {tmp}/nginx-access.log;
    client_body_temp_path {tmp}/nginx-body;
    proxy_temp_path {tmp}/nginx-proxy;
    fastcgi_temp_path {tmp}/nginx-fastcgi;
    uwsgi_temp_path {tmp}/nginx-uwsgi;
    scgi_temp_path {tmp}/nginx-scgi;
    keepalive_requests 100000000;
    keepalive_timeout 60s;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location = /tools.json {{ default_type application/json; add_header Cache-Control no-store; }}
        location = /readyz {{ default_type application/json; return 200 '{{"status":"ready"}}'; }}
    }}
}}
""")
    Proc(["nginx", "-c", str(conf), "-p", str(tmp)], tmp / "nginx.out")
    if not wait_until(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 10):
        raise RuntimeError("nginx did not start: " + (tmp / "nginx.out").read_text())
    return port


# ---------------------------------------------------------------- clients

def loadgen(port, mode, conns, secs=2.0, warm=0.5, token=None, **kw):
    cmd = [str(LOADGEN), "--port", str(port), "--mode", mode, "--conns", str(conns),
           "--duration", str(secs), "--warmup", str(warm)]
    if token:
        cmd += ["--token", token]
    for k, v in kw.items():
        cmd += [f"--{k.replace('_', '-')}", str(v)]
    p = run(cmd, capture_output=True, check=False, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(f"loadgen failed: {p.stderr}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    if p.stderr.strip():
        out["stderr"] = p.stderr.strip()[-500:]
    return out


def pgbench(cluster, script, conns, secs, warm, variables):
    """pgbench as the gateway role, -M extended, -j 1 (one client thread,
    like loadgen), serialization failures retried (--max-tries 8, as the
    gateway's --tool-call-attempts).  Rate from the progress lines after the
    warm-up second(s), so new backends' first (planning) calls are not counted."""
    total = int(math.ceil(warm + secs))
    cmd = [str(cluster.toolbin / "pgbench"), "-n", "-U", "bench_gw", "-d", "bench", "-f", str(script),
           "-M", "extended", "-c", str(conns), "-j", "1", "-T", str(total), "-P", "1", "-r",
           "--max-tries", "8"]
    for k, v in variables.items():
        cmd += ["-D", f"{k}={v}"]
    p = run(cmd, capture_output=True, env=cluster.env, check=False, timeout=600)
    text = p.stdout + p.stderr
    prog = [(float(m.group(1)), float(m.group(2)))
            for m in re.finditer(r"progress: ([\d.]+) s, ([\d.]+) tps", text)]
    skip = int(math.ceil(warm))
    measured = [tps for t, tps in prog if t > skip]
    processed = re.search(r"number of transactions actually processed: (\d+)", text)
    failed = re.search(r"number of failed transactions: (\d+)", text)
    retried = re.search(r"number of transactions retried: (\d+)", text)
    stmt_lat = [float(x) for x in re.findall(r"^\s+([\d.]+)(?:\s+\d+){1,2}\s+SELECT", text, re.M)]
    aborted = "aborted" in text or p.returncode != 0
    return {"tps": statistics.mean(measured) if measured else 0.0,
            "tps_per_second": measured,
            "processed": int(processed.group(1)) if processed else 0,
            "failed": int(failed.group(1)) if failed else 0,
            "retried": int(retried.group(1)) if retried else 0,
            "statement_mean_ms": stmt_lat,
            "aborted": aborted,
            "tail": text[-600:] if aborted else ""}


# ---------------------------------------------------------------- data

def title_sql(num_expr):
    words = "ARRAY[" + ",".join(lit(w) for w in WORDS) + "]"
    n = len(WORDS)
    return (f"format('%s %s #%s', ({words})[1 + (({num_expr}) * 7) % {n}], "
            f"({words})[1 + (({num_expr}) * 13) % {n}], lpad(({num_expr})::text, 7, '0'))")


def setup_database(cluster, variant):
    cluster.psql("CREATE DATABASE bench", db="postgres")
    cluster.psql_file(f"""
CREATE EXTENSION mcp_notes;
CREATE EXTENSION pg_stat_statements;
CREATE ROLE bench_gw LOGIN;
SELECT mcp_notes.grant_gateway('bench_gw');
SELECT mcp_notes.add_workspace({lit(WORKSPACE_FLOW)});
SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(WORKSPACE_FLOW)});
""")
    if variant == "baseline":
        cluster.psql_file((BENCH / "baseline.sql").read_text())
    return cluster.psql(f"SELECT mcp_notes.issue_token({lit(PRINCIPAL)})")


def add_filler(cluster, n):
    cluster.psql(f"""INSERT INTO mcp_notes.notes (uri, title)
        SELECT format('{WORKSPACE_FLOW}/filler/d%s/n%s.md', g / 1000, g), {title_sql('g + 5000000')}
        FROM generate_series(1, {n}) g""")
    cluster.psql("VACUUM ANALYZE mcp_notes.notes")


def add_run_notes(cluster, run_no, conns, per_conn):
    cluster.psql(f"""INSERT INTO mcp_notes.notes (uri, title)
        SELECT format('{WORKSPACE_FLOW}/r%s/c%s/n%s.md', {run_no}, c, k), format('r%s c%s n%s|', {run_no}, c, k)
        FROM generate_series(0, {conns - 1}) c, generate_series(1, {per_conn}) k""")


def finish_run_notes(cluster, run_no, conns, per_conn):
    """(notes deleted in this run, accept audits for them); removes the rest."""
    left = int(cluster.psql(f"SELECT count(*) FROM mcp_notes.notes WHERE uri LIKE '{WORKSPACE_FLOW}/r{run_no}/%'"))
    audited = int(cluster.psql(f"SELECT count(*) FROM mcp_notes.delete_audit WHERE outcome = 'accept' "
                               f"AND note_uri LIKE '{WORKSPACE_FLOW}/r{run_no}/%'"))
    cluster.psql(f"DELETE FROM mcp_notes.notes WHERE uri LIKE '{WORKSPACE_FLOW}/r{run_no}/%'")
    return conns * per_conn - left, audited


# ---------------------------------------------------------------- the suite

class Suite:
    def __init__(self, args):
        self.args = args
        self.p = PROFILES[args.mode]
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="mcpn-bench-"))
        self.run_no = 0
        self.rate_guess = 800.0
        self.result = {
            "suite": "mcp_notes bench", "mode": args.mode, "variant": args.variant,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": {"cpus": os.cpu_count(), "kernel": platform.release(),
                        "postgres": None, "gateway": str(args.gateway)},
            "profile": self.p, "targets": TARGETS,
        }

    # -- setup
    def setup(self):
        say(f"cluster in {self.tmp}")
        self.cluster = Cluster(self.tmp)
        self.result["machine"]["postgres"] = self.cluster.psql("SHOW server_version", db="postgres")
        self.token = setup_database(self.cluster, self.args.variant)
        add_filler(self.cluster, self.p["filler"])
        self.gw1 = Gateway(self.args.gateway, self.cluster, self.tmp, "gw1")
        self.gws = [Gateway(self.args.gateway, self.cluster, self.tmp, f"gw-lb{i}")
                    for i in range(self.p["gateways"])]
        self.lb_port, lb_impl = start_haproxy(self.tmp, [(g.gid, "127.0.0.1", g.port) for g in self.gws],
                                              self.args.lb_mode)
        self.result["haproxy"] = {"implementation": lb_impl, "mode": self.args.lb_mode,
                                  "gateways": self.p["gateways"]}
        body = self.tools_list_body(self.gw1.port)
        self.nginx_port = start_nginx(self.tmp, body)
        # the HTTP floor of the balanced path: the same HAProxy configuration
        # in front of nginx (two server lines, as for the two gateways)
        self.lb_nginx_port, _ = start_haproxy(self.tmp, [(f"nginx{i}", "127.0.0.1", self.nginx_port)
                                                         for i in range(self.p["gateways"])],
                                              self.args.lb_mode)
        self.result["tools_list_bytes"] = len(body)
        self.result["gw1_rss_start_kb"] = rss_kb(self.gw1.proc.pid)

    def tools_list_body(self, port):
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/mcp", method="POST",
            data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.token}",
                     "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read()

    # -- flows
    def flow_run(self, target, conns):
        p = self.p
        self.run_no += 1
        per_conn = int(math.ceil(self.rate_guess * (p["flow_warm"] + p["flow_secs"] + 1) * 2.5 / conns)) + 20
        add_run_notes(self.cluster, self.run_no, conns, per_conn)
        if target == "pgbench":
            r = pgbench(self.cluster, BENCH / "pgbench" / "flow.sql", conns, p["flow_secs"], p["flow_warm"],
                        {"tok": self.token, "run": self.run_no, "k": 0})
            rate = r["tps"]
            errors = r["failed"] + (1 if r["aborted"] else 0)
            flows_total = r["processed"]
        else:
            port = self.gw1.port if target == "gw1" else self.lb_port
            r = loadgen(port, "flow", conns, p["flow_secs"], p["flow_warm"], self.token,
                        workspace=WORKSPACE_FLOW, prefix=f"r{self.run_no}", notes=per_conn)
            rate = r["flows_per_s"]
            errors = r["errors"] + r["exhausted_conns"]
            flows_total = r["total_flows"]
        deleted, audited = finish_run_notes(self.cluster, self.run_no, conns, per_conn)
        r.update(target=target, conns=conns, rate=rate, errors=errors, notes_prepared=conns * per_conn,
                 deleted=deleted, audited=audited,
                 checked=(deleted == audited == flows_total and errors == 0))
        if not r["checked"]:
            say(f"  CHECK FAILED {target} c={conns}: flows={flows_total} deleted={deleted} audited={audited} "
                f"errors={errors} {r.get('error_samples') or r.get('tail')}")
        self.rate_guess = max(self.rate_guess, rate * 1.2)
        return r

    def flows(self):
        say("flows: pgbench floor vs 1 gateway vs N gateways behind HAProxy")
        targets = ["pgbench", "gw1", "lb"]
        out = {}
        for c in self.p["levels"]:
            runs = {t: [] for t in targets}
            for rnd in range(self.p["rounds"]):
                order = targets[rnd % 3:] + targets[:rnd % 3]
                for t in order:
                    runs[t].append(self.flow_run(t, c))
            med = {t: median([x["rate"] for x in runs[t]]) for t in targets}
            out[str(c)] = {
                "runs": runs,
                "flows_per_s_median": med,
                "ratio_gw1_vs_pgbench": ratio_summary([x["rate"] for x in runs["gw1"]],
                                                      [x["rate"] for x in runs["pgbench"]]),
                "ratio_lb_vs_pgbench": ratio_summary([x["rate"] for x in runs["lb"]],
                                                     [x["rate"] for x in runs["pgbench"]]),
                "step1_p50_ms": {t: median([x["step1"]["p50_ms"] for x in runs[t] if x.get("step1")])
                                 for t in ("gw1", "lb")},
                "step1_p99_ms": {t: median([x["step1"]["p99_ms"] for x in runs[t] if x.get("step1")])
                                 for t in ("gw1", "lb")},
                "step2_p50_ms": {t: median([x["step2"]["p50_ms"] for x in runs[t] if x.get("step2")])
                                 for t in ("gw1", "lb")},
                "step2_p99_ms": {t: median([x["step2"]["p99_ms"] for x in runs[t] if x.get("step2")])
                                 for t in ("gw1", "lb")},
                "pgbench_statement_mean_ms": runs["pgbench"][-1]["statement_mean_ms"],
                "all_checked": all(x["checked"] for t in targets for x in runs[t]),
            }
            say(f"  c={c}: flows/s pgbench {med['pgbench']:.0f}  gw1 {med['gw1']:.0f}  lb {med['lb']:.0f}  "
                f"gw1/pgbench {out[str(c)]['ratio_gw1_vs_pgbench']['median']}")
        self.result["flows"] = out

    # -- tools/list, server/discover
    def requests(self):
        say("requests: tools/list and server/discover vs nginx static (alone and behind HAProxy) "
            "and the pgbench floor")
        p = self.p
        # the flows part deleted thousands of notes: vacuum now, so autovacuum
        # does not take CPU from some of the runs below and not from others
        self.cluster.psql("VACUUM ANALYZE mcp_notes.notes")
        self.cluster.psql("CHECKPOINT")
        targets = ["nginx", "lb_nginx", "gw1_tools", "lb_tools", "gw1_discover", "lb_discover", "pgbench_auth"]
        out = {}
        for c in self.p["levels"]:
            runs = {t: [] for t in targets}
            for rnd in range(p["rounds"]):
                k = rnd % len(targets)
                for t in targets[k:] + targets[:k]:
                    if t == "pgbench_auth":
                        r = pgbench(self.cluster, BENCH / "pgbench" / "auth.sql", c, p["req_secs"], p["req_warm"],
                                    {"tok": self.token})
                        r.update(rate=r["tps"], errors=r["failed"] + (1 if r["aborted"] else 0))
                    else:
                        if t in ("nginx", "lb_nginx"):
                            r = loadgen(self.nginx_port if t == "nginx" else self.lb_nginx_port, "get", c,
                                        p["req_secs"], p["req_warm"], self.token, path="/tools.json")
                        else:
                            port = self.gw1.port if t.startswith("gw1") else self.lb_port
                            r = loadgen(port, "tools" if t.endswith("tools") else "discover", c,
                                        p["req_secs"], p["req_warm"], self.token)
                        r.update(rate=r["requests_per_s"])
                    r["target"] = t
                    runs[t].append(r)
            med = {t: median([x["rate"] for x in runs[t]]) for t in targets}
            rates = {t: [x["rate"] for x in runs[t]] for t in targets}
            out[str(c)] = {
                "runs": runs,
                "requests_per_s_median": med,
                "ratio_gw1_tools_vs_nginx": ratio_summary(rates["gw1_tools"], rates["nginx"]),
                "ratio_lb_tools_vs_nginx": ratio_summary(rates["lb_tools"], rates["nginx"]),
                "ratio_lb_tools_vs_lb_nginx": ratio_summary(rates["lb_tools"], rates["lb_nginx"]),
                "ratio_gw1_tools_vs_pgbench_auth": ratio_summary(rates["gw1_tools"], rates["pgbench_auth"]),
                "ratio_gw1_discover_vs_nginx": ratio_summary(rates["gw1_discover"], rates["nginx"]),
                "latency_p50_ms": {t: median([x["latency"]["p50_ms"] for x in runs[t] if x.get("latency")])
                                   for t in targets if t != "pgbench_auth"},
                "latency_p99_ms": {t: median([x["latency"]["p99_ms"] for x in runs[t] if x.get("latency")])
                                   for t in targets if t != "pgbench_auth"},
                "errors": sum(x["errors"] for t in targets for x in runs[t]),
            }
            say(f"  c={c}: req/s nginx {med['nginx']:.0f} (via HAProxy {med['lb_nginx']:.0f})  "
                f"tools gw1 {med['gw1_tools']:.0f} lb {med['lb_tools']:.0f}  discover gw1 {med['gw1_discover']:.0f}  "
                f"pgbench auth {med['pgbench_auth']:.0f}  tools/nginx "
                f"{out[str(c)]['ratio_gw1_tools_vs_nginx']['median']}")
        self.result["requests"] = out

    # -- growth
    def growth(self):
        p = self.p
        say(f"growth: step 1 in a workspace of {p['growth_small']} notes vs {p['growth_big']} "
            f"({p['growth_workspaces']} other workspaces)")
        c = self.cluster
        t0 = time.monotonic()
        # Bulk load only: the title index is dropped and re-created with its
        # exact definition afterwards (CREATE INDEX is ~4x faster than a
        # million index inserts); nothing else about the schema changes.
        index = c.psql("SELECT i.indexrelid::regclass FROM pg_index i "
                       "WHERE i.indexrelid IN (to_regclass('mcp_notes.notes_title_keys'), "
                       "to_regclass('mcp_notes.notes_title_trigrams'))")
        indexdef = c.psql(f"SELECT pg_get_indexdef('{index}'::regclass)") if index else ""
        c.psql_file(f"""
{f'DROP INDEX {index};' if index else ''}
SELECT mcp_notes.add_workspace({lit(WORKSPACE_SMALL)});
SELECT mcp_notes.add_workspace({lit(WORKSPACE_BIG)});
SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(WORKSPACE_SMALL)});
SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(WORKSPACE_BIG)});
INSERT INTO mcp_notes.workspaces (uri) SELECT format('file:///bench/ws/w%s', j) FROM generate_series(1, {p['growth_workspaces']}) j;
INSERT INTO mcp_notes.grants (principal, workspace_uri)
    SELECT format('other%s', j % 100), format('file:///bench/ws/w%s', j) FROM generate_series(1, {p['growth_workspaces']}) j;
INSERT INTO mcp_notes.notes (uri, title)
    SELECT format('file:///bench/ws/w%s/n.md', j), {title_sql('j + 7000000')} FROM generate_series(1, {p['growth_workspaces']}) j;
INSERT INTO mcp_notes.notes (uri, title)
    SELECT format('{WORKSPACE_SMALL}/d%s/n%s.md', g / 1000, g), {title_sql('g + 2000000')}
    FROM generate_series(1, {p['growth_small']}) g;
INSERT INTO mcp_notes.notes (uri, title)
    SELECT format('{WORKSPACE_BIG}/d%s/n%s.md', g / 1000, g), {title_sql('g')}
    FROM generate_series(1, {p['growth_big']}) g;
{indexdef + ';' if indexdef else ''}
VACUUM ANALYZE mcp_notes.notes;
CHECKPOINT;
""")
        load_s = time.monotonic() - t0
        files = {}
        for name, ws in (("small", WORKSPACE_SMALL), ("big", WORKSPACE_BIG)):
            titles = c.psql(f"SELECT title FROM mcp_notes.notes WHERE uri LIKE '{ws}/%' "
                            f"ORDER BY md5(note_id) LIMIT 200").splitlines()
            f = self.tmp / f"titles-{name}.txt"
            f.write_text("\n".join(titles) + "\n")
            files[name] = f
        # the plans, once each, for the record
        plans = {}
        for name, ws in (("small", WORKSPACE_SMALL), ("big", WORKSPACE_BIG)):
            t = files[name].read_text().splitlines()[0]
            plans[name] = c.psql(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT * FROM mcp_notes._candidates("
                                 f"{lit(ws)}, {lit(t)}, 26)")
        runs = {"small": [], "big": []}
        for rnd in range(p["growth_rounds"]):
            for name in (("small", "big") if rnd % 2 == 0 else ("big", "small")):
                ws = WORKSPACE_SMALL if name == "small" else WORKSPACE_BIG
                r = loadgen(self.gw1.port, "step1", 1, p["growth_secs"], 0.3, self.token,
                            workspace=ws, titles_file=files[name])
                runs[name].append(r)
        p50 = {n: [x["step1"]["p50_ms"] if x.get("step1") else None for x in runs[n]] for n in runs}
        self.result["growth"] = {
            "notes_small": p["growth_small"], "notes_big": p["growth_big"],
            "other_workspaces": p["growth_workspaces"], "load_seconds": round(load_s, 1),
            "runs": runs, "step1_p50_ms": {n: median([v for v in p50[n] if v]) for n in p50},
            "step1_p99_ms": {n: median([x["step1"]["p99_ms"] for x in runs[n] if x.get("step1")]) for n in runs},
            "ratio_big_vs_small_p50": ratio_summary(p50["big"], p50["small"]),
            "errors": sum(x["errors"] for n in runs for x in runs[n]),
            "plans": plans,
        }
        say(f"  step-1 p50 small {self.result['growth']['step1_p50_ms']['small']:.3f} ms, big "
            f"{self.result['growth']['step1_p50_ms']['big']:.3f} ms, ratio "
            f"{self.result['growth']['ratio_big_vs_small_p50']['median']} (load {load_s:.0f} s)")

    # -- memory
    def memory(self):
        p = self.p
        say("memory: gateway RSS idle, at 256 open connections, before/after "
            f"{p['mem_requests']} requests")
        gw = Gateway(self.args.gateway, self.cluster, self.tmp, "gw-mem", threads=p["hold_conns"] + 44)
        m = {"threads_flag": p["hold_conns"] + 44}
        m["start"] = rss_kb(gw.proc.pid)
        loadgen(gw.port, "tools", 1, 0.5, 0, self.token)
        time.sleep(0.5)
        m["idle"] = rss_kb(gw.proc.pid)
        # 256 open connections, each having served one request, held open
        cmd = [str(LOADGEN), "--port", str(gw.port), "--mode", "hold", "--conns", str(p["hold_conns"]),
               "--hold", "3", "--token", self.token]
        hold = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = hold.stdout.readline()
        time.sleep(0.5)
        m["open_connections"] = rss_kb(gw.proc.pid)
        m["open_connections"]["held"] = line.strip()
        m["open_connections"]["conns"] = p["hold_conns"]
        rest, err = hold.communicate(timeout=60)
        m["hold_result"] = json.loads(rest.strip().splitlines()[-1]) if rest.strip() else {"stderr": err}
        time.sleep(1.5)
        m["after_close"] = rss_kb(gw.proc.pid)
        t0 = time.monotonic()
        r1 = loadgen(gw.port, "tools", 32, 0, 0, self.token, requests=p["mem_warm_requests"])
        m["after_warm_requests"] = rss_kb(gw.proc.pid)
        m["warm_requests"] = r1["total_requests"]
        r2 = loadgen(gw.port, "tools", 32, 0, 0, self.token, requests=p["mem_requests"] - p["mem_warm_requests"])
        m["after_all_requests"] = rss_kb(gw.proc.pid)
        m["total_requests"] = r1["total_requests"] + r2["total_requests"]
        m["errors"] = r1["errors"] + r2["errors"]
        m["requests_per_s"] = round(m["total_requests"] / (time.monotonic() - t0), 1)
        m["growth_kb"] = m["after_all_requests"]["VmRSS"] - m["after_warm_requests"]["VmRSS"]
        self.result["memory"] = m
        self.result["gw1_rss_end_kb"] = rss_kb(self.gw1.proc.pid)
        gw.proc.stop()
        say(f"  RSS idle {m['idle']['VmRSS'] / 1024:.1f} MB, 256 conns {m['open_connections']['VmRSS'] / 1024:.1f} MB "
            f"({m['open_connections']['Threads']} threads), after {m['total_requests']} requests "
            f"{m['after_all_requests']['VmRSS'] / 1024:.1f} MB (growth {m['growth_kb']} kB since "
            f"{m['warm_requests']})")

    # -- where the time goes, database side
    def statements(self):
        """pg_stat_statements of one 1-gateway flow run at concurrency 8."""
        c = self.cluster
        c.psql("SELECT pg_stat_statements_reset()")
        r = self.flow_run("gw1", 8)
        rows = c.psql("""SELECT json_agg(t) FROM (
            SELECT calls, round(total_exec_time::numeric, 1) AS total_ms,
                   round(mean_exec_time::numeric, 4) AS mean_ms, round(total_plan_time::numeric, 1) AS plan_ms,
                   left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
            FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15) t""")
        self.result["statements"] = {"flows": r["total_flows"], "flows_per_s": r["flows_per_s"],
                                     "top": json.loads(rows)}

    def summary(self):
        r = self.result
        s = {}
        lines = ["", "mcp_notes bench summary (" + r["mode"] + ", variant " + r["variant"] + ")",
                 "ratio                                         median  [min, max]   target   verdict"]

        def add(key, label, summ, target, higher_better=True):
            if not summ or summ.get("median") is None:
                return
            med = summ["median"]
            ok = med >= target if higher_better else med <= target
            s[key] = {"median": med, "min_max": summ["min_max"], "target": target,
                      "met": ok}
            mm = summ["min_max"]
            lines.append(f"{label:<45} {med:6.3f}  [{mm[0]:.3f}, {mm[1]:.3f}]  "
                         f"{'>=' if higher_better else '<='} {target:<5} {'MET' if ok else 'NOT MET'}")

        for c, v in r.get("flows", {}).items():
            add(f"flow_gw1_vs_pgbench_c{c}", f"flows/s 1 gateway / pgbench floor, c={c}",
                v["ratio_gw1_vs_pgbench"], TARGETS["flow_vs_pgbench"])
            add(f"flow_lb_vs_pgbench_c{c}", f"flows/s {r['haproxy']['gateways']} gateways+HAProxy / pgbench, c={c}",
                v["ratio_lb_vs_pgbench"], TARGETS["flow_vs_pgbench"])
        for c, v in r.get("requests", {}).items():
            add(f"tools_gw1_vs_nginx_c{c}", f"tools/list 1 gateway / nginx static, c={c}",
                v["ratio_gw1_tools_vs_nginx"], TARGETS["tools_list_vs_nginx"])
            if "ratio_lb_tools_vs_lb_nginx" in v:
                add(f"tools_lb_vs_lb_nginx_c{c}", f"tools/list HAProxy / nginx via HAProxy, c={c}",
                    v["ratio_lb_tools_vs_lb_nginx"], TARGETS["tools_list_vs_nginx"])
        if "growth" in r:
            g = r["growth"]
            add("growth_step1_p50", f"step-1 p50 {g['notes_big']} / {g['notes_small']} notes",
                g["ratio_big_vs_small_p50"], TARGETS["growth_step1_p50_1M_vs_1k"], higher_better=False)
        if "memory" in r:
            m = r["memory"]
            mb = m["open_connections"]["VmRSS"] / 1024
            ok = mb <= TARGETS["rss_256_connections_mb"]
            s["rss_256_connections_mb"] = {"value": round(mb, 1), "target": TARGETS["rss_256_connections_mb"],
                                           "met": ok}
            lines.append(f"{'gateway RSS MB at 256 open connections':<45} {mb:6.1f}{'':17}<= 32    "
                         f"{'MET' if ok else 'NOT MET'}")
            grow = m["growth_kb"] / 1024
            s["rss_growth_mb"] = {"value": round(grow, 2), "after_requests": m["total_requests"],
                                  "met": grow <= 1.0}
            lines.append(f"{'RSS growth MB, ' + str(m['warm_requests']) + ' -> ' + str(m['total_requests']) + ' requests':<45} "
                         f"{grow:6.2f}{'':17}~0      {'MET' if grow <= 1.0 else 'NOT MET'}")
        if "search" in r:
            import search
            search.summary_rows(r, add)
        checks = []
        for c, v in r.get("flows", {}).items():
            checks.append(v["all_checked"])
        for v in r.get("search", {}).get("peer", {}).values():
            if isinstance(v, dict):
                checks.append(v["all_checked"])
        lines.append(f"every flow checked (deletes == flows == audit rows, no wrong answer): "
                     f"{'yes' if all(checks) else 'NO'}")
        r["summary"] = s
        r["all_flows_checked"] = all(checks)
        return "\n".join(lines)

    def close(self):
        for fn in reversed(_cleanup):
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                print(f"cleanup: {e}", file=sys.stderr)
        _cleanup.clear()
        raw = RESULTS / "raw"
        raw.mkdir(parents=True, exist_ok=True)
        for f in self.tmp.glob("*.log"):
            if f.stat().st_size < 5_000_000:
                shutil.copy(f, raw / f"{self.args.mode}-{f.name}")
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=PROFILES, default="quick")
    ap.add_argument("--only", default="flows,requests,growth,memory,statements,listen,peer,growth_import,probe,short")
    ap.add_argument("--variant", choices=["current", "baseline", "before"], default="current",
                    help="baseline: the 1.0 candidate search (bench/baseline.sql); before: the 1.2 one "
                         "(bench/before.sql, in the search parts' databases)")
    ap.add_argument("--gateway", default=str(ROOT / "gateway" / "mcp-notes-gateway"))
    ap.add_argument("--lb-mode", choices=["server-close", "keep-alive"], default="server-close")
    ap.add_argument("--levels", help="comma-separated concurrency levels (overrides the profile)")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench/run.py must run as root (it starts PostgreSQL as the postgres user with runuser)")
    if not LOADGEN.exists():
        sys.exit("bench/loadgen is not built: make -C bench loadgen")
    suite = Suite(args)
    if args.levels:
        suite.p["levels"] = [int(x) for x in args.levels.split(",")]
    if args.rounds:
        suite.p["rounds"] = args.rounds
    only = set(args.only.split(","))

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    t0 = time.monotonic()
    try:
        suite.setup()
        if "flows" in only:
            suite.flows()
        if "statements" in only:
            suite.statements()
        if "requests" in only:
            suite.requests()
        if "growth" in only:
            suite.growth()
        if "memory" in only:
            suite.memory()
        if "listen" in only:
            sys.modules.setdefault("run", sys.modules[__name__])     # one module: one _cleanup list
            import listen
            listen.run_listen(suite)
        if only & {"peer", "growth_import", "probe", "short"}:
            sys.modules.setdefault("run", sys.modules[__name__])     # one module: one _cleanup list
            import search
            search.run_parts(suite, only)
    finally:
        suite.close()
    suite.result["seconds"] = round(time.monotonic() - t0, 1)
    text = suite.summary()
    out = pathlib.Path(args.out) if args.out else RESULTS / f"{args.mode}{'' if args.variant == 'current' else '-' + args.variant}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(suite.result, indent=1) + "\n")
    print(text)
    print(f"\nresults: {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}  "
          f"({suite.result['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
