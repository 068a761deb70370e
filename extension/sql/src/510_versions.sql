-------------------------------------------------------------------------------
-- Note versions (docs/operations.md, "Note versions")
-------------------------------------------------------------------------------

-- The operator's policy, or the defaults: versions kept 30 days, 100 MiB
-- of them per principal.
CREATE OR REPLACE FUNCTION _version_policy(OUT retention interval, OUT principal_budget bigint)
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(p.retention, interval '30 days'), coalesce(p.principal_budget, 104857600)
    FROM (SELECT 1) AS one LEFT JOIN version_policy p ON p.singleton
$$;
COMMENT ON FUNCTION _version_policy() IS
'Internal: the version retention and the per-principal version budget in bytes (version_policy, else 30 days and 100 MiB)';

-- Keeps a note's current title and body as a version, in the caller's
-- transaction: what every write that replaces or removes a note's text
-- calls first (notes_update, notes_delete, restore_note_version; a
-- file-backed workspace's overwrite the same way).  principal is whose
-- call it is (NULL for an operator); its bytes wait in version_pending
-- until audit_tick() counts them, so no two writes update one row.
CREATE OR REPLACE FUNCTION _keep_version(principal text, note notes, reason text) RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH kept AS (
        INSERT INTO kept_versions (note_id, uri, title, body, created_at, updated_at, reason, principal)
        VALUES ((note).note_id, (note).uri, (note).title, (note).body, (note).created_at, (note).updated_at,
                reason, principal)
        RETURNING version_id, bytes
    ), counted AS (
        INSERT INTO version_pending (principal, bytes)
        SELECT principal, k.bytes FROM kept k WHERE principal IS NOT NULL
    )
    SELECT k.version_id FROM kept k
$$;
COMMENT ON FUNCTION _keep_version(text, notes, text) IS
'Internal: keeps a note''s current text as a version (reason update, delete or restore) in the caller''s transaction, counted against principal''s budget (NULL: an operator); returns the version id';

-- The tool error for a write that would keep a version beyond the
-- principal's budget, or NULL.  Checked against version_usage as of the
-- last fold, which lags by what the principal kept since: the bounded
-- overshoot that keeps this check free of conflicts between writers.
CREATE OR REPLACE FUNCTION _version_budget_refusal(tool text, principal text, note notes) RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT _tool_refusal(format('%s: your storage for earlier versions is full (%s kept of %s); keeping this note''s current text (%s) would pass it, so nothing was written. Versions are kept for %s; an operator can prune those past it (prune_note_versions) or raise the budget (set_version_policy).',
                                tool, pg_size_pretty(coalesce(u.bytes, 0)), pg_size_pretty(p.principal_budget),
                                pg_size_pretty(octet_length((note).title) + octet_length((note).body)::bigint), p.retention))
    FROM _version_policy() p
    LEFT JOIN version_usage u ON u.principal = _version_budget_refusal.principal
    WHERE coalesce(u.bytes, 0) + octet_length((note).title) + octet_length((note).body) > p.principal_budget
$$;
COMMENT ON FUNCTION _version_budget_refusal(text, text, notes) IS
'Internal: the tool error refusing a write whose replaced version would pass the principal''s version budget (as of the last fold), or NULL';

-- What a tool's overwrite calls before it writes: the refusal when the
-- budget is spent (nothing kept, nothing to write), else NULL once the
-- current text is kept.
CREATE OR REPLACE FUNCTION _keep_replaced_version(tool text, principal text, note notes) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    refusal jsonb := _version_budget_refusal(tool, principal, note);
BEGIN
    IF refusal IS NULL THEN
        PERFORM _keep_version(principal, note, 'update');
    END IF;
    RETURN refusal;
END;
$$;
COMMENT ON FUNCTION _keep_replaced_version(text, text, notes) IS
'Internal: before a tool overwrites a note: keeps its current text as a version and returns NULL, or returns the tool error when the principal''s version budget is spent';

-- Adds the versions kept since the last fold to version_usage.  Safe
-- against a concurrent fold: each pending row is deleted, and counted,
-- once.
CREATE OR REPLACE FUNCTION _fold_version_usage() RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH taken AS (
        DELETE FROM version_pending p RETURNING p.principal, p.bytes
    ), sums AS (
        SELECT t.principal, sum(t.bytes)::bigint AS bytes, count(*) AS versions FROM taken t GROUP BY t.principal
    ), folded AS (
        INSERT INTO version_usage AS u (principal, bytes, versions, folded_at)
        SELECT s.principal, s.bytes, s.versions, now() FROM sums s
        ON CONFLICT (principal) DO UPDATE
        SET bytes = u.bytes + excluded.bytes, versions = u.versions + excluded.versions, folded_at = excluded.folded_at
        RETURNING 1
    )
    SELECT count(*) FROM taken
$$;
COMMENT ON FUNCTION _fold_version_usage() IS
'Internal: adds the versions kept since the last fold (version_pending) to version_usage; returns how many';

-- Operators ------------------------------------------------------------------

CREATE OR REPLACE FUNCTION note_versions(note text)
RETURNS TABLE (version_id bigint, note_id text, uri text, title text, excerpt text, bytes bigint,
               updated_at timestamptz, kept_at timestamptz, reason text, principal text, prunable_from timestamptz)
LANGUAGE sql STABLE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT v.version_id, v.note_id, v.uri, v.title, _printable(left(v.body, 100), 100), v.bytes,
           v.updated_at, v.kept_at, v.reason, v.principal, v.kept_at + p.retention
    FROM kept_versions v, _version_policy() p
    WHERE CASE WHEN note LIKE 'file:%' THEN v.uri = normalize_uri(note) ELSE v.note_id = note END
    ORDER BY v.version_id DESC
$$;
COMMENT ON FUNCTION note_versions(text) IS
'Operators: the versions kept of a note (by note id, or every note kept at a file: URI), newest first, with when each may be pruned; the text is in kept_versions.body';

-- Brings a version's title and body back, as a write: the note's current
-- text is kept as a version first, updated_at moves forward, and the act
-- is audited.  A deleted note is recreated with its id at its URI (refused
-- when another note is there now); a note moved since stays where it is.
-- A version equal to the note's text writes nothing.
CREATE OR REPLACE FUNCTION restore_note_version(version_id bigint) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    v kept_versions;
    note notes;
    kept bigint;
BEGIN
    SELECT * INTO v FROM kept_versions k WHERE k.version_id = restore_note_version.version_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'note version % does not exist', coalesce(version_id::text, 'NULL')
            USING ERRCODE = 'no_data_found',
                  DETAIL = 'It was never kept, or prune_note_versions() removed it after its retention.';
    END IF;
    SELECT * INTO note FROM notes n WHERE n.note_id = v.note_id FOR UPDATE;
    IF FOUND AND note.title = v.title AND note.body = v.body THEN
        RETURN jsonb_build_object('noteId', note.note_id, 'uri', note.uri, 'updatedAt', _note_time(note.updated_at),
                                  'restored', false);
    ELSIF FOUND THEN
        kept := _keep_version(NULL, note, 'restore');
        UPDATE notes n SET title = v.title, body = v.body,
                           updated_at = greatest(clock_timestamp(), n.updated_at + interval '1 microsecond')
        WHERE n.note_id = v.note_id
        RETURNING * INTO note;
    ELSIF EXISTS (SELECT 1 FROM notes n WHERE n.uri = v.uri) THEN
        RAISE EXCEPTION 'cannot restore a deleted note at %: another note is there now', v.uri
            USING ERRCODE = 'unique_violation',
                  DETAIL = format('Version %s is of note %s, deleted from there.', v.version_id, v.note_id),
                  HINT = 'Move that note elsewhere first (mcp_notes.move_note), then restore again.';
    ELSE
        INSERT INTO notes (note_id, uri, title, body, created_at, updated_at)
        VALUES (v.note_id, v.uri, v.title, v.body, v.created_at, clock_timestamp())
        RETURNING * INTO note;
    END IF;
    INSERT INTO operator_audit (actor, action, note_id, note_uri, title, version_id, updated_at, detail)
    VALUES (current_user, 'restore', note.note_id, note.uri, _printable(note.title), v.version_id, note.updated_at,
            jsonb_build_object('recreated', kept IS NULL, 'keptVersion', kept));
    RETURN jsonb_build_object('noteId', note.note_id, 'uri', note.uri, 'updatedAt', _note_time(note.updated_at),
                              'restored', true, 'recreated', kept IS NULL, 'keptVersion', kept);
END;
$$;
COMMENT ON FUNCTION restore_note_version(bigint) IS
'Operators: writes a kept version''s title and body back to its note (recreating a deleted note at its URI), keeping the replaced text as a version; audited in operator_audit';

-- The only way versions go: those kept longer ago than the retention,
-- removed and their bytes taken off the budgets, audited even when none
-- were due.
CREATE OR REPLACE FUNCTION prune_note_versions() RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    policy record := _version_policy();
    cutoff timestamptz := now() - policy.retention;
    removed bigint;
    freed bigint;
BEGIN
    PERFORM _fold_version_usage();
    WITH gone AS (
        DELETE FROM kept_versions v WHERE v.kept_at < cutoff RETURNING v.principal, v.bytes
    ), per AS (
        SELECT g.principal, sum(g.bytes)::bigint AS bytes, count(*) AS versions
        FROM gone g WHERE g.principal IS NOT NULL GROUP BY g.principal
    ), taken_off AS (
        UPDATE version_usage u SET bytes = u.bytes - per.bytes, versions = u.versions - per.versions, folded_at = now()
        FROM per WHERE u.principal = per.principal
        RETURNING 1
    )
    SELECT count(*), coalesce(sum(g.bytes), 0) INTO removed, freed FROM gone g;
    INSERT INTO operator_audit (actor, action, detail)
    VALUES (current_user, 'prune_versions', jsonb_build_object(
        'retention', policy.retention::text, 'cutoff', cutoff, 'versions', removed, 'bytes', freed));
    RETURN removed;
END;
$$;
COMMENT ON FUNCTION prune_note_versions() IS
'Operators: removes the note versions kept longer ago than the retention (version_policy) and takes them off the budgets; audited in operator_audit; returns how many went';

CREATE OR REPLACE FUNCTION set_version_policy(retention interval DEFAULT NULL, principal_budget bigint DEFAULT NULL)
RETURNS TABLE (kept_for interval, budget_bytes bigint)
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    before record := _version_policy();
    after record;
BEGIN
    IF set_version_policy.retention < interval '0' OR set_version_policy.principal_budget < 0 THEN
        RAISE EXCEPTION 'a version retention and budget cannot be negative'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO version_policy AS p (singleton, retention, principal_budget, updated_at)
    VALUES (true, coalesce(set_version_policy.retention, before.retention),
            coalesce(set_version_policy.principal_budget, before.principal_budget), now())
    ON CONFLICT (singleton) DO UPDATE
    SET retention = excluded.retention, principal_budget = excluded.principal_budget, updated_at = excluded.updated_at
    RETURNING p.retention, p.principal_budget INTO after;
    INSERT INTO operator_audit (actor, action, detail)
    VALUES (current_user, 'policy', jsonb_build_object(
        'before', jsonb_build_object('retention', before.retention::text, 'principalBudget', before.principal_budget),
        'after', jsonb_build_object('retention', after.retention::text, 'principalBudget', after.principal_budget)));
    RETURN QUERY SELECT after.retention, after.principal_budget;
END;
$$;
COMMENT ON FUNCTION set_version_policy(interval, bigint) IS
'Operators: sets how long note versions are kept before prune_note_versions() may remove them and each principal''s version budget in bytes (NULL keeps the current value); audited in operator_audit';

-- Exact accounting from kept_versions, in one statement (one snapshot), so
-- a version kept meanwhile is neither counted twice nor lost.
CREATE OR REPLACE FUNCTION recount_version_usage() RETURNS bigint
LANGUAGE sql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
    WITH pending AS (
        DELETE FROM version_pending RETURNING 1
    ), exact AS (
        SELECT v.principal, sum(v.bytes)::bigint AS bytes, count(*) AS versions
        FROM kept_versions v WHERE v.principal IS NOT NULL GROUP BY v.principal
    ), cleared AS (
        DELETE FROM version_usage u WHERE NOT EXISTS (SELECT 1 FROM exact e WHERE e.principal = u.principal)
        RETURNING 1
    ), counted AS (
        INSERT INTO version_usage AS u (principal, bytes, versions, folded_at)
        SELECT e.principal, e.bytes, e.versions, now() FROM exact e
        ON CONFLICT (principal) DO UPDATE SET bytes = excluded.bytes, versions = excluded.versions, folded_at = excluded.folded_at
        RETURNING 1
    )
    SELECT count(*) FROM counted     -- (every data-modifying CTE runs, read or not)
$$;
COMMENT ON FUNCTION recount_version_usage() IS
'Operators: recounts every principal''s version usage from kept_versions (after a restore from an old dump, or to check); returns the principals counted';
