-- OAuth: the key fetcher's API (mcp-notes-jwks, jwks/).  Its role
-- (grant_jwks_fetcher) may run these three and nothing else: it reads which
-- issuers to fetch and writes their public keys, and cannot read tokens,
-- notes, grants or the audit.  Gateways cannot run them: a compromised
-- gateway cannot plant a key.

CREATE OR REPLACE FUNCTION jwks_issuers() RETURNS TABLE (issuer text, metadata_url text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT i.issuer, i.metadata_url FROM oauth_issuers i ORDER BY i.issuer
$$;
COMMENT ON FUNCTION jwks_issuers() IS
'Key fetcher: the issuers to read keys for, and where their metadata is';

-- The public members of a JWK, whatever else the issuer published (private
-- members never reach the table).
CREATE OR REPLACE FUNCTION _jwk_public(jwk jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_strip_nulls(jsonb_build_object(
        'kty', jwk -> 'kty', 'crv', jwk -> 'crv', 'x', jwk -> 'x', 'y', jwk -> 'y', 'n', jwk -> 'n',
        'e', jwk -> 'e', 'alg', jwk -> 'alg', 'use', jwk -> 'use', 'key_ops', jwk -> 'key_ops', 'kid', jwk -> 'kid'))
$$;
COMMENT ON FUNCTION _jwk_public(jsonb) IS 'Internal: the public members of a JWK (kty, crv, x, y, n, e, alg, use, key_ops, kid)';

-- A JWK is kept when it has a kid and verifies at least one of the
-- issuer's algorithms (its own alg when it names one).  A JWKS with no such
-- key changes nothing (a broken answer must not wipe the keys in use); one
-- with some replaces the set: a key the issuer no longer publishes goes.
CREATE OR REPLACE FUNCTION jwks_store(issuer text, jwks_uri text, jwks jsonb) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    allowed text[];
    kids text[] := '{}';
    k jsonb;
BEGIN
    SELECT i.algorithms INTO allowed FROM oauth_issuers i WHERE i.issuer = jwks_store.issuer FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown issuer %', coalesce(quote_literal(left(jwks_store.issuer, 200)), 'NULL')
            USING ERRCODE = 'invalid_parameter_value', DETAIL = 'jwks_issuers() lists the issuers to fetch.';
    END IF;
    PERFORM _oauth_require_url(jwks_store.jwks_uri, 'jwks_uri');
    IF jsonb_typeof(jwks -> 'keys') IS DISTINCT FROM 'array' OR jsonb_array_length(jwks -> 'keys') > 100 THEN
        RAISE EXCEPTION 'a JWKS is {"keys": [...]} with at most 100 keys'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = 'RFC 7517 section 5.';
    END IF;
    FOR k IN SELECT _jwk_public(e.value) FROM jsonb_array_elements(jwks -> 'keys') e
             WHERE jsonb_typeof(e.value) = 'object' AND jsonb_typeof(e.value -> 'kid') = 'string'
               AND length(e.value ->> 'kid') BETWEEN 1 AND 200
    LOOP
        CONTINUE WHEN k ->> 'kid' = ANY (kids) OR NOT EXISTS (
            SELECT 1 FROM unnest(allowed) a(alg)
            WHERE (k ->> 'alg' IS NULL OR k ->> 'alg' = a.alg) AND _jwk_problem(k, a.alg) IS NULL);
        INSERT INTO oauth_keys AS o (issuer, kid, jwk) VALUES (jwks_store.issuer, k ->> 'kid', k)
        ON CONFLICT ON CONSTRAINT oauth_keys_pkey DO UPDATE SET jwk = excluded.jwk
            WHERE o.jwk IS DISTINCT FROM excluded.jwk;
        kids := kids || (k ->> 'kid');
    END LOOP;
    IF cardinality(kids) = 0 THEN
        PERFORM jwks_failed(jwks_store.issuer, format('the JWKS at %s has no key with a kid that verifies %s',
                                                      jwks_store.jwks_uri, array_to_string(allowed, ', ')));
        RETURN 0;
    END IF;
    DELETE FROM oauth_keys o WHERE o.issuer = jwks_store.issuer AND o.kid <> ALL (kids);
    UPDATE oauth_issuers i
    SET jwks_uri = jwks_store.jwks_uri, keys_fetched_at = now(), fetch_failed_at = NULL, fetch_problem = NULL
    WHERE i.issuer = jwks_store.issuer;
    RETURN cardinality(kids);
END;
$$;
COMMENT ON FUNCTION jwks_store(text, text, jsonb) IS
'Key fetcher: the JWKS just read from an issuer''s jwks_uri; keeps the public members of each key with a kid that verifies an allowed algorithm, drops the keys no longer published, returns how many it kept (0: nothing changed, failure recorded)';

CREATE OR REPLACE FUNCTION jwks_failed(issuer text, problem text) RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    UPDATE oauth_issuers i SET fetch_failed_at = now(), fetch_problem = _printable(problem, 500)
    WHERE i.issuer = jwks_failed.issuer
$$;
COMMENT ON FUNCTION jwks_failed(text, text) IS
'Key fetcher: why the last fetch of an issuer''s keys failed (kept in oauth_issuers.fetch_problem; the keys stay as they were)';

CREATE OR REPLACE FUNCTION grant_jwks_fetcher(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA mcp_notes TO %s', role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.jwks_issuers(), mcp_notes.jwks_store(text, text, jsonb), '
                   'mcp_notes.jwks_failed(text, text) TO %s', role);
    EXECUTE format('ALTER ROLE %s SET statement_timeout = %L', role, '10s');
END;
$$;
COMMENT ON FUNCTION grant_jwks_fetcher(regrole) IS
'Lets a role run the key fetcher (mcp-notes-jwks): USAGE on the schema and EXECUTE on jwks_issuers, jwks_store and jwks_failed, nothing else';
