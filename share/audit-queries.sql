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
