-- mcp_notes 1.0: notes, workspaces, principals and the notes_delete tool.
--
-- Every decision of the MCP server is made here, inside the transaction that
-- acts on it.  The gateway only moves bytes.  See docs/sql-api.md.

\echo Use "CREATE EXTENSION mcp_notes" to load this file. \quit

-------------------------------------------------------------------------------
-- Primitives in C
-------------------------------------------------------------------------------

CREATE FUNCTION normalize_uri(uri text) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_normalize_uri'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION normalize_uri(text) IS
'Canonical form of a file: URI (decoded once, dot segments removed, re-encoded); raises 22P02 when the URI has no single safe meaning';

CREATE FUNCTION uri_contains(workspace text, target text) RETURNS boolean
AS 'MODULE_PATHNAME', 'mcp_notes_uri_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_contains(text, text) IS
'True when target lies inside workspace by whole path components after normalization; false when either is malformed';

CREATE FUNCTION _uri_problem(uri text) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_uri_problem'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _uri_problem(text) IS
'Internal: NULL when the URI is well formed, else the sentence saying why not';

CREATE FUNCTION _random_bytes(n integer) RETURNS bytea
AS 'MODULE_PATHNAME', 'mcp_notes_random_bytes'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _random_bytes(integer) IS
'Internal: n bytes from the strong random source (pg_strong_random)';

CREATE FUNCTION _seal_state(claims jsonb) RETURNS text
AS 'MODULE_PATHNAME', 'mcp_notes_seal_state'
LANGUAGE C VOLATILE STRICT SECURITY DEFINER
SET search_path = mcp_notes, pg_temp;
COMMENT ON FUNCTION _seal_state(jsonb) IS
'Internal: seals claims into a requestState (HMAC-SHA256 under the active key, fresh nonce, expiry from mcp_notes.state_ttl)';

CREATE FUNCTION _open_state(state text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'mcp_notes_open_state'
LANGUAGE C STABLE STRICT SECURITY DEFINER
SET search_path = mcp_notes, pg_temp;
COMMENT ON FUNCTION _open_state(text) IS
'Internal: checks a requestState''s form, key and signature; returns its payload or {"ok": false, "reason": ...}';

-------------------------------------------------------------------------------
-- Tables
-------------------------------------------------------------------------------

CREATE TABLE workspaces (
    uri         text PRIMARY KEY
                CHECK (uri OPERATOR(pg_catalog.=) normalize_uri(uri)),
    created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE workspaces IS 'Workspaces an operator registered; uri is normalized';

CREATE TABLE grants (
    principal     text NOT NULL CHECK (principal OPERATOR(pg_catalog.<>) ''),
    workspace_uri text NOT NULL REFERENCES workspaces (uri) ON DELETE CASCADE,
    granted_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (principal, workspace_uri)
);
COMMENT ON TABLE grants IS 'Which principal may use which workspace (and every folder inside it)';

CREATE TABLE tokens (
    token_hash  bytea PRIMARY KEY,
    principal   text NOT NULL CHECK (principal OPERATOR(pg_catalog.<>) ''),
    issued_at   timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
COMMENT ON TABLE tokens IS 'Bearer tokens, stored as SHA-256 of the token text; the token itself is shown once by issue_token';

CREATE TABLE notes (
    note_id     text PRIMARY KEY DEFAULT (pg_catalog.gen_random_uuid())::text,
    uri         text NOT NULL UNIQUE
                CHECK (uri OPERATOR(pg_catalog.=) normalize_uri(uri)),
    title       text NOT NULL,
    body        text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE notes IS 'Notes; a note is in every workspace whose URI contains its URI';
-- URIs compared byte-wise make "everything under this folder" one btree
-- range, whatever the database's collation.
CREATE INDEX notes_uri_bytewise ON notes ((uri COLLATE "C"));

-- Title search is "contains, case-insensitive", which no btree can answer.
-- A GIN index over the title's trigrams (core array_ops, no contrib module
-- needed) finds the few notes whose title has every trigram of the searched
-- text without reading the workspace; strpos() then decides exactly.  See
-- _candidates() and docs/performance.md.
CREATE FUNCTION _title_trigrams(title text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t text := lower(title);
    grams text[] := '{}';
BEGIN
    FOR i IN 1 .. length(t) - 2 LOOP
        grams := grams || substr(t, i, 3);
    END LOOP;
    RETURN grams;
END;
$$;
COMMENT ON FUNCTION _title_trigrams(text) IS
'Internal: the three-character substrings of lower(title), for the title index (a title that contains a text has all of its trigrams)';
-- fastupdate = off: a pending list would be scanned linearly by every search
-- until the next vacuum; notes are added far less often than searched.
CREATE INDEX notes_title_trigrams ON notes USING gin (_title_trigrams(title)) WITH (fastupdate = off);

CREATE TABLE state_keys (
    key_id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    secret      bytea NOT NULL CHECK (length(secret) OPERATOR(pg_catalog.=) 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    retired_at  timestamptz
);
CREATE UNIQUE INDEX state_keys_one_active ON state_keys ((true)) WHERE retired_at IS NULL;
COMMENT ON TABLE state_keys IS 'HMAC keys for requestState; one active, retired ones verify until pruned. Readable by the extension owner only';

CREATE TABLE spent_states (
    nonce       text PRIMARY KEY,
    expires_at  timestamptz NOT NULL,
    spent_at    timestamptz NOT NULL DEFAULT now(),
    outcome     text NOT NULL CHECK (outcome IN ('accept', 'decline', 'stale'))
);
CREATE INDEX spent_states_expires_at ON spent_states (expires_at);
COMMENT ON TABLE spent_states IS 'One row per requestState nonce that has been used up; prunable once expired';

CREATE TABLE delete_audit (
    audit_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    principal     text NOT NULL,
    workspace_uri text NOT NULL,
    note_id       text,
    note_uri      text,
    title         text,
    outcome       text NOT NULL CHECK (outcome IN ('accept', 'decline', 'cancel', 'stale')),
    request_id    text,
    gateway_id    text,
    client_info   jsonb
);
CREATE INDEX delete_audit_at ON delete_audit (at);
COMMENT ON TABLE delete_audit IS
'Append-only record of every notes_delete answer: accept (deleted), decline, cancel, stale (confirmed, but the note was gone, moved or no longer granted)';
COMMENT ON COLUMN delete_audit.client_info IS 'Self-reported by the client; diagnostics only, never identity';

-- Rows are never changed.  Deleting old rows (retention) is for the owner,
-- who alone holds DELETE on the table.
CREATE FUNCTION _audit_is_append_only() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION 'delete_audit is append-only'
        USING ERRCODE = 'insufficient_privilege',
              DETAIL = 'Audit rows cannot be updated.';
END;
$$;
COMMENT ON FUNCTION _audit_is_append_only() IS 'Internal: trigger that forbids UPDATE on delete_audit';

CREATE TRIGGER delete_audit_append_only
    BEFORE UPDATE ON delete_audit
    FOR EACH STATEMENT EXECUTE FUNCTION _audit_is_append_only();

-- pg_dump keeps operator data; keys and nonces are not dumped on purpose: a
-- restored database gets a fresh key from this script, so states issued
-- before the dump simply stop verifying.
SELECT pg_catalog.pg_extension_config_dump('workspaces', '');
SELECT pg_catalog.pg_extension_config_dump('grants', '');
SELECT pg_catalog.pg_extension_config_dump('tokens', '');
SELECT pg_catalog.pg_extension_config_dump('notes', '');
SELECT pg_catalog.pg_extension_config_dump('delete_audit', '');
SELECT pg_catalog.pg_extension_config_dump(pg_catalog.pg_get_serial_sequence('mcp_notes.delete_audit', 'audit_id'), '');

-------------------------------------------------------------------------------
-- Operator API
-------------------------------------------------------------------------------

CREATE FUNCTION _b64url(data bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT translate(encode(data, 'base64'), E'+/=\n', '-_') $$;
COMMENT ON FUNCTION _b64url(bytea) IS 'Internal: unpadded base64url';

CREATE FUNCTION _token_hash(token text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT sha256(convert_to(token, 'UTF8')) $$;
COMMENT ON FUNCTION _token_hash(text) IS 'Internal: what tokens.token_hash stores for a token';

CREATE FUNCTION _check_principal(principal text) RETURNS void
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

CREATE FUNCTION _normalize_or_raise(uri text, what text) RETURNS text
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

CREATE FUNCTION add_workspace(uri text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
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

CREATE FUNCTION grant_workspace(principal text, workspace_uri text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
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

CREATE FUNCTION revoke_workspace(principal text, workspace_uri text) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
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

CREATE FUNCTION issue_token(principal text, ttl interval DEFAULT '30 days') RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
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

CREATE FUNCTION revoke_token(token text) RETURNS boolean
LANGUAGE sql VOLATILE STRICT SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    WITH revoked AS (
        UPDATE tokens t SET revoked_at = now()
        WHERE t.token_hash = _token_hash(token) AND t.revoked_at IS NULL
        RETURNING 1
    )
    SELECT count(*) > 0 FROM revoked
$$;
COMMENT ON FUNCTION revoke_token(text) IS 'Revokes a bearer token at once; true when it existed and was not yet revoked';

CREATE FUNCTION add_note(uri text, title text, body text DEFAULT '') RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(uri, 'note');
    id text;
BEGIN
    IF title IS NULL OR btrim(title) = '' THEN
        RAISE EXCEPTION 'note title must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO notes (uri, title, body)
    VALUES (normalized, add_note.title, coalesce(body, ''))
    RETURNING note_id INTO id;
    RETURN id;
END;
$$;
COMMENT ON FUNCTION add_note(text, text, text) IS 'Creates a note at a file: URI; returns its id';

CREATE FUNCTION move_note(note_id text, new_uri text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
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

CREATE FUNCTION rotate_state_key() RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
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

CREATE FUNCTION prune_spent_states() RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    nonces bigint;
    keys bigint;
BEGIN
    -- An expired state fails its expiry check before its nonce is looked
    -- up, so forgetting the nonce cannot make it usable again.
    DELETE FROM spent_states WHERE expires_at < now() - interval '1 minute';
    GET DIAGNOSTICS nonces = ROW_COUNT;
    -- No state outlives the longest allowed lifetime (one day), so a key
    -- retired longer ago than that has nothing left to verify.
    DELETE FROM state_keys WHERE retired_at < now() - interval '1 day';
    GET DIAGNOSTICS keys = ROW_COUNT;
    RETURN nonces + keys;
END;
$$;
COMMENT ON FUNCTION prune_spent_states() IS
'Deletes spent nonces of expired states and keys retired more than a day ago; returns the rows removed';

-- The first key, so the extension works as soon as it is created.
SELECT rotate_state_key();

-------------------------------------------------------------------------------
-- The notes_delete tool
-------------------------------------------------------------------------------

CREATE FUNCTION tool_descriptors() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
SELECT jsonb_build_array(jsonb_build_object(
    'name', 'notes_delete',
    'title', 'Delete a note',
    'description', 'Deletes one note inside a workspace you are granted. Never deletes on the first call: '
                   'it asks the user, through a form, to pick the note among those whose title contains '
                   'the given text and to confirm. Declining is final; cancelling can be retried.',
    'inputSchema', jsonb_build_object(
        'type', 'object',
        'properties', jsonb_build_object(
            'workspaceUri', jsonb_build_object(
                'type', 'string', 'format', 'uri', 'maxLength', 4096,
                'description', 'file: URI of the workspace (or a folder inside it) to search, e.g. file:///work/notes'),
            'title', jsonb_build_object(
                'type', 'string', 'minLength', 1, 'maxLength', 200,
                'description', 'Text the note''s title contains (case-insensitive)')),
        'required', jsonb_build_array('workspaceUri', 'title'),
        'additionalProperties', false),
    'outputSchema', jsonb_build_object(
        'type', 'object',
        'properties', jsonb_build_object(
            'deleted', jsonb_build_object('type', 'boolean'),
            'noteId', jsonb_build_object('type', 'string'),
            'cancelled', jsonb_build_object('type', 'boolean')),
        'required', jsonb_build_array('deleted')),
    'annotations', jsonb_build_object(
        'readOnlyHint', false,
        'destructiveHint', true,
        'idempotentHint', false,
        'openWorldHint', false)))
$$;
COMMENT ON FUNCTION tool_descriptors() IS 'The tools/list descriptors, in a fixed order; static for an extension version';

CREATE FUNCTION _rpc_error(code integer, message text, data jsonb DEFAULT NULL, http_status integer DEFAULT 200)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object(
        'error', jsonb_strip_nulls(jsonb_build_object('code', code, 'message', message, 'data', data)),
        'httpStatus', http_status)
$$;
COMMENT ON FUNCTION _rpc_error(integer, text, jsonb, integer) IS 'Internal: a JSON-RPC error outcome for the gateway';

CREATE FUNCTION _invalid_params(reason text, message text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT _rpc_error(-32602, message, jsonb_build_object('reason', reason)) $$;
COMMENT ON FUNCTION _invalid_params(text, text) IS 'Internal: a -32602 outcome with a machine-readable reason';

CREATE FUNCTION _tool_result(message text, structured jsonb DEFAULT NULL, is_error boolean DEFAULT false)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('result', jsonb_strip_nulls(jsonb_build_object(
        'resultType', 'complete',
        'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', message)),
        'structuredContent', structured,
        'isError', is_error)))
$$;
COMMENT ON FUNCTION _tool_result(text, jsonb, boolean) IS 'Internal: a complete tools/call result (isError for tool failures)';

-- {"elicitation": {}} and {"elicitation": {"form": {}}} mean form mode;
-- {"elicitation": {"url": {}}} alone does not.
CREATE FUNCTION _can_elicit_form(capabilities jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(
        jsonb_typeof(capabilities) = 'object'
        AND jsonb_typeof(capabilities -> 'elicitation') = 'object'
        AND (capabilities -> 'elicitation' = '{}'::jsonb OR capabilities -> 'elicitation' ? 'form'),
        false)
$$;
COMMENT ON FUNCTION _can_elicit_form(jsonb) IS 'Internal: does this request''s clientCapabilities allow a form elicitation';

CREATE FUNCTION _needs_form_capability() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _rpc_error(-32021,
        'notes_delete needs the client to support form elicitation to ask for confirmation',
        '{"requiredCapabilities": {"elicitation": {"form": {}}}}', 400)
$$;
COMMENT ON FUNCTION _needs_form_capability() IS 'Internal: the -32021 outcome for a request that cannot show the confirmation form';

-- Which trigrams of a searched text to look up in notes_title_trigrams.  A
-- frequent trigram ("the", " #0") costs a long posting list and narrows
-- little: with a million notes, looking up all 23 trigrams of a title takes
-- ~9 ms, its three rarest ~0.5 ms.  So on a large table the keys are the
-- trigrams rarer than 1% by the index's statistics (most_common_elems, a
-- sorted array: width_bucket() is a binary search), at least the three
-- rarest, at most eight; the rest are checked by strpos() on the few rows
-- found.  Small tables, texts with few trigrams and tables never analyzed
-- use every trigram.  Any subset of the text's trigrams is a necessary
-- condition, so the choice changes speed, never the answer.
CREATE FUNCTION _title_search_keys(title_text text) RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    grams text[] := ARRAY(SELECT DISTINCT g FROM unnest(_title_trigrams(title_text)) AS g);
    table_rows real;
    elems text[];
    freqs real[];
    ranked text[];
    rare text[];
BEGIN
    IF cardinality(grams) <= 3 THEN
        RETURN grams;
    END IF;
    SELECT c.reltuples INTO table_rows FROM pg_class c WHERE c.oid = 'mcp_notes.notes'::regclass;
    IF table_rows < 100000 THEN
        RETURN grams;
    END IF;
    -- pg_statistic slot of kind 4 (STATISTIC_KIND_MCELEM) of the index expression
    SELECT CASE 4 WHEN st.stakind1 THEN st.stavalues1 WHEN st.stakind2 THEN st.stavalues2
                  WHEN st.stakind3 THEN st.stavalues3 WHEN st.stakind4 THEN st.stavalues4
                  WHEN st.stakind5 THEN st.stavalues5 END::text::text[],
           CASE 4 WHEN st.stakind1 THEN st.stanumbers1 WHEN st.stakind2 THEN st.stanumbers2
                  WHEN st.stakind3 THEN st.stanumbers3 WHEN st.stakind4 THEN st.stanumbers4
                  WHEN st.stakind5 THEN st.stanumbers5 END
      INTO elems, freqs
    FROM pg_statistic st
    WHERE st.starelid = 'mcp_notes.notes_title_trigrams'::regclass AND st.staattnum = 1
      AND NOT st.stainherit;
    IF elems IS NULL THEN
        RETURN grams;
    END IF;
    SELECT array_agg(x.g ORDER BY x.f, x.g), array_agg(x.g ORDER BY x.f, x.g) FILTER (WHERE x.f < 0.01)
      INTO ranked, rare
    FROM (SELECT u.g, CASE WHEN elems[u.i] = u.g THEN freqs[u.i] ELSE 0 END AS f
          FROM (SELECT g, width_bucket(g, elems) AS i FROM unnest(grams) AS g) u) x;
    IF cardinality(rare) >= 3 THEN
        RETURN rare[1:8];
    END IF;
    RETURN ranked[1:3];
END;
$$;
COMMENT ON FUNCTION _title_search_keys(text) IS
'Internal: the trigrams of a searched title to look up in notes_title_trigrams (the rarest, by statistics, on a large table)';

-- Candidate notes: inside the workspace by whole components, title contains
-- the text (uri_contains() and strpos() decide; the indexes only narrow).
-- Two ways to find them, chosen by the size of the workspace:
--  - a small workspace (the planner expects fewer than small_workspace notes
--    in its range) is read through its range of notes_uri_bytewise: cost
--    bounded by its size, whatever the title;
--  - a larger one is searched through notes_title_trigrams: cost grows with
--    the notes (anywhere) that have the text's rarest trigrams, not with the
--    workspace, and the serializable transaction reads (and predicate-locks)
--    only those rows instead of the whole workspace.  A text shorter than
--    three characters has no trigram and always takes the range.
-- The size comes from the planner's statistics (EXPLAIN, about 40 us), not
-- from counting rows, which would predicate-lock them.  With stale
-- statistics a grown workspace may take the range: slower, still right.
-- Each search is a MATERIALIZED CTE, planned for all its rows: a LIMIT in
-- the same query level would tempt the planner into "scan in some order
-- until max_rows match", a full scan when few match.  Which max_rows rows
-- come back is unspecified: the caller only asks whether there are more
-- than it can offer, and sorts what it keeps.
CREATE FUNCTION _candidates(workspace text, title_text text, max_rows integer) RETURNS SETOF notes
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    small_workspace constant integer := 2000;
    prefix text := CASE WHEN right(workspace, 1) = '/' THEN workspace ELSE workspace || '/' END;
    keys text[];
    plan json;
    expected bigint := 0;
BEGIN
    IF length(lower(title_text)) >= 3 THEN
        -- EXPLAIN is why this function is VOLATILE
        EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM mcp_notes.notes n '
                'WHERE n.uri COLLATE "C" >= $1 AND n.uri COLLATE "C" < $2'
            INTO plan USING prefix, left(prefix, -1) || '0';
        expected := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
    END IF;
    IF expected < small_workspace THEN
        RETURN QUERY
        WITH found AS MATERIALIZED (
            SELECT n.*
            FROM notes n
            WHERE (n.uri = workspace
                   OR (n.uri COLLATE "C" >= prefix AND n.uri COLLATE "C" < left(prefix, -1) || '0'))
              AND uri_contains(workspace, n.uri)
              AND strpos(lower(n.title), lower(title_text)) > 0)
        SELECT * FROM found LIMIT max_rows;
    ELSE
        keys := _title_search_keys(title_text);
        RETURN QUERY
        WITH found AS MATERIALIZED (
            SELECT n.*
            FROM notes n
            WHERE _title_trigrams(n.title) @> keys
              AND uri_contains(workspace, n.uri)
              AND strpos(lower(n.title), lower(title_text)) > 0)
        SELECT * FROM found LIMIT max_rows;
    END IF;
END;
$$;
COMMENT ON FUNCTION _candidates(text, text, integer) IS
'Internal: up to max_rows notes inside a workspace whose title contains the text (through the title trigram index unless the workspace is small)';

CREATE FUNCTION _delete_form(workspace text, candidate_ids text[]) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_build_object('delete_choice', jsonb_build_object(
        'method', 'elicitation/create',
        'params', jsonb_build_object(
            'mode', 'form',
            'message', format('Delete a note from %s? Pick the note to delete and confirm. This cannot be undone.', workspace),
            'requestedSchema', jsonb_build_object(
                'type', 'object',
                'properties', jsonb_build_object(
                    'note_id', jsonb_build_object(
                        'type', 'string',
                        'title', 'Note to delete',
                        'oneOf', (SELECT jsonb_agg(jsonb_build_object(
                                      'const', n.note_id,
                                      'title', format('%s — %s (updated %s)', n.title, n.uri,
                                                      to_char(n.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')))
                                      ORDER BY n.uri, n.note_id)
                                  FROM notes n WHERE n.note_id = ANY (candidate_ids))),
                    'confirm', jsonb_build_object(
                        'type', 'boolean',
                        'title', 'Yes, delete this note permanently',
                        'default', false)),
                'required', jsonb_build_array('note_id', 'confirm')))))
$$;
COMMENT ON FUNCTION _delete_form(text, text[]) IS 'Internal: the delete_choice form for the given candidates';

CREATE FUNCTION _args_digest(workspace text, title text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT encode(sha256(convert_to(jsonb_build_object('workspaceUri', workspace, 'title', title)::text, 'UTF8')), 'hex')
$$;
COMMENT ON FUNCTION _args_digest(text, text) IS 'Internal: digest of the normalized notes_delete arguments that a state is bound to';

CREATE FUNCTION _audit(principal text, workspace text, note notes, outcome text,
                       request_id text, gateway_id text, client_info jsonb) RETURNS void
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    INSERT INTO delete_audit (principal, workspace_uri, note_id, note_uri, title, outcome,
                              request_id, gateway_id, client_info)
    VALUES (principal, workspace, (note).note_id, (note).uri, (note).title, outcome,
            left(request_id, 200), left(gateway_id, 200),
            CASE WHEN jsonb_typeof(client_info) = 'object' THEN client_info END)
$$;
COMMENT ON FUNCTION _audit(text, text, notes, text, text, text, jsonb) IS 'Internal: appends one row to delete_audit';

CREATE FUNCTION _notes_delete(principal text, arguments jsonb, input_responses jsonb,
                              request_state text, client_capabilities jsonb,
                              request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    max_candidates constant integer := 25;
    extra_keys text;
    workspace text;
    title_text text;
    problem text;
    digest text;
    found_ids text[];
    state jsonb;
    claims jsonb;
    response jsonb;
    action text;
    content jsonb;
    chosen_id text;
    note notes;
    claimed boolean;
BEGIN
    -- Arguments, as the inputSchema says.
    IF arguments IS NULL OR jsonb_typeof(arguments) <> 'object' THEN
        RETURN _invalid_params('invalid_arguments',
            'notes_delete: arguments must be an object with workspaceUri and title');
    END IF;
    SELECT string_agg(k, ', ' ORDER BY k) INTO extra_keys
    FROM jsonb_object_keys(arguments) AS k WHERE k NOT IN ('workspaceUri', 'title');
    IF extra_keys IS NOT NULL THEN
        RETURN _invalid_params('invalid_arguments',
            format('notes_delete: unknown argument(s): %s', extra_keys));
    END IF;
    IF jsonb_typeof(arguments -> 'workspaceUri') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_arguments', 'notes_delete: workspaceUri must be a string');
    END IF;
    IF jsonb_typeof(arguments -> 'title') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_arguments', 'notes_delete: title must be a string');
    END IF;
    title_text := arguments ->> 'title';
    IF length(title_text) NOT BETWEEN 1 AND 200 OR btrim(title_text) = '' THEN
        RETURN _invalid_params('invalid_arguments',
            'notes_delete: title must be 1 to 200 characters and not blank');
    END IF;
    problem := _uri_problem(arguments ->> 'workspaceUri');
    IF problem IS NOT NULL THEN
        RETURN _tool_result(format('workspaceUri is not a usable file: URI. %s', problem), NULL, true);
    END IF;
    workspace := normalize_uri(arguments ->> 'workspaceUri');
    digest := _args_digest(workspace, title_text);

    -- Step 1: no state yet, so find the candidates and ask.
    IF request_state IS NULL THEN
        IF NOT _can_elicit_form(client_capabilities) THEN
            RETURN _needs_form_capability();
        END IF;
        IF NOT EXISTS (SELECT 1 FROM grants g
                       WHERE g.principal = _notes_delete.principal
                         AND uri_contains(g.workspace_uri, workspace)) THEN
            RETURN _tool_result(format('Workspace %s is not granted to you.', workspace), NULL, true);
        END IF;
        SELECT array_agg(c.note_id ORDER BY c.uri, c.note_id) INTO found_ids
        FROM _candidates(workspace, title_text, max_candidates + 1) c;
        IF found_ids IS NULL THEN
            RETURN _tool_result(format('No note in %s has a title containing "%s".', workspace, title_text),
                                NULL, true);
        END IF;
        IF cardinality(found_ids) > max_candidates THEN
            RETURN _tool_result(format('More than %s notes in %s have a title containing "%s". Use a longer title or a narrower workspace.',
                                       max_candidates, workspace, title_text), NULL, true);
        END IF;
        RETURN jsonb_build_object('result', jsonb_build_object(
            'resultType', 'input_required',
            'inputRequests', _delete_form(workspace, found_ids),
            'requestState', _seal_state(jsonb_build_object(
                'principal', principal,
                'method', 'tools/call',
                'tool', 'notes_delete',
                'args', digest,
                'workspace', workspace,
                'candidates', to_jsonb(found_ids),
                'phase', 'confirm_delete'))));
    END IF;

    -- Step 2: the state must be ours, fresh, for this caller and these
    -- arguments, and unused.  Each failure says which check it failed.
    state := _open_state(request_state);
    IF NOT (state ->> 'ok')::boolean THEN
        RETURN _invalid_params(state ->> 'reason', 'invalid requestState: ' || (state ->> 'message'));
    END IF;
    claims := state -> 'claims';
    IF (state ->> 'exp')::bigint <= extract(epoch FROM clock_timestamp()) THEN
        RETURN _invalid_params('state_expired',
            'invalid requestState: it has expired; call notes_delete again to get a new confirmation form');
    END IF;
    IF claims ->> 'principal' IS DISTINCT FROM principal THEN
        RETURN _invalid_params('state_wrong_principal', 'invalid requestState: it was issued to another principal');
    END IF;
    IF claims ->> 'method' IS DISTINCT FROM 'tools/call' OR claims ->> 'tool' IS DISTINCT FROM 'notes_delete' THEN
        RETURN _invalid_params('state_wrong_method', 'invalid requestState: it was issued for another method or tool');
    END IF;
    IF claims ->> 'args' IS DISTINCT FROM digest THEN
        RETURN _invalid_params('state_arguments_changed',
            'invalid requestState: the arguments differ from the call it was issued for');
    END IF;
    IF claims ->> 'phase' IS DISTINCT FROM 'confirm_delete' THEN
        RETURN _invalid_params('state_wrong_phase', 'invalid requestState: it belongs to another step of the tool');
    END IF;

    -- Every path below may write, so the transaction must be serializable:
    -- that is what makes "delete at most once" hold across gateways.
    IF current_setting('transaction_isolation') <> 'serializable' THEN
        RAISE EXCEPTION 'notes_delete must run in a SERIALIZABLE transaction'
            USING ERRCODE = 'invalid_transaction_state',
                  DETAIL = format('The current isolation level is %s.', current_setting('transaction_isolation')),
                  HINT = 'Use BEGIN ISOLATION LEVEL SERIALIZABLE, or set default_transaction_isolation for the gateway''s connections.';
    END IF;
    IF EXISTS (SELECT 1 FROM spent_states s WHERE s.nonce = state ->> 'nonce') THEN
        RETURN _invalid_params('state_already_used',
            'invalid requestState: it has already been used; call notes_delete again to start over');
    END IF;

    -- The answer.
    IF input_responses IS NOT NULL AND jsonb_typeof(input_responses) <> 'object' THEN
        RETURN _invalid_params('invalid_input_responses', 'inputResponses must be an object');
    END IF;
    response := input_responses -> 'delete_choice';
    IF response IS NULL THEN
        -- Asked but not answered: ask again with the same state.
        IF NOT _can_elicit_form(client_capabilities) THEN
            RETURN _needs_form_capability();
        END IF;
        RETURN jsonb_build_object('result', jsonb_build_object(
            'resultType', 'input_required',
            'inputRequests', _delete_form(workspace,
                                          ARRAY(SELECT jsonb_array_elements_text(claims -> 'candidates'))),
            'requestState', request_state));
    END IF;
    IF jsonb_typeof(response) <> 'object' OR jsonb_typeof(response -> 'action') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_input_response',
            'inputResponses.delete_choice must be an elicitation result object with an action');
    END IF;
    action := response ->> 'action';

    IF action = 'cancel' THEN
        PERFORM _audit(principal, workspace, NULL, 'cancel', request_id, gateway_id, client_info);
        RETURN _tool_result('Cancelled. Nothing was deleted; the confirmation form can still be answered until it expires.',
                            '{"deleted": false, "cancelled": true}');
    END IF;

    IF action = 'decline' THEN
        INSERT INTO spent_states (nonce, expires_at, outcome)
        VALUES (state ->> 'nonce', to_timestamp((state ->> 'exp')::bigint), 'decline')
        ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS claimed = ROW_COUNT;
        IF NOT claimed THEN
            RETURN _invalid_params('state_already_used', 'invalid requestState: it has already been used');
        END IF;
        PERFORM _audit(principal, workspace, NULL, 'decline', request_id, gateway_id, client_info);
        RETURN _tool_result('Declined. Nothing was deleted.', '{"deleted": false}');
    END IF;

    IF action <> 'accept' THEN
        RETURN _invalid_params('invalid_input_response',
            format('inputResponses.delete_choice.action must be accept, decline or cancel, not "%s"', left(action, 40)));
    END IF;

    -- Accept: missing content is never consent.
    content := response -> 'content';
    IF content IS NULL OR jsonb_typeof(content) <> 'object' THEN
        RETURN _invalid_params('invalid_input_response', 'an accepted delete_choice must carry the form content');
    END IF;
    IF content -> 'confirm' IS DISTINCT FROM 'true'::jsonb THEN
        RETURN _invalid_params('not_confirmed', 'delete_choice.confirm must be exactly true to delete');
    END IF;
    IF jsonb_typeof(content -> 'note_id') IS DISTINCT FROM 'string' THEN
        RETURN _invalid_params('invalid_input_response', 'delete_choice.note_id must be a string');
    END IF;
    chosen_id := content ->> 'note_id';
    IF NOT (claims -> 'candidates') ? chosen_id THEN
        RETURN _invalid_params('foreign_note', 'delete_choice.note_id is not one of the notes offered in the form');
    END IF;

    -- Spend the nonce first: of two transactions racing on one state, the
    -- second blocks here and then fails to serialize (the gateway retries it
    -- and it finds the nonce spent).
    INSERT INTO spent_states (nonce, expires_at, outcome)
    VALUES (state ->> 'nonce', to_timestamp((state ->> 'exp')::bigint), 'accept')
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS claimed = ROW_COUNT;
    IF NOT claimed THEN
        RETURN _invalid_params('state_already_used', 'invalid requestState: it has already been used');
    END IF;

    -- Check again against the live rows, locking them, so that a revoke or
    -- a move committed by anyone before us wins, and one after us waits.
    PERFORM 1 FROM grants g
    WHERE g.principal = _notes_delete.principal AND uri_contains(g.workspace_uri, workspace)
    FOR KEY SHARE;
    IF NOT FOUND THEN
        UPDATE spent_states SET outcome = 'stale' WHERE nonce = state ->> 'nonce';
        PERFORM _audit(principal, workspace, NULL, 'stale', request_id, gateway_id, client_info);
        RETURN _tool_result(format('Nothing was deleted: workspace %s is no longer granted to you.', workspace),
                            NULL, true);
    END IF;
    SELECT n.* INTO note FROM notes n WHERE n.note_id = chosen_id FOR UPDATE;
    IF NOT FOUND OR NOT uri_contains(workspace, note.uri) THEN
        note.note_id := chosen_id;    -- a moved note keeps its new uri in the audit
        UPDATE spent_states SET outcome = 'stale' WHERE nonce = state ->> 'nonce';
        PERFORM _audit(principal, workspace, note, 'stale', request_id, gateway_id, client_info);
        RETURN _tool_result(format('Nothing was deleted: the chosen note no longer exists in %s.', workspace),
                            NULL, true);
    END IF;

    DELETE FROM notes n WHERE n.note_id = note.note_id;
    PERFORM _audit(principal, workspace, note, 'accept', request_id, gateway_id, client_info);
    RETURN _tool_result(format('Deleted the note "%s" (%s).', note.title, note.uri),
                        jsonb_build_object('deleted', true, 'noteId', note.note_id));
END;
$$;
COMMENT ON FUNCTION _notes_delete(text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Internal: the notes_delete tool for an authenticated principal (step 1 asks, step 2 acts on the answer)';

CREATE FUNCTION _call_tool(principal text, tool text, arguments jsonb, input_responses jsonb,
                           request_state text, client_capabilities jsonb,
                           request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF tool IS NULL THEN
        RETURN _invalid_params('unknown_tool', 'params.name must name a tool');
    END IF;
    IF tool = 'notes_delete' THEN
        RETURN _notes_delete(principal, arguments, input_responses, request_state,
                             client_capabilities, request_id, client_info, gateway_id);
    END IF;
    RETURN _invalid_params('unknown_tool', format('unknown tool: %s', left(tool, 100)));
END;
$$;
COMMENT ON FUNCTION _call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Internal: dispatches a tools/call for an authenticated principal';

-------------------------------------------------------------------------------
-- Gateway API
-------------------------------------------------------------------------------

CREATE FUNCTION authenticate(token text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT t.principal FROM tokens t
    WHERE t.token_hash = _token_hash(token)
      AND t.revoked_at IS NULL
      AND t.expires_at > now()
$$;
COMMENT ON FUNCTION authenticate(text) IS 'The principal a bearer token proves, or NULL when it is unknown, expired or revoked';

CREATE FUNCTION call_tool(token text, tool text, arguments jsonb, input_responses jsonb,
                          request_state text, client_capabilities jsonb,
                          request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    principal text := authenticate(token);
BEGIN
    IF principal IS NULL THEN
        RETURN _rpc_error(-32001, 'missing, invalid, expired or revoked bearer token', NULL, 401);
    END IF;
    RETURN _call_tool(principal, tool, arguments, input_responses, request_state,
                      client_capabilities, request_id, client_info, gateway_id);
END;
$$;
COMMENT ON FUNCTION call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Runs one MCP tools/call for the principal the bearer token proves; returns {"result": ...} or {"error": ..., "httpStatus": ...}';

CREATE FUNCTION call_tool_as(principal text, tool text, arguments jsonb, input_responses jsonb,
                             request_state text, client_capabilities jsonb,
                             request_id text, client_info jsonb, gateway_id text)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM _check_principal(principal);
    RETURN _call_tool(principal, tool, arguments, input_responses, request_state,
                      client_capabilities, request_id, client_info, gateway_id);
END;
$$;
COMMENT ON FUNCTION call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) IS
'Development only: call_tool for a principal named by the caller. Executable only by roles given grant_dev_gateway';

-------------------------------------------------------------------------------
-- Privileges
-------------------------------------------------------------------------------


CREATE FUNCTION grant_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA mcp_notes TO %s', role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.authenticate(text), mcp_notes.tool_descriptors(), '
                   'mcp_notes.call_tool(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) TO %s', role);
    EXECUTE format('ALTER ROLE %s SET default_transaction_isolation = %L', role, 'serializable');
END;
$$;
COMMENT ON FUNCTION grant_gateway(regrole) IS
'Lets a role act as a gateway: USAGE on the schema and EXECUTE on authenticate, tool_descriptors and call_tool, nothing else';

CREATE FUNCTION grant_dev_gateway(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    PERFORM grant_gateway(role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION mcp_notes.call_tool_as(text, text, jsonb, jsonb, text, jsonb, text, jsonb, text) TO %s', role);
END;
$$;
COMMENT ON FUNCTION grant_dev_gateway(regrole) IS
'grant_gateway plus call_tool_as, for mcp-notes-gateway --insecure-dev-principal on a developer machine';

-- Last, so that it covers every function above: nothing is executable by
-- PUBLIC but the two pure URI functions.
REVOKE ALL ON ALL TABLES IN SCHEMA mcp_notes FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA mcp_notes FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA mcp_notes FROM PUBLIC;
GRANT EXECUTE ON FUNCTION normalize_uri(text), uri_contains(text, text) TO PUBLIC;
