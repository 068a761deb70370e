"""JOSE for the OAuth tests: keys made by the openssl command line, their JWKs,
and compact JWS signing, with the Python standard library only.

The tests sign with the identity provider's own private key (the harness
generates it and hands it to glewlwyd), so a token with an expired `exp` or a
foreign `aud` is signed exactly as the IdP would sign it; what the tests
cannot get from glewlwyd they make here.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import subprocess
import tempfile


def b64url(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _openssl(*args, data=None):
    proc = subprocess.run(["openssl", *args], input=data, capture_output=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


def _hex_fields(text):
    """The hex blocks of `openssl pkey -text` output, by label ("priv", "pub", "modulus", ...)."""
    fields, label = {}, None
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9]+):\s*(.*)$", line)
        if m and not line.startswith(" "):
            label = m.group(1)
            rest = m.group(2).strip()
            if rest and re.fullmatch(r"\d+ \(0x[0-9a-f]+\)", rest):      # publicExponent: 65537 (0x10001)
                fields[label] = int(rest.split()[0]).to_bytes((int(rest.split()[0]).bit_length() + 7) // 8, "big")
                label = None
            else:
                fields[label] = b""
            continue
        if label and line.startswith(" "):
            fields[label] += bytes.fromhex(line.strip().replace(":", ""))
    return fields


def _unsigned(b):
    """An integer's bytes without a sign byte (openssl prints a leading 00 when the top bit is set)."""
    return b.lstrip(b"\x00") or b"\x00"


CURVES = {"ES256": ("P-256", "prime256v1", 32, "sha256"),
          "ES384": ("P-384", "secp384r1", 48, "sha384"),
          "ES512": ("P-521", "secp521r1", 66, "sha512")}


class Key:
    """A private key (PEM in a temporary file) with its JWK and a signer."""

    def __init__(self, alg, kid, pem):
        self.alg, self.kid, self.pem = alg, kid, pem
        fd, self.path = tempfile.mkstemp(prefix="mcpn-key-", suffix=".pem")
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        text = _openssl("pkey", "-in", self.path, "-text", "-noout").decode()
        self._private, self.public_jwk = self._jwks(text)

    @classmethod
    def generate(cls, alg="ES256", kid="k1", bits=2048):
        if alg in CURVES:
            pem = _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", f"ec_paramgen_curve:{CURVES[alg][1]}")
        elif alg.startswith(("RS", "PS")):
            pem = _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", f"rsa_keygen_bits:{bits}")
        elif alg == "EdDSA":
            pem = _openssl("genpkey", "-algorithm", "ED25519")
        else:
            raise ValueError(alg)
        return cls(alg, kid, pem)

    def _jwks(self, text):
        f = _hex_fields(text)
        base = {"kid": self.kid, "alg": self.alg, "use": "sig"}
        if self.alg in CURVES:
            crv, _, size, _ = CURVES[self.alg]
            pub = f["pub"]
            x, y = pub[1:1 + size], pub[1 + size:]
            d = _unsigned(f["priv"]).rjust(size, b"\x00")
            public = dict(base, kty="EC", crv=crv, x=b64url(x), y=b64url(y))
            return dict(public, d=b64url(d)), public
        if self.alg == "EdDSA":
            public = dict(base, kty="OKP", crv="Ed25519", x=b64url(f["pub"]))
            return dict(public, d=b64url(f["priv"])), public
        n, e = _unsigned(f["modulus"]), _unsigned(f["publicExponent"])
        public = dict(base, kty="RSA", n=b64url(n), e=b64url(e))
        private = dict(public, d=b64url(_unsigned(f["privateExponent"])), p=b64url(_unsigned(f["prime1"])),
                       q=b64url(_unsigned(f["prime2"])), dp=b64url(_unsigned(f["exponent1"])),
                       dq=b64url(_unsigned(f["exponent2"])), qi=b64url(_unsigned(f["coefficient"])))
        return private, public

    @property
    def private_jwk(self):
        return dict(self._private)

    def sign(self, data):
        """The JWS signature of data (bytes) under this key's alg."""
        if self.alg == "EdDSA":
            # one-shot Ed25519 reads its input from a file, not a pipe
            with tempfile.NamedTemporaryFile(prefix="mcpn-tbs-") as f:
                f.write(data)
                f.flush()
                return _openssl("pkeyutl", "-sign", "-inkey", self.path, "-rawin", "-in", f.name)
        if self.alg in CURVES:
            _, _, size, md = CURVES[self.alg]
            return _der_to_raw(_openssl("dgst", f"-{md}", "-sign", self.path, data=data), size)
        md = {"256": "sha256", "384": "sha384", "512": "sha512"}[self.alg[2:]]
        extra = ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"] if self.alg[0] == "P" else []
        return _openssl("dgst", f"-{md}", "-sign", self.path, *extra, data=data)

    def remove(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass


def _der_to_raw(der, size):
    """DER ECDSA-Sig-Value -> R || S, each size bytes (RFC 7518 section 3.4)."""
    def read_int(buf, i):
        assert buf[i] == 0x02
        n = buf[i + 1]
        return int.from_bytes(buf[i + 2:i + 2 + n], "big"), i + 2 + n
    i = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    r, i = read_int(der, i)
    s, _ = read_int(der, i)
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def compact(header, claims, key=None, signature=None):
    """A compact JWS of header and claims (dicts, or raw strings sent as they are):
    signed by key, or with the given signature bytes (b"" for none)."""
    h = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))
    c = claims if isinstance(claims, str) else json.dumps(claims, separators=(",", ":"))
    signing_input = f"{b64url(h)}.{b64url(c)}"
    if signature is None:
        signature = key.sign(signing_input.encode())
    return f"{signing_input}.{b64url(signature)}"


def hs256(header, claims, secret):
    """The algorithm-confusion token: HS256 with a (public) key's bytes as the MAC secret."""
    h = json.dumps(header, separators=(",", ":"))
    c = json.dumps(claims, separators=(",", ":"))
    signing_input = f"{b64url(h)}.{b64url(c)}"
    mac = hmac.new(secret if isinstance(secret, bytes) else secret.encode(), signing_input.encode(),
                   hashlib.sha256).digest()
    return f"{signing_input}.{b64url(mac)}"


def parts(token):
    """(header, claims) of a compact JWS, unverified."""
    h, c, _ = token.split(".")
    return json.loads(b64url_decode(h)), json.loads(b64url_decode(c))
