-- Note versions: every notes_update keeps the text it replaces, in the same
-- transaction; a confirmed delete keeps the deleted note's last version;
-- an operator lists them (note_versions) and restores one
-- (restore_note_version, audited); prune_note_versions() is the only way
-- they go, and only past the retention; a principal's budget refuses with
-- a tool error, writing nothing.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
\set SHOW_CONTEXT never

SELECT mcp_notes.add_workspace('file:///t/ver'), mcp_notes.grant_workspace('vic', 'file:///t/ver');
CREATE FUNCTION pg_temp.tool(name text, arguments jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('vic', jsonb_build_object('method', 'tools/call',
        'params', jsonb_build_object('name', name, 'arguments', arguments || '{"workspaceUri": "file:///t/ver"}'),
        'requestId', 'ver-1', 'gatewayId', 'regress-gw'))
$$;
-- t.outcome without the times (they change from run to run).
CREATE FUNCTION pg_temp.out(r jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT regexp_replace(t.outcome(r #- '{result,structuredContent,updatedAt}'),
                          '\d{4}-\d\d-\d\dT[0-9:.]+Z', '<time>', 'g')
$$;
CREATE FUNCTION pg_temp.versions(note text) RETURNS TABLE (reason text, title text, excerpt text, bytes bigint, principal text)
LANGUAGE sql AS $$
    SELECT v.reason, v.title, v.excerpt, v.bytes, v.principal FROM mcp_notes.note_versions(note) v
$$;

SET default_transaction_isolation = serializable;
SELECT pg_temp.tool('notes_create', '{"uri": "file:///t/ver/plan.md", "title": "Plan", "body": "first plan"}')
       #>> '{result,structuredContent,noteId}' AS plan \gset
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', 'second plan')));
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'title', 'Plan B', 'body', '.')));
-- An update that changes nothing keeps nothing.
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', '.')));
-- A refused update (stale expectedUpdatedAt) keeps nothing either.
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', 'x',
                                                                 'expectedUpdatedAt', '2000-01-01T00:00:00.000000Z')));
RESET default_transaction_isolation;
SELECT * FROM pg_temp.versions(:'plan');
SELECT count(*) AS listed_by_uri FROM mcp_notes.note_versions('file:///t/ver/plan.md');

-- The version and the update are one transaction: an update rolled back
-- keeps no version.
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', 'rolled back')));
ROLLBACK;
SELECT count(*) AS versions FROM mcp_notes.kept_versions;

-- The unconfirmed-write report's source: an update without
-- expectedUpdatedAt leaves it NULL; with it, the version it was based on.
SELECT n.updated_at AS plan_at, mcp_notes._note_time(n.updated_at) AS plan_time FROM mcp_notes.notes n WHERE n.note_id = :'plan' \gset
SET default_transaction_isolation = serializable;
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', 'confirmed plan',
                                                                 'expectedUpdatedAt', :'plan_time')));
RESET default_transaction_isolation;
SELECT action, fields, expected_updated_at = :'plan_at' AS based_on_the_version_read
FROM mcp_notes.change_audit ORDER BY audit_id;

-- Restore: the version's text comes back, the text it replaces is kept,
-- updated_at moves forward, the act is audited (and chained).
SELECT version_id AS first FROM mcp_notes.kept_versions WHERE body = 'first plan' \gset
SELECT r - 'noteId' - 'updatedAt' AS restored, r ->> 'updatedAt' > :'plan_time' AS moved_forward
FROM mcp_notes.restore_note_version(:first) r;
SELECT title, body FROM mcp_notes.notes WHERE note_id = :'plan';
SELECT * FROM pg_temp.versions(:'plan');
SELECT mcp_notes.restore_note_version(:first) - 'noteId' - 'updatedAt' AS restored_again;
SELECT actor = current_user AS by_me, action, title, version_id = :first AS that_version, detail ? 'keptVersion' AS kept
FROM mcp_notes.operator_audit ORDER BY audit_id;
SELECT mcp_notes.restore_note_version(999999);

-- A confirmed delete keeps the note's last version; restoring it brings the
-- note back with its id at its URI, unless another note is there now.
SET default_transaction_isolation = serializable;
SELECT pg_temp.out(t.call('vic', 'file:///t/ver', 'Plan', t.accept(:'plan'), t.state(t.call('vic', 'file:///t/ver', 'Plan'))));
RESET default_transaction_isolation;
SELECT count(*) AS notes_left FROM mcp_notes.notes;
SELECT reason, title, excerpt FROM pg_temp.versions(:'plan') LIMIT 1;
SELECT version_id AS last FROM mcp_notes.kept_versions WHERE reason = 'delete' \gset
SELECT mcp_notes.add_note('file:///t/ver/plan.md', 'squatter') AS squatter \gset
\set VERBOSITY terse
SELECT mcp_notes.restore_note_version(:last);
\set VERBOSITY default
SELECT mcp_notes.move_note(:'squatter', 'file:///t/ver/elsewhere.md');
SELECT r ->> 'noteId' = :'plan' AS same_id, r - 'noteId' - 'updatedAt' AS restored FROM mcp_notes.restore_note_version(:last) r;
SELECT uri, title, body FROM mcp_notes.notes WHERE note_id = :'plan';

-- Retention: nothing is pruned before it ends (default 30 days); the
-- operator's prune is audited even when it removes nothing.
SELECT mcp_notes.prune_note_versions() AS pruned;
UPDATE mcp_notes.kept_versions SET kept_at = now() - interval '31 days' WHERE version_id = :first;
SELECT mcp_notes.prune_note_versions() AS pruned;
SELECT count(*) FILTER (WHERE version_id = :first) AS first_left, count(*) AS versions_left FROM mcp_notes.kept_versions;
SELECT action, detail ->> 'versions' AS versions, detail ->> 'retention' AS retention
FROM mcp_notes.operator_audit WHERE action = 'prune_versions' ORDER BY audit_id;
SELECT * FROM mcp_notes.set_version_policy(retention => '90 days');
SELECT * FROM mcp_notes.set_version_policy(principal_budget => -1);
SELECT action, detail -> 'after' AS after FROM mcp_notes.operator_audit WHERE action = 'policy';

-- The budget: usage folds in off the request path (audit_tick); once it
-- is spent, an update is a tool error and writes nothing; a delete still
-- keeps its version (a delete is never refused for lack of version room).
SELECT chained > 0 AS chained FROM mcp_notes.audit_tick();
SELECT principal, bytes, versions FROM mcp_notes.version_usage;
SELECT mcp_notes.add_note('file:///t/ver/scratch.md', 'Scratch', 'scratch text') AS scratch \gset
SELECT bytes FROM mcp_notes.version_usage WHERE principal = 'vic' \gset
SELECT * FROM mcp_notes.set_version_policy(principal_budget => :bytes + 5);
SET default_transaction_isolation = serializable;
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', 'over budget')));
RESET default_transaction_isolation;
SELECT body FROM mcp_notes.notes WHERE note_id = :'plan';
SELECT count(*) AS versions FROM mcp_notes.kept_versions;
SET default_transaction_isolation = serializable;
SELECT pg_temp.out(t.call('vic', 'file:///t/ver', 'Scratch', t.accept(:'scratch'), t.state(t.call('vic', 'file:///t/ver', 'Scratch'))));
RESET default_transaction_isolation;
SELECT reason, title, excerpt FROM pg_temp.versions(:'scratch');
-- The operator's way out: prune what is past retention, or raise the budget.
SELECT * FROM mcp_notes.set_version_policy(principal_budget => 1048576);
SET default_transaction_isolation = serializable;
SELECT pg_temp.out(pg_temp.tool('notes_update', jsonb_build_object('noteId', :'plan', 'body', 'within budget')));
RESET default_transaction_isolation;
-- The accounting recounted from the versions equals the folded one.
SELECT mcp_notes.audit_tick() IS NOT NULL AS ticked;
CREATE TEMP TABLE folded AS SELECT principal, bytes, versions FROM mcp_notes.version_usage;
SELECT mcp_notes.recount_version_usage() AS principals;
SELECT NOT EXISTS (SELECT * FROM folded EXCEPT SELECT principal, bytes, versions FROM mcp_notes.version_usage)
   AND NOT EXISTS (SELECT principal, bytes, versions FROM mcp_notes.version_usage EXCEPT SELECT * FROM folded)
       AS folded_equals_recount;

-- Every operator act is in the chain.
SELECT mcp_notes.audit_tick() IS NOT NULL AS ticked;
SELECT ok, problem FROM mcp_notes.verify_audit();
SELECT count(*) AS operator_links FROM mcp_notes.audit_chain WHERE source = 'operator_audit';
