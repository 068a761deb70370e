-------------------------------------------------------------------------------
-- Operator API
-------------------------------------------------------------------------------

-- These run with the caller's rights (none is SECURITY DEFINER): operators
-- are the extension's owner or a superuser, and a role that should do one of
-- these things needs the table rights for it, given explicitly.

CREATE OR REPLACE FUNCTION _b64url(data bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT translate(encode(data, 'base64'), E'+/=\n', '-_') $$;
COMMENT ON FUNCTION _b64url(bytea) IS 'Internal: unpadded base64url';

CREATE OR REPLACE FUNCTION _token_hash(token text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT sha256(convert_to(token, 'UTF8')) $$;
COMMENT ON FUNCTION _token_hash(text) IS 'Internal: what tokens.token_hash stores for a token';

CREATE OR REPLACE FUNCTION _check_principal(principal text) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF principal IS NULL OR principal !~ '^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$' THEN
        RAISE EXCEPTION 'invalid principal name: %', coalesce(quote_literal(principal), 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'A principal is 1 to 128 letters, digits, ".", "_", "@", ":" or "-", starting with a letter or digit.';
    END IF;
END;
$$;
COMMENT ON FUNCTION _check_principal(text) IS 'Internal: raises unless the principal name is well formed';

CREATE OR REPLACE FUNCTION _normalize_or_raise(uri text, what text) RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    problem text := _uri_problem(uri);
BEGIN
    IF uri IS NULL THEN
        RAISE EXCEPTION '% must not be NULL', what USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION 'invalid % URI: %', what, quote_literal(left(uri, 200))
            USING ERRCODE = 'invalid_text_representation', DETAIL = problem;
    END IF;
    RETURN normalize_uri(uri);
END;
$$;
COMMENT ON FUNCTION _normalize_or_raise(text, text) IS 'Internal: normalize_uri with an error naming the argument';

CREATE OR REPLACE FUNCTION add_workspace(uri text) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(uri, 'workspace');
BEGIN
    INSERT INTO workspaces (uri) VALUES (normalized) ON CONFLICT DO NOTHING;
    RETURN normalized;
END;
$$;
COMMENT ON FUNCTION add_workspace(text) IS 'Registers a workspace by file: URI; returns the normalized URI. Idempotent';

CREATE OR REPLACE FUNCTION grant_workspace(principal text, workspace_uri text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(workspace_uri, 'workspace');
BEGIN
    PERFORM _check_principal(principal);
    IF NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.uri = normalized) THEN
        RAISE EXCEPTION 'workspace % does not exist', normalized
            USING ERRCODE = 'undefined_object',
                  HINT = 'Register it first with mcp_notes.add_workspace().';
    END IF;
    INSERT INTO grants (principal, workspace_uri)
    VALUES (grant_workspace.principal, normalized)
    ON CONFLICT DO NOTHING;
END;
$$;
COMMENT ON FUNCTION grant_workspace(text, text) IS 'Lets a principal use a workspace and every folder inside it. Idempotent';

CREATE OR REPLACE FUNCTION revoke_workspace(principal text, workspace_uri text) RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(workspace_uri, 'workspace');
BEGIN
    DELETE FROM grants g
    WHERE g.principal = revoke_workspace.principal AND g.workspace_uri = normalized;
    RETURN FOUND;
END;
$$;
COMMENT ON FUNCTION revoke_workspace(text, text) IS 'Removes a grant; true when there was one. Takes effect for confirmations not yet committed';

CREATE OR REPLACE FUNCTION issue_token(principal text, ttl interval DEFAULT '30 days') RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    token text := 'mcpn_' || _b64url(_random_bytes(32));
BEGIN
    PERFORM _check_principal(principal);
    IF ttl IS NULL OR ttl <= interval '0' THEN
        RAISE EXCEPTION 'token lifetime must be positive'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO tokens (token_hash, principal, expires_at)
    VALUES (_token_hash(token), issue_token.principal, now() + ttl);
    RETURN token;
END;
$$;
COMMENT ON FUNCTION issue_token(text, interval) IS
'Issues a bearer token for a principal; the token is returned once and stored only as its SHA-256';

CREATE OR REPLACE FUNCTION revoke_token(token text) RETURNS boolean
LANGUAGE sql VOLATILE STRICT
SET search_path = mcp_notes, pg_temp
AS $$
    WITH revoked AS (
        UPDATE tokens t SET revoked_at = clock_timestamp()
        WHERE t.token_hash = _token_hash(token) AND t.revoked_at IS NULL
        RETURNING 1
    )
    SELECT count(*) > 0 FROM revoked
$$;
COMMENT ON FUNCTION revoke_token(text) IS 'Revokes a bearer token at once; true when it existed and was not yet revoked';

CREATE OR REPLACE FUNCTION add_note(uri text, title text, body text DEFAULT '') RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(uri, 'note');
    id text;
BEGIN
    PERFORM _check_note_title(title);
    PERFORM _check_note_body(body);
    INSERT INTO notes (uri, title, body)
    VALUES (normalized, add_note.title, coalesce(body, ''))
    RETURNING note_id INTO id;
    RETURN id;
END;
$$;
COMMENT ON FUNCTION add_note(text, text, text) IS
'Creates a note at a file: URI; returns its id.  Title 1 to 500 characters, not blank; body at most 1 MiB (22001 beyond)';

CREATE OR REPLACE FUNCTION move_note(note_id text, new_uri text) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(new_uri, 'note');
BEGIN
    UPDATE notes n SET uri = normalized, updated_at = now()
    WHERE n.note_id = move_note.note_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'note % does not exist', move_note.note_id
            USING ERRCODE = 'no_data_found';
    END IF;
END;
$$;
COMMENT ON FUNCTION move_note(text, text) IS 'Moves a note to another file: URI';

CREATE OR REPLACE FUNCTION rotate_state_key() RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    new_id integer;
BEGIN
    UPDATE state_keys SET retired_at = now() WHERE retired_at IS NULL;
    INSERT INTO state_keys (secret) VALUES (_random_bytes(32)) RETURNING key_id INTO new_id;
    RETURN new_id;
END;
$$;
COMMENT ON FUNCTION rotate_state_key() IS
'Makes a fresh HMAC key the one that seals new states; older keys keep verifying their states until pruned';

CREATE OR REPLACE FUNCTION prune_spent_states() RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    nonces bigint;
    cancels bigint;
    budgets bigint;
    keys bigint;
    decrements bigint;
BEGIN
    -- An expired state fails its expiry check before its nonce is looked
    -- up, so forgetting the nonce cannot make it usable again.
    DELETE FROM spent_states WHERE expires_at < now() - interval '1 minute';
    GET DIAGNOSTICS nonces = ROW_COUNT;
    DELETE FROM cancelled_states WHERE expires_at < now() - interval '1 minute';
    GET DIAGNOSTICS cancels = ROW_COUNT;
    -- Budget rows that counted nothing beyond the budget say nothing the
    -- audit does not; those that did are the summary and stay.
    DELETE FROM audit_budget
    WHERE window_start < now() - interval '1 day' AND suppressed_declines = 0 AND suppressed_cancels = 0;
    GET DIAGNOSTICS budgets = ROW_COUNT;
    -- No state outlives the longest allowed lifetime (one day), so a key
    -- retired longer ago than that has nothing left to verify.
    DELETE FROM state_keys WHERE retired_at < now() - interval '1 day';
    GET DIAGNOSTICS keys = ROW_COUNT;
    -- deleted notes' title keys come off the counts here, off the request path
    decrements := _fold_title_key_decrements(2147483647);
    RETURN nonces + cancels + budgets + keys + decrements;
END;
$$;
COMMENT ON FUNCTION prune_spent_states() IS
'Deletes spent and cancelled nonces of expired states, budget rows older than a day that counted nothing suppressed and keys retired more than a day ago, and takes deleted notes'' title keys from the counts; returns the rows removed and the deletes folded';
