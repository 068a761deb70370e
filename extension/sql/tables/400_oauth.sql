-- OAuth 2.1 resource server (docs/security.md, docs/operations.md "OAuth"):
-- the resource this database serves, the issuers it trusts and their keys
-- (written only by the key fetcher's role, through jwks_store), and which
-- principal each (issuer, subject) acts as.

-- The public URL of the MCP endpoint (every gateway's --public-url): the
-- RFC 8707 resource, which a JWT's aud must contain.  One row, or none
-- (then no JWT is accepted; operator tokens work as before).
CREATE TABLE oauth_resource (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    resource       text NOT NULL CHECK (_oauth_url_problem(resource) IS NULL),
    max_clock_skew interval NOT NULL DEFAULT '60 seconds'
                   CHECK (max_clock_skew >= '0 seconds' AND max_clock_skew <= '5 minutes'),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE oauth_resource IS
'The OAuth resource (RFC 8707) this database serves: the public URL of the MCP endpoint, which every accepted JWT''s aud contains; and the clock skew allowed for exp, nbf and iat';

CREATE TABLE oauth_issuers (
    issuer          text PRIMARY KEY CHECK (_oauth_url_problem(issuer) IS NULL),
    metadata_url    text NOT NULL CHECK (_oauth_url_problem(metadata_url) IS NULL),
    algorithms      text[] NOT NULL DEFAULT '{ES256,RS256,EdDSA}'
                    CHECK (cardinality(algorithms) > 0 AND algorithms <@
                           '{RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA}'::text[]),
    auto_provision  boolean NOT NULL DEFAULT false,
    added_at        timestamptz NOT NULL DEFAULT now(),
    jwks_uri        text,
    keys_fetched_at timestamptz,
    fetch_failed_at timestamptz,
    fetch_problem   text
);
COMMENT ON TABLE oauth_issuers IS
'Authorization servers whose JWT access tokens are accepted: iss exactly, the algorithms allowed, whether an unknown subject gets a principal of its own (with no grants); the key fetcher''s last result';

CREATE TABLE oauth_keys (
    issuer     text NOT NULL REFERENCES oauth_issuers ON DELETE CASCADE ON UPDATE CASCADE,
    kid        text NOT NULL CHECK (length(kid) BETWEEN 1 AND 200),
    jwk        jsonb NOT NULL,
    first_seen timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, kid)
);
COMMENT ON TABLE oauth_keys IS
'The issuers'' public signing keys (JWKs, public members only) as the key fetcher last read them from each jwks_uri; written only through jwks_store';

CREATE TABLE oauth_identities (
    issuer      text NOT NULL REFERENCES oauth_issuers ON DELETE CASCADE ON UPDATE CASCADE,
    subject     text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    principal   text NOT NULL,
    provisioned boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX oauth_identities_principal ON oauth_identities (principal);
COMMENT ON TABLE oauth_identities IS
'Which principal a token''s (iss, sub) acts as: mapped by an operator (map_oauth_identity), or provisioned on first use for an issuer with auto_provision (a principal of its own, no grants)';

-- A change that can take an acceptance back (a key changed or gone, an
-- identity unmapped, an issuer removed or restricted, another resource)
-- reaches the gateways' token caches at commit, as a change to tokens does.
-- Row triggers: a statement that changes nothing (the key fetcher's
-- periodic store of the same keys) notifies nobody.
CREATE TRIGGER oauth_resource_changed AFTER UPDATE ON oauth_resource FOR EACH ROW
    WHEN (OLD.resource IS DISTINCT FROM NEW.resource OR OLD.max_clock_skew IS DISTINCT FROM NEW.max_clock_skew)
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_resource_deleted AFTER DELETE ON oauth_resource FOR EACH ROW EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_issuers_changed AFTER UPDATE ON oauth_issuers FOR EACH ROW
    WHEN (OLD.issuer IS DISTINCT FROM NEW.issuer OR OLD.algorithms IS DISTINCT FROM NEW.algorithms)
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_issuers_deleted AFTER DELETE ON oauth_issuers FOR EACH ROW EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_keys_changed AFTER UPDATE OR DELETE ON oauth_keys FOR EACH ROW
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_identities_changed AFTER UPDATE OR DELETE ON oauth_identities FOR EACH ROW
    EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_resource FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_issuers FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_keys FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
CREATE TRIGGER oauth_truncated AFTER TRUNCATE ON oauth_identities FOR EACH STATEMENT EXECUTE FUNCTION _tokens_changed();
ALTER TABLE oauth_resource ENABLE ALWAYS TRIGGER oauth_resource_changed, ENABLE ALWAYS TRIGGER oauth_resource_deleted,
    ENABLE ALWAYS TRIGGER oauth_truncated;
ALTER TABLE oauth_issuers ENABLE ALWAYS TRIGGER oauth_issuers_changed, ENABLE ALWAYS TRIGGER oauth_issuers_deleted,
    ENABLE ALWAYS TRIGGER oauth_truncated;
ALTER TABLE oauth_keys ENABLE ALWAYS TRIGGER oauth_keys_changed, ENABLE ALWAYS TRIGGER oauth_truncated;
ALTER TABLE oauth_identities ENABLE ALWAYS TRIGGER oauth_identities_changed, ENABLE ALWAYS TRIGGER oauth_truncated;

-- Operator configuration is dumped; keys are not (the fetcher reads them
-- again from the issuers).
SELECT pg_catalog.pg_extension_config_dump('oauth_resource', '');
SELECT pg_catalog.pg_extension_config_dump('oauth_issuers', '');
SELECT pg_catalog.pg_extension_config_dump('oauth_identities', '');

-- The token that acted, on every audit row: NULL for operator tokens and
-- development principals.
ALTER TABLE delete_audit
    ADD COLUMN token_iss text, ADD COLUMN token_sub text, ADD COLUMN token_client_id text,
    ADD COLUMN token_jti text, ADD COLUMN token_scope text;
ALTER TABLE change_audit
    ADD COLUMN token_iss text, ADD COLUMN token_sub text, ADD COLUMN token_client_id text,
    ADD COLUMN token_jti text, ADD COLUMN token_scope text;
COMMENT ON COLUMN delete_audit.token_iss IS 'The iss of the JWT access token that acted (NULL: an operator token)';
COMMENT ON COLUMN delete_audit.token_sub IS 'The sub of the JWT access token that acted';
COMMENT ON COLUMN delete_audit.token_client_id IS 'The client_id of the JWT access token that acted';
COMMENT ON COLUMN delete_audit.token_jti IS 'The jti of the JWT access token that acted';
COMMENT ON COLUMN delete_audit.token_scope IS 'The scope of the JWT access token that acted, space-separated';
COMMENT ON COLUMN change_audit.token_iss IS 'The iss of the JWT access token that acted (NULL: an operator token)';
COMMENT ON COLUMN change_audit.token_sub IS 'The sub of the JWT access token that acted';
COMMENT ON COLUMN change_audit.token_client_id IS 'The client_id of the JWT access token that acted';
COMMENT ON COLUMN change_audit.token_jti IS 'The jti of the JWT access token that acted';
COMMENT ON COLUMN change_audit.token_scope IS 'The scope of the JWT access token that acted, space-separated';
