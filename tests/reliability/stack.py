"""N gateways behind a real HAProxy in front of one test database, as the
production stack runs them, plus the small tools the reliability tests (and
the benchmarks) share.  Python standard library only; imports the end-to-end
harness (tests/e2e/harness.py) rather than copying it.

Usage (inside tests/with-cluster, or pg_virtualenv with the extension installed, and the gateway
built, as for tests/e2e):

    from tests.reliability.stack import Stack
    from tests.e2e.harness import Database

    db = Database("bench")                      # a fresh database + gateway role
    with Stack(db, n=4) as stack:               # 4 gateways + HAProxy, all on loopback
        lb = stack.lb                           # an Endpoint: .rpc(), .call_delete(), .get()
        r = lb.call_delete(db.issue_token(), WORKSPACE, "TPS", id=1)
        stack.served_by(r)                      # -> the gateway id that answered ("gw…-2")
        stack.kill(2)                           # SIGKILL gateway 2 (stack.stop(2) = SIGTERM)
        stack.wait_server_status(stack.ids[2], "DOWN")
    db.drop()

API
---
Stack(db, n=1|2|4|…, gateway_args=(), lb_mode="server-close", server_maxconn=24,
      check_inter_ms=200, label=None, lb_maxconn=4096)
    Starts n mcp-notes-gateway processes (harness.Gateway, each on 127.0.0.1:<free port>,
    --gateway-id = stack.ids[i]) and one HAProxy (round-robin, health check
    GET /readyz every check_inter_ms, fall 2 rise 1) on a free loopback port.
    gateway_args are extra gateway flags (e.g. ("--pool-size", "16")).
    lb_mode: "server-close" (default: a new server connection per request, client
    keep-alive kept) or "keep-alive" (HAProxy reuses idle server connections).
    server_maxconn: per-gateway cap in HAProxy (excess requests wait in HAProxy's
    queue); keep it below the gateway's --max-connections-per-ip.  lb_maxconn:
    HAProxy's global connection limit (client side).  label: part of the gateway ids.
  .gateways        list of harness.Gateway (.proc, .port, .gateway_id, .log_lines(), .get())
  .ids             their gateway ids == HAProxy server names == delete_audit.gateway_id
  .gateway_urls    ["http://127.0.0.1:PORT", …]
  .lb              Endpoint for the balancer (same request API as harness.Gateway)
  .lb_url          "http://127.0.0.1:PORT"
  .endpoint(i)     Endpoint for gateway i (== stack.gateways[i], no process ownership)
  .served_by(resp) the X-Served-By header HAProxy adds to every response (server
                   name, i.e. gateway id); "<NOSRV>" when HAProxy answered itself
  .kill(i) / .stop(i, sig=SIGTERM)   signal gateway i and wait for it to exit
  .server_status() {server name: "UP" | "DOWN" | "MAINT" | …} from HAProxy's stats socket
  .wait_server_status(name, status, timeout=10)
  .close()         stops HAProxy and every gateway (also: context manager)

Endpoint(port) — a harness.Gateway-like client for any loopback port (rpc,
call_delete, get, post_raw, request, connection), owning no process.
HAProxy(servers, …) — the balancer alone (servers = [(name, host, port)]).
proc_status(pid) — VmRSS/VmHWM (kB), Threads and open fds of a process.
reps(check, soak) — repetition count: `soak` when MCP_NOTES_SOAK=1, else `check`
  (MCP_NOTES_REPS=N overrides both).
PsqlSession(dbname) — one long-lived superuser psql session (low-latency SQL for
  races): .query(sql) -> list of output lines (psql errors raise PsqlError).
pg_cluster_stop(mode) / pg_cluster_start() / pg_cluster_restart(mode) / cluster_up() —
  the pg_virtualenv cluster, mode "fast" or "immediate".
raise_nofile(n) — raise this process's RLIMIT_NOFILE soft limit towards n.
free_port(), say(text) (a line on stderr), SOAK (True under make soak).

HAProxy configuration, and why
------------------------------
- `balance roundrobin`: consecutive requests go to different gateways, so a
  step 1 and its retry sent one after the other by one client are served by two
  different gateways whenever n >= 2 (the tests check X-Served-By).
- `option http-server-close` by default: client-side keep-alive stays, but every
  request gets its own server connection.  Each request is then balanced on its
  own, a gateway that dies can only fail requests actually sent to it (no reused
  idle server connection that turns out dead after the request was written), and
  HAProxy holds no idle connections that would occupy the gateway's
  connection slots (--threads).  A loopback connect costs ~50 µs.  Benchmarks may
  pass lb_mode="keep-alive" to measure with server connection reuse.
- Health check `GET /readyz` (200 only while the gateway reaches the database
  and is not draining), `inter 200ms fall 2 rise 1`, `timeout check 2s`: without
  an explicit check timeout HAProxy uses `inter`, and a /readyz that waits
  200 ms for a busy pool would mark a loaded gateway down.
- Only connection failures are retried (`retries 3`, `option redispatch 1`):
  a POST that reached a gateway is never re-sent by the balancer, because the
  gateway may have committed it.
- `timeout http-request 5s` + `option http-buffer-request`: headers (and bodies
  up to one buffer) must arrive within 5 s before anything is sent to a gateway,
  so slow clients stay in HAProxy (event-driven) instead of a gateway thread.
- HAProxy's own 502/503/504 answers are JSON-RPC errors (-32603, id null) with
  `X-Generated-By: haproxy`, so a client always gets JSON-RPC.
- `http-after-response set-header X-Served-By %s`: the server that was chosen
  (also on HAProxy's own errors, where it is `<NOSRV>` if none was).
"""
import http.client
import json
import os
import pathlib
import queue
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e import harness  # noqa: E402
from tests.e2e.harness import Gateway, cluster, psql, wait_until  # noqa: E402,F401

SOAK = os.environ.get("MCP_NOTES_SOAK", "0") not in ("", "0")


def reps(check, soak):
    """Repetitions for this run: MCP_NOTES_REPS, else soak or check count."""
    override = os.environ.get("MCP_NOTES_REPS")
    if override:
        return int(override)
    return soak if SOAK else check


def say(text):
    """A summary line on stderr (unittest -v output stays parseable)."""
    print(text, file=sys.stderr, flush=True)


def free_port(host="127.0.0.1"):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def proc_status(pid):
    """{'VmRSS': kB, 'VmHWM': kB, 'Threads': n, 'fds': n} of a live process."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "VmSize"):
                out[key] = int(value.split()[0])
            elif key == "Threads":
                out[key] = int(value)
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


def raise_nofile(wanted):
    """Raise this process's RLIMIT_NOFILE soft limit towards `wanted`; returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---------------------------------------------------------------- clients

class Endpoint(Gateway):
    """The request API of harness.Gateway for any loopback port, no process."""

    def __init__(self, port, host="127.0.0.1"):  # noqa: super().__init__ starts a process
        self.port = port
        self.host = host
        self.proc = None
        self.gateway_id = None

    def connection(self, timeout=30):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def cleanup(self):
        pass

    def stop(self, *a, **kw):
        return None


# ---------------------------------------------------------------- HAProxy

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def _errorfile(path, status, reason, message):
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32603, "message": message}}, separators=(",", ":"))
    text = (f"HTTP/1.1 {status} {reason}\r\n"
            "Content-Type: application/json\r\n"
            "Cache-Control: no-store\r\n"
            "Retry-After: 1\r\n"
            "X-Generated-By: haproxy\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Connection: close\r\n"
            "\r\n" + body)
    path.write_text(text)


class HAProxy:
    """One haproxy process (foreground, -db) with a generated configuration."""

    def __init__(self, servers, mode="server-close", server_maxconn=24, check_inter_ms=200,
                 timeout_http_request="5s", maxconn=4096):
        if not os.path.exists(HAPROXY):
            raise RuntimeError("haproxy not found: apt-get install -y haproxy")
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="mcp-notes-lb-"))
        self.port = free_port()
        self.sock = self.dir / "admin.sock"
        self.log_path = self.dir / "haproxy.log"
        for status, reason, msg in ((502, "Bad Gateway", "Bad gateway: the gateway failed mid-request (load balancer)"),
                                    (503, "Service Unavailable", "No gateway available (load balancer)"),
                                    (504, "Gateway Timeout", "Gateway timeout (load balancer)")):
            _errorfile(self.dir / f"{status}.http", status, reason, msg)
        if mode == "server-close":
            conn_opt = "option http-server-close"
        elif mode == "keep-alive":
            conn_opt = "option http-keep-alive\n    http-reuse safe"
        else:
            raise ValueError(f"lb mode {mode!r}")
        # HAProxy wants 2 descriptors per connection (client + server); idle or
        # incomplete client connections need one, so cap at what we may have
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        fds = 2 * maxconn + 200
        if hard != resource.RLIM_INFINITY:
            fds = min(fds, hard)
        lines = [
            "global",
            f"    maxconn {maxconn}",
            f"    ulimit-n {fds}",
            f"    stats socket {self.sock} mode 600 level admin",
            "    log stderr format raw local0 warning",
            "defaults",
            "    mode http",
            "    log global",
            "    option dontlognull",
            "    timeout connect 2s",
            "    timeout client 60s",
            "    timeout server 60s",
            "    timeout queue 20s",
            "    timeout check 2s",
            f"    timeout http-request {timeout_http_request}",
            "    timeout http-keep-alive 10s",
            "    retries 3",
            "    option redispatch 1",
            f"    {conn_opt}",
            "    option http-buffer-request",
            *(f"    errorfile {s} {self.dir / f'{s}.http'}" for s in (502, 503, 504)),
            "frontend mcp",
            f"    bind 127.0.0.1:{self.port}",
            "    default_backend gateways",
            "backend gateways",
            "    balance roundrobin",
            "    option httpchk",
            "    http-check send meth GET uri /readyz",
            "    http-check expect status 200",
            "    http-after-response set-header X-Served-By %s",
            f"    default-server inter {check_inter_ms}ms fastinter {check_inter_ms}ms "
            f"downinter {check_inter_ms}ms fall 2 rise 1 maxconn {server_maxconn}",
        ]
        for name, host, port in servers:
            lines.append(f"    server {name} {host}:{port} check")
        self.config = self.dir / "haproxy.cfg"
        self.config.write_text("\n".join(lines) + "\n")
        self.servers = [s[0] for s in servers]
        check = subprocess.run([HAPROXY, "-c", "-q", "-f", str(self.config)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy rejected its config: {check.stderr}\n{self.config.read_text()}")
        self.log_file = open(self.log_path, "wb")
        self.proc = subprocess.Popen([HAPROXY, "-f", str(self.config), "-db"], stdin=subprocess.DEVNULL,
                                     stdout=self.log_file, stderr=subprocess.STDOUT)
        try:
            if not wait_until(self._listening, 15, 0.05):
                raise RuntimeError(f"haproxy did not listen on {self.port}: {self.log()}")
        except Exception:
            self.stop()
            raise

    def _listening(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"haproxy exited with {self.proc.returncode}: {self.log()}")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                pass
            return self.sock.exists()
        except OSError:
            return False

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def admin(self, command):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(str(self.sock))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while True:
                data = s.recv(65536)
                if not data:
                    break
                chunks.append(data)
        return b"".join(chunks).decode(errors="replace")

    def server_status(self):
        """{server name: status} of the gateways backend ("UP", "DOWN", "UP 1/2", …)."""
        out = {}
        lines = self.admin("show stat").splitlines()
        if not lines:
            return out
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(",")))
            if row.get("pxname") == "gateways" and row.get("svname") not in ("BACKEND", "FRONTEND"):
                out[row["svname"]] = row.get("status", "")
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log_file.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------- the stack

class Stack:
    """n gateways behind HAProxy in front of one harness.Database (see module doc)."""

    def __init__(self, db, n, gateway_args=(), lb_mode="server-close", server_maxconn=24,
                 check_inter_ms=200, label=None, lb_maxconn=4096):
        self.db = db
        self.gateways = []
        self.haproxy = None
        label = label or secrets.token_hex(2)
        self.ids = [f"gw{label}-{i}" for i in range(n)]
        try:
            for gid in self.ids:
                self.gateways.append(Gateway(db.conninfo(), *gateway_args, gateway_id=gid))
            self.haproxy = HAProxy([(gid, "127.0.0.1", gw.port) for gid, gw in zip(self.ids, self.gateways)],
                                   mode=lb_mode, server_maxconn=server_maxconn,
                                   check_inter_ms=check_inter_ms, maxconn=lb_maxconn)
            self.lb = Endpoint(self.haproxy.port)
            self.lb_url = f"http://127.0.0.1:{self.haproxy.port}"
            self.gateway_urls = [f"http://127.0.0.1:{gw.port}" for gw in self.gateways]
            for gid in self.ids:
                self.wait_server_status(gid, "UP", timeout=15)
        except Exception:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def endpoint(self, i):
        return Endpoint(self.gateways[i].port)

    @staticmethod
    def served_by(resp):
        return resp.headers.get("x-served-by")

    def kill(self, i):
        """SIGKILL gateway i; returns once the process is gone."""
        return self.stop(i, signal.SIGKILL)

    def stop(self, i, sig=signal.SIGTERM, timeout=20):
        return self.gateways[i].stop(sig, timeout)

    def server_status(self):
        return self.haproxy.server_status()

    def wait_server_status(self, name, status, timeout=10):
        ok = wait_until(lambda: self.server_status().get(name, "").split(" ")[0] == status, timeout, 0.05)
        if not ok:
            raise AssertionError(f"HAProxy server {name} not {status} within {timeout}s: "
                                 f"{self.server_status()}\n{self.haproxy.log()[-2000:]}")

    def close(self):
        if self.haproxy:
            self.haproxy.stop()
            self.haproxy = None
        for gw in self.gateways:
            gw.cleanup()


# ---------------------------------------------------------------- SQL

class PsqlError(RuntimeError):
    pass


class _SessionLost(PsqlError):
    pass


class PsqlSession:
    """A long-lived superuser psql session; query() returns its output lines.

    One connection, so statements run in order with no process start-up per
    statement (a race with an HTTP request needs millisecond latency)."""

    _MARK = "__mcpn_done__"

    def __init__(self, dbname):
        self.dbname = dbname
        self._open()

    def _open(self):
        self.proc = subprocess.Popen(
            ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=0", "-d", self.dbname],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True)
        self.reader.start()
        self._run("SELECT 1", 60)

    @staticmethod
    def _read(proc, lines):
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def query(self, sql, timeout=60, check=True):
        """Run SQL (one or more statements); returns output lines.  Lines of
        psql errors start with 'psql:' or 'ERROR:'; with check they raise.
        A session the server dropped (a restart) is reopened once."""
        try:
            out = self._run(sql, timeout)
        except (BrokenPipeError, _SessionLost):
            self.close()
            self._open()
            out = self._run(sql, timeout)
        errors = [l for l in out if l.startswith(("psql:", "ERROR:"))]
        if check and errors:
            raise PsqlError(f"{errors} in {sql}")
        return out

    def _run(self, sql, timeout):
        if self.proc.poll() is not None:
            raise _SessionLost()
        self.proc.stdin.write(sql.rstrip().rstrip(";") + ";\n\\echo " + self._MARK + "\n")
        self.proc.stdin.flush()
        out = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PsqlError(f"psql did not answer within {timeout}s: {sql}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise _SessionLost(f"psql exited ({self.proc.wait(10)}): {out}")
            if line == self._MARK:
                return out
            out.append(line)

    def close(self):
        try:
            self.proc.stdin.write("\\q\n")
        except OSError:
            pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.reader.join(5)
        self.proc.stdout.close()


# ---------------------------------------------------------------- the cluster

def _pg_ctlcluster(*args, timeout=120):
    if os.environ.get("MCP_NOTES_PGCTL"):
        cmd = [os.environ["MCP_NOTES_PGCTL"], *args]        # tests/with-cluster
    else:
        version, name = cluster()
        cmd = ["pg_ctlcluster", version, name, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"pg_ctlcluster {' '.join(args)} failed: {proc.stderr}{proc.stdout}")


def cluster_up():
    return subprocess.run(["psql", "-X", "-q", "-c", "SELECT 1"], capture_output=True,
                          timeout=30).returncode == 0


def pg_cluster_stop(mode="fast"):
    _pg_ctlcluster("stop", "-m", mode)


def pg_cluster_start():
    _pg_ctlcluster("start")
    if not wait_until(cluster_up, 60):
        raise RuntimeError("the cluster did not accept connections within 60 s of starting")


def pg_cluster_restart(mode="fast"):
    # Not "pg_ctlcluster restart": on a loaded machine it can find the old
    # postmaster not yet gone and fail with "Cluster is already running".
    # stop waits for the exit; start then brings it back.  Same outage.
    _pg_ctlcluster("stop", "-m", mode)
    pg_cluster_start()
