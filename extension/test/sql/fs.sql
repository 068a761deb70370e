-- File-backed workspaces, the database side: paths and URIs, note files'
-- content, registering a directory, notes written through the database,
-- the delete intent and the daemon's reports (T2 exactly once, conflict,
-- missing), the answer the gateway fetches, the sync of disk changes, and
-- the marker protocol.  The daemon and the disk: tests/suites/fs.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

-- The answer to a notes_delete that said "await", as the gateway asks for it.
CREATE FUNCTION t.outcome_of(principal text, op text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as(principal, jsonb_build_object('method', 'mcp_notes/fileop/outcome',
        'params', jsonb_build_object('operationId', op)))
$$;

-- One tools/call through handle_as, as a gateway sends it.
CREATE FUNCTION t.fs(tool text, args jsonb, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('alice', jsonb_build_object('method', 'tools/call',
        'params', jsonb_build_object('name', tool, 'arguments', args) || extra,
        'clientCapabilities', '{"elicitation": {"form": {}}}'::jsonb,
        'requestId', 'fs-1', 'gatewayId', 'regress-gw', 'clientInfo', '{"name": "regress", "version": "1"}'::jsonb))
$$;

-------------------------------------------------------------------------------
-- 1. Paths below a root and note URIs
-------------------------------------------------------------------------------

SELECT p AS rel_path, mcp_notes._file_uri('file:///t/fs/vault', p) AS uri,
       mcp_notes._file_rel_path('file:///t/fs/vault', mcp_notes._file_uri('file:///t/fs/vault', p)) = p AS round_trip
FROM (VALUES ('a.md'), ('sub/dir/b.md'), ('with space.md'), ('caf' || chr(233) || '.md'), ('50%.md'),
             ('q?.md'), ('hash#.md'), ('euro ' || chr(8364) || '.md'), ('smile ' || chr(128512) || '.md'),
             ('back\slash.md'), ('tab' || chr(9) || '.md')) v(p);
-- the inverse refuses what is not strictly inside
SELECT mcp_notes._file_rel_path('file:///t/fs/vault', 'file:///t/fs/vault') AS itself,
       mcp_notes._file_rel_path('file:///t/fs/vault', 'file:///t/fs/vault-evil/a.md') AS sibling_prefix,
       mcp_notes._file_rel_path('file:///t/fs/vault', 'file:///t/fs/a.md') AS outside,
       mcp_notes._file_rel_path('file:///', 'file:///x/y%20z.md') AS below_the_root;

SELECT p AS rel_path, mcp_notes._file_path_problem(p) AS problem
FROM (VALUES ('a.md'), ('sub/b.md'), ('notes.txt'), ('.hidden.md'), ('a/.git/x.md'), ('.md'), ('a/.md'),
             ('README'), ('x.md/y.md'), ('')) v(p);

-------------------------------------------------------------------------------
-- 2. A note file's content: "# title", a blank line, the body
-------------------------------------------------------------------------------

SELECT c AS content, p.title, p.body, p.heading,
       mcp_notes._file_render('n/x.md', p.title, p.body, p.heading) = c AS renders_back
FROM (VALUES (E'# Title\n\nbody\n'), (E'# Title\nbody right after\n'), (E'# Title\r\n\r\nwindows\r\n'),
             (E'no heading\n'), (E'#not a heading\n'), (E'# \n\nempty heading\n'), (''), (E'# Only')) v(c),
     LATERAL mcp_notes._file_parse('n/x.md', c) p;
-- a title with a line break cannot break the heading
SELECT mcp_notes._file_render('x.md', E'two\nlines', 'b', true) AS rendered;

-------------------------------------------------------------------------------
-- 3. Registering a directory
-------------------------------------------------------------------------------

CREATE ROLE regress_fs_daemon;
SELECT mcp_notes.add_file_volume('Bad Name', 'regress_fs_daemon');
SELECT mcp_notes.add_file_volume('vol1', 'regress_fs_daemon');
SELECT mcp_notes.add_file_workspace('file:///t/fs/vault', 'nope', 'vault');
SELECT mcp_notes.add_file_workspace('file:///t/fs/bad', 'vol1', '../outside');
SELECT mcp_notes.add_file_workspace('file:///t/fs/bad', 'vol1', '/etc');
SELECT mcp_notes.add_file_workspace('file:///t/fs/bad', 'vol1', 'a/../b');
SELECT mcp_notes.add_file_workspace('file:///t/fs/bad', 'vol1', '.hidden');
SELECT mcp_notes.add_file_workspace('file:///t/fs/bad', 'vol1', 'a//b');
SELECT mcp_notes.add_file_workspace('file:///t/fs/bad', 'vol1', '');
SELECT mcp_notes.add_note('file:///t/fs/busy/x.md', 'Already here') IS NOT NULL AS added;
SELECT mcp_notes.add_file_workspace('file:///t/fs/busy', 'vol1', 'busy');
SELECT mcp_notes.add_file_workspace('file://localhost/t/fs/vault/', 'vol1', 'vault') AS registered;
SELECT mcp_notes.add_file_workspace('file:///t/fs/vault/inner', 'vol1', 'inner');
SELECT mcp_notes.add_file_workspace('file:///t/fs', 'vol1', 'outer');
SELECT mcp_notes.add_file_workspace('file:///t/fs/other', 'vol1', 'vault');
SELECT mcp_notes.add_file_workspace('file:///t/fs/other', 'vol1', 'vault/inner');
SELECT mcp_notes.add_file_workspace('file:///t/fs/other', 'vol1', '.');
SELECT mcp_notes.grant_workspace('alice', 'file:///t/fs/vault');

-------------------------------------------------------------------------------
-- 4. Notes written through the database get their file written
-------------------------------------------------------------------------------

SELECT mcp_notes.add_note('file:///t/fs/vault/a.md', 'Alpha', 'alpha body') AS alpha \gset
SELECT rel_path, dev IS NULL AS no_file_yet, write_seq, written_seq FROM mcp_notes.file_notes;
SELECT mcp_notes.add_note('file:///t/fs/vault/notes.txt', 'Not markdown');
SELECT mcp_notes.add_note('file:///t/fs/vault/.hidden.md', 'Hidden');
SELECT mcp_notes.move_note(:'alpha', 'file:///t/fs/vault/moved.md');
SELECT mcp_notes.move_note(:'alpha', 'file:///t/fs/elsewhere.md');
SELECT t.fs('notes_create', '{"workspaceUri": "file:///t/fs/vault", "uri": "file:///t/fs/vault/x.txt", "title": "x"}')
       #>> '{result,content,0,text}' AS create_txt;
-- the daemon's view: what to write, with the file's content
SELECT kind, status, rel_path, content, seq FROM mcp_notes.fsd_pending('vol1');
SELECT mcp_notes.fsd_written('vol1', :'alpha', 1, 64769, 1001, 16, 1700000000000000000);
SELECT rel_path, dev, ino, size, mtime_ns, write_seq, written_seq FROM mcp_notes.file_notes;
SELECT count(*) AS pending FROM mcp_notes.fsd_pending('vol1');
SELECT t.fs('notes_update', jsonb_build_object('workspaceUri', 'file:///t/fs/vault', 'noteId', :'alpha', 'body', 'new body'))
       #>> '{result,isError}' AS update_is_error;
SELECT kind, rel_path, dev, content, seq FROM mcp_notes.fsd_pending('vol1');
SELECT mcp_notes.fsd_written('vol1', :'alpha', 2, 64769, 1002, 14, 1700000000000000001);

-------------------------------------------------------------------------------
-- 5. The sealed state binds the file identity beside the note's digest
-------------------------------------------------------------------------------

SELECT mcp_notes.add_workspace('file:///t/fs/plain');
SELECT mcp_notes.add_note('file:///t/fs/plain/p.md', 'Plain') AS plain \gset
-- a note that is not file-backed keeps the digest of 1.3
SELECT mcp_notes._note_digest(n) = translate(encode(sha256(convert_to(jsonb_build_object(
           'noteId', n.note_id, 'uri', n.uri, 'title', n.title, 'updatedAt', extract(epoch FROM n.updated_at))::text,
           'UTF8')), 'base64'), E'+/=\n', '-_') AS plain_digest_unchanged
FROM mcp_notes.notes n WHERE n.note_id = :'plain';
SELECT mcp_notes._file_identity(:'alpha') AS identity, mcp_notes._file_identity(:'plain') AS plain_identity;
SELECT mcp_notes._note_digest(n) AS before FROM mcp_notes.notes n WHERE n.note_id = :'alpha' \gset
UPDATE mcp_notes.file_notes SET mtime_ns = mtime_ns + 1 WHERE note_id = :'alpha';
SELECT mcp_notes._note_digest(n) <> :'before' AS digest_follows_the_file FROM mcp_notes.notes n WHERE n.note_id = :'alpha';
UPDATE mcp_notes.file_notes SET mtime_ns = mtime_ns - 1 WHERE note_id = :'alpha';

-------------------------------------------------------------------------------
-- 6. The delete: T1 records the intent; T2 deletes and audits, once
-------------------------------------------------------------------------------

SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Alpha"}') AS r \gset
SELECT t.outcome(:'r');
SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Alpha"}',
            jsonb_build_object('requestState', t.state(:'r'), 'inputResponses', t.accept(:'alpha'))) AS d \gset
-- the pending answer (never "deleted" yet) and what the gateway awaits
SELECT mcp_notes.features() #> '{internalMethods,mcp_notes/fileop/outcome}' AS internal_method;
SELECT (:'d'::jsonb #> '{result,structuredContent}') - 'operationId' - 'noteId' AS pending,
       :'d'::jsonb #>> '{await,channel}' AS channel, :'d'::jsonb #>> '{await,ms}' AS ms,
       :'d'::jsonb #>> '{await,key}' = :'d'::jsonb #>> '{result,structuredContent,operationId}' AS key_is_the_op;
SELECT :'d'::jsonb #>> '{await,key}' AS op \gset
SELECT kind, status, rel_path, dev, ino, size, mtime_ns, principal, asked_in, request FROM mcp_notes.file_ops;
SELECT count(*) AS audited_yet FROM mcp_notes.delete_audit WHERE outcome = 'accept';
SELECT count(*) AS note_still_there FROM mcp_notes.notes WHERE note_id = :'alpha';
-- the same confirmation again spends nothing more
SELECT t.outcome(t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Alpha"}',
            jsonb_build_object('requestState', t.state(:'r'), 'inputResponses', t.accept(:'alpha'))));
-- another confirmation of the same note while the intent is pending
SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Alpha"}') AS r2 \gset
SELECT regexp_replace(t.outcome(t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Alpha"}',
            jsonb_build_object('requestState', t.state(:'r2'), 'inputResponses', t.accept(:'alpha')))),
       '[0-9a-f-]{36}', 'OP') AS second_intent;
-- the daemon's queue, and what the gateway is told while the file is in place
SELECT op_id = :'op' AS is_the_op, kind, status, rel_path FROM mcp_notes.fsd_pending('vol1');
SELECT t.outcome_of('alice', :'op') #> '{result,structuredContent,pending}' AS still_pending;
SELECT t.outcome(t.outcome_of('bob', :'op'));
-- T2, twice (a daemon that died after the first): one audit row
SELECT mcp_notes.fsd_trashed('vol1', :'op') AS first, mcp_notes.fsd_trashed('vol1', :'op') AS again;
SELECT outcome, note_uri, title, request_id, gateway_id, client_info FROM mcp_notes.delete_audit
WHERE workspace_uri = 'file:///t/fs/vault' ORDER BY audit_id;
SELECT count(*) AS notes_left, (SELECT count(*) FROM mcp_notes.file_notes WHERE note_id = :'alpha') AS file_rows_left
FROM mcp_notes.notes WHERE note_id = :'alpha';
SELECT regexp_replace(t.outcome(t.outcome_of('alice', :'op')), '[0-9a-f-]{36}', 'OP') AS answer;
SELECT mcp_notes.fsd_done('vol1', :'op');
SELECT status FROM mcp_notes.file_ops WHERE op_id = :'op';
SELECT count(*) AS pending FROM mcp_notes.fsd_pending('vol1');

-------------------------------------------------------------------------------
-- 7. Nothing removed: conflict and missing are stale confirmations
-------------------------------------------------------------------------------

SELECT mcp_notes.add_note('file:///t/fs/vault/b.md', 'Beta report') AS beta \gset
SELECT mcp_notes.add_note('file:///t/fs/vault/c.md', 'Gamma report') AS gamma \gset
SELECT mcp_notes.fsd_written('vol1', :'beta', 1, 64769, 2001, 10, 1700000000000000000),
       mcp_notes.fsd_written('vol1', :'gamma', 1, 64769, 2002, 10, 1700000000000000000);
SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Beta"}') AS r \gset
SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Beta"}',
            jsonb_build_object('requestState', t.state(:'r'), 'inputResponses', t.accept(:'beta')))
       #>> '{await,key}' AS op_beta \gset
SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Gamma"}') AS r \gset
SELECT t.fs('notes_delete', '{"workspaceUri": "file:///t/fs/vault", "title": "Gamma"}',
            jsonb_build_object('requestState', t.state(:'r'), 'inputResponses', t.accept(:'gamma')))
       #>> '{await,key}' AS op_gamma \gset
SELECT mcp_notes.fsd_failed('vol1', :'op_beta', 'conflict', 'the file at that path is not the one confirmed');
SELECT mcp_notes.fsd_failed('vol1', :'op_gamma', 'missing', 'no file at that path');
SELECT mcp_notes.fsd_failed('vol1', :'op_gamma', 'gone', 'an outcome that does not exist');
SELECT t.outcome(t.outcome_of('alice', :'op_beta')) AS beta_answer;
SELECT t.outcome(t.outcome_of('alice', :'op_gamma')) AS gamma_answer;
SELECT o.status, o.detail, s.outcome AS spent_as
FROM mcp_notes.file_ops o JOIN mcp_notes.spent_states s ON s.nonce = o.nonce
WHERE o.op_id IN (:'op_beta', :'op_gamma') ORDER BY o.rel_path;
SELECT outcome, note_uri FROM mcp_notes.delete_audit WHERE workspace_uri = 'file:///t/fs/vault' ORDER BY audit_id;
SELECT count(*) AS notes_kept FROM mcp_notes.notes WHERE note_id IN (:'beta', :'gamma');
-- a report about a finished operation changes nothing
SELECT mcp_notes.fsd_trashed('vol1', :'op_beta') AS trashed_after_conflict;
SELECT count(*) AS audit_rows FROM mcp_notes.delete_audit WHERE workspace_uri = 'file:///t/fs/vault';

-------------------------------------------------------------------------------
-- 8. Changes on disk (fsd_sync)
-------------------------------------------------------------------------------

SELECT mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/vault', NULL, 1, 2) ~ '^marker ' AS asks_for_a_marker;
SELECT marker FROM mcp_notes.file_workspaces WHERE workspace_uri = 'file:///t/fs/vault' \gset
SELECT mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', '[]');
SELECT mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/vault', :'marker', 1, 2) AS with_the_marker;
SELECT rel_path, outcome, detail FROM mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', jsonb_build_array(
    '{"path": "new.md", "dev": 64769, "ino": 3001, "size": 20, "mtime": 1, "body": "# New note\n\nfrom disk\n"}'::jsonb,
    '{"path": "b.md", "dev": 64769, "ino": 3002, "size": 30, "mtime": 2, "body": "# Beta report\n\nedited on disk\n"}'::jsonb,
    '{"path": "c.md", "dev": 64769, "ino": 2002, "size": 10, "mtime": 1700000000000000000, "body": "unchanged"}'::jsonb,
    '{"path": "d.txt", "dev": 64769, "ino": 3003, "size": 1, "mtime": 3, "body": "x"}'::jsonb,
    '{"path": "back\\slash.md", "dev": 64769, "ino": 3004, "size": 1, "mtime": 3, "body": "x"}'::jsonb,
    jsonb_build_object('path', 'big.md', 'dev', 64769, 'ino', 3005, 'size', 1, 'mtime', 3, 'body', repeat('x', 1048577)),
    '{"path": "nobody.md", "gone": true}'::jsonb));
SELECT n.uri, n.title, n.body, f.heading, f.ino, f.write_seq = f.written_seq AS not_written_back
FROM mcp_notes.notes n JOIN mcp_notes.file_notes f USING (note_id)
WHERE f.workspace_uri = 'file:///t/fs/vault' ORDER BY n.uri;
-- a rename: the note keeps its id; then a removal
SELECT rel_path, outcome FROM mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', jsonb_build_array(
    '{"path": "renamed/new.md", "from": "new.md", "dev": 64769, "ino": 3001, "size": 20, "mtime": 1, "body": "# New note\n\nfrom disk\n"}'::jsonb));
SELECT uri FROM mcp_notes.notes WHERE title = 'New note';
SELECT rel_path, outcome FROM mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', jsonb_build_array(
    '{"path": "renamed/new.md", "gone": true}'::jsonb, '{"path": "b.md", "gone": true}'::jsonb));
SELECT uri FROM mcp_notes.notes WHERE uri LIKE 'file:///t/fs/vault/%' ORDER BY 1;
-- what a pending write or delete holds back
SELECT mcp_notes.add_note('file:///t/fs/vault/w.md', 'Written soon') AS w \gset
SELECT rel_path, outcome FROM mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', jsonb_build_array(
    '{"path": "w.md", "dev": 64769, "ino": 3010, "size": 5, "mtime": 9, "body": "disk"}'::jsonb));
SELECT mcp_notes.fsd_write_failed('vol1', :'w', 1, 'exists');
SELECT rel_path, outcome FROM mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', jsonb_build_array(
    '{"path": "w.md", "dev": 64769, "ino": 3010, "size": 5, "mtime": 9, "body": "disk"}'::jsonb));
SELECT title, body FROM mcp_notes.notes WHERE note_id = :'w';
SELECT kind, status, rel_path, detail FROM mcp_notes.file_ops WHERE kind = 'write';
-- a write whose file cannot be there removes the note
SELECT mcp_notes.add_note('file:///t/fs/vault/gone/z.md', 'Nowhere') AS z \gset
SELECT mcp_notes.fsd_write_failed('vol1', :'z', 1, 'symlink');
SELECT count(*) AS z_left FROM mcp_notes.notes WHERE note_id = :'z';

-------------------------------------------------------------------------------
-- 9. The marker: an empty or another directory is never "every note removed"
-------------------------------------------------------------------------------

SELECT mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/vault', NULL, 1, 2) AS no_marker_after_attach;
SELECT refused IS NOT NULL AS refused FROM mcp_notes.file_workspaces WHERE workspace_uri = 'file:///t/fs/vault';
SELECT mcp_notes.fsd_sync('vol1', 'file:///t/fs/vault', '[{"path": "c.md", "gone": true}]');
SELECT mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/vault', 'some-other-marker', 1, 2) AS another_marker;
-- the operator says the directory now at the root is the workspace's: a new
-- marker, written in place of whatever marker is there
SELECT mcp_notes.reattach_file_workspace('file:///t/fs/vault');
SELECT mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/vault', :'marker', 1, 2) ~ '^marker ' AS old_marker_replaced,
       mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/vault', NULL, 1, 2) ~ '^marker ' AS missing_marker_written,
       (SELECT marker FROM mcp_notes.file_workspaces WHERE workspace_uri = 'file:///t/fs/vault') <> :'marker' AS a_new_one;
SELECT mcp_notes.reattach_file_workspace('file:///t/fs/plain');
SELECT mcp_notes.fsd_root_seen('vol1', 'file:///t/fs/plain', NULL, 1, 2) AS not_this_volume;

-- the daemon's lock: one per volume
SELECT workspace, root_path FROM mcp_notes.fsd_attach('vol1');

DROP OWNED BY regress_fs_daemon;
DROP ROLE regress_fs_daemon;
