"""A real identity provider for the tests: Debian's glewlwyd (2.7.5), started
unprivileged on 127.0.0.1 with a SQLite database of its own, and configured
headlessly through its REST API as its administrator would: an OpenID
Connect plugin (the issuer, RFC 9068 JWT access tokens signed with keys the
harness makes, RFC 8707 resource indicators, PKCE), scopes, users and
clients.  Python standard library only.

    idp = Glewlwyd()                       # started, admin logged in
    idp.configure(resource="http://127.0.0.1:PORT/mcp")
    idp.add_user("alice", "pw", ["notes.read", "notes.delete"])
    idp.add_client("svc1", secret="s3cret", grants=["client_credentials"], scopes=[...])
    token = idp.client_credentials("svc1", "s3cret", "notes.read", resource=...)
    token = idp.authorization_code("alice", "pw", "cli1", redirect_uri, "notes.read", resource=...)
    idp.rotate_key()                       # a new signing key; the old one stays published
    idp.stop()

Quirks of glewlwyd this relies on (checked on Debian 12): the client secret
goes in the `password` member of a client, which also needs
`token_endpoint_auth_method` or every secret is refused; without `resource` the token's
`aud` is its scope list; the code flow needs `g_continue` on /auth once the
user has a session and a grant; only `<issuer>/.well-known/openid-configuration`
exists (the RFC 8414 path-inserted URLs are 404).
"""
import base64
import hashlib
import http.client
import http.cookiejar
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

try:
    from tests.oauth import jose
except ImportError:              # docker/idp-bootstrap: this file and jose.py side by side
    import jose

GLEWLWYD = os.environ.get("MCP_NOTES_GLEWLWYD", "/usr/bin/glewlwyd")
SHARE = pathlib.Path("/usr/share/glewlwyd")
LIB = pathlib.Path("/usr/lib/glewlwyd")
INIT_SQL = pathlib.Path("/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz")
ADMIN_PASSWORD = "password"      # the init script's administrator

SCOPES = ("notes.read", "notes.write", "notes.delete")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(port, db_path, external_url, bind_address="127.0.0.1", secure_cookies=False):
    """glewlwyd's whole configuration as environment variables (glewlwyd -e): a hand-written
    configuration file is easy to get subtly wrong, these are the documented GLWD_* names."""
    return {
        "PATH": "/usr/bin:/bin",
        "GLWD_PORT": str(port), "GLWD_BIND_ADDRESS": bind_address,
        "GLWD_EXTERNAL_URL": external_url, "GLWD_API_PREFIX": "api",
        "GLWD_LOG_MODE": "console", "GLWD_LOG_LEVEL": os.environ.get("MCP_NOTES_GLEWLWYD_LOG_LEVEL", "INFO"),
        "GLWD_DATABASE_TYPE": "sqlite3", "GLWD_DATABASE_SQLITE3_PATH": db_path,
        "GLWD_STATIC_FILES_PATH": str(SHARE / "webapp"),
        "GLWD_USER_MODULE_PATH": str(LIB / "user"), "GLWD_CLIENT_MODULE_PATH": str(LIB / "client"),
        "GLWD_AUTH_SCHEME_MODULE_PATH": str(LIB / "scheme"), "GLWD_PLUGIN_MODULE_PATH": str(LIB / "plugin"),
        # plain http only on loopback (tests, the compose demo); behind TLS, Secure cookies
        "GLWD_COOKIE_SECURE": "1" if secure_cookies else "0", "GLWD_HASH_ALGORITHM": "SHA512",
        "GLWD_ADMIN_SCOPE": "g_admin", "GLWD_PROFILE_SCOPE": "g_profile",
        "GLWD_SESSION_KEY": "GLEWLWYD2_SESSION_ID", "GLWD_SESSION_EXPIRATION": "3600",
        "GLWD_LOGIN_URL": "login.html", "GLWD_ALLOW_ORIGIN": "*", "GLWD_LOGIN_API_ENABLED": "1",
    }


def init_database(db_path):
    """A new SQLite database from the package's init script (the administrator admin/password)."""
    sql = subprocess.run(["zcat", str(INIT_SQL)], capture_output=True, check=True).stdout
    subprocess.run(["sqlite3", db_path], input=sql, capture_output=True, check=True, timeout=60)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class HttpError(Exception):
    def __init__(self, status, body, headers=None):
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status, self.body, self.headers = status, body, headers or {}


class Session:
    """An HTTP client with its own cookie jar (one per logged-in person)."""

    def __init__(self, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def call(self, method, path, body=None, form=None, headers=None, basic=None):
        """(status, headers, text); a redirect is returned, not followed."""
        h = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            h["Content-Type"] = "application/x-www-form-urlencoded"
        if basic:
            h["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
        url = path if path.startswith("http") else self.base + path
        req = urllib.request.Request(url, data=data, method=method, headers=h)
        try:
            with self.opener.open(req, timeout=30) as r:
                return r.status, dict(r.headers), r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode(errors="replace")

    def json(self, method, path, body=None, ok=(200,), **kw):
        status, headers, text = self.call(method, path, body=body, **kw)
        if status not in ok:
            raise HttpError(status, text, headers)
        return json.loads(text) if text.strip() else None


class Admin:
    """glewlwyd's administrator at base (its REST API): the OpenID Connect plugin, scopes, users,
    clients, keys; and the tokens its clients get.  issuer: the plugin's "iss" (the URL clients
    know it by, which may differ from base behind a published port)."""

    def __init__(self, base, issuer=None, admin_password=ADMIN_PASSWORD):
        self.base = base
        self.issuer = issuer or f"{base}/api/oidc"
        self.keys = []           # jose.Key, newest first (glewlwyd signs with the first)
        self.resource = None
        self.admin = Session(self.base)
        self.login(self.admin, "admin", admin_password)

    # ---- administration ----

    def login(self, session, username, password):
        session.json("POST", "/api/auth/", {"username": username, "password": password})

    def _jwks_private(self):
        return json.dumps({"keys": [k.private_jwk for k in self.keys]})

    def configure(self, resource, scopes=SCOPES, alg="ES256", access_token_duration=300):
        """The OpenID Connect plugin "oidc" (issuer = <base>/api/oidc), one signing key, and the
        scopes, each allowed only for resource (RFC 8707)."""
        self.resource = resource
        self.keys = [jose.Key.generate(alg, "k1")]
        for s in scopes:
            self.admin.json("POST", "/api/scope/", {
                "name": s, "display_name": s, "description": f"mcp_notes {s}",
                "password_required": True, "password_max_age": 0, "scheme": {}})
        params = {
            "iss": self.issuer, "jwt-type": "ecdsa" if alg.startswith("ES") else "rsa",
            "jwt-key-size": "256", "jwks-private": self._jwks_private(), "default-kid": "",
            "jwks-show": True, "jwks-x5c": [], "key": "", "cert": "",
            "access-token-duration": access_token_duration, "refresh-token-duration": 3600,
            "code-duration": 600, "refresh-token-rolling": False, "refresh-token-one-use": "never",
            "allow-non-oidc": True, "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": False,
            "auth-type-token-enabled": False, "auth-type-id-token-enabled": True, "auth-type-none-enabled": False,
            "auth-type-password-enabled": False, "auth-type-client-enabled": True,
            "auth-type-device-enabled": False, "auth-type-refresh-enabled": True,
            "scope": [], "additional-parameters": [], "claims": [], "allowed-scope": ["openid", *scopes],
            "service-documentation": "", "op-policy-uri": "", "op-tos-uri": "",
            "request-parameter-allow": False, "secret-type": "pairwise",
            "address-claim": {"type": "no", "formatted": "", "street_address": "", "locality": "",
                              "region": "", "postal_code": "", "country": "", "mandatory": False},
            "name-claim": "no", "email-claim": "no", "scope-claim": "no",
            "pkce-allowed": True, "pkce-method-plain-allowed": False,
            "introspection-revocation-allowed": False, "register-client-allowed": False,
            "session-management-allowed": False, "encrypt-out-token-allow": False,
            "resource-allowed": True, "resource-scope": {s: [resource] for s in scopes},
            "resource-client-property": "", "resource-scope-and-client-property": False,
        }
        self.admin.json("POST", "/api/mod/plugin/", {
            "module": "oidc", "name": "oidc", "display_name": "mcp_notes OIDC", "enabled": True,
            "parameters": params})
        return self

    def add_user(self, username, password, scopes=SCOPES):
        self.admin.json("POST", "/api/user/", {
            "username": username, "name": username, "email": f"{username}@example.test",
            "password": password, "scope": ["openid", *scopes], "enabled": True})

    def add_client(self, client_id, secret=None, grants=("client_credentials",), scopes=SCOPES,
                   redirect_uris=()):
        """A confidential client when secret is given (glewlwyd wants it in `password`), else public."""
        body = {"client_id": client_id, "name": client_id, "description": "mcp_notes test client",
                "confidential": secret is not None, "authorization_type": list(grants),
                "redirect_uri": list(redirect_uris), "scope": ["openid", *scopes], "enabled": True}
        if secret is not None:
            # glewlwyd refuses a confidential client whose token_endpoint_auth_method is unset
            body["password"] = secret
            body["token_endpoint_auth_method"] = ["client_secret_basic", "client_secret_post"]
        self.admin.json("POST", "/api/client/", body)

    def rotate_key(self, alg="ES256"):
        """A new signing key first (glewlwyd signs with the first), the old ones still published."""
        self.kids_made = getattr(self, "kids_made", len(self.keys)) + 1
        kid = f"k{self.kids_made}"       # never a kid used before, even after keys were dropped
        self.keys.insert(0, jose.Key.generate(alg, kid))
        plugin = self.admin.json("GET", "/api/mod/plugin/oidc")
        plugin["parameters"]["jwks-private"] = self._jwks_private()
        plugin["parameters"]["jwt-type"] = "ecdsa" if alg.startswith("ES") else "rsa"
        self.admin.json("PUT", "/api/mod/plugin/oidc", plugin)
        self.admin.json("PUT", "/api/mod/plugin/oidc/reset", ok=(200, 204))
        return kid

    # ---- tokens ----

    def metadata(self):
        return Session(self.base).json("GET", "/api/oidc/.well-known/openid-configuration")

    def jwks(self):
        return Session(self.base).json("GET", "/api/oidc/jwks")

    def token_request(self, form, basic=None):
        status, _, text = Session(self.base).call("POST", "/api/oidc/token", form=form, basic=basic)
        if status != 200:
            raise HttpError(status, text)
        return json.loads(text)

    def client_credentials(self, client_id, secret, scope, resource=None):
        form = {"grant_type": "client_credentials", "scope": scope}
        if resource is not None:
            form["resource"] = resource
        return self.token_request(form, basic=(client_id, secret))["access_token"]

    def authorization_code(self, username, password, client_id, redirect_uri, scope, resource=None,
                           secret=None, nonce=None, want="access_token"):
        """The code flow with PKCE (S256) as a browser would run it, scripted: the user logs in
        (a session of their own), grants the scopes to the client, /auth redirects with a code,
        the code and verifier buy the token."""
        person = Session(self.base)
        self.login(person, username, password)
        person.json("PUT", f"/api/auth/grant/{urllib.parse.quote(client_id)}", {"scope": scope})
        verifier = secrets.token_urlsafe(48)
        challenge = jose.b64url(hashlib.sha256(verifier.encode()).digest())
        state = secrets.token_urlsafe(16)
        query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
                 "scope": scope, "state": state, "code_challenge": challenge,
                 "code_challenge_method": "S256", "nonce": nonce or secrets.token_urlsafe(16)}
        if resource is not None:
            query["resource"] = resource
        status, headers, text = person.call("GET", "/api/oidc/auth?" + urllib.parse.urlencode(query) + "&g_continue")
        location = headers.get("Location", "")
        if status != 302 or not location.startswith(redirect_uri):
            raise HttpError(status, f"no redirect to the client: {location} {text}")
        answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        if answer.get("state") != state or "code" not in answer:
            raise HttpError(status, f"redirect without this state or a code: {location}")
        form = {"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": redirect_uri,
                "client_id": client_id, "code_verifier": verifier}
        if resource is not None:
            form["resource"] = resource
        tokens = self.token_request(form, basic=(client_id, secret) if secret else None)
        return tokens if want is None else tokens[want]

    def forge(self, claims, header=None, key=None):
        """A token signed with the IdP's own current key (or key): what glewlwyd would sign if
        it were asked for these claims.  Defaults follow glewlwyd's access tokens."""
        key = key or self.keys[0]
        h = {"typ": "at+jwt", "alg": key.alg, "kid": key.kid}
        h.update(header or {})
        return jose.compact(h, claims, key)

    def claims(self, sub="svc1", scope="notes.read", lifetime=300, **extra):
        now = int(time.time())
        c = {"iss": self.issuer, "sub": sub, "aud": self.resource, "client_id": sub,
             "jti": secrets.token_hex(8), "type": "access_token", "iat": now, "nbf": now,
             "exp": now + lifetime, "scope": scope}
        c.update(extra)
        return c


class Glewlwyd(Admin):
    """One glewlwyd process on a free loopback port (its own SQLite database), administered;
    stop() ends it by its PID, cleanup() also removes its files and keys."""

    def __init__(self, name="idp"):
        if not os.path.exists(GLEWLWYD):
            raise RuntimeError(f"{GLEWLWYD} not found: apt-get install glewlwyd (see tests/run-checks)")
        self.dir = tempfile.mkdtemp(prefix=f"mcpn-{name}-")
        self.db_path = os.path.join(self.dir, "glewlwyd.db")
        self.log_path = os.path.join(self.dir, "glewlwyd.log")
        init_database(self.db_path)
        self.proc = None
        for _ in range(5):       # a free port can be taken between the probe and the bind
            self.port = free_port()
            if self._start():
                break
        else:
            raise RuntimeError(f"glewlwyd did not start: {self.log()}")
        Admin.__init__(self, f"http://127.0.0.1:{self.port}")

    def _start(self):
        log = open(self.log_path, "ab")
        env = environment(self.port, self.db_path, f"http://127.0.0.1:{self.port}")
        self.proc = subprocess.Popen([GLEWLWYD, "-e"], env=env, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    if "Glewlwyd started" in self.log():
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        return False

    def log(self):
        try:
            return pathlib.Path(self.log_path).read_text(errors="replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def cleanup(self):
        self.stop()
        for k in self.keys:
            k.remove()
        shutil.rmtree(self.dir, ignore_errors=True)
