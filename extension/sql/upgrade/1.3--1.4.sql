-- mcp_notes 1.3 -> 1.4: the hand-written DDL of this release.  The built
-- upgrade script is this file between the primitives (src/0*) and the rest
-- of src/, so every function, trigger function and registry row of 1.4 is
-- (re)created from the same text as a fresh install; what must be done
-- here is only what src/ cannot say: new tables and columns (the same as in
-- tables/), dropped or re-typed functions, changed triggers and data
-- migrations.  Each change of the release has its own section.

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
