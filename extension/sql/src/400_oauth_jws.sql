-- OAuth: the JWS primitives in C (src/jwt.c, src/jwt_sql.c).  They say
-- whether bytes are a well-formed compact JWS and whether a key signed them;
-- what a token means is decided in SQL (430_oauth_tokens.sql).  There is no
-- code for "none" or an HMAC: a token naming them never verifies.

CREATE OR REPLACE FUNCTION _jws_decode(token text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'mcp_notes_jws_decode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _jws_decode(text) IS
'Internal: {"header", "claims"} of a well-formed compact JWS (canonical base64url, JSON objects with unique member names; nothing verified), else {"problem": why}';

CREATE OR REPLACE FUNCTION _jws_verify(token text, jwk jsonb, alg text) RETURNS boolean
AS 'MODULE_PATHNAME', 'mcp_notes_jws_verify'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _jws_verify(text, jsonb, text) IS
'Internal: true when the compact JWS token is signed under alg (RS/PS/ES 256-512, EdDSA) by the public key jwk; false otherwise, "none" and HMAC included';

CREATE OR REPLACE FUNCTION _jwk_problem(jwk jsonb, alg text) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_jwk_problem'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _jwk_problem(jsonb, text) IS
'Internal: NULL when jwk is a public key that can verify alg (kty, crv, use, key_ops, no private members, a valid point or modulus of 2048 to 8192 bits), else why not';
