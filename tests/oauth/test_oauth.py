"""The OAuth resource server end to end (issue 20): a real identity provider
(glewlwyd), the real key fetcher, real gateways and the official TS SDK v2
client.  Run with tests/suites/oauth (make check SUITES=oauth)."""
import json
import os
import pathlib
import secrets
import subprocess
import time
import unittest

from tests.e2e.harness import WORKSPACE, Response, lit, meta, form_of, accept, unique_title
from tests.e2e.test_legacy import LegacyClient
from tests.oauth import jose
from tests.oauth.idp import Glewlwyd, HttpError
from tests.oauth.stack import (OAuthStack, SERVICE_CLIENT, SERVICE_SECRET, USER, USER_PASSWORD, USER_CLIENT,
                               REDIRECT_URI, free_port, wait_for)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SDK_SCRIPT = ROOT / "tests" / "oauth" / "sdk-oauth.mjs"
PRM = "/.well-known/oauth-protected-resource"


def node_binary():
    out = subprocess.run([str(ROOT / "scripts" / "install-node")], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"scripts/install-node failed: {out.stderr.strip()}")
    return out.stdout.strip().splitlines()[-1]


def challenge(resp):
    """The parameters of a Bearer challenge: {"scheme": "Bearer", name: value}."""
    value = resp.headers.get("www-authenticate", "")
    scheme, _, rest = value.partition(" ")
    params = {"scheme": scheme}
    for part in rest.split(", "):
        name, _, v = part.partition("=")
        params[name.strip()] = v.strip().strip('"')
    return params


class OAuthTestCase(unittest.TestCase):
    """One stack (IdP, database, fetcher, gateway) per class; alice's workspace is granted to principal alice,
    and the service client svc1 of the IdP acts as alice."""

    @classmethod
    def setUpClass(cls):
        cls.stack = OAuthStack(cls.__name__.lower()[:16])
        cls.addClassCleanup(cls.stack.cleanup)
        cls.gw, cls.db, cls.idp = cls.stack.gateway, cls.stack.db, cls.stack.idp
        cls.stack.map(cls.idp, SERVICE_CLIENT, "alice")

    def call(self, token, name="notes_list", arguments=None, **kw):
        return self.gw.rpc("tools/call", {"name": name, "arguments": arguments or {"workspaceUri": WORKSPACE}},
                           token=token, **kw)

    def reason_logged(self, rpc_id):
        """The reason the gateway logged for the request with this JSON-RPC id."""
        for line in self.gw.settled_log().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("event") == "request" and entry.get("rpc_id") == json.dumps(rpc_id):
                return entry.get("reason")
        return None

    def assertChallenge(self, resp, status, error, scope="notes.read"):
        self.assertEqual(resp.status, status, resp)
        c = challenge(resp)
        self.assertEqual(c["scheme"], "Bearer", resp.headers)
        self.assertEqual(c.get("resource_metadata"), f"{self.stack.resource.rsplit('/mcp', 1)[0]}{PRM}/mcp", c)
        self.assertEqual(c.get("scope"), scope, c)
        if error is None:
            self.assertNotIn("error", c, c)       # RFC 6750 3.1: no error code without credentials
        else:
            self.assertEqual(c.get("error"), error, c)
            self.assertEqual(resp.json.get("error"), error, resp)


class DiscoveryTest(OAuthTestCase):
    def test_metadata_at_both_paths(self):
        for path in (f"{PRM}/mcp", PRM):
            with self.subTest(path=path):
                r = self.gw.get(path)
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.json, {
                    "resource": self.stack.resource, "authorization_servers": [self.idp.issuer],
                    "scopes_supported": ["notes.read", "notes.write", "notes.delete"],
                    "bearer_methods_supported": ["header"], "resource_name": "mcp_notes"})
                self.assertEqual(r.headers.get("access-control-allow-origin"), "*")
        head = self.gw.request("HEAD", f"{PRM}/mcp")
        self.assertEqual((head.status, head.raw), (200, ""), head)
        self.assertEqual(self.gw.request("POST", PRM, body="{}").status, 405)
        self.assertEqual(self.gw.get(f"{PRM}/other").status, 404)
        # public configuration: any origin may read it (the /mcp Origin check stays)
        self.assertEqual(self.gw.get(PRM, headers={"Origin": "https://elsewhere.example"}).status, 200)

    def test_every_gateway_serves_the_same_metadata(self):
        # a second gateway of the same deployment (behind the same balancer): same settings, same answer
        other = self.stack.start_gateway(free_port(), public_url=self.stack.resource)
        self.assertEqual(other.get(f"{PRM}/mcp").raw, self.gw.get(f"{PRM}/mcp").raw)
        # the resource is the configured public URL, never the Host the request names
        r = other.get(f"{PRM}/mcp", headers={"Host": "attacker.example"})
        self.assertNotIn("attacker", r.raw)

    def test_401_without_a_token_names_the_metadata_and_no_error(self):
        r = self.call(None, id=11)
        self.assertChallenge(r, 401, None)

    def test_401_with_a_bad_token_is_invalid_token(self):
        r = self.call("not-a-token", id=12)
        self.assertChallenge(r, 401, "invalid_token")

    def test_operator_tokens_keep_working(self):
        token = self.db.issue_token()
        r = self.call(token, id=13)
        self.assertEqual(r.status, 200, r)
        self.assertFalse(r.result.get("isError"), r)


class RejectionTest(OAuthTestCase):
    """Every token the database must refuse, with the reason it logs."""

    def test_rejected_with_401(self):
        idp = self.idp
        stray = jose.Key.generate("ES256", "k9")         # a key the IdP never published
        self.addCleanup(stray.remove)
        real = self.stack.service_token()
        h, p, s = real.split(".")
        claims = jose.parts(real)[1]
        sig = bytearray(jose.b64url_decode(s))
        sig[5] ^= 0x40
        tampered_claims = dict(claims, scope="notes.read notes.write notes.delete")
        cases = {
            # glewlwyd's own token asked for without a resource: aud is the scope list
            "jwt_wrong_audience": self.stack.service_token(resource=None),
            "unknown_issuer": idp.forge(idp.claims(iss="https://evil.example/api/oidc")),
            "jwt_malformed": jose.compact({"typ": "at+jwt", "alg": "none", "kid": "k1"}, idp.claims(), signature=b""),
            "algorithm_not_allowed": jose.hs256({"typ": "at+jwt", "alg": "HS256", "kid": "k1"}, idp.claims(),
                                                json.dumps(idp.keys[0].public_jwk)),
            "jwt_expired": idp.forge(idp.claims(lifetime=-3600, iat=int(time.time()) - 7200,
                                                nbf=int(time.time()) - 7200)),
            "jwt_not_yet_valid": idp.forge(idp.claims(nbf=int(time.time()) + 3600, lifetime=7200)),
            "unknown_kid": idp.forge(idp.claims(), header={"kid": "k9"}, key=stray),
            "bad_signature": f"{h}.{p}.{jose.b64url(bytes(sig))}",
            "bad_signature ": f"{h}.{jose.b64url(json.dumps(tampered_claims))}.{s}",
            "jwt_wrong_typ": idp.forge(idp.claims(), header={"typ": "JWT"}),
        }
        for n, (reason, token) in enumerate(cases.items(), start=100):
            with self.subTest(reason=reason.strip()):
                r = self.call(token, id=n)
                self.assertChallenge(r, 401, "invalid_token")
                self.assertEqual(self.reason_logged(n), reason.strip())
        # the same kinds of tokens, validly made, are accepted: the checks refuse only what is wrong
        ok = self.call(idp.forge(idp.claims(sub=SERVICE_CLIENT)), id=199)
        self.assertEqual(ok.status, 200, ok)

    def test_tokens_are_never_logged(self):
        token = self.stack.service_token()
        self.call(token, id=201)
        self.assertNotIn(token.split(".")[2], self.gw.settled_log())


class ClientCredentialsSdkTest(OAuthTestCase):
    """The official TS SDK v2 client, given only the URL and its client credentials."""

    def run_sdk(self, config):
        node = node_binary()
        proc = subprocess.run([node, str(SDK_SCRIPT), json.dumps(config)], capture_output=True, text=True,
                              timeout=120, cwd=ROOT)
        try:
            return json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            self.fail(f"sdk-oauth.mjs printed no result: rc={proc.returncode} {proc.stdout[-500:]} {proc.stderr[-1500:]}")

    def test_discovers_everything_from_the_401_and_deletes(self):
        title = unique_title("OAuth sdk")
        note = self.db.add_note(f"{WORKSPACE}/oauth-sdk-{secrets.token_hex(3)}.md", title)
        out = self.run_sdk({"url": self.stack.resource, "clientId": SERVICE_CLIENT, "clientSecret": SERVICE_SECRET,
                            "issuer": self.idp.issuer, "workspaceUri": WORKSPACE, "title": title})
        self.assertTrue(out.get("ok"), json.dumps(out, indent=1)[:3000])
        steps = [(q["method"], q["url"].split("?")[0], q["status"]) for q in out["requests"]]
        base = self.stack.resource.rsplit("/mcp", 1)[0]
        # 1. POST /mcp without a token: 401; 2. the metadata the challenge names
        self.assertEqual(steps[0], ("POST", self.stack.resource, 401), steps)
        self.assertEqual(steps[1], ("GET", f"{base}{PRM}/mcp", 200), steps)
        # 3. the issuer's metadata (glewlwyd serves only the OpenID Connect path), then a token
        self.assertIn(("GET", f"{self.idp.issuer}/.well-known/openid-configuration", 200), steps)
        tokens = [s for s in steps if s[1] == f"{self.idp.issuer}/token"]
        # the first token (scope notes.read, from the 401), then the step-up after 403 insufficient_scope
        self.assertEqual([s[2] for s in tokens], [200, 200], steps)
        self.assertIn(("POST", self.stack.resource, 403), steps)
        self.assertIn("notes.delete", out["tokenScope"].split())
        self.assertFalse(self.db.note_exists(note))
        rows = json.loads(self.db.sql(
            "SELECT json_agg(json_build_object('principal', principal, 'outcome', outcome, 'iss', token_iss, "
            "'sub', token_sub, 'client_id', token_client_id, 'jti', token_jti, 'scope', token_scope)) "
            f"FROM mcp_notes.delete_audit WHERE note_id = {lit(note)}"))
        self.assertEqual(len(rows), 1, rows)
        self.assertEqual({k: rows[0][k] for k in ("principal", "outcome", "iss", "sub", "client_id")},
                         {"principal": "alice", "outcome": "accept", "iss": self.idp.issuer,
                          "sub": SERVICE_CLIENT, "client_id": SERVICE_CLIENT}, rows)
        self.assertTrue(rows[0]["jti"])
        self.assertIn("notes.delete", rows[0]["scope"].split())


class ScopeTest(OAuthTestCase):
    def test_delete_answer_without_the_delete_scope_is_403_before_any_write(self):
        title = unique_title("OAuth scope")
        note = self.db.add_note(f"{WORKSPACE}/oauth-scope-{secrets.token_hex(3)}.md", title)
        read_only = self.stack.service_token("notes.read")
        ask = self.gw.call_delete(read_only, WORKSPACE, title, id=1)
        self.assertEqual(ask.status, 200, ask)
        state, ids = form_of(ask)
        r = self.gw.call_delete(read_only, WORKSPACE, title, id=2, state=state, responses=accept(ids[0]))
        self.assertChallenge(r, 403, "insufficient_scope", scope="notes.read notes.delete")
        self.assertEqual(r.json["error"], "insufficient_scope", r)
        self.assertTrue(self.db.note_exists(note))
        self.assertEqual(self.db.sql(f"SELECT count(*) FROM mcp_notes.delete_audit WHERE note_id = {lit(note)}"), "0")
        # nothing was spent: the same answer with the delete scope deletes
        full = self.stack.service_token("notes.read notes.delete")
        done = self.gw.call_delete(full, WORKSPACE, title, id=3, state=state, responses=accept(ids[0]))
        self.assertEqual(done.status, 200, done)
        self.assertTrue(done.result["structuredContent"]["deleted"], done)
        self.assertFalse(self.db.note_exists(note))

    def test_2025_era_delete_without_the_delete_scope_is_403_before_its_stream(self):
        title = unique_title("OAuth legacy scope")
        note = self.db.add_note(f"{WORKSPACE}/oauth-legacy-{secrets.token_hex(3)}.md", title)
        client = LegacyClient(self.gw, self.stack.service_token("notes.read"))
        self.assertEqual(client.initialize()[0], 200)
        status, _, body = client.request("tools/call", {"name": "notes_list", "arguments": {"workspaceUri": WORKSPACE}})
        self.assertEqual(status, 200, body)
        c, resp = client.open_call("notes_delete", {"workspaceUri": WORKSPACE, "title": title})
        try:
            data = resp.read().decode()
            r = Response(resp.status, resp.getheaders(), data)
        finally:
            c.close()
        self.assertChallenge(r, 403, "insufficient_scope", scope="notes.read notes.delete")
        self.assertTrue(self.db.note_exists(note))
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.legacy_pending"), "0")

    def test_write_needs_notes_write(self):
        token = self.stack.service_token("notes.read notes.delete")
        r = self.call(token, "notes_create", {"workspaceUri": WORKSPACE, "uri": f"{WORKSPACE}/w.md", "title": "w"})
        self.assertChallenge(r, 403, "insufficient_scope", scope="notes.read notes.write")


class UserFlowTest(OAuthTestCase):
    """Authorization code + PKCE for a person: the token is for a random sub, which an operator maps."""

    def test_mapped_user_acts_as_their_principal(self):
        tokens = self.idp.authorization_code(USER, USER_PASSWORD, USER_CLIENT, REDIRECT_URI,
                                             "openid notes.read notes.delete", resource=self.stack.resource, want=None)
        token = tokens["access_token"]
        sub = jose.parts(token)[1]["sub"]
        self.assertNotEqual(sub, USER)                 # glewlwyd's subjects are opaque
        r = self.call(token, id=301)
        self.assertChallenge(r, 401, "invalid_token")
        self.assertEqual(self.reason_logged(301), "unmapped_identity")
        self.db.sql("SELECT mcp_notes.grant_workspace('alice-person', " + lit(WORKSPACE) + ")")
        self.stack.map(self.idp, sub, "alice-person")
        title = unique_title("OAuth user")
        note = self.db.add_note(f"{WORKSPACE}/oauth-user-{secrets.token_hex(3)}.md", title)
        ask = self.gw.call_delete(token, WORKSPACE, title, id=302)
        state, ids = form_of(ask)
        done = self.gw.call_delete(token, WORKSPACE, title, id=303, state=state, responses=accept(ids[0]))
        self.assertTrue(done.result["structuredContent"]["deleted"], done)
        row = self.db.sql(f"SELECT principal || ' ' || token_sub || ' ' || token_client_id FROM mcp_notes.delete_audit "
                          f"WHERE note_id = {lit(note)}")
        self.assertEqual(row, f"alice-person {sub} {USER_CLIENT}")
        # the ID token the same flow returned is not an access token (typ JWT, aud the client)
        self.assertEqual(self.call(tokens["id_token"], id=304).status, 401)


class SecondIssuerTest(OAuthTestCase):
    """The same sub from another issuer is another principal."""

    def test_same_sub_other_issuer(self):
        other = Glewlwyd("idp-second")
        self.addCleanup(other.cleanup)
        other.configure(self.stack.resource)
        other.add_client(SERVICE_CLIENT, secret="other-secret", grants=["client_credentials"])
        token = other.client_credentials(SERVICE_CLIENT, "other-secret", "notes.read", resource=self.stack.resource)
        self.assertEqual(jose.parts(token)[1]["sub"], SERVICE_CLIENT)
        # not configured: its tokens are refused
        r = self.call(token, id=401)
        self.assertChallenge(r, 401, "invalid_token")
        self.assertEqual(self.reason_logged(401), "unknown_issuer")
        self.stack.add_issuer(other, auto_provision=True)
        self.stack.wait_keys(other)
        r = self.call(token, id=402)
        self.assertEqual(r.status, 200, r)
        # a principal of its own, with no grant: alice's workspace is not its
        self.assertTrue(r.result.get("isError"), r)
        self.assertIn("not granted", r.result["content"][0]["text"])
        principal = self.db.sql(f"SELECT principal FROM mcp_notes.oauth_identities WHERE issuer = {lit(other.issuer)} "
                                f"AND subject = {lit(SERVICE_CLIENT)}")
        self.assertNotEqual(principal, "alice")
        self.assertTrue(principal.startswith(SERVICE_CLIENT + "@"), principal)


class RotationTest(OAuthTestCase):
    def test_rotation_at_the_idp_is_followed(self):
        old = self.stack.service_token("notes.read")
        kid = self.idp.rotate_key()
        new = self.stack.service_token("notes.read")
        self.assertEqual(jose.parts(new)[0]["kid"], kid)
        # the database has not seen the new key: refused, and the fetcher is asked to look (NOTIFY)
        first = self.call(new, id=501)
        self.assertChallenge(first, 401, "invalid_token")
        self.assertEqual(self.reason_logged(501), "unknown_kid")
        # bounded wait for the early refresh (the periodic one is minutes away)
        self.stack.wait_keys(self.idp, kids=[k.kid for k in self.idp.keys], timeout=10)
        self.assertEqual(self.call(new, id=502).status, 200)
        self.assertEqual(self.call(old, id=503).status, 200)    # the old key is still published

    def test_a_key_the_idp_drops_stops_working(self):
        # the fetcher's periodic refresh, forced by an issuer notification
        token = self.stack.service_token("notes.read")
        plugin = self.idp.admin.json("GET", "/api/mod/plugin/oidc")
        kept = [k for k in self.idp.keys if k.kid != jose.parts(token)[0]["kid"]]
        if not kept:
            self.idp.rotate_key()
            kept = [self.idp.keys[0]]
        self.idp.keys = kept
        plugin["parameters"]["jwks-private"] = json.dumps({"keys": [k.private_jwk for k in kept]})
        self.idp.admin.json("PUT", "/api/mod/plugin/oidc", plugin)
        self.idp.admin.json("PUT", "/api/mod/plugin/oidc/reset", ok=(200, 204))
        self.db.sql(f"SELECT pg_notify('mcp_notes_jwks', {lit(self.idp.issuer)})")
        self.stack.wait_keys(self.idp, kids=[k.kid for k in kept], timeout=10)
        r = self.call(token, id=511)
        self.assertChallenge(r, 401, "invalid_token")
        self.assertEqual(self.reason_logged(511), "unknown_kid")


class FetcherTest(OAuthTestCase):
    def test_metadata_naming_another_issuer_is_not_believed(self):
        # an issuer whose metadata URL serves the real IdP's document, which names another issuer
        fake = "http://127.0.0.1:1/fake-issuer"
        self.db.sql(f"SELECT mcp_notes.add_oauth_issuer({lit(fake)}, "
                    f"{lit(self.idp.issuer + '/.well-known/openid-configuration')})")
        wait_for(lambda: self.db.sql(f"SELECT fetch_problem IS NOT NULL FROM mcp_notes.oauth_issuers "
                                     f"WHERE issuer = {lit(fake)}") == "t", 10, "the fetch to fail")
        problem = self.db.sql(f"SELECT fetch_problem FROM mcp_notes.oauth_issuers WHERE issuer = {lit(fake)}")
        self.assertIn("names issuer", problem)
        self.assertEqual(self.db.sql(f"SELECT count(*) FROM mcp_notes.oauth_keys WHERE issuer = {lit(fake)}"), "0")

    def test_once_exits_with_the_status_of_its_fetches(self):
        binary = str(ROOT / "jwks" / "mcp-notes-jwks")
        ok = subprocess.run([binary, "--once", "--allow-http", "--db", self.stack.fetcher_conninfo()],
                            capture_output=True, text=True, timeout=60)
        self.assertIn(ok.returncode, (0, 1), ok.stderr)
        self.assertIn('"event":"jwks_stored"', ok.stderr)
        # without --allow-http an http issuer is not read
        strict = subprocess.run([binary, "--once", "--db", self.stack.fetcher_conninfo()],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(strict.returncode, 1, strict.stderr)
        self.assertIn("jwks_fetch_failed", strict.stderr)

    def test_the_fetcher_role_is_the_only_writer_of_keys(self):
        gw_role = self.db.role
        r = subprocess.run(["psql", "-X", "-q", "-d", self.db.conninfo(), "-c",
                            "SELECT mcp_notes.jwks_store('x', 'https://x', '{\"keys\": []}')"],
                           capture_output=True, text=True, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("permission denied", r.stderr, gw_role)
