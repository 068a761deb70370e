-- notes_delete hardening: consent is bound to what the form showed, asking
-- again re-checks what step 1 checked, and nothing from a note or a client
-- reaches a form, a message or the audit with invisible characters in it.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/hard/notes');
SELECT mcp_notes.add_workspace('file:///t/hard/secret');
SELECT mcp_notes.grant_workspace('alice', 'file:///t/hard/notes');
SELECT mcp_notes.grant_workspace('bob', 'file:///t/hard/notes');

-- What an operator reading text sees: any character a terminal or a dialog
-- would not show as itself.
CREATE FUNCTION t.invisible(s text) RETURNS boolean LANGUAGE sql AS $$
    SELECT s ~ '[\u0001-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF]'
$$;
-- The labels of a form, without their timestamps.
CREATE FUNCTION t.labels(r jsonb) RETURNS text[] LANGUAGE sql AS $$
    SELECT array_agg(regexp_replace(o ->> 'title', ' \(updated .*\)$', '') ORDER BY ord)
    FROM jsonb_array_elements(r #> '{result,inputRequests,delete_choice,params,requestedSchema,properties,note_id,oneOf}')
         WITH ORDINALITY AS x(o, ord)
$$;

-------------------------------------------------------------------------------
-- 3. Consent is bound to what the form showed
-------------------------------------------------------------------------------

-- The review's case: the form showed "Old idea" at drafts/old-idea.md; the
-- note was then moved inside the workspace and retitled.  Nothing is deleted.
SELECT mcp_notes.add_note('file:///t/hard/notes/drafts/old-idea.md', 'Old idea') AS old_idea \gset
SELECT t.call('alice', 'file:///t/hard/notes', 'Old idea') AS r \gset
SELECT t.labels(:'r') AS shown;
SELECT mcp_notes.move_note(:'old_idea', 'file:///t/hard/notes/hr/payroll-2025.md');
UPDATE mcp_notes.notes SET title = '2025 payroll (master copy)' WHERE note_id = :'old_idea';
SELECT t.outcome(t.call('alice', 'file:///t/hard/notes', 'Old idea', t.accept(:'old_idea'), t.state(:'r')))
       AS moved_and_retitled;
SELECT title, uri FROM mcp_notes.notes WHERE note_id = :'old_idea';
-- The confirmation is spent, recorded as stale, and cannot be used again.
SELECT outcome FROM mcp_notes.spent_states
WHERE nonce = mcp_notes._open_state(t.state(:'r')) ->> 'nonce';
SELECT t.outcome(t.call('alice', 'file:///t/hard/notes', 'Old idea', t.accept(:'old_idea'), t.state(:'r')))
       AS replay;

-- Each change alone is enough: a move inside the workspace (move_note), a
-- new title (an UPDATE by the owner, which leaves updated_at alone), a new
-- version (updated_at).
SELECT count(mcp_notes.add_note(format('file:///t/hard/notes/change/%s.md', c), 'change ' || c))
FROM unnest(ARRAY['moved', 'retitled', 'touched', 'same']) c;
CREATE TEMP TABLE asked AS
SELECT c, t.note_id('change ' || c) AS id, t.call('alice', 'file:///t/hard/notes', 'change ' || c) AS r
FROM unnest(ARRAY['moved', 'retitled', 'touched', 'same']) c;
SELECT c, cardinality(t.choices(r)) AS choices FROM asked ORDER BY c;
SELECT mcp_notes.move_note(t.note_id('change moved'), 'file:///t/hard/notes/change/elsewhere/moved.md');
UPDATE mcp_notes.notes SET title = 'change retitled!' WHERE title = 'change retitled';
UPDATE mcp_notes.notes SET updated_at = updated_at + interval '1 microsecond' WHERE title = 'change touched';
SELECT a.c, t.outcome(t.call('alice', 'file:///t/hard/notes', 'change ' || a.c, t.accept(a.id), t.state(a.r))) AS accept
FROM asked a ORDER BY a.c;
SELECT c, EXISTS (SELECT 1 FROM mcp_notes.notes n WHERE n.note_id = a.id) AS still_there
FROM asked a ORDER BY c;

-- A title changed and changed back is what the user saw: it deletes.
SELECT mcp_notes.add_note('file:///t/hard/notes/change/back.md', 'change back') AS back \gset
SELECT t.call('alice', 'file:///t/hard/notes', 'change back') AS r \gset
UPDATE mcp_notes.notes SET title = 'something else' WHERE note_id = :'back';
UPDATE mcp_notes.notes SET title = 'change back' WHERE note_id = :'back';
SELECT t.outcome(t.call('alice', 'file:///t/hard/notes', 'change back', t.accept(:'back'), t.state(:'r')))
       AS changed_back;

-- What a state binds a candidate to: a move and a new title change it, a
-- session's time zone or date style does not (step 1 and the answer may go
-- through different gateways).
SELECT mcp_notes.add_note('file:///t/hard/notes/digest.md', 'digest note') AS dn \gset
SELECT mcp_notes._note_digest(n) AS d0 FROM mcp_notes.notes n WHERE note_id = :'dn' \gset
SET TimeZone = 'America/St_Johns';
SET DateStyle = 'German';
SELECT mcp_notes._note_digest(n) = :'d0' AS same_in_another_time_zone FROM mcp_notes.notes n WHERE note_id = :'dn';
RESET TimeZone;
RESET DateStyle;
SELECT mcp_notes.move_note(:'dn', 'file:///t/hard/notes/digest-2.md');
SELECT mcp_notes._note_digest(n) <> :'d0' AS move_changes_it FROM mcp_notes.notes n WHERE note_id = :'dn';
SELECT mcp_notes._note_digest(n) AS d1 FROM mcp_notes.notes n WHERE note_id = :'dn' \gset
UPDATE mcp_notes.notes SET title = 'digest note 2' WHERE note_id = :'dn';
SELECT mcp_notes._note_digest(n) <> :'d1' AS title_changes_it FROM mcp_notes.notes n WHERE note_id = :'dn';

-- A state that binds nothing (as 1.1 sealed them: candidates without
-- shown) is stale when accepted, and offers nothing when asked again.
SELECT t.call('alice', 'file:///t/hard/notes', 'digest note') AS r \gset
SELECT mcp_notes._seal_state((mcp_notes._open_state(t.state(:'r')) -> 'claims') - 'shown') AS unbound \gset
SELECT t.outcome(t.call('alice', 'file:///t/hard/notes', 'digest note', NULL, :'unbound')) AS unbound_asked_again;
SELECT t.outcome(t.call('alice', 'file:///t/hard/notes', 'digest note', t.accept(:'dn'), :'unbound')) AS unbound_accept;
SELECT count(*) AS digest_note_left FROM mcp_notes.notes WHERE note_id = :'dn';

-- The state stays small: 25 candidates fit in a few kilobytes.
SELECT count(mcp_notes.add_note(format('file:///t/hard/notes/bulk/%s-with-a-rather-long-file-name.md', i),
                                format('bulk %s', i)))
FROM generate_series(10, 34) i;
SELECT cardinality(t.choices(r)) AS choices, length(t.state(r)) < 6000 AS state_under_6000_chars
FROM t.call('alice', 'file:///t/hard/notes', 'bulk') r;

-------------------------------------------------------------------------------
-- 4. Asking again applies what step 1 applied
-------------------------------------------------------------------------------

-- The review's case: moved to a workspace the caller was never granted,
-- retitled, grant revoked.  Asking again shows nothing of it.
SELECT mcp_notes.add_note('file:///t/hard/notes/plan.md', 'quarterly plan') AS plan \gset
SELECT t.call('bob', 'file:///t/hard/notes', 'quarterly plan') AS r \gset
SELECT mcp_notes.move_note(:'plan', 'file:///t/hard/secret/merger.md');
UPDATE mcp_notes.notes SET title = 'SECRET merger with ACME' WHERE note_id = :'plan';
SELECT mcp_notes.revoke_workspace('bob', 'file:///t/hard/notes');
SELECT t.outcome(x) AS ask_again_after_revoke, x::text LIKE '%SECRET%' OR x::text LIKE '%merger%' AS reveals
FROM t.call('bob', 'file:///t/hard/notes', 'quarterly plan', NULL, t.state(:'r')) x;
SELECT mcp_notes.grant_workspace('bob', 'file:///t/hard/notes');
-- Granted again, the note is still outside: no candidate is left, and the
-- answer is a tool error, not a form whose oneOf is null.
SELECT t.outcome(x) AS ask_again_moved_out, x #>> '{result,isError}' AS is_error,
       x::text LIKE '%SECRET%' OR x::text LIKE '%merger%' AS reveals
FROM t.call('bob', 'file:///t/hard/notes', 'quarterly plan', NULL, t.state(:'r')) x;
-- Moved back in, but renamed: not what was shown either.
SELECT mcp_notes.move_note(:'plan', 'file:///t/hard/notes/plan.md');
SELECT t.outcome(x) AS ask_again_renamed, x::text LIKE '%SECRET%' AS reveals
FROM t.call('bob', 'file:///t/hard/notes', 'quarterly plan', NULL, t.state(:'r')) x;
-- Deleted: nothing left to offer.
SELECT mcp_notes.add_note('file:///t/hard/notes/gone.md', 'gone soon') AS gone \gset
SELECT t.call('bob', 'file:///t/hard/notes', 'gone soon') AS r \gset
DELETE FROM mcp_notes.notes WHERE note_id = :'gone';
SELECT t.outcome(x) AS ask_again_deleted, x #>> '{result,isError}' AS is_error
FROM t.call('bob', 'file:///t/hard/notes', 'gone soon', NULL, t.state(:'r')) x;
-- Of several candidates, the form shows those still as they were; the
-- state is the same, and nothing was spent.
SELECT count(mcp_notes.add_note(format('file:///t/hard/notes/trio/%s.md', c), 'trio ' || c))
FROM unnest(ARRAY['a', 'b', 'c']) c;
SELECT t.call('bob', 'file:///t/hard/notes', 'trio') AS r \gset
SELECT t.labels(:'r') AS first_form;
UPDATE mcp_notes.notes SET title = 'trio b (now the secret one)' WHERE title = 'trio b';
SELECT mcp_notes.move_note(t.note_id('trio c'), 'file:///t/hard/secret/c.md');
SELECT t.labels(x) AS asked_again, t.state(x) = t.state(:'r') AS same_state
FROM t.call('bob', 'file:///t/hard/notes', 'trio', NULL, t.state(:'r')) x;
SELECT t.outcome(t.call('bob', 'file:///t/hard/notes', 'trio', t.accept(t.note_id('trio a')), t.state(:'r')))
       AS accept_the_unchanged_one;

-------------------------------------------------------------------------------
-- 7. What reaches the user's dialog, the model and the audit is printable
-------------------------------------------------------------------------------

SELECT mcp_notes.add_note('file:///t/hard/notes/bidi.md',
    E'invoice \u202Egpj.exe\u202C \u2066x\u2069 line\nbreak\r esc\u001b[2J c1\u009b sep\u2028 zw\u200Bsp bom\uFEFF tab\t') AS bidi \gset
SELECT t.call('alice', 'file:///t/hard/notes', 'invoice') AS r \gset
SELECT t.labels(:'r') AS label, t.invisible(array_to_string(t.labels(:'r'), '')) AS label_has_invisible,
       t.invisible(:'r'::jsonb #>> '{result,inputRequests,delete_choice,params,message}') AS message_has_invisible;
-- Asked again: the same.
SELECT t.labels(x) AS label_asked_again
FROM t.call('alice', 'file:///t/hard/notes', 'invoice', NULL, t.state(:'r')) x;
-- The tool result of the delete quotes the title printably.
SELECT x #>> '{result,content,0,text}' AS deleted_message,
       t.invisible(x #>> '{result,content,0,text}') AS has_invisible
FROM t.call('alice', 'file:///t/hard/notes', 'invoice', t.accept(:'bidi'), t.state(:'r')) x;
-- The caller's own text, quoted back.
SELECT x #>> '{result,content,0,text}' AS no_match, t.invisible(x #>> '{result,content,0,text}') AS has_invisible
FROM t.call('alice', 'file:///t/hard/notes', E'zz\u202Eyy\u001b[0m\n') x;
SELECT count(mcp_notes.add_note(format('file:///t/hard/notes/many/%s.md', i), format(E'zw\u200Dmany %s', i)))
FROM generate_series(1, 26) i;
SELECT x #>> '{result,content,0,text}' AS too_many, t.invisible(x #>> '{result,content,0,text}') AS has_invisible
FROM t.call('alice', 'file:///t/hard/notes', E'zw\u200Dmany') x;
-- (an unknown argument is a tool error: the message is the result's text)
SELECT left(x #>> '{result,content,0,text}', 80) AS unknown_argument,
       t.invisible(x #>> '{result,content,0,text}') AS has_invisible,
       length(x #>> '{result,content,0,text}') < 300 AS bounded
FROM mcp_notes.call_tool_as('alice', 'notes_delete',
        jsonb_build_object('workspaceUri', 'file:///t/hard/notes', 'title', 'x',
                           E'force\u001b]0;pwned\u0007', true, repeat('k', 5000), 1),
        NULL, NULL, '{"elicitation": {}}', '1', NULL, 'gw') x;
SELECT t.call('alice', 'file:///t/hard/notes', 'trio') AS r \gset
SELECT x #>> '{error,message}' AS unknown_action, t.invisible(x #>> '{error,message}') AS has_invisible
FROM t.call('alice', 'file:///t/hard/notes', 'trio', E'{"delete_choice": {"action": "acc\\u001b[1mept\\u202e"}}', t.state(:'r')) x;

-- _printable itself: ordinary text (accents, scripts written right to left,
-- emoji, backslashes) is unchanged; characters above U+FFFF get 8 digits; a
-- bound never cuts an escape.
SELECT s, mcp_notes._printable(s) AS printable, mcp_notes._printable(s) = s AS unchanged
FROM (VALUES ('plain'), (''), ('café naïve'), ('שלום עולם'), ('مرحبا'), ('日本語'), ('emoji 🎉'),
             ('C:\dir\file \u202E'), ('tab	tab')) AS v(s);
SELECT mcp_notes._printable(E'tag\U000E0041\U000E007F soft\u00ADhyphen lrm\u200E rlm\u200F alm\u061C nbsp\u00A0 del\u007F') AS escaped;
SELECT n, mcp_notes._printable(E'ab\u202Ecd', n) AS cut
FROM generate_series(0, 9) n;
SELECT mcp_notes._printable(NULL) IS NULL AS null_is_null, mcp_notes._printable(repeat('z', 300), 200) = repeat('z', 200) AS cut_plain;
-- The bound is applied before escaping (what is past it is never read):
-- the same result as escaping every character and keeping the escapes
-- that fit.
SELECT n, mcp_notes._printable(s, n) AS cut,
       mcp_notes._printable(s, n) = (SELECT coalesce(string_agg(e, '' ORDER BY i), '') FROM (
           SELECT i, e, sum(length(e)) OVER (ORDER BY i) AS upto
           FROM regexp_split_to_table(s, '') WITH ORDINALITY AS x(c, i), LATERAL mcp_notes._printable(c) AS e) p
           WHERE upto <= n) AS same_as_escape_then_cut
FROM (VALUES (E'a\u202Ebc\u0007d' || repeat(E'\u2066', 1000))) v(s), generate_series(0, 14) n;
SELECT mcp_notes._printable(repeat(E'\u202E', 100000), 14) AS cut_of_a_long_one, mcp_notes._printable('abc', -1) = '' AS negative_is_empty;
-- _unprintable undoes the escapes, so a label names what it shows (a text
-- that already held an escape's characters reads as that character: the
-- search tries the text as given first).
SELECT mcp_notes._printable(s) AS shown, mcp_notes._unprintable(mcp_notes._printable(s)) = s AS round_trip
FROM (VALUES (E'invoice \u202Egpj.exe\u202C'), (E'tag\U000E0041'), ('C:\dir\u0041'), ('plain'), ('')) AS v(s);
SELECT mcp_notes._unprintable(x) AS decoded FROM unnest(ARRAY[E'\\u0041\\U0001F600 \\uD800 \\UFFFFFFFF \\u12 \\']) x;

-- The JSON-RPC id in the audit: escapes instead of terminal control, at
-- most 200 characters, never half an escape.
CREATE FUNCTION t.ask_with_id(id jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT mcp_notes.handle_as('alice', jsonb_build_object(
        'method', 'tools/call',
        'params', jsonb_build_object('name', 'notes_delete',
            'arguments', jsonb_build_object('workspaceUri', 'file:///t/hard/notes', 'title', 'trio'),
            'inputResponses', jsonb_build_object('delete_choice', jsonb_build_object('action', 'cancel')),
            'requestState', t.state(t.call('alice', 'file:///t/hard/notes', 'trio'))),
        'clientCapabilities', '{"elicitation": {}}'::jsonb,
        'requestId', id, 'gatewayId', 'gw-hard'))
$$;
SELECT t.outcome(t.ask_with_id(id)) AS cancelled
FROM (VALUES (to_jsonb(E'id\u001b]0;owned\u0007\r\n\u202Etail'::text)), ('42'), ('"plain-id"'),
             (to_jsonb(repeat('x', 195) || E'\u001b\u001b')),
             (to_jsonb(repeat(E'\u001b', 300))), (to_jsonb(repeat('y', 300)))) AS v(id);
SELECT left(request_id, 40) AS request_id_start, length(request_id) AS chars, t.invisible(request_id) AS has_invisible
FROM mcp_notes.delete_audit WHERE gateway_id = 'gw-hard' ORDER BY audit_id;

-- What the audit kept of the cases above: the title as every label shows
-- it (_title_label), so an operator's terminal shows what it is.
SELECT principal, title, t.invisible(title) AS has_invisible, note_uri, outcome
FROM mcp_notes.delete_audit WHERE workspace_uri = 'file:///t/hard/notes' AND gateway_id <> 'gw-hard'
ORDER BY audit_id;
