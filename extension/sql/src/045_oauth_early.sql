-- OAuth, early: what the tables' CHECKs and the audit functions (src/200,
-- src/210) call.

-- What a URL of the configuration (the resource, an issuer, its
-- metadata) may be.  Before the tables: their CHECKs call it.  The same rule
-- as the gateway's --public-url (gateway/src/prm.c): https, or http for a
-- loopback host only; no userinfo, query, fragment, quotes or spaces.
CREATE OR REPLACE FUNCTION _oauth_url_problem(url text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN url IS NULL THEN 'is missing'
        WHEN length(url) > 2000 THEN 'is longer than 2000 characters'
        WHEN url !~ '^https?://' THEN 'must begin with https:// (or http:// for a loopback host)'
        WHEN url ~ '[^!#-~]|[?#@"\\]' THEN 'must have no userinfo, query, fragment, quotes, spaces or non-ASCII characters'
        WHEN url !~ '^https?://([^/:\[\]]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/.*)?$' THEN 'has a malformed host or port'
        WHEN url ~ '^http://' AND url !~ '^http://(localhost|127\.[0-9.]+|\[::1\])(:[0-9]{1,5})?(/.*)?$'
            THEN 'uses http:// for a host that is not loopback: use https://'
    END
$$;
COMMENT ON FUNCTION _oauth_url_problem(text) IS
'Internal: NULL when url may be an OAuth resource, issuer or metadata URL (https, or http on a loopback host; no userinfo, query or fragment), else why not';

-- What the audit records of the token that acted: the JWT's iss, sub,
-- client_id, jti and scope (space-separated), each printable and bounded;
-- NULL for an operator token or a development principal.
-- PL/pgSQL, so that the audit functions before it can call it (an SQL
-- function's body is checked when it is created).
CREATE OR REPLACE FUNCTION _acting_token(request jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RETURN CASE WHEN request -> 'auth' ->> 'via' = 'oauth' THEN jsonb_build_object(
        'iss', _printable(request -> 'auth' ->> 'iss', 300),
        'sub', _printable(request -> 'auth' ->> 'sub', 255),
        'client_id', _printable(request -> 'auth' ->> 'client_id', 255),
        'jti', _printable(request -> 'auth' ->> 'jti', 255),
        'scope', _printable(array_to_string(ARRAY(SELECT jsonb_array_elements_text(request -> 'auth' -> 'scope')), ' '),
                            1000)) END;
END;
$$;
COMMENT ON FUNCTION _acting_token(jsonb) IS
'Internal: {iss, sub, client_id, jti, scope} of the JWT access token that acted (request.auth), printable and bounded, for the audit; NULL for an operator token';
