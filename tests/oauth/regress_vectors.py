#!/usr/bin/env python3
"""How the fixed tokens of extension/test/sql/oauth.sql were made: two test
issuers (keys below, made for this test only and published nowhere), each
token signed with one of them, or deliberately not.  ECDSA signatures are
randomized, so a run prints other (equally valid) tokens; the test keeps the
ones printed once.  Prints psql \\set lines.

    python3 -m tests.oauth.regress_vectors KEYDIR    # a.pem, b.pem, e.pem: openssl genpkey
"""
import json
import pathlib
import sys

from tests.oauth import jose

ISSUER_A = "https://idp.example/oidc"
ISSUER_B = "https://other-idp.example"
RESOURCE = "https://notes.example/mcp"
FAR = 4102444800        # 2100-01-01
PAST = 1000000000       # 2001-09-09


def main(keydir):
    d = pathlib.Path(keydir)
    a = jose.Key("ES256", "a1", (d / "a.pem").read_bytes())
    b = jose.Key("ES256", "b1", (d / "b.pem").read_bytes())
    e = jose.Key("EdDSA", "a2", (d / "e.pem").read_bytes())
    out = {}

    def claims(**kw):
        c = {"iss": ISSUER_A, "sub": "svc1", "aud": RESOURCE, "client_id": "svc1", "jti": "jti-1",
             "iat": 1700000000, "nbf": 1700000000, "exp": FAR, "scope": "notes.read notes.delete"}
        c.update(kw)
        return {k: v for k, v in c.items() if v is not None}

    def header(key=a, **kw):
        h = {"typ": "at+jwt", "alg": key.alg, "kid": key.kid}
        h.update(kw)
        return {k: v for k, v in h.items() if v is not None}

    out["jwk_a"] = json.dumps(a.public_jwk)
    out["jwk_b"] = json.dumps(b.public_jwk)
    out["jwk_e"] = json.dumps(e.public_jwk)
    out["good"] = jose.compact(header(), claims(), a)
    out["good_eddsa"] = jose.compact(header(e), claims(), e)
    out["read_only"] = jose.compact(header(), claims(scope="notes.read", jti="jti-2"), a)
    out["scp_array"] = jose.compact(header(), claims(scope=None, scp=["notes.read", "notes.delete"]), a)
    out["aud_array"] = jose.compact(header(), claims(aud=["https://x.example", RESOURCE]), a)
    out["aud_scope_list"] = jose.compact(header(), claims(aud="notes.read notes.delete"), a)
    out["aud_prefix"] = jose.compact(header(), claims(aud=RESOURCE + "/other"), a)
    out["iss_unknown"] = jose.compact(header(), claims(iss="https://evil.example"), a)
    out["iss_slash"] = jose.compact(header(), claims(iss=ISSUER_A + "/"), a)
    out["typ_jwt"] = jose.compact(header(typ="JWT"), claims(), a)
    out["typ_missing"] = jose.compact(header(typ=None), claims(), a)
    out["typ_application"] = jose.compact(header(typ="application/at+jwt"), claims(), a)
    out["alg_none"] = jose.compact({"typ": "at+jwt", "alg": "none", "kid": "a1"}, claims(), signature=b"")
    out["alg_hs256"] = jose.hs256({"typ": "at+jwt", "alg": "HS256", "kid": "a1"}, claims(),
                                  json.dumps(a.public_jwk, separators=(",", ":")))
    out["alg_rs256_on_ec"] = jose.compact(header(alg="RS256"), claims(), signature=a.sign(b"x") * 4)
    out["expired"] = jose.compact(header(), claims(exp=PAST, iat=PAST - 300, nbf=PAST - 300), a)
    out["not_yet"] = jose.compact(header(), claims(nbf=FAR - 100), a)
    out["iat_future"] = jose.compact(header(), claims(iat=FAR - 100), a)
    out["no_exp"] = jose.compact(header(), claims(exp=None), a)
    out["kid_unknown"] = jose.compact(header(kid="a9"), claims(), a)
    out["kid_missing"] = jose.compact(header(kid=None), claims(), a)
    out["crit"] = jose.compact(header(crit=["exp"]), claims(), a)
    out["no_sub"] = jose.compact(header(), claims(sub=None), a)
    out["no_client_id"] = jose.compact(header(), claims(client_id=None), a)
    out["unmapped"] = jose.compact(header(), claims(sub="nobody", client_id="nobody"), a)
    out["issuer_b_same_sub"] = jose.compact(header(b), claims(iss=ISSUER_B), b)
    out["signed_by_b_as_a"] = jose.compact(header(kid="a1"), claims(), b)
    good = out["good"]
    h, p, s = good.split(".")
    sig = bytearray(jose.b64url_decode(s))
    sig[10] ^= 1
    out["tampered_signature"] = f"{h}.{p}.{jose.b64url(bytes(sig))}"
    tampered = json.loads(jose.b64url_decode(p))
    tampered["scope"] = "notes.read notes.write notes.delete"
    out["tampered_payload"] = f"{h}.{jose.b64url(json.dumps(tampered, separators=(',', ':')))}.{s}"
    for k in (a, b, e):
        k.remove()
    for name, value in out.items():
        print(f"\\set {name} '{value}'")


if __name__ == "__main__":
    main(sys.argv[1])
