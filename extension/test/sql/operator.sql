-- The operator API: workspaces, grants, tokens, notes, and what pg_dump keeps.
\set ECHO none
\i test/fixture.sql
\set ECHO all
\set SHOW_CONTEXT never

-- Workspaces are stored normalized; authorization compares normalized URIs.
SELECT mcp_notes.add_workspace('file:///t/ops/team-a/');
SELECT mcp_notes.add_workspace('file://localhost/t/ops/team%2Da');
SELECT uri FROM mcp_notes.workspaces WHERE uri LIKE 'file:///t/ops%';
SELECT mcp_notes.add_workspace('file:///t/ops/a%2Fb');
SELECT mcp_notes.add_workspace('https://example.com/t');
SELECT mcp_notes.add_workspace(NULL);
SELECT mcp_notes.grant_workspace('carol', 'file:///t/ops/team-a');
SELECT mcp_notes.grant_workspace('carol', 'file:///t/ops/team%2da/');
SELECT principal, workspace_uri FROM mcp_notes.grants WHERE principal = 'carol';
SELECT mcp_notes.grant_workspace('carol', 'file:///t/ops/team-b');
SELECT mcp_notes.grant_workspace('carol; drop', 'file:///t/ops/team-a');
SELECT mcp_notes.grant_workspace('', 'file:///t/ops/team-a');
SELECT mcp_notes.revoke_workspace('carol', 'file:///t/ops/team-a/.') AS revoked,
       mcp_notes.revoke_workspace('carol', 'file:///t/ops/team-a') AS revoked_again;

-- Tokens: shown once, stored hashed, revocable, expiring.
SELECT mcp_notes.issue_token('carol') AS tok \gset
SELECT :'tok' ~ '^mcpn_[A-Za-z0-9_-]{43}$' AS token_format,
       mcp_notes.authenticate(:'tok') AS principal,
       mcp_notes.authenticate(:'tok' || 'x') AS wrong_token,
       mcp_notes.authenticate('') AS empty_token,
       mcp_notes.authenticate(NULL) AS null_token;
SELECT count(*) AS rows_holding_token_text FROM mcp_notes.tokens t WHERE t::text LIKE '%' || substr(:'tok', 6) || '%';
SELECT expires_at - issued_at AS lifetime FROM mcp_notes.tokens WHERE principal = 'carol';
SELECT mcp_notes.issue_token('carol', '-1 day');
SELECT mcp_notes.issue_token('bad name!');
SELECT mcp_notes.revoke_token(:'tok') AS revoked;
SELECT mcp_notes.revoke_token(:'tok') AS revoked_again, mcp_notes.authenticate(:'tok') AS after_revoke;
SELECT mcp_notes.issue_token('carol', '1 hour') AS tok2 \gset
UPDATE mcp_notes.tokens SET expires_at = now() - interval '1 second' WHERE token_hash = mcp_notes._token_hash(:'tok2');
SELECT mcp_notes.authenticate(:'tok2') AS after_expiry;

-- The production entry point resolves the principal from the token.
SELECT mcp_notes.grant_workspace('carol', 'file:///t/ops/team-a');
SELECT mcp_notes.add_note('file:///t/ops/team-a/plan.md', 'Plan') IS NOT NULL AS added;
SELECT mcp_notes.issue_token('carol') AS tok3 \gset
SELECT t.outcome(mcp_notes.call_tool(:'tok3', 'notes_delete', '{"workspaceUri": "file:///t/ops/team-a", "title": "plan"}',
                                     NULL, NULL, '{"elicitation": {}}', '1', NULL, 'gw')) AS with_token;
SELECT mcp_notes.call_tool(:'tok', 'notes_delete', '{"workspaceUri": "file:///t/ops/team-a", "title": "plan"}',
                           NULL, NULL, '{"elicitation": {}}', '1', NULL, 'gw') AS revoked_token;
SELECT t.outcome(mcp_notes.call_tool(NULL, 'notes_delete', '{}', NULL, NULL, '{}', '1', NULL, 'gw')) AS no_token;

-- Notes.
SELECT mcp_notes.add_note('file:///t/ops/team-a/plan.md', 'Plan again');
SELECT mcp_notes.add_note('file:///t/ops/team-a/%00.md', 'Nul');
SELECT mcp_notes.add_note('file:///t/ops/x.md', '  ');
SELECT mcp_notes.add_note('file:///t/ops/x.md', 'Ok') ~ '^[0-9a-f-]{36}$' AS note_id_is_uuid;
SELECT mcp_notes.move_note('no-such-note', 'file:///t/ops/y.md');
\set VERBOSITY terse
INSERT INTO mcp_notes.notes (uri, title) VALUES ('file:///t/ops/../ops/z.md', 'not normalized');
\set VERBOSITY default

-- The audit is append-only, and pg_dump keeps operator data but not keys.
-- A cancelled notes_delete writes an audit row and nothing else.
SELECT mcp_notes.grant_workspace('carol', 'file:///t/ops/team-a');
SELECT mcp_notes.add_note('file:///t/ops/team-a/audit.md', 'audited') IS NOT NULL AS added;
SELECT t.call('carol', 'file:///t/ops/team-a', 'audited') AS r \gset
SET default_transaction_isolation = serializable;
SELECT t.outcome(t.call('carol', 'file:///t/ops/team-a', 'audited', t.answer('cancel'), t.state(:'r'))) AS cancelled;
RESET default_transaction_isolation;
SELECT count(*) > 0 AS audit_has_rows FROM mcp_notes.delete_audit;
UPDATE mcp_notes.delete_audit SET outcome = 'accept';
SELECT array_agg(c::regclass::text ORDER BY c::regclass::text) AS dumped
FROM pg_extension e, unnest(e.extconfig) c WHERE e.extname = 'mcp_notes';
