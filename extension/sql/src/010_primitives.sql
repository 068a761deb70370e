-------------------------------------------------------------------------------
-- Primitives in C
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION normalize_uri(uri text) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_normalize_uri'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION normalize_uri(text) IS
'Canonical form of a file: URI (decoded once, dot segments removed, re-encoded); raises 22P02 when the URI has no single safe meaning';

CREATE OR REPLACE FUNCTION uri_contains(workspace text, target text) RETURNS boolean
AS 'MODULE_PATHNAME', 'mcp_notes_uri_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_contains(text, text) IS
'True when target lies inside workspace by whole path components after normalization; false when either is malformed';

CREATE OR REPLACE FUNCTION _uri_problem(uri text) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_uri_problem'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _uri_problem(text) IS
'Internal: NULL when the URI is well formed, else the sentence saying why not';

CREATE OR REPLACE FUNCTION _random_bytes(n integer) RETURNS bytea
AS 'MODULE_PATHNAME', 'mcp_notes_random_bytes'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _random_bytes(integer) IS
'Internal: n bytes from the strong random source (pg_strong_random)';

-- Sealed tokens (requestState, cursors): docs/state-format.md.  Open them
-- with _open_sealed (160_sealed.sql), which checks purpose, expiry and
-- principal too; _open_state alone checks only the seal.
CREATE OR REPLACE FUNCTION _seal(purpose text, claims jsonb, lifetime integer DEFAULT NULL) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_seal'
LANGUAGE C VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp;
COMMENT ON FUNCTION _seal(text, jsonb, integer) IS
'Internal: seals claims for a purpose into a token valid lifetime seconds (NULL: mcp_notes.state_ttl): HMAC-SHA256 under the active key, fresh nonce';

CREATE OR REPLACE FUNCTION _open_state(state text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'mcp_notes_open_state'
LANGUAGE C STABLE STRICT SECURITY DEFINER
SET search_path = mcp_notes, pg_temp;
COMMENT ON FUNCTION _open_state(text) IS
'Internal: checks a sealed token''s form, key and signature; returns its payload or {"ok": false, "reason": ...} (use _open_sealed)';

CREATE OR REPLACE FUNCTION _require_own_transaction(entry text) RETURNS void
AS 'MODULE_PATHNAME', 'mcp_notes_require_own_transaction'
LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION _require_own_transaction(text) IS
'Internal: raises 25001 unless the calling statement is its own transaction and began just now, so a bearer token is judged by a fresh snapshot';
