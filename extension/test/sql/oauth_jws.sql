-- The JWS primitives (src/jwt.c): RFC 7515 A.2 (RS256) and A.3 (ES256),
-- RFC 8037 A.4 (EdDSA) and our own ES256/EdDSA tokens verify; nothing else
-- does: no "none", no HMAC with a public key, no R or S out of range, no
-- signature of the wrong length, no key of the wrong kind; and malformed
-- compact serializations are refused before any key is looked at.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set a2 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw'
\set rsa '{"kty":"RSA","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ","e":"AQAB"}'
\set a3 'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q'
\set ec '{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}'
\set a4 'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg'
\set okp '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}'
\set vectors `[ -f test/oauth_vectors.psql ] && echo test/oauth_vectors.psql || echo extension/test/oauth_vectors.psql`
\i :vectors
\set ECHO all

-- The vectors verify, each under its own algorithm only.
SELECT v.name, mcp_notes._jws_verify(v.token, v.jwk, v.alg) AS verifies,
       (SELECT array_agg(a ORDER BY a) FROM unnest('{RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA,none,HS256}'::text[]) a
        WHERE a <> v.alg AND mcp_notes._jws_verify(v.token, v.jwk, a)) AS also_under
FROM (VALUES ('RFC 7515 A.2 RS256', :'a2', :'rsa'::jsonb, 'RS256'),
             ('RFC 7515 A.3 ES256', :'a3', :'ec'::jsonb, 'ES256'),
             ('RFC 8037 A.4 EdDSA', :'a4', :'okp'::jsonb, 'EdDSA'),
             ('ours ES256', :'good', :'jwk_a'::jsonb, 'ES256'),
             ('ours EdDSA', :'good_eddsa', :'jwk_e'::jsonb, 'EdDSA')) v(name, token, jwk, alg);

-- Under another key they do not.
SELECT mcp_notes._jws_verify(:'a3', :'jwk_a', 'ES256') AS rfc_token_under_our_key,
       mcp_notes._jws_verify(:'good', :'ec', 'ES256') AS our_token_under_the_rfc_key,
       mcp_notes._jws_verify(:'good', :'jwk_b', 'ES256') AS under_issuer_b_key,
       mcp_notes._jws_verify(:'signed_by_b_as_a', :'jwk_a', 'ES256') AS signed_by_b_named_a;

-- Every single-character change of a signed token fails (base64url: one
-- spelling per byte string, so a changed character is changed bytes).
SELECT count(*) AS variants, count(*) FILTER (WHERE mcp_notes._jws_verify(t, :'jwk_a', 'ES256')) AS verifying
FROM generate_series(1, length(:'good')) i,
     LATERAL (SELECT overlay(:'good' PLACING CASE WHEN substr(:'good', i, 1) = 'A' THEN 'B' ELSE 'A' END FROM i FOR 1) AS t) x;
-- and so does every truncation
SELECT count(*) FILTER (WHERE mcp_notes._jws_verify(left(:'good', n), :'jwk_a', 'ES256')) AS truncations_verifying
FROM generate_series(0, length(:'good') - 1) n;

-- "none" and HMAC: no code for them, whatever key is offered.
SELECT mcp_notes._jws_verify(:'alg_none', :'jwk_a', 'none') AS none_verifies,
       mcp_notes._jws_verify(:'alg_hs256', :'jwk_a', 'HS256') AS hs256_with_public_key_verifies,
       mcp_notes._jws_verify(:'alg_hs256', '{"kty": "oct", "k": "c2VjcmV0"}', 'HS256') AS hs256_with_oct_key_verifies;

-- ECDSA: R or S zero or at least n, or the wrong length, never verify
-- (P-256 n = FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551).
CREATE FUNCTION t.b64url(b bytea) RETURNS text LANGUAGE sql AS
$$ SELECT rtrim(translate(encode(b, 'base64'), E'+/\n', '-_'), '=') $$;
CREATE FUNCTION t.b64url(s text) RETURNS text LANGUAGE sql AS $$ SELECT t.b64url(convert_to(s, 'UTF8')) $$;
CREATE FUNCTION t.b64url_decode(s text) RETURNS bytea LANGUAGE sql AS
$$ SELECT decode(rpad(translate(s, '-_', '+/'), (length(s) + 3) / 4 * 4, '='), 'base64') $$;
SELECT split_part(:'a3', '.', 1) || '.' || split_part(:'a3', '.', 2) AS a3_input,
       t.b64url_decode(split_part(:'a3', '.', 3)) AS a3_sig \gset
SELECT v.what, mcp_notes._jws_verify(:'a3_input' || '.' || t.b64url(v.sig), :'ec', 'ES256') AS verifies
FROM (VALUES
    ('R = 0', '\x'::bytea || decode(repeat('00', 32), 'hex') || substr(:'a3_sig'::bytea, 33, 32)),
    ('S = 0', substr(:'a3_sig'::bytea, 1, 32) || decode(repeat('00', 32), 'hex')),
    ('R = S = 0', decode(repeat('00', 64), 'hex')),
    ('S = n', substr(:'a3_sig'::bytea, 1, 32) || '\xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551'::bytea),
    ('S = n + s', substr(:'a3_sig'::bytea, 1, 32) || '\xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF'::bytea),
    ('R = n', '\xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551'::bytea || substr(:'a3_sig'::bytea, 33, 32)),
    ('63 bytes', substr(:'a3_sig'::bytea, 1, 63)),
    ('65 bytes', :'a3_sig'::bytea || '\x00'::bytea),
    ('a leading zero byte', '\x00'::bytea || :'a3_sig'::bytea),
    ('DER instead of R || S', '\x3044022000'::bytea || substr(:'a3_sig'::bytea, 1, 31) || '\x0220'::bytea || substr(:'a3_sig'::bytea, 33, 32)),
    ('unchanged', :'a3_sig'::bytea)) v(what, sig);

-- RSA: a signature one byte short or long never verifies; PS256 is not RS256.
SELECT mcp_notes._jws_verify(split_part(:'a2', '.', 1) || '.' || split_part(:'a2', '.', 2) || '.'
           || t.b64url(substr(t.b64url_decode(split_part(:'a2', '.', 3)), 2)), :'rsa', 'RS256') AS short_signature,
       mcp_notes._jws_verify(split_part(:'a2', '.', 1) || '.' || split_part(:'a2', '.', 2) || '.'
           || t.b64url('\x00'::bytea || t.b64url_decode(split_part(:'a2', '.', 3))), :'rsa', 'RS256') AS long_signature,
       mcp_notes._jws_verify(:'a2', :'rsa', 'PS256') AS as_ps256;

-- Decoding: {"header", "claims"} or {"problem"}.
SELECT jsonb_pretty(mcp_notes._jws_decode(:'good')) AS decoded;
SELECT v.what, mcp_notes._jws_decode(v.token) ->> 'problem' AS problem
FROM (VALUES
    ('two segments', split_part(:'good', '.', 1) || '.' || split_part(:'good', '.', 2)),
    ('four segments', :'good' || '.x'),
    ('empty signature (alg none)', :'alg_none'),
    ('padding', split_part(:'good', '.', 1) || '=.' || split_part(:'good', '.', 2) || '.' || split_part(:'good', '.', 3)),
    ('standard alphabet (+)', split_part(:'good', '.', 1) || '.' || split_part(:'good', '.', 2) || '.+' || substr(split_part(:'good', '.', 3), 2)),
    ('whitespace', replace(:'good', '.', ' .')),
    ('non-canonical last character', left(:'a3', -1) || 'R'),
    ('header not JSON', t.b64url('alg=ES256') || '.' || split_part(:'good', '.', 2) || '.AAAA'),
    ('header an array', t.b64url('["ES256"]') || '.' || split_part(:'good', '.', 2) || '.AAAA'),
    ('header a member twice', t.b64url('{"alg":"ES256","alg":"none"}') || '.' || split_part(:'good', '.', 2) || '.AAAA'),
    ('claims a member twice', split_part(:'good', '.', 1) || '.' || t.b64url('{"sub":"a","sub":"b"}') || '.AAAA'),
    ('claims with a NUL escape', split_part(:'good', '.', 1) || '.' || t.b64url('{"sub":"a\u0000b"}') || '.AAAA'),
    ('claims with a lone surrogate', split_part(:'good', '.', 1) || '.' || t.b64url('{"sub":"\ud800"}') || '.AAAA'),
    ('claims not UTF-8', split_part(:'good', '.', 1) || '.' || t.b64url('\x7b22737562223a22ff227d'::bytea) || '.AAAA'),
    ('claims nested 17 deep', split_part(:'good', '.', 1) || '.' || t.b64url('{"a":' || repeat('[', 16) || repeat(']', 16) || '}') || '.AAAA'),
    ('claims with a huge exponent', split_part(:'good', '.', 1) || '.' || t.b64url('{"exp":1e99999}') || '.AAAA'),
    ('claims with a 65-digit number', split_part(:'good', '.', 1) || '.' || t.b64url('{"exp":' || repeat('9', 65) || '}') || '.AAAA'),
    ('longer than 16384 bytes', split_part(:'good', '.', 1) || '.' || repeat('A', 16400) || '.AAAA'),
    ('claims nested 16 deep (fine)', split_part(:'good', '.', 1) || '.' || t.b64url('{"a":' || repeat('[', 15) || repeat(']', 15) || '}') || '.AAAA'),
    ('claims with exponent 999 (fine)', split_part(:'good', '.', 1) || '.' || t.b64url('{"exp":1e999}') || '.AAAA')) v(what, token);
-- the payload of a JWS that is not a JWT verifies but does not decode
SELECT mcp_notes._jws_decode(:'a4') AS rfc8037_decoded;

-- JWKs: what can verify what.
SELECT v.what, mcp_notes._jwk_problem(v.jwk, v.alg) AS problem
FROM (VALUES
    ('the RFC RSA key, RS256', :'rsa'::jsonb, 'RS256'),
    ('the RFC RSA key, PS512', :'rsa'::jsonb, 'PS512'),
    ('the RFC EC key, ES256', :'ec'::jsonb, 'ES256'),
    ('the RFC EC key, ES384', :'ec'::jsonb, 'ES384'),
    ('the RFC EC key, RS256', :'ec'::jsonb, 'RS256'),
    ('the RFC OKP key, EdDSA', :'okp'::jsonb, 'EdDSA'),
    ('an oct key, HS256', '{"kty": "oct", "k": "c2VjcmV0"}'::jsonb, 'HS256'),
    ('any key, none', :'ec'::jsonb, 'none'),
    ('with d', :'ec'::jsonb || '{"d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}', 'ES256'),
    ('use enc', :'ec'::jsonb || '{"use": "enc"}', 'ES256'),
    ('use sig', :'ec'::jsonb || '{"use": "sig"}', 'ES256'),
    ('key_ops sign only', :'ec'::jsonb || '{"key_ops": ["sign"]}', 'ES256'),
    ('key_ops verify', :'ec'::jsonb || '{"key_ops": ["verify"]}', 'ES256'),
    ('alg RS256 on an EC key', :'ec'::jsonb || '{"alg": "RS256"}', 'ES256'),
    ('x not a string', :'ec'::jsonb || '{"x": 5}', 'ES256'),
    ('y changed (off the curve)', :'ec'::jsonb || '{"y": "y_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}', 'ES256'),
    ('y with a non-canonical last character', :'ec'::jsonb || '{"y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a1"}', 'ES256'),
    ('x with a leading zero byte', :'ec'::jsonb || jsonb_build_object('x', t.b64url('\x00'::bytea || t.b64url_decode(:'ec'::jsonb ->> 'x'))), 'ES256'),
    ('x of 31 bytes', :'ec'::jsonb || jsonb_build_object('x', t.b64url(substr(t.b64url_decode(:'ec'::jsonb ->> 'x'), 2))), 'ES256'),
    ('crv P-384 for ES256', :'ec'::jsonb || '{"crv": "P-384"}', 'ES256'),
    ('RSA of 1024 bits', jsonb_build_object('kty', 'RSA', 'e', 'AQAB', 'n', t.b64url(substr(t.b64url_decode(:'rsa'::jsonb ->> 'n'), 129, 128))), 'RS256'),
    ('RSA e = 0', :'rsa'::jsonb || '{"e": "AA"}', 'RS256'),
    ('OKP Ed448 crv with a 32-byte x', :'okp'::jsonb || '{"crv": "Ed448"}', 'EdDSA'),
    ('not an object', '["EC"]'::jsonb, 'ES256')) v(what, jwk, alg);
-- a coordinate with a zero byte in front (as GnuTLS-based IdPs publish them) is the same key
SELECT mcp_notes._jws_verify(:'a3', :'ec'::jsonb || jsonb_build_object('x', t.b64url('\x00'::bytea || t.b64url_decode(:'ec'::jsonb ->> 'x'))), 'ES256')
       AS verifies_with_zero_prefixed_x;
