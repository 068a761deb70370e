-------------------------------------------------------------------------------
-- Sealed tokens: the one opener
-------------------------------------------------------------------------------

-- Every sealed token (docs/state-format.md) is opened here and nowhere
-- else: the seal (form, key, MAC: _open_state), then what every token
-- must satisfy whatever it is for -- it was sealed for this purpose, it
-- has not expired on the database clock, it was issued to this principal.
-- The caller checks the claims only it knows (arguments, phase, keyset
-- position) and turns a failure into its own answer.
--
-- Purposes: notes_delete (the confirmation of notes_delete), cursor
-- (notes_list and notes_search pages), resources_cursor (resources/list
-- pages), conformance (the conformance fixture's tools).  Extension 1.3
-- sealed no purpose: its cursors named theirs in the claims and expired
-- at claims.until (the seal's own exp was ignored), its delete states had
-- none and expired at exp.  Such tokens are read the same way here, so a
-- state or cursor issued before an upgrade keeps working until it would
-- have expired then.
--
-- VOLATILE for clock_timestamp(): expiry is judged at the moment of the
-- call.  Returns the opened payload with "ok": true, or {"ok": false,
-- "reason", "message"}.
CREATE OR REPLACE FUNCTION _open_sealed(token text, purpose text, principal text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    opened jsonb := _open_state(token);
    claims jsonb := opened -> 'claims';
    sealed_for text;
    expires numeric;
BEGIN
    IF NOT coalesce((opened ->> 'ok')::boolean, false) THEN
        RETURN coalesce(opened, '{"ok": false, "reason": "state_malformed", "message": "it is not a sealed token"}');
    END IF;
    IF opened ? 'purpose' THEN
        sealed_for := opened ->> 'purpose';
        expires := (opened ->> 'exp')::numeric;
    ELSE
        sealed_for := coalesce(claims ->> 'purpose', 'notes_delete');
        expires := CASE WHEN sealed_for NOT IN ('cursor', 'resources_cursor') THEN (opened ->> 'exp')::numeric
                        WHEN jsonb_typeof(claims -> 'until') = 'number' THEN (claims ->> 'until')::numeric
                        ELSE 0 END;
    END IF;
    RETURN CASE
        WHEN sealed_for IS DISTINCT FROM purpose THEN
            '{"ok": false, "reason": "state_wrong_purpose", "message": "it was issued for another purpose"}'
        WHEN expires <= extract(epoch FROM clock_timestamp()) THEN
            '{"ok": false, "reason": "state_expired", "message": "it has expired"}'
        WHEN claims ->> 'principal' IS DISTINCT FROM principal THEN
            '{"ok": false, "reason": "state_wrong_principal", "message": "it was issued to another principal"}'
        ELSE opened || jsonb_build_object('purpose', sealed_for, 'expires', expires)
    END::jsonb;
END;
$$;
COMMENT ON FUNCTION _open_sealed(text, text, text) IS
'Internal: opens a sealed token and checks seal, purpose, expiry (the seal''s own; for 1.3 tokens as 1.3 read it) and principal; the payload with ok true, or {ok false, reason, message}';
