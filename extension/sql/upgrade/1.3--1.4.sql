-- mcp_notes 1.3 -> 1.4: the hand-written DDL of this release.  The built
-- upgrade script is this file between the primitives (src/0*) and the rest
-- of src/, so every function, trigger function and registry row of 1.4 is
-- (re)created from the same text as a fresh install; what must be done
-- here is only what src/ cannot say: new tables and columns (the same as in
-- tables/), dropped or re-typed functions, changed triggers and data
-- migrations.  Each change of the release has its own section.

-------------------------------------------------------------------------------
-- harden: one argument checker, one opener of sealed tokens (issue 19.3)
-------------------------------------------------------------------------------

-- The notes tools' and notes_delete's argument checks take the request and
-- read the tool's registered inputSchema (_tool_arguments) instead of lists
-- of names; the new signatures are created by src/.
DROP FUNCTION _notes_arguments(text, text, jsonb, text[], text[]);
DROP FUNCTION _delete_arguments(jsonb);

-- A tool that writes notes names its own change_audit action (notes_move:
-- move), so adding one needs no change to the table (DEVELOPING.md,
-- "Adding a tool").
ALTER TABLE change_audit DROP CONSTRAINT change_audit_action_check;
ALTER TABLE change_audit ADD CONSTRAINT change_audit_action_check
    CHECK (action OPERATOR(pg_catalog.~) '^[a-z][a-z_]{0,31}$');
COMMENT ON TABLE change_audit IS
'Append-only record of every note written by the notes tools (action create, update, move: the tool says which): who, what, when, from which gateway';
COMMENT ON COLUMN change_audit.action IS 'What the tool did to the note, named by the tool: create, update, move';
COMMENT ON COLUMN change_audit.fields IS 'The fields the call wrote: title, body (create: both), uri (move)';
