-- mcp_notes 1.3 -> 1.4: the hand-written DDL of this release.  The built
-- upgrade script is this file between the primitives (src/0*) and the rest
-- of src/, so every function, trigger function and registry row of 1.4 is
-- (re)created from the same text as a fresh install; what must be done
-- here is only what src/ cannot say: new tables and columns (the same as in
-- tables/), dropped or re-typed functions, changed triggers and data
-- migrations.  Each change of the release has its own section.

-------------------------------------------------------------------------------
-- Title key counts: summed in backend memory, counted down on update and
-- delete (issue 18, items 1 and 4)
-------------------------------------------------------------------------------

-- _note_title_keys_written (now C) kept its sums in a temporary table of the
-- session, which a gateway role could create first with code of its own.
-- Deleted notes' keys wait in title_key_decrements for prune_spent_states().
CREATE TABLE title_key_decrements (
    decrement_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    shard         smallint NOT NULL,
    title_keys    bigint[] NOT NULL
);
COMMENT ON TABLE title_key_decrements IS
'Title search: the title keys of deleted notes, not yet taken from title_key_counts (prune_spent_states() folds them in)';
COMMENT ON TABLE title_key_counts IS
'Title search: how many notes have each title key (per shard), kept by triggers on notes; deletes are taken off by prune_spent_states()';
CREATE TRIGGER notes_title_keys_deleted AFTER DELETE ON notes
    FOR EACH ROW EXECUTE FUNCTION _note_title_keys_deleted();
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_deleted;
-- 1.3 never counted down: the counts start exact
SELECT recount_title_keys();

-- The 2025 era as an adapter over handle() (adapter): pending requests are
-- bound to the token that opened them; _handle takes the credential's hash;
-- one privilege list replaces _grant_legacy_sessions; the 1.3 entry points
-- become wrappers (recreated by src/ with other bodies, same signatures).
ALTER TABLE legacy_pending ADD COLUMN opened_by bytea;
CREATE INDEX legacy_pending_opened_by ON legacy_pending (opened_by);
DROP FUNCTION _handle(text, jsonb);
DROP FUNCTION _grant_legacy_sessions(regrole, boolean);
DROP FUNCTION _legacy_session_open(text, text, jsonb, jsonb, interval);
DROP FUNCTION _legacy_session_check(text, text);
DROP FUNCTION _legacy_session_close(text, text);
DROP FUNCTION _legacy_pending_open(text, text, jsonb, interval);
DROP FUNCTION _legacy_answer(text, text, jsonb);
DROP FUNCTION _legacy_pending_take(text, bigint, boolean);

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
