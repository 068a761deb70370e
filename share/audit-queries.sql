-- Questions operators ask of the audit.  Run with
--   psql -d <database> -f share/audit-queries.sql
-- or copy the one you need.  delete_audit is append-only: one row per answer
-- to a notes_delete confirmation form.  change_audit (at the end) is
-- append-only too: one row per note written by notes_create or notes_update.
--
-- outcome: accept  = the note was deleted
--          decline = the user said no (final; the state is spent)
--          cancel  = the user dismissed the form (nothing spent)
--          stale   = confirmed, but the note was gone, moved out, or the
--                    principal was no longer granted the workspace at commit

\echo 'Who deleted what in the last 7 days'
SELECT at, principal, workspace_uri, note_uri, title, gateway_id
FROM mcp_notes.delete_audit
WHERE outcome = 'accept' AND at > now() - interval '7 days'
ORDER BY at DESC;

\echo 'Answers per principal in the last 30 days'
SELECT principal,
       count(*) FILTER (WHERE outcome = 'accept')  AS deleted,
       count(*) FILTER (WHERE outcome = 'decline') AS declined,
       count(*) FILTER (WHERE outcome = 'cancel')  AS cancelled,
       count(*) FILTER (WHERE outcome = 'stale')   AS stale
FROM mcp_notes.delete_audit
WHERE at > now() - interval '30 days'
GROUP BY principal
ORDER BY deleted DESC, principal;

\echo 'Deletes per gateway per day (is one gateway doing all the work?)'
SELECT date_trunc('day', at) AS day, gateway_id, count(*) AS deletes
FROM mcp_notes.delete_audit
WHERE outcome = 'accept'
GROUP BY 1, 2
ORDER BY 1 DESC, 3 DESC;

\echo 'Which clients asked (self-reported, diagnostics only: never identity)'
SELECT client_info ->> 'name' AS client, client_info ->> 'version' AS version, count(*) AS answers
FROM mcp_notes.delete_audit
GROUP BY 1, 2
ORDER BY 3 DESC;

\echo 'The history of one note (replace the URI)'
SELECT at, principal, outcome, request_id, gateway_id
FROM mcp_notes.delete_audit
WHERE note_uri = mcp_notes.normalize_uri('file:///work/notes/tps-2024.md')
ORDER BY at;

\echo 'Confirmations that arrived too late (stale), most recent first'
SELECT at, principal, workspace_uri, note_id, note_uri
FROM mcp_notes.delete_audit
WHERE outcome = 'stale'
ORDER BY at DESC
LIMIT 50;

-- change_audit: action create (notes_create) or update (notes_update);
-- fields says what the call wrote (title, body); updated_at is the note's
-- version after the write, the updatedAt the client was given.

\echo 'Who created or changed which notes in the last 7 days'
SELECT at, principal, action, fields, note_uri, title, gateway_id
FROM mcp_notes.change_audit
WHERE at > now() - interval '7 days'
ORDER BY at DESC;

\echo 'Writes per principal in the last 30 days'
SELECT principal,
       count(*) FILTER (WHERE action = 'create') AS created,
       count(*) FILTER (WHERE action = 'update') AS updated
FROM mcp_notes.change_audit
WHERE at > now() - interval '30 days'
GROUP BY principal
ORDER BY count(*) DESC, principal;

\echo 'The whole life of one note: created, updated, deleted (replace the URI)'
SELECT at, principal, action AS what, request_id, gateway_id
FROM mcp_notes.change_audit
WHERE note_uri = mcp_notes.normalize_uri('file:///work/notes/tps-2024.md')
UNION ALL
SELECT at, principal, 'delete ' || outcome, request_id, gateway_id
FROM mcp_notes.delete_audit
WHERE note_uri = mcp_notes.normalize_uri('file:///work/notes/tps-2024.md')
ORDER BY at;

\echo 'Who changed what when, across every audit table (the last 7 days)'
SELECT at, principal AS who, 'note ' || action AS what, note_uri, title, gateway_id AS via
FROM mcp_notes.change_audit WHERE at > now() - interval '7 days'
UNION ALL
SELECT at, principal, 'delete ' || outcome, note_uri, title, gateway_id
FROM mcp_notes.delete_audit WHERE at > now() - interval '7 days'
UNION ALL
SELECT at, actor, 'operator ' || action, note_uri, title, 'sql'
FROM mcp_notes.operator_audit WHERE at > now() - interval '7 days'
ORDER BY at DESC;

-- Note versions: the text each notes_update replaced, the last text of each
-- deleted note (kept for version_policy's retention), the text each
-- restore replaced.  Bring one back with
--   SELECT mcp_notes.restore_note_version(<version_id>);

\echo 'The versions of one note (replace the URI, or pass a note id)'
SELECT version_id, reason, title, excerpt, bytes, updated_at, kept_at, principal, prunable_from
FROM mcp_notes.note_versions('file:///work/notes/tps-2024.md');

\echo 'Version storage per principal (as of the last audit_tick) against the budget'
SELECT u.principal, pg_size_pretty(u.bytes) AS kept, u.versions, pg_size_pretty(p.principal_budget) AS budget,
       round(100.0 * u.bytes / nullif(p.principal_budget, 0), 1) AS percent, u.folded_at
FROM mcp_notes.version_usage u, mcp_notes._version_policy() p
ORDER BY u.bytes DESC;

\echo 'Verify the audit chain (ok, or the first broken link)'
SELECT * FROM mcp_notes.verify_audit();

\echo 'The head to export (keep it outside the database; check it later with verify_audit(up_to => seq, head => head))'
SELECT * FROM mcp_notes.audit_head();

\echo 'Unconfirmed writes: updates without expectedUpdatedAt, by principal and hour (the last 7 days)'
SELECT principal, date_trunc('hour', at) AS hour,
       count(*) FILTER (WHERE expected_updated_at IS NULL) AS unconfirmed,
       count(*) AS updates
FROM mcp_notes.change_audit
WHERE action = 'update' AND at > now() - interval '7 days'
GROUP BY 1, 2
HAVING count(*) FILTER (WHERE expected_updated_at IS NULL) > 0
ORDER BY 2 DESC, 3 DESC;

\echo 'The operator acts: restores, prunes, policy changes, audit retention'
SELECT at, actor, action, note_uri, version_id, detail
FROM mcp_notes.operator_audit
ORDER BY at DESC
LIMIT 50;
