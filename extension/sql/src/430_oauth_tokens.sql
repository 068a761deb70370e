-- OAuth: JWT access tokens (RFC 9068) judged where the opaque ones are, in
-- the transaction that acts, so a compromised gateway still cannot act for
-- a principal whose token it was not shown.  Each rejection names its
-- reason (the gateway logs it; the client is told only 401 invalid_token).
-- PL/pgSQL throughout, even for one expression: these run on every request,
-- and an SQL function with a SET clause is planned again on every call.

-- A standby or a read-only transaction can judge a token but neither
-- provision a principal nor NOTIFY: there a new subject stays unmapped and
-- the key fetcher is not asked (the primary does both).
CREATE OR REPLACE FUNCTION _oauth_may_write() RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RETURN NOT pg_catalog.pg_is_in_recovery() AND pg_catalog.current_setting('transaction_read_only') = 'off';
END;
$$;
COMMENT ON FUNCTION _oauth_may_write() IS
'Internal: false on a standby or in a read-only transaction, where a token is judged without provisioning or notifying';

-- A JWT whose signature verifies with a published key of its issuer: the
-- issuer's row, the header and the claims, or {"reason"}.  typs: the typ
-- values accepted (lower case), NULL for any; the access token check below
-- passes RFC 9068's, an ID token check (URL-mode confirmation) its own.  A
-- key id the database does not know asks the key fetcher to read the
-- issuer's keys again (NOTIFY mcp_notes_jwks): the issuer may have rotated.
CREATE OR REPLACE FUNCTION _jwt_verified(token text, typs text[]) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    decoded jsonb := _jws_decode(token);
    header jsonb := decoded -> 'header';
    claims jsonb := decoded -> 'claims';
    iss oauth_issuers;
    key jsonb;
BEGIN
    IF decoded ? 'problem' THEN
        RETURN jsonb_build_object('reason', 'jwt_malformed');
    ELSIF typs IS NOT NULL AND NOT coalesce(lower(header ->> 'typ') = ANY (typs), false) THEN
        RETURN jsonb_build_object('reason', 'jwt_wrong_typ');
    ELSIF header ? 'crit' THEN
        RETURN jsonb_build_object('reason', 'jwt_critical_extension');  -- none is understood (RFC 7515 4.1.11)
    ELSIF jsonb_typeof(claims -> 'iss') IS DISTINCT FROM 'string' THEN
        RETURN jsonb_build_object('reason', 'jwt_no_issuer');
    END IF;
    SELECT * INTO iss FROM oauth_issuers i WHERE i.issuer = claims ->> 'iss';
    IF NOT FOUND THEN
        RETURN jsonb_build_object('reason', 'unknown_issuer');
    ELSIF jsonb_typeof(header -> 'alg') IS DISTINCT FROM 'string' OR NOT header ->> 'alg' = ANY (iss.algorithms) THEN
        RETURN jsonb_build_object('reason', 'algorithm_not_allowed');
    ELSIF jsonb_typeof(header -> 'kid') IS DISTINCT FROM 'string' THEN
        RETURN jsonb_build_object('reason', 'jwt_no_kid');
    END IF;
    SELECT k.jwk INTO key FROM oauth_keys k WHERE k.issuer = iss.issuer AND k.kid = header ->> 'kid';
    IF NOT FOUND THEN
        IF _oauth_may_write() THEN
            PERFORM pg_catalog.pg_notify('mcp_notes_jwks', iss.issuer);
        END IF;
        RETURN jsonb_build_object('reason', 'unknown_kid');
    ELSIF NOT _jws_verify(token, key, header ->> 'alg') THEN
        RETURN jsonb_build_object('reason', 'bad_signature');
    END IF;
    RETURN jsonb_build_object('issuer', iss.issuer, 'auto_provision', iss.auto_provision,
                              'header', header, 'claims', claims);
END;
$$;
COMMENT ON FUNCTION _jwt_verified(text, text[]) IS
'Internal: a JWT whose typ is one of typs (NULL: any), whose iss is a configured issuer, whose alg that issuer allows, and whose signature verifies with the key its kid names: {issuer, auto_provision, header, claims}, else {reason}; an unknown kid notifies mcp_notes_jwks';

-- exp (required), nbf and iat (when present) against the database clock,
-- each allowed skew seconds off.  NULL when they are fine.
CREATE OR REPLACE FUNCTION _jwt_time_problem(claims jsonb, skew interval) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    now_s numeric := extract(epoch FROM clock_timestamp());
    skew_s numeric := extract(epoch FROM skew);
BEGIN
    IF jsonb_typeof(claims -> 'exp') IS DISTINCT FROM 'number' THEN
        RETURN 'jwt_no_expiry';
    ELSIF now_s >= (claims ->> 'exp')::numeric + skew_s THEN
        RETURN 'jwt_expired';
    ELSIF claims ? 'nbf' AND (jsonb_typeof(claims -> 'nbf') <> 'number' OR now_s + skew_s < (claims ->> 'nbf')::numeric) THEN
        RETURN 'jwt_not_yet_valid';
    ELSIF claims ? 'iat' AND (jsonb_typeof(claims -> 'iat') <> 'number' OR now_s + skew_s < (claims ->> 'iat')::numeric) THEN
        RETURN 'jwt_issued_in_the_future';
    END IF;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _jwt_time_problem(jsonb, interval) IS
'Internal: NULL when exp (required) has not passed and nbf and iat (when present) have come, each within skew, on clock_timestamp(); else the reason';

-- aud is a string or an array of strings (RFC 7519 4.1.3); it must name
-- the resource exactly.  glewlwyd, asked without a resource, puts the scope
-- list there: that token was not issued for this server.
CREATE OR REPLACE FUNCTION _jwt_audience_has(claims jsonb, audience text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RETURN CASE jsonb_typeof(claims -> 'aud')
        WHEN 'string' THEN claims ->> 'aud' = audience
        WHEN 'array' THEN claims -> 'aud' @> jsonb_build_array(audience)
        ELSE false END;
END;
$$;
COMMENT ON FUNCTION _jwt_audience_has(jsonb, text) IS 'Internal: the aud claim (a string or an array) names audience exactly';

-- The name an auto-provisioned principal gets: readable (sub@ and 8 hex
-- digits of the issuer's digest) when sub is a plain name and nobody uses
-- that name yet; else one derived from both, which nobody chose.  Never the
-- name of an existing principal: a new identity must not inherit grants.
CREATE OR REPLACE FUNCTION _oauth_provisioned_name(issuer text, subject text) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    readable text := subject || '@' || left(encode(sha256(convert_to(issuer, 'UTF8')), 'hex'), 8);
BEGIN
    IF subject ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$'
       AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.principal = readable)
       AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.principal = readable)
       AND NOT EXISTS (SELECT 1 FROM oauth_identities o WHERE o.principal = readable) THEN
        RETURN readable;
    END IF;
    RETURN 'oauth-' || left(encode(sha256(convert_to(issuer || E'\n' || subject, 'UTF8')), 'hex'), 40);
END;
$$;
COMMENT ON FUNCTION _oauth_provisioned_name(text, text) IS
'Internal: the principal an auto-provisioned (issuer, subject) gets: sub@<issuer digest> when free, else oauth-<digest of both>';

-- The principal of (issuer, subject): the operator's mapping, else (when
-- the issuer allows it) a principal provisioned now with no grants.
CREATE OR REPLACE FUNCTION _oauth_principal(issuer text, subject text, auto_provision boolean) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    SELECT o.principal INTO who FROM oauth_identities o
    WHERE o.issuer = _oauth_principal.issuer AND o.subject = _oauth_principal.subject;
    IF who IS NOT NULL OR NOT auto_provision OR NOT _oauth_may_write() THEN
        RETURN who;
    END IF;
    INSERT INTO oauth_identities (issuer, subject, principal, provisioned)
    VALUES (issuer, subject, _oauth_provisioned_name(issuer, subject), true)
    ON CONFLICT ON CONSTRAINT oauth_identities_pkey DO NOTHING;
    SELECT o.principal INTO who FROM oauth_identities o
    WHERE o.issuer = _oauth_principal.issuer AND o.subject = _oauth_principal.subject;
    RETURN who;
END;
$$;
COMMENT ON FUNCTION _oauth_principal(text, text, boolean) IS
'Internal: the principal (issuer, subject) acts as: mapped, or provisioned now (no grants) when auto_provision; NULL when neither';

-- An RFC 9068 access token for this resource, judged as docs/security.md
-- says: typ at+jwt, alg allowed, known kid, signature, iss exactly, aud
-- containing the resource, exp/nbf/iat within skew, a sub (and client_id)
-- mapped to a principal.  {principal, via: "oauth", iss, sub, client_id,
-- jti, scope: [...]}, or {reason}.
CREATE OR REPLACE FUNCTION _oauth_access_token(token text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    res oauth_resource;
    verified jsonb;
    claims jsonb;
    problem text;
    who text;
BEGIN
    SELECT * INTO res FROM oauth_resource;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('reason', 'oauth_not_configured');
    END IF;
    verified := _jwt_verified(token, '{at+jwt,application/at+jwt}');
    claims := verified -> 'claims';
    problem := CASE
        WHEN verified ? 'reason' THEN verified ->> 'reason'
        WHEN NOT _jwt_audience_has(claims, res.resource) THEN 'jwt_wrong_audience'
        WHEN jsonb_typeof(claims -> 'sub') IS DISTINCT FROM 'string' OR length(claims ->> 'sub') NOT BETWEEN 1 AND 255
            THEN 'jwt_no_subject'
        WHEN jsonb_typeof(claims -> 'client_id') IS DISTINCT FROM 'string' THEN 'jwt_no_client_id'
        ELSE _jwt_time_problem(claims, res.max_clock_skew) END;
    IF problem IS NOT NULL THEN
        RETURN jsonb_build_object('reason', problem);
    END IF;
    who := _oauth_principal(verified ->> 'issuer', claims ->> 'sub', (verified ->> 'auto_provision')::boolean);
    IF who IS NULL THEN
        RETURN jsonb_build_object('reason', 'unmapped_identity');
    END IF;
    RETURN jsonb_build_object(
        'principal', who, 'via', 'oauth', 'iss', verified ->> 'issuer', 'sub', claims ->> 'sub',
        'client_id', left(claims ->> 'client_id', 255),
        'jti', CASE WHEN jsonb_typeof(claims -> 'jti') = 'string' THEN left(claims ->> 'jti', 255) END,
        'scope', to_jsonb(_jwt_scopes(claims)));
END;
$$;
COMMENT ON FUNCTION _oauth_access_token(text) IS
'Internal: the principal and token facts of a JWT access token for this resource (RFC 9068), or {reason} when any check fails';

-- scope: a space-separated string (RFC 9068 2.2.3); scp (a string or an
-- array) where an IdP puts them there instead.
CREATE OR REPLACE FUNCTION _jwt_scopes(claims jsonb) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    listed text := CASE WHEN jsonb_typeof(claims -> 'scope') = 'string' THEN claims ->> 'scope'
                        WHEN jsonb_typeof(claims -> 'scp') = 'string' THEN claims ->> 'scp' END;
BEGIN
    IF listed IS NULL AND jsonb_typeof(claims -> 'scp') = 'array' THEN
        RETURN ARRAY(SELECT DISTINCT e FROM jsonb_array_elements_text(claims -> 'scp') e WHERE e <> '' ORDER BY e);
    END IF;
    RETURN ARRAY(SELECT DISTINCT s FROM regexp_split_to_table(coalesce(listed, ''), '\s+') s WHERE s <> '' ORDER BY s);
END;
$$;
COMMENT ON FUNCTION _jwt_scopes(jsonb) IS 'Internal: the scopes a JWT grants (scope, or scp), each once';

-- What a bearer token proves: an opaque operator token by its hash, a JWT
-- (three dot-separated base64url segments: an operator token never has a
-- dot) as an access token.  {principal, via, ...} or {reason}.
CREATE OR REPLACE FUNCTION _authenticate(token text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    who text;
BEGIN
    IF token ~ '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$' THEN
        RETURN _oauth_access_token(token);
    END IF;
    SELECT t.principal INTO who FROM tokens t
    WHERE t.token_hash = _token_hash(token)
      AND t.revoked_at IS NULL
      AND t.expires_at > clock_timestamp();
    IF who IS NULL THEN
        RETURN jsonb_build_object('reason', 'unknown_token');
    END IF;
    RETURN jsonb_build_object('principal', who, 'via', 'operator');
END;
$$;
COMMENT ON FUNCTION _authenticate(text) IS
'Internal: what a bearer token proves: {principal, via: "operator"} for an operator token, {principal, via: "oauth", iss, sub, client_id, jti, scope} for a JWT access token, else {reason}';
