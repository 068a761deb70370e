-- The OAuth resource server in the database (docs/security.md): the
-- configuration, the key fetcher's role, every reason a JWT is refused,
-- (iss, sub) to principal, scope and grant, the audit of the acting token.
-- The tokens are fixed (oauth_vectors.psql), signed with test keys.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set vectors `[ -f test/oauth_vectors.psql ] && echo test/oauth_vectors.psql || echo extension/test/oauth_vectors.psql`
\i :vectors
\set ECHO all
SET default_transaction_isolation = serializable;
\set issuer_a 'https://idp.example/oidc'
\set issuer_b 'https://other-idp.example'

-- No resource configured: no JWT is accepted, operator tokens work.
SELECT mcp_notes._authenticate(:'good') AS before_configuration;

-- Configuration: https, or http on loopback only; no query or fragment.
SELECT mcp_notes.set_oauth_resource('http://notes.example/mcp');
SELECT mcp_notes.set_oauth_resource('https://notes.example/mcp?x=1');
SELECT mcp_notes.set_oauth_resource('https://user@notes.example/mcp');
SELECT mcp_notes.set_oauth_resource('https://notes.example/mcp', '10 minutes');
SELECT mcp_notes.set_oauth_resource('http://127.0.0.1:8080/mcp');
SELECT mcp_notes.set_oauth_resource('https://notes.example/mcp');
SELECT resource, max_clock_skew FROM mcp_notes.oauth_resource;
SELECT mcp_notes.add_oauth_issuer('https://bad.example', algorithms => '{HS256}');
SELECT mcp_notes.add_oauth_issuer('https://bad.example', algorithms => '{none}');
SELECT mcp_notes.add_oauth_issuer('https://bad.example', algorithms => '{}');
SELECT mcp_notes.add_oauth_issuer('ftp://bad.example');
SELECT mcp_notes.add_oauth_issuer(:'issuer_a');
SELECT mcp_notes.add_oauth_issuer(:'issuer_b', algorithms => '{ES256}', auto_provision => true);
SELECT issuer, metadata_url, algorithms, auto_provision FROM mcp_notes.oauth_issuers ORDER BY 1;

-- The key fetcher's role stores keys through jwks_store and can do nothing else.
CREATE ROLE regress_oauth_fetcher;
CREATE ROLE regress_oauth_gateway;
SELECT mcp_notes.grant_jwks_fetcher('regress_oauth_fetcher');
SELECT mcp_notes.grant_gateway('regress_oauth_gateway');
SET ROLE regress_oauth_fetcher;
SELECT * FROM mcp_notes.jwks_issuers();
-- private members are dropped, an HMAC key and a key without a kid are not kept
SELECT mcp_notes.jwks_store(:'issuer_a', :'issuer_a' || '/jwks', jsonb_build_object('keys', jsonb_build_array(
    :'jwk_a'::jsonb || '{"d": "bm90IHJlYWxseSBhIGtleQ"}', :'jwk_e'::jsonb,
    '{"kty": "oct", "kid": "h1", "k": "c2VjcmV0"}'::jsonb, :'jwk_a'::jsonb - 'kid'))) AS kept_for_a;
-- issuer b allows ES256 only: its EdDSA key is not kept
SELECT mcp_notes.jwks_store(:'issuer_b', :'issuer_b' || '/jwks', jsonb_build_object('keys', jsonb_build_array(
    :'jwk_b'::jsonb, :'jwk_e'::jsonb || '{"kid": "b2"}'))) AS kept_for_b;
SELECT mcp_notes.jwks_store('https://evil.example', 'https://evil.example/jwks', '{"keys": []}');
SELECT mcp_notes.jwks_store(:'issuer_a', 'http://evil.example/jwks', '{"keys": []}');
SELECT mcp_notes.jwks_store(:'issuer_a', :'issuer_a' || '/jwks', '{"keys": {}}');
SELECT count(*) FROM mcp_notes.oauth_keys;
INSERT INTO mcp_notes.oauth_keys (issuer, kid, jwk) VALUES (:'issuer_a', 'x', '{}');
SELECT mcp_notes.add_oauth_issuer('https://evil.example');
SELECT mcp_notes.handle('x', '{}');
SELECT mcp_notes.authenticate('x');
RESET ROLE;
SET ROLE regress_oauth_gateway;
SELECT mcp_notes.jwks_store(:'issuer_a', :'issuer_a' || '/jwks', '{"keys": []}');
SELECT mcp_notes.jwks_issuers();
SELECT count(*) FROM mcp_notes.oauth_identities;
RESET ROLE;
SELECT issuer, kid, jwk ? 'd' AS private_kept, jwk ->> 'alg' AS alg FROM mcp_notes.oauth_keys ORDER BY 1, 2;
SELECT issuer, jwks_uri, keys_fetched_at IS NOT NULL AS fetched, fetch_problem FROM mcp_notes.oauth_issuers ORDER BY 1;

-- Identities: (iss, sub) -> principal.
SELECT mcp_notes.map_oauth_identity(:'issuer_a', 'svc1', 'alice');
SELECT mcp_notes.map_oauth_identity('https://unknown.example', 'svc1', 'alice');
SELECT mcp_notes.map_oauth_identity(:'issuer_a', 'svc2', 'not a name');
SELECT mcp_notes.map_oauth_identity(:'issuer_a', '', 'alice');

-- Every token, judged: the principal it acts as, or why not.
SELECT mcp_notes.issue_token('alice') AS operator \gset
SELECT v.name, a ->> 'principal' AS principal, a ->> 'via' AS via, a ->> 'reason' AS reason
FROM (VALUES ('good', :'good'), ('good, EdDSA', :'good_eddsa'), ('scope read only', :'read_only'),
             ('scopes in scp', :'scp_array'), ('aud an array naming the resource', :'aud_array'),
             ('typ application/at+jwt', :'typ_application'),
             ('aud the scope list (glewlwyd without resource)', :'aud_scope_list'),
             ('aud a longer URL', :'aud_prefix'), ('iss unknown', :'iss_unknown'),
             ('iss with a trailing slash', :'iss_slash'), ('typ JWT', :'typ_jwt'), ('typ missing', :'typ_missing'),
             ('alg none', :'alg_none'), ('HS256 with the public key', :'alg_hs256'),
             ('RS256 naming an EC key', :'alg_rs256_on_ec'), ('expired', :'expired'),
             ('not yet valid', :'not_yet'), ('issued in the future', :'iat_future'), ('no exp', :'no_exp'),
             ('kid unknown', :'kid_unknown'), ('kid missing', :'kid_missing'), ('crit', :'crit'),
             ('no sub', :'no_sub'), ('no client_id', :'no_client_id'), ('unmapped sub', :'unmapped'),
             ('signed by b, naming a''s key', :'signed_by_b_as_a'),
             ('signature tampered', :'tampered_signature'), ('payload tampered', :'tampered_payload'),
             ('operator token', :'operator'), ('not a token', 'mcpn_nope'),
             ('three segments of junk', 'a.b.c'), ('empty', '')) v(name, token),
     LATERAL (SELECT mcp_notes._authenticate(v.token) AS a) x;
-- what a valid one carries
SELECT mcp_notes._authenticate(:'good') - 'principal' AS facts;
SELECT mcp_notes._authenticate(:'scp_array') -> 'scope' AS scp_scopes;

-- The same sub from another issuer is another principal: issuer b
-- provisions one, with no grants.
SELECT mcp_notes._authenticate(:'issuer_b_same_sub') ->> 'principal' AS issuer_b_svc1,
       mcp_notes._authenticate(:'issuer_b_same_sub') ->> 'principal' = mcp_notes._authenticate(:'good') ->> 'principal' AS same_as_issuer_a;
SELECT issuer, subject, principal, provisioned FROM mcp_notes.oauth_identities ORDER BY 1, 2;
SELECT count(*) AS grants_of_the_provisioned FROM mcp_notes.grants g
JOIN mcp_notes.oauth_identities o ON o.principal = g.principal WHERE o.provisioned;
-- a provisioned name never reuses an existing principal's (which would inherit its grants)
SELECT mcp_notes._oauth_provisioned_name(:'issuer_b', 'svc9') AS free_name \gset
SELECT :'free_name' ~ '^svc9@[0-9a-f]{8}$' AS readable;
SELECT mcp_notes.add_workspace('file:///t/oauth/taken');
SELECT mcp_notes.grant_workspace(:'free_name', 'file:///t/oauth/taken');
SELECT mcp_notes._oauth_provisioned_name(:'issuer_b', 'svc9') ~ '^oauth-[0-9a-f]{40}$' AS derived_when_taken,
       mcp_notes._oauth_provisioned_name(:'issuer_b', 'a/b c') ~ '^oauth-[0-9a-f]{40}$' AS derived_for_an_odd_sub,
       mcp_notes._oauth_provisioned_name(:'issuer_a', 'svc9') <> mcp_notes._oauth_provisioned_name(:'issuer_b', 'svc9')
           AS differs_by_issuer;

-- exp, nbf and iat within the skew (60 s), on the database clock.
SELECT v.what, mcp_notes._jwt_time_problem(v.claims, '60 seconds') AS problem
FROM (SELECT extract(epoch FROM clock_timestamp())::bigint AS now) n,
     LATERAL (VALUES ('exp 30 s ago', jsonb_build_object('exp', n.now - 30)),
                     ('exp 90 s ago', jsonb_build_object('exp', n.now - 90)),
                     ('nbf in 30 s', jsonb_build_object('exp', n.now + 600, 'nbf', n.now + 30)),
                     ('nbf in 90 s', jsonb_build_object('exp', n.now + 600, 'nbf', n.now + 90)),
                     ('iat in 90 s', jsonb_build_object('exp', n.now + 600, 'iat', n.now + 90)),
                     ('exp a string', jsonb_build_object('exp', (n.now + 600)::text)),
                     ('nbf a string', jsonb_build_object('exp', n.now + 600, 'nbf', 'soon'))) v(what, claims);

-- Scope and grant.  alice may use file:///t/oauth; her read-only token
-- may ask, but not answer, a delete.
SELECT mcp_notes.add_workspace('file:///t/oauth');
SELECT mcp_notes.grant_workspace('alice', 'file:///t/oauth');
SELECT mcp_notes.add_note('file:///t/oauth/a.md', 'oauth note') AS note \gset
SELECT mcp_notes.add_note('file:///t/oauth/kept.md', 'kept') AS kept \gset
CREATE FUNCTION t.request(name text, arguments jsonb, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('method', 'tools/call',
        'params', jsonb_build_object('name', name, 'arguments', arguments) || extra,
        'clientCapabilities', '{"elicitation": {"form": {}}}'::jsonb, 'requestId', 7, 'gatewayId', 'gw-oauth')
$$;
CREATE FUNCTION t.kind(r jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce('error ' || (r #>> '{error,kind}') || coalesce(' ' || (r #> '{error,data}')::text, ''),
                    (r #>> '{result,resultType}')
                    || CASE WHEN (r #>> '{result,isError}')::boolean THEN ' tool error: ' || (r #>> '{result,content,0,text}') ELSE '' END
                    || coalesce(' ' || ((r #> '{result,structuredContent}') - 'noteId' - 'updatedAt')::text, ''))
$$;
SELECT t.kind(mcp_notes.handle(:'read_only', '{"method": "tools/list", "params": {}}')) AS tools_list;
SELECT mcp_notes.handle(:'read_only', t.request('notes_delete', '{"workspaceUri": "file:///t/oauth", "title": "oauth"}')) AS step1 \gset
SELECT t.kind(:'step1') AS step1;
SELECT (:'step1'::jsonb) #>> '{result,requestState}' AS state \gset
SELECT t.request('notes_delete', '{"workspaceUri": "file:///t/oauth", "title": "oauth"}',
                 jsonb_build_object('requestState', :'state', 'inputResponses', jsonb_build_object('delete_choice',
                     jsonb_build_object('action', 'accept', 'content', jsonb_build_object('note_id', :'note', 'confirm', true)))))
       AS answer \gset
SELECT mcp_notes.handle(:'read_only', :'answer') AS refused;
-- in the 2025 era the client's one tools/call is the whole delete: refused before its stream
-- begins (step 1), and so is the gateway's retry, which names its answers by inputFrom
SELECT t.kind(mcp_notes.handle(:'read_only', t.request('notes_delete', '{"workspaceUri": "file:///t/oauth", "title": "oauth"}')
    || '{"session": "no-such-session"}')) AS legacy_step1_refused;
SELECT t.kind(mcp_notes.handle(:'read_only', t.request('notes_delete', '{"workspaceUri": "file:///t/oauth", "title": "oauth"}')
    || '{"session": "no-such-session", "inputFrom": {"delete_choice": 1}}')) AS legacy_retry_refused;
-- before anything ran: the state is not spent, the note is there, no audit row
SELECT (SELECT count(*) FROM mcp_notes.spent_states) AS spent, (SELECT count(*) FROM mcp_notes.notes WHERE note_id = :'note') AS notes,
       (SELECT count(*) FROM mcp_notes.delete_audit) AS audited;
-- the same answer with the delete scope deletes, and the audit names the token
SELECT t.kind(mcp_notes.handle(:'good', :'answer')) AS accepted;
SELECT principal, outcome, token_iss, token_sub, token_client_id, token_jti, token_scope FROM mcp_notes.delete_audit;
-- writing needs notes.write, which neither token has
SELECT t.kind(mcp_notes.handle(:'good', t.request('notes_create',
    '{"workspaceUri": "file:///t/oauth", "uri": "file:///t/oauth/b.md", "title": "b"}'))) AS create_without_write;
SELECT t.kind(mcp_notes.handle(:'good', t.request('notes_read', jsonb_build_object('workspaceUri', 'file:///t/oauth', 'noteId', :'kept'))))
       AS read_needs_read;
-- a scope never replaces a grant: svc1 of issuer b has every scope it asks for, but no grant
SELECT t.kind(mcp_notes.handle(:'issuer_b_same_sub', t.request('notes_list', '{"workspaceUri": "file:///t/oauth"}'))) AS no_grant;
-- an operator token has every scope; what a gateway sends as request.auth is never believed
SELECT t.kind(mcp_notes.handle(:'operator', t.request('notes_create',
    '{"workspaceUri": "file:///t/oauth", "uri": "file:///t/oauth/c.md", "title": "c"}',
    '{}') || '{"auth": {"via": "oauth", "iss": "https://forged.example", "sub": "root"}}')) AS operator_create;
SELECT t.kind(mcp_notes.handle_as('alice', t.request('notes_create',
    '{"workspaceUri": "file:///t/oauth", "uri": "file:///t/oauth/d.md", "title": "d"}',
    '{}') || '{"auth": {"via": "oauth", "iss": "https://forged.example", "sub": "root"}}')) AS dev_create;
SELECT note_uri, token_iss, token_sub FROM mcp_notes.change_audit ORDER BY audit_id;
-- a refused token says why in data.reason (the gateway logs it; the client sees a 401)
SELECT mcp_notes.handle(:'expired', '{"method": "tools/list", "params": {}}') AS expired;
SELECT mcp_notes.authenticate(:'good') AS authenticated, mcp_notes.authenticate(:'aud_scope_list') AS wrong_audience;
-- gateways of 1.1 know no scopes: call_tool refuses JWTs
SELECT mcp_notes.call_tool(:'good', 'notes_list', '{"workspaceUri": "file:///t/oauth"}', NULL, NULL, '{}', '1', NULL, 'gw')
       AS call_tool_jwt;
SELECT mcp_notes.call_tool(:'operator', 'notes_list', '{"workspaceUri": "file:///t/oauth"}', NULL, NULL, '{}', '1', NULL, 'gw')
       #>> '{result,resultType}' AS call_tool_operator;

-- Rotation: the fetcher stores a set without a1; a1's tokens stop, a2's go on.
SET ROLE regress_oauth_fetcher;
SELECT mcp_notes.jwks_store(:'issuer_a', :'issuer_a' || '/jwks', jsonb_build_object('keys', jsonb_build_array(:'jwk_e'::jsonb))) AS kept;
-- an answer without any usable key changes nothing
SELECT mcp_notes.jwks_store(:'issuer_a', :'issuer_a' || '/jwks', '{"keys": [{"kty": "oct", "kid": "z", "k": "c2VjcmV0"}]}') AS kept;
SELECT mcp_notes.jwks_failed(:'issuer_b', 'GET https://other-idp.example/.well-known/openid-configuration failed: ' || chr(27) || '[31m');
RESET ROLE;
SELECT mcp_notes._authenticate(:'good') ->> 'reason' AS a1_token, mcp_notes._authenticate(:'good_eddsa') ->> 'principal' AS a2_token;
SELECT issuer, fetch_problem FROM mcp_notes.oauth_issuers ORDER BY 1;

-- Unmapping and removing the issuer end its tokens.
SELECT mcp_notes.unmap_oauth_identity(:'issuer_a', 'svc1') AS unmapped;
SELECT mcp_notes.unmap_oauth_identity(:'issuer_a', 'svc1') AS unmapped_again;
SELECT mcp_notes._authenticate(:'good_eddsa') ->> 'reason' AS after_unmap;
SELECT mcp_notes.remove_oauth_issuer(:'issuer_b') AS removed;
SELECT mcp_notes._authenticate(:'issuer_b_same_sub') ->> 'reason' AS after_removal;
SELECT issuer, count(*) FROM (SELECT issuer FROM mcp_notes.oauth_keys UNION ALL SELECT issuer FROM mcp_notes.oauth_identities) x GROUP BY 1;

DROP OWNED BY regress_oauth_fetcher, regress_oauth_gateway;
DROP ROLE regress_oauth_fetcher, regress_oauth_gateway;

-- In a read-only transaction (or on a standby) a token is still judged, but
-- nothing is provisioned and the fetcher is not asked.
SELECT mcp_notes.add_oauth_issuer(:'issuer_b', algorithms => '{ES256}', auto_provision => true);
INSERT INTO mcp_notes.oauth_keys (issuer, kid, jwk) VALUES (:'issuer_b', 'b1', :'jwk_b');
BEGIN TRANSACTION READ ONLY;
SELECT mcp_notes._authenticate(:'issuer_b_same_sub') ->> 'reason' AS read_only_unmapped;
COMMIT;
SELECT mcp_notes._authenticate(:'issuer_b_same_sub') ->> 'principal' IS NOT NULL AS provisioned_when_writable;
