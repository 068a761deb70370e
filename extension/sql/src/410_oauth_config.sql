-- OAuth: the operator API (docs/operations.md "OAuth").  Owner-only like the
-- rest of the operator API.

CREATE OR REPLACE FUNCTION _oauth_require_url(url text, what text) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    problem text := _oauth_url_problem(url);
BEGIN
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'invalid % %: %', what, coalesce(quote_literal(left(url, 200)), 'NULL'), problem
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'OAuth URLs are https (http only for a loopback host), without userinfo, query or fragment.';
    END IF;
END;
$$;
COMMENT ON FUNCTION _oauth_require_url(text, text) IS 'Internal: raises 22023 unless url passes _oauth_url_problem';

-- The resource must be the exact string every gateway has as --public-url:
-- clients ask the issuer for a token for that string, and it is the aud.
CREATE OR REPLACE FUNCTION set_oauth_resource(resource text, max_clock_skew interval DEFAULT '60 seconds')
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _oauth_require_url(resource, 'resource');
    IF max_clock_skew IS NULL OR max_clock_skew < '0 seconds' OR max_clock_skew > '5 minutes' THEN
        RAISE EXCEPTION 'max_clock_skew must be between 0 and 5 minutes'
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'It bounds how far exp, nbf and iat may be off the database clock.';
    END IF;
    INSERT INTO oauth_resource AS r (resource, max_clock_skew) VALUES (resource, max_clock_skew)
    ON CONFLICT (singleton) DO UPDATE
        SET resource = excluded.resource, max_clock_skew = excluded.max_clock_skew, updated_at = now();
END;
$$;
COMMENT ON FUNCTION set_oauth_resource(text, interval) IS
'Operators: the public URL of the MCP endpoint (the gateways'' --public-url), which a JWT''s aud must contain, and the clock skew allowed (default 60 s)';

-- The metadata is read from metadata_url, by default the OpenID Connect
-- discovery document under the issuer (what most IdPs serve, glewlwyd
-- only); the fetcher checks that it names exactly this issuer.
CREATE OR REPLACE FUNCTION add_oauth_issuer(issuer text, metadata_url text DEFAULT NULL,
                                            algorithms text[] DEFAULT '{ES256,RS256,EdDSA}',
                                            auto_provision boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    meta text := coalesce(metadata_url, rtrim(issuer, '/') || '/.well-known/openid-configuration');
BEGIN
    PERFORM _oauth_require_url(issuer, 'issuer');
    PERFORM _oauth_require_url(meta, 'metadata URL');
    IF algorithms IS NULL OR cardinality(algorithms) = 0 OR NOT algorithms <@
       '{RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA}'::text[] THEN
        RAISE EXCEPTION 'invalid algorithms %', coalesce(algorithms::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Allowed: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA (never none or an HMAC).';
    END IF;
    INSERT INTO oauth_issuers AS i (issuer, metadata_url, algorithms, auto_provision)
    VALUES (issuer, meta, algorithms, coalesce(auto_provision, false))
    ON CONFLICT ON CONSTRAINT oauth_issuers_pkey DO UPDATE
        SET metadata_url = excluded.metadata_url, algorithms = excluded.algorithms,
            auto_provision = excluded.auto_provision;
    PERFORM pg_catalog.pg_notify('mcp_notes_jwks', issuer);
END;
$$;
COMMENT ON FUNCTION add_oauth_issuer(text, text, text[], boolean) IS
'Operators: trust JWTs whose iss is exactly issuer, signed with one of algorithms by a key from its metadata (default <issuer>/.well-known/openid-configuration); with auto_provision an unknown subject gets a principal of its own with no grants. Asks the key fetcher to read the keys now';

CREATE OR REPLACE FUNCTION remove_oauth_issuer(issuer text) RETURNS boolean
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH gone AS (DELETE FROM oauth_issuers i WHERE i.issuer = remove_oauth_issuer.issuer RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM gone)
$$;
COMMENT ON FUNCTION remove_oauth_issuer(text) IS
'Operators: stop trusting an issuer; its keys and identity mappings go with it. False when there was none';

CREATE OR REPLACE FUNCTION map_oauth_identity(issuer text, subject text, principal text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    IF NOT EXISTS (SELECT 1 FROM oauth_issuers i WHERE i.issuer = map_oauth_identity.issuer) THEN
        RAISE EXCEPTION 'unknown issuer %', coalesce(quote_literal(left(issuer, 200)), 'NULL')
            USING ERRCODE = 'foreign_key_violation',
                  DETAIL = 'Add it first with mcp_notes.add_oauth_issuer.';
    END IF;
    IF subject IS NULL OR length(subject) NOT BETWEEN 1 AND 255 THEN
        RAISE EXCEPTION 'invalid subject'
            USING ERRCODE = 'invalid_parameter_value', DETAIL = 'A subject (sub) is 1 to 255 characters.';
    END IF;
    INSERT INTO oauth_identities AS o (issuer, subject, principal)
    VALUES (issuer, subject, principal)
    ON CONFLICT ON CONSTRAINT oauth_identities_pkey DO UPDATE
        SET principal = excluded.principal, provisioned = false, created_at = now();
END;
$$;
COMMENT ON FUNCTION map_oauth_identity(text, text, text) IS
'Operators: tokens of issuer whose sub is subject act as principal (for client_credentials tokens sub is the client id). Replaces an earlier mapping or provisioned principal';

CREATE OR REPLACE FUNCTION unmap_oauth_identity(issuer text, subject text) RETURNS boolean
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH gone AS (DELETE FROM oauth_identities o
                  WHERE o.issuer = unmap_oauth_identity.issuer AND o.subject = unmap_oauth_identity.subject
                  RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM gone)
$$;
COMMENT ON FUNCTION unmap_oauth_identity(text, text) IS
'Operators: tokens of (issuer, subject) no longer act as anyone (a provisioned one is provisioned again on next use if the issuer allows). False when there was no mapping';
