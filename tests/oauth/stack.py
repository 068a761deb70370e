"""The OAuth stack of the tests: a real identity provider (glewlwyd), a
database configured for it, the key fetcher as its own role, and gateways
whose --public-url is the resource.  Reusable: the URL-mode confirmation
tests (issue 21) log users in through the same IdP.

    stack = OAuthStack("label")            # IdP, database, fetcher, one gateway
    stack.idp.client_credentials(...)      # tokens from the real IdP
    stack.gateway.rpc(...)                 # the gateway (tests/e2e/harness.Gateway)
    stack.cleanup()
"""
import os
import pathlib
import secrets
import socket
import subprocess
import tempfile
import time

from tests.e2e.harness import Database, Gateway, lit, psql
from tests.oauth.idp import Glewlwyd

ROOT = pathlib.Path(__file__).resolve().parents[2]
FETCHER = pathlib.Path(os.environ.get("MCP_NOTES_JWKS", ROOT / "jwks" / "mcp-notes-jwks"))
SERVICE_CLIENT, SERVICE_SECRET = "svc1", "svc1-" + secrets.token_hex(8)
USER, USER_PASSWORD = "alice", "alice-" + secrets.token_hex(8)
USER_CLIENT = "cli1"
REDIRECT_URI = "http://127.0.0.1:9/callback"      # never contacted: the code flow is scripted


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out after {timeout}s waiting for {what}")


class Fetcher:
    """mcp-notes-jwks as the fetcher role, until stop()."""

    def __init__(self, conninfo, *args):
        if not FETCHER.exists():
            raise RuntimeError(f"{FETCHER} not found: make jwks")
        self.log_file = tempfile.NamedTemporaryFile(prefix="mcpn-jwks-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([str(FETCHER), "--db", conninfo, "--allow-http", "--min-interval-seconds", "1",
                                      *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.log_file)

    def log(self):
        return pathlib.Path(self.log_file.name).read_text(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log_file.close()
        os.unlink(self.log_file.name)


class OAuthStack:
    """glewlwyd + a database trusting it + the fetcher + a gateway naming both."""

    def __init__(self, label, gateways=1, auto_provision=False):
        self.cleanups = []
        try:
            self.db = Database(label)
            self.cleanups.append(self.db.drop)
            self.idp = Glewlwyd(f"idp-{label}")
            self.cleanups.append(self.idp.cleanup)
            self.ports = [free_port() for _ in range(gateways)]
            self.resource = f"http://127.0.0.1:{self.ports[0]}/mcp"
            self.idp.configure(self.resource)
            self.idp.add_client(SERVICE_CLIENT, secret=SERVICE_SECRET, grants=["client_credentials"])
            self.idp.add_client(USER_CLIENT, grants=["code"], redirect_uris=[REDIRECT_URI])
            self.idp.add_user(USER, USER_PASSWORD)
            self.db.sql(f"SELECT mcp_notes.set_oauth_resource({lit(self.resource)})")
            self.add_issuer(self.idp, auto_provision=auto_provision)
            self.fetcher_role = f"mcpn_jwks_{label}_{secrets.token_hex(3)}"
            self.fetcher_password = secrets.token_urlsafe(18)
            psql(f"CREATE ROLE {self.fetcher_role} LOGIN PASSWORD {lit(self.fetcher_password)}")
            self.cleanups.append(lambda: psql(f"DROP OWNED BY {self.fetcher_role}; DROP ROLE {self.fetcher_role}",
                                              dbname=self.db.name, check=False))
            self.db.sql(f"SELECT mcp_notes.grant_jwks_fetcher({lit(self.fetcher_role)})")
            self.fetcher = self.start_fetcher()
            self.wait_keys(self.idp)
            self.gateways = [self.start_gateway(p) for p in self.ports]
            self.gateway = self.gateways[0]
        except Exception:
            self.cleanup()
            raise

    def fetcher_conninfo(self):
        return (f"host={os.environ['PGHOST']} port={os.environ['PGPORT']} dbname={self.db.name} "
                f"user={self.fetcher_role} password={self.fetcher_password}")

    def start_fetcher(self, *args):
        f = Fetcher(self.fetcher_conninfo(), *args)
        self.cleanups.append(f.stop)
        return f

    def add_issuer(self, idp, auto_provision=False):
        self.db.sql(f"SELECT mcp_notes.add_oauth_issuer({lit(idp.issuer)}, algorithms => '{{ES256}}', "
                    f"auto_provision => {str(auto_provision).lower()})")

    def keys(self, idp):
        return self.db.sql(f"SELECT string_agg(kid, ',' ORDER BY kid) FROM mcp_notes.oauth_keys "
                           f"WHERE issuer = {lit(idp.issuer)}")

    def wait_keys(self, idp, kids=None, timeout=20):
        want = ",".join(sorted(kids or [k.kid for k in idp.keys]))
        wait_for(lambda: self.keys(idp) == want, timeout,
                 f"keys {want} of {idp.issuer} in the database (fetcher log: {self.fetcher.log()[-800:]})")

    def start_gateway(self, port, *args, public_url=None):
        gw = Gateway(self.db.conninfo(), "--public-url", public_url or f"http://127.0.0.1:{port}/mcp",
                     "--authorization-servers", self.idp.issuer, *args, listen=f"127.0.0.1:{port}")
        self.cleanups.append(gw.cleanup)
        return gw

    def map(self, idp, subject, principal):
        self.db.sql(f"SELECT mcp_notes.map_oauth_identity({lit(idp.issuer)}, {lit(subject)}, {lit(principal)})")

    def service_token(self, scope="notes.read notes.delete", resource=...):
        return self.idp.client_credentials(SERVICE_CLIENT, SERVICE_SECRET, scope,
                                           resource=self.resource if resource is ... else resource)

    def cleanup(self):
        for f in reversed(self.cleanups):
            try:
                f()
            except Exception:       # cleanup goes on whatever one step did
                pass
        self.cleanups = []
