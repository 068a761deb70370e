-- The 1.0 -> 1.1 upgrade path.  Runs last: it re-creates the extension.
-- A fresh install is 1.0 plus the update script, so after ALTER EXTENSION
-- UPDATE an old database must look exactly like a new one in what 1.1 adds.
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
CREATE EXTENSION mcp_notes VERSION '1.0';
RESET client_min_messages;

SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT count(*) AS tokens_changed_triggers FROM pg_trigger
WHERE tgrelid = 'mcp_notes.tokens'::regclass AND tgname = 'tokens_changed';
SELECT l.lanname AS authenticate_language FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.oid = 'mcp_notes.authenticate(text)'::regprocedure;

-- a token issued under 1.0 keeps working across the upgrade
CREATE TEMP TABLE upgrade_token AS SELECT mcp_notes.issue_token('ursula') AS t;

ALTER EXTENSION mcp_notes UPDATE TO '1.1';

SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT tgenabled, tgtype FROM pg_trigger
WHERE tgrelid = 'mcp_notes.tokens'::regclass AND tgname = 'tokens_changed';
SELECT l.lanname AS authenticate_language, p.provolatile, p.prosecdef,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.oid = 'mcp_notes.authenticate(text)'::regprocedure;
SELECT has_function_privilege('public', 'mcp_notes._tokens_changed()', 'EXECUTE') AS public_may_run_trigger_fn;
SELECT mcp_notes.authenticate(t) AS principal_after_upgrade FROM upgrade_token;

-- the trigger belongs to the extension, so DROP EXTENSION removes it
SELECT count(*) AS members FROM pg_depend d
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mcp_notes')
  AND d.objid = 'mcp_notes._tokens_changed()'::regprocedure AND d.deptype = 'e';

-- revocation still works (that it notifies is shown by specs/token-notify.spec)
SELECT mcp_notes.revoke_token(t) FROM upgrade_token;
SELECT mcp_notes.authenticate(t) AS principal_after_revoke FROM upgrade_token;

-- and a fresh install is the same version
SET client_min_messages = warning;
DROP EXTENSION mcp_notes CASCADE;
RESET client_min_messages;
CREATE EXTENSION mcp_notes;
SELECT extversion FROM pg_extension WHERE extname = 'mcp_notes';
SELECT count(*) AS tokens_changed_triggers FROM pg_trigger
WHERE tgrelid = 'mcp_notes.tokens'::regclass AND tgname = 'tokens_changed';
