"""Shared helpers for the end-to-end tests: a private database, real gateway
processes on free loopback ports, and an MCP client over http.client.

The tests run inside tests/with-cluster or pg_virtualenv (PGHOST, PGPORT, PGUSER, PGPASSWORD set for
a superuser) with the extension installed.  Python standard library only.
"""
import json
import os
import pathlib
import re
import secrets
import signal
import socket
import subprocess
import tempfile
import time
import http.client
import unittest
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[2]
GATEWAY = pathlib.Path(os.environ.get("MCP_NOTES_GATEWAY", ROOT / "gateway" / "mcp-notes-gateway"))
if not GATEWAY.is_absolute():
    GATEWAY = ROOT / GATEWAY

PROTOCOL_VERSION = "2026-07-28"
# The version a fresh CREATE EXTENSION installs: the control file's.
EXTENSION_VERSION = re.search(r"default_version\s*=\s*'([^']+)'",
                              (ROOT / "extension" / "mcp_notes.control").read_text()).group(1)
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER = "io.modelcontextprotocol/serverInfo"

WORKSPACE = "file:///work/notes"
EVIL_WORKSPACE = "file:///work/notes-evil"
PRINCIPAL = "alice"


def require_environment():
    """Fail (never skip) when the test environment is incomplete."""
    missing = [v for v in ("PGHOST", "PGPORT", "PGUSER") if not os.environ.get(v)]
    if missing:
        raise RuntimeError(f"run the e2e tests inside tests/with-cluster: {', '.join(missing)} not set")
    if not GATEWAY.exists():
        raise RuntimeError(f"gateway binary {GATEWAY} not found: run make -C gateway (or set MCP_NOTES_GATEWAY)")


def lit(value):
    """An SQL literal (standard_conforming_strings is on)."""
    if value is None:
        return "NULL"
    return "'" + str(value).replace("'", "''") + "'"


def psql(sql, dbname=None, check=True):
    """Run SQL as the superuser; returns unaligned, tuples-only stdout."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql]
    if dbname:
        cmd[1:1] = ["-d", dbname]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and proc.returncode != 0:
        raise RuntimeError(f"psql failed ({proc.returncode}): {proc.stderr.strip()}\nSQL: {sql}")
    return proc.stdout.strip()


class Database:
    """A fresh database with the extension, a gateway role and seed data."""

    def __init__(self, label, dev=False, version=None):
        require_environment()
        suffix = secrets.token_hex(4)
        self.name = f"mcpn_e2e_{label}_{suffix}"
        self.role = f"mcpn_gw_{label}_{suffix}"
        self.password = secrets.token_urlsafe(18)
        psql(f"CREATE DATABASE {self.name}")
        try:
            self.sql("CREATE EXTENSION mcp_notes" + (f" VERSION {lit(version)}" if version else ""))
            psql(f"CREATE ROLE {self.role} LOGIN PASSWORD {lit(self.password)}")
            fn = "grant_dev_gateway" if dev else "grant_gateway"
            self.sql(f"SELECT mcp_notes.{fn}({lit(self.role)})")
            self.sql(f"SELECT mcp_notes.add_workspace({lit(WORKSPACE)})")
            self.sql(f"SELECT mcp_notes.add_workspace({lit(EVIL_WORKSPACE)})")
            self.sql(f"SELECT mcp_notes.grant_workspace({lit(PRINCIPAL)}, {lit(WORKSPACE)})")
        except Exception:
            self.drop()
            raise

    def sql(self, sql):
        return psql(sql, dbname=self.name)

    def conninfo(self):
        return (f"host={os.environ['PGHOST']} port={os.environ['PGPORT']} dbname={self.name} "
                f"user={self.role} password={self.password}")

    def issue_token(self, principal=PRINCIPAL, ttl=None):
        ttl_sql = f", {lit(ttl)}::interval" if ttl else ""
        return self.sql(f"SELECT mcp_notes.issue_token({lit(principal)}{ttl_sql})")

    def add_note(self, uri, title, body=""):
        return self.sql(f"SELECT mcp_notes.add_note({lit(uri)}, {lit(title)}, {lit(body)})")

    def note_exists(self, note_id):
        return self.sql(f"SELECT count(*) FROM mcp_notes.notes WHERE note_id = {lit(note_id)}") == "1"

    def audit(self):
        rows = self.sql("SELECT coalesce(json_agg(a ORDER BY a), '[]') FROM mcp_notes.delete_audit a")
        return json.loads(rows)

    def drop(self):
        psql(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)", check=False)
        psql(f"DROP ROLE IF EXISTS {self.role}", check=False)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers}
        self.raw = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    @property
    def error(self):
        return (self.json or {}).get("error")

    @property
    def result(self):
        return (self.json or {}).get("result")

    def __repr__(self):
        return f"<HTTP {self.status} {self.raw[:300]!r}>"


def meta(caps=None, version=PROTOCOL_VERSION, client_info=True):
    m = {META_VERSION: version, META_CAPS: {} if caps is None else caps}
    if client_info:
        m[META_INFO] = {"name": "mcp-notes-e2e", "version": "1.0"}
    return m


class Gateway:
    """One mcp-notes-gateway process on a free loopback port."""

    def __init__(self, conninfo, *args, gateway_id=None, env=None, listen="127.0.0.1:0", binary=None,
                 wait_healthy=True):
        require_environment()
        self.log_file = tempfile.NamedTemporaryFile(prefix="mcp-notes-gw-", suffix=".log", delete=False)
        self.gateway_id = gateway_id or f"e2e-{secrets.token_hex(3)}"
        cmd = [str(binary or GATEWAY), "--listen", listen, "--db", conninfo, "--gateway-id", self.gateway_id, *args]
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.log_file, env=full_env)
        try:
            self.port = self._wait_port()
            if wait_healthy:
                self._wait_healthy()
        except Exception:
            self.cleanup()
            raise

    def _wait_port(self, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gateway exited with {self.proc.returncode}: {self.log()}")
            for line in self.log_lines():
                if line.get("event") == "listening":
                    return int(line["port"])
            time.sleep(0.05)
        raise RuntimeError(f"gateway did not log its port within {timeout}s: {self.log()}")

    def _wait_healthy(self, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.get("/healthz").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"gateway /healthz not 200 within {timeout}s: {self.log()}")

    def log(self):
        return pathlib.Path(self.log_file.name).read_text(errors="replace")

    def settled_log(self, timeout=5.0):
        """The log once it ends with a whole line and stops growing for 0.2 s
        (a gateway's stderr may pass through a pipe, e.g. the sanitizer
        wrapper's tee, so its last lines can land after the process ended)."""
        deadline = time.monotonic() + timeout
        text = self.log()
        while time.monotonic() < deadline:
            time.sleep(0.2)
            again = self.log()
            if again == text and (not text or text.endswith("\n")):
                break
            text = again
        return text

    def log_lines(self):
        lines = []
        for text in self.log().splitlines():
            try:
                lines.append(json.loads(text))
            except ValueError:
                pass
        return lines

    def stop(self, sig=signal.SIGTERM, timeout=20):
        """Stop the process; returns its exit status (kills it after timeout)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    def cleanup(self):
        self.stop()
        self.log_file.close()
        try:
            os.unlink(self.log_file.name)
        except OSError:
            pass

    # ---- HTTP ----

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None, timeout=30):
        own = conn is None
        conn = conn or self.connection(timeout)
        try:
            if isinstance(body, str):
                body = body.encode()
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read().decode("utf-8", errors="replace")
            return Response(r.status, r.getheaders(), data)
        finally:
            if own:
                conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post_raw(self, body, headers=None, content_type="application/json", **kw):
        h = {}
        if content_type is not None:
            h["Content-Type"] = content_type
        h.update(headers or {})
        return self.request("POST", "/mcp", body=body, headers=h, **kw)

    def rpc(self, method, params=None, id=1, token=None, headers=None, name_header=True,
            caps=None, version=PROTOCOL_VERSION, omit=(), **kw):
        """A well-formed MCP request; `headers` override or (with None values) remove headers."""
        p = dict(params or {})
        p.setdefault("_meta", meta(caps, version))
        body = {"jsonrpc": "2.0", "method": method, "params": p}
        if id is not None:
            body["id"] = id
        h = {"MCP-Protocol-Version": version, "Mcp-Method": method}
        if name_header and method == "tools/call" and isinstance(p.get("name"), str):
            h["Mcp-Name"] = p["name"]
        if token:
            h["Authorization"] = f"Bearer {token}"
        for k, v in (headers or {}).items():
            h = {hk: hv for hk, hv in h.items() if hk.lower() != k.lower()}
            if v is not None:
                h[k] = v
        return self.post_raw(json.dumps(body), headers=h, **kw)

    def call_delete(self, token, workspace, title, id=1, responses=None, state=None,
                    caps=None, **kw):
        params = {"name": "notes_delete", "arguments": {"workspaceUri": workspace, "title": title}}
        if responses is not None:
            params["inputResponses"] = responses
        if state is not None:
            params["requestState"] = state
        return self.rpc("tools/call", params, id=id, token=token,
                        caps={"elicitation": {}} if caps is None else caps, **kw)


def form_of(resp):
    """(requestState, [candidate note ids]) of an input_required delete form."""
    result = resp.result
    schema = result["inputRequests"]["delete_choice"]["params"]["requestedSchema"]
    ids = [o["const"] for o in schema["properties"]["note_id"]["oneOf"]]
    return result["requestState"], ids


def accept(note_id, confirm=True):
    return {"delete_choice": {"action": "accept", "content": {"note_id": note_id, "confirm": confirm}}}


def unique_title(prefix="TPS report"):
    return f"{prefix} {uuid.uuid4().hex[:12]}"


def cluster():
    """(version, name) of the pg_virtualenv cluster the environment points at."""
    port = os.environ["PGPORT"]
    out = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == port:
            return f[0], f[1]
    raise RuntimeError(f"no cluster on port {port} in pg_lsclusters: {out}")


def pg_ctl(action):
    if os.environ.get("MCP_NOTES_PGCTL"):
        args = [os.environ["MCP_NOTES_PGCTL"], action]      # tests/with-cluster
    else:
        version, name = cluster()
        args = ["pg_ctlcluster", version, name, action]
    if action in ("stop", "restart"):
        args += ["-m", "fast"]
    subprocess.run(args, check=True, capture_output=True, text=True, timeout=120)


class TableLock:
    """Holds an ACCESS EXCLUSIVE lock on a table from a separate session for
    `seconds`, so a request that needs the table stays in flight."""

    def __init__(self, db, table, seconds):
        self.db = db
        self.app = f"e2e-lock-{secrets.token_hex(4)}"
        env = dict(os.environ, PGAPPNAME=self.app)
        self.proc = subprocess.Popen(
            ["psql", "-X", "-q", "-d", db.name, "-c",
             f"BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep({seconds}); COMMIT;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        if not wait_until(lambda: psql(
                f"SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                f"WHERE a.application_name = {lit(self.app)} AND l.mode = 'AccessExclusiveLock' "
                f"AND l.granted") != "0", 15):
            self.release()
            raise RuntimeError(f"could not lock {table}")

    def waiters(self):
        """Sessions of this database waiting for a lock."""
        return int(psql(f"SELECT count(*) FROM pg_stat_activity WHERE datname = {lit(self.db.name)} "
                        f"AND wait_event_type = 'Lock'"))

    def release(self):
        psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = {lit(self.app)}",
             check=False)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def wait_until(predicate, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


class GatewayTestCase(unittest.TestCase):
    """A database per test class, gateways stopped after each test or class."""

    DEV = False

    @classmethod
    def setUpClass(cls):
        cls.db = Database(cls.__name__.lower()[:20], dev=cls.DEV)
        cls.addClassCleanup(cls.db.drop)
        cls.token = cls.db.issue_token()

    @classmethod
    def start_class_gateway(cls, *args, **kw):
        gw = Gateway(cls.db.conninfo(), *args, **kw)
        cls.addClassCleanup(gw.cleanup)
        return gw

    def start_gateway(self, *args, **kw):
        gw = Gateway(self.db.conninfo(), *args, **kw)
        self.addCleanup(gw.cleanup)
        return gw

    # ---- assertions ----

    def assertRpcError(self, resp, code, http_status, id=..., data=...):
        self.assertEqual(resp.status, http_status, resp)
        self.assertEqual(resp.headers.get("content-type", "").split(";")[0], "application/json", resp)
        self.assertIsNotNone(resp.json, resp)
        self.assertEqual(resp.json.get("jsonrpc"), "2.0", resp)
        self.assertIn("error", resp.json, resp)
        self.assertNotIn("result", resp.json, resp)
        self.assertEqual(resp.error["code"], code, resp)
        self.assertIsInstance(resp.error.get("message"), str)
        if id is None:
            # an id that could not be read is omitted: the 2026-07-28 schema has no null id
            self.assertNotIn("id", resp.json, resp)
        elif id is not ...:
            self.assertIn("id", resp.json)
            self.assertEqual(resp.json["id"], id, resp)
        if data is not ...:
            self.assertEqual(resp.error.get("data"), data, resp)

    def assertResult(self, resp, id=..., result_type="complete"):
        self.assertEqual(resp.status, 200, resp)
        self.assertIsNotNone(resp.result, resp)
        self.assertNotIn("error", resp.json, resp)
        if id is not ...:
            self.assertEqual(resp.json["id"], id, resp)
        self.assertEqual(resp.result.get("resultType"), result_type, resp)
        self.assertEqual(resp.result["_meta"][META_SERVER]["name"], "mcp-notes", resp)
        self.assertIsInstance(resp.result["_meta"][META_SERVER]["version"], str, resp)
        return resp.result
