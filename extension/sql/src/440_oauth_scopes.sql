-- OAuth: scopes.  A scope never replaces a workspace grant: a JWT acts only
-- where its principal is granted AND only as far as its scopes reach.  The
-- scopes (gateway/src/prm.h lists the same in the metadata):
--   notes.read    every method (discover, list, read, search, resources,
--                 prompts, notes_delete's first step)
--   notes.write   notes_create, notes_update
--   notes.delete  notes_delete's answer (the step that can delete); in the
--                 2025 era (a session request) both steps, since the
--                 client's one tools/call is the whole delete: the 403
--                 comes before the stream, where the client can step up
-- Operator tokens carry every scope.

-- Every scope a request needs, for the one challenge that names them all.
-- A tool this list does not know is taken to change notes.
CREATE OR REPLACE FUNCTION _oauth_required_scopes(request jsonb) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RETURN CASE
        WHEN request ->> 'method' IS DISTINCT FROM 'tools/call' THEN '{notes.read}'
        WHEN request -> 'params' ->> 'name' = 'notes_delete'
            THEN CASE WHEN request -> 'params' ? 'requestState' OR request -> 'params' ? 'inputResponses'
                           OR request ? 'session'  -- the 2025 era: one tools/call of the client's, the whole delete
                      THEN '{notes.read,notes.delete}' ELSE '{notes.read}' END
        WHEN request -> 'params' ->> 'name' IN ('notes_read', 'notes_list', 'notes_search') THEN '{notes.read}'
        ELSE '{notes.read,notes.write}' END::text[];
END;
$$;
COMMENT ON FUNCTION _oauth_required_scopes(jsonb) IS
'Internal: the scopes a request needs: notes.read always, notes.write for notes_create, notes_update and unknown tools, notes.delete for notes_delete with an answer or in a 2025-era session';

-- Before anything else of the request runs (so before any write): a JWT
-- without every scope the request needs is refused, 403 insufficient_scope
-- naming all of them (RFC 6750 3.1; MCP asks for one complete challenge).
CREATE OR REPLACE FUNCTION _oauth_scope_refusal(auth jsonb, request jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    needed text[];
    missing text[];
BEGIN
    IF auth ->> 'via' IS DISTINCT FROM 'oauth' THEN
        RETURN NULL;
    END IF;
    needed := _oauth_required_scopes(request);
    SELECT coalesce(array_agg(n ORDER BY n), '{}') INTO missing
    FROM unnest(needed) n
    WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(auth -> 'scope') s WHERE s = n);
    IF cardinality(missing) = 0 THEN
        RETURN NULL;
    END IF;
    RETURN _error('insufficient_scope',
                  format('the access token lacks the scope %s; this request needs %s',
                         array_to_string(missing, ' '), array_to_string(needed, ' ')),
                  jsonb_build_object('reason', 'insufficient_scope', 'scopes', to_jsonb(needed)));
END;
$$;
COMMENT ON FUNCTION _oauth_scope_refusal(jsonb, jsonb) IS
'Internal: NULL when the token (auth from _authenticate) may make the request; else the insufficient_scope outcome naming every scope it needs (data.scopes). Operator tokens have every scope';

-- The request a handler sees: the token that acted (auth, from
-- _authenticate) in place of anything the gateway sent under that name.
CREATE OR REPLACE FUNCTION _with_auth(request jsonb, auth jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    RETURN CASE WHEN jsonb_typeof(request) = 'object'
                THEN (request - 'auth') || jsonb_strip_nulls(jsonb_build_object('auth', auth))
                ELSE request END;
END;
$$;
COMMENT ON FUNCTION _with_auth(jsonb, jsonb) IS
'Internal: the request object with member auth set to the acting token''s facts (removed when auth is NULL): never what the gateway sent';

