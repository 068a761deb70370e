-- notes_delete end to end from SQL: the form, every answer, every refusal.
\set ECHO none
\i test/fixture.sql
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/flow/notes/');
SELECT mcp_notes.add_workspace('file:///t/flow/notes-evil');
SELECT mcp_notes.add_workspace('file:///t/flow/bulk');
SELECT mcp_notes.grant_workspace('alice', 'file:///t/flow/notes');
SELECT mcp_notes.grant_workspace('alice', 'file:///t/flow/bulk');
SELECT mcp_notes.grant_workspace('mallory', 'file:///t/flow/notes-evil');
SELECT count(mcp_notes.add_note(uri, title)) AS notes_added
FROM (VALUES ('file:///t/flow/notes/tps-2023.md', 'TPS report 2023'),
             ('file:///t/flow/notes/tps-2024.md', 'TPS report 2024'),
             ('file:///t/flow/notes/tps-2025.md', 'TPS report 2025'),
             ('file:///t/flow/notes/sub/draft.md', 'tps draft'),
             ('file:///t/flow/notes/lunch.md', 'Lunch menu'),
             ('file:///t/flow/tps-outside.md', 'TPS report outside'),
             ('file:///t/flow/notes-evil/secret.md', 'TPS report secret')) AS v(uri, title);

-- Step 1 asks, with every matching note inside the workspace and no other.
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'tps')) AS first_call;
SELECT n.title, n.uri
FROM unnest(t.choices(t.call('alice', 'file:///t/flow/notes', 'TPS'))) AS c(id)
JOIN mcp_notes.notes n ON n.note_id = c.id
ORDER BY n.uri;
-- The form itself (labels without their timestamps).
SELECT jsonb_pretty(r #> '{result,inputRequests}' #- '{delete_choice,params,requestedSchema,properties,note_id,oneOf}') AS form,
       (SELECT array_agg(regexp_replace(o ->> 'title', 'updated .*\)', 'updated …)'))
        FROM jsonb_array_elements(r #> '{result,inputRequests,delete_choice,params,requestedSchema,properties,note_id,oneOf}') o) AS labels,
       t.state(r) ~ '^v1\.[0-9]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$' AS state_is_sealed
FROM t.call('alice', 'file:///t/flow/notes', 'report 202') AS r;

-- One candidate is still a question, never a delete.
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes/sub', 'tps')) AS narrowed_to_subfolder;

-- The same workspace spelled differently is the same workspace.
SELECT ws, t.outcome(t.call('alice', ws, 'tps'))
FROM (VALUES ('file:///t/flow/notes/'), ('FILE://localhost/t/flow/notes'), ('file:/t/flow/notes'),
             ('file:///t/flow/%6Eotes'), ('file:///t/flow/notes/sub/..')) AS v(ws);

-- A workspace that merely resembles a granted one is refused, and the
-- refusal reveals nothing about what it holds.
SELECT ws, t.outcome(t.call('alice', ws, 'tps'))
FROM (VALUES ('file:///t/flow/notes-evil'), ('file:///t/flow/notes%2Devil'),
             ('file:///t/flow/notes/%2e%2e/notes-evil'), ('file:///t/flow/notes/..%2Fnotes-evil'),
             ('file:///t/flow'), ('file:///t/flow/notes/../tps-outside.md'),
             ('file://evil.example/t/flow/notes'), ('file:///t/flow/notes?x=1'), ('t/flow/notes')) AS v(ws);
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'secret')) AS no_match;
SELECT t.outcome(t.call('mallory', 'file:///t/flow/notes', 'tps')) AS other_principal;

-- The form needs the form capability of THIS request.
SELECT caps, t.outcome(t.call('alice', 'file:///t/flow/notes', 'tps', NULL, NULL, caps::jsonb))
FROM (VALUES ('{"elicitation": {}}'), ('{"elicitation": {"form": {}}}'),
             ('{"elicitation": {"form": {}, "url": {}}}'), ('{"elicitation": {"url": {}}}'),
             ('{}'), ('{"elicitation": true}'), ('[]'), (NULL)) AS v(caps);
SELECT t.call('alice', 'file:///t/flow/notes', 'tps', NULL, NULL, '{"elicitation": {"url": {}}}') AS url_only;

-- Malformed calls are invalid params; a bad URI is a tool error the model can fix.
SELECT mcp_notes.call_tool_as('alice', 'notes_purge', '{}', NULL, NULL, '{"elicitation": {}}', '1', NULL, 'gw') AS unknown_tool;
SELECT args, t.outcome(mcp_notes.call_tool_as('alice', 'notes_delete', args::jsonb, NULL, NULL,
                                              '{"elicitation": {}}', '1', NULL, 'gw'))
FROM (VALUES (NULL), ('[]'), ('"x"'), ('{}'), ('{"workspaceUri": "file:///t/flow/notes"}'),
             ('{"workspaceUri": "file:///t/flow/notes", "title": 7}'),
             ('{"workspaceUri": 7, "title": "tps"}'),
             ('{"workspaceUri": "file:///t/flow/notes", "title": "  "}'),
             ('{"workspaceUri": "file:///t/flow/notes", "title": "tps", "force": true}')) AS v(args);
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', repeat('x', 201))) AS title_too_long;

-- At most 25 candidates; more asks the caller to narrow the title.
SELECT count(mcp_notes.add_note(format('file:///t/flow/bulk/n%s.md', i), format('bulk note %s', i)))
FROM generate_series(1, 26) i;
SELECT t.outcome(t.call('alice', 'file:///t/flow/bulk', 'bulk note')) AS too_many;
SELECT t.outcome(t.call('alice', 'file:///t/flow/bulk', 'bulk note 1')) AS eleven_match;

-- Accept deletes once; the same state cannot be used again.
SELECT t.call('alice', 'file:///t/flow/notes', 'TPS report 2023') AS r \gset
SELECT t.note_id('TPS report 2023') AS chosen \gset
SELECT t.outcome(x) AS accept, x #>> '{result,structuredContent,noteId}' = :'chosen' AS deleted_the_chosen_note
FROM t.call('alice', 'file:///t/flow/notes', 'TPS report 2023', t.accept(:'chosen'), t.state(:'r')) x;
SELECT count(*) AS tps_2023_left FROM mcp_notes.notes WHERE title = 'TPS report 2023';
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2023',
                        t.accept(t.note_id('TPS report 2023')), t.state(:'r'))) AS replay;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2023',
                        t.answer('decline'), t.state(:'r'))) AS decline_after_accept;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2023',
                        t.answer('cancel'), t.state(:'r'))) AS cancel_after_accept;

-- Decline is final and deletes nothing.
SELECT t.call('alice', 'file:///t/flow/notes', 'TPS report 2024') AS r \gset
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2024',
                        t.answer('decline'), t.state(:'r'))) AS decline;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2024',
                        t.accept(t.note_id('TPS report 2024')), t.state(:'r'))) AS accept_after_decline;
SELECT count(*) AS tps_2024_left FROM mcp_notes.notes WHERE title = 'TPS report 2024';

-- Cancel spends nothing: the same state can still be answered.
SELECT t.call('alice', 'file:///t/flow/notes', 'TPS report 2025') AS r \gset
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025',
                        t.answer('cancel'), t.state(:'r'))) AS cancel;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025',
                        t.answer('cancel'), t.state(:'r'))) AS cancel_again;

-- Answers that are not consent change nothing and spend nothing.
SELECT label, t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025', resp, t.state(:'r')))
FROM (VALUES
    ('accept without content', '{"delete_choice": {"action": "accept"}}'::jsonb),
    ('accept with null content', '{"delete_choice": {"action": "accept", "content": null}}'),
    ('confirm false', t.accept(t.note_id('TPS report 2025'), 'false')),
    ('confirm "true"', t.accept(t.note_id('TPS report 2025'), '"true"')),
    ('confirm 1', t.accept(t.note_id('TPS report 2025'), '1')),
    ('confirm missing', jsonb_build_object('delete_choice', jsonb_build_object('action', 'accept',
                            'content', jsonb_build_object('note_id', t.note_id('TPS report 2025'))))),
    ('foreign note', t.accept(t.note_id('TPS report secret'))),
    ('sibling candidate of another call', t.accept(t.note_id('TPS report 2024'))),
    ('note_id not a string', '{"delete_choice": {"action": "accept", "content": {"note_id": 1, "confirm": true}}}'),
    ('unknown action', '{"delete_choice": {"action": "maybe"}}'),
    ('action missing', '{"delete_choice": {}}'),
    ('response null', '{"delete_choice": null}'),
    ('response a string', '{"delete_choice": "accept"}'),
    ('inputResponses an array', '[]')) AS v(label, resp);

-- No answer yet: ask again, with the very same state.
SELECT t.outcome(x) AS no_answer, t.state(x) = t.state(:'r') AS same_state
FROM t.call('alice', 'file:///t/flow/notes', 'TPS report 2025', NULL, t.state(:'r')) x;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025',
                        '{"other_key": {"action": "accept"}}', t.state(:'r'))) AS unknown_key_only;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025', NULL, t.state(:'r'),
                        '{"elicitation": {"url": {}}}')) AS no_answer_no_form;

-- After all that, the cancelled state still deletes, once.
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025',
                        t.accept(t.note_id('TPS report 2025')) || '{"ignored": {"action": "cancel"}}',
                        t.state(:'r'))) AS accept_after_cancel;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'TPS report 2025',
                        t.accept(t.note_id('TPS report 2025')), t.state(:'r'))) AS second_accept;

-- The note was deleted after the form was shown.
SELECT t.call('alice', 'file:///t/flow/notes/sub', 'draft') AS r \gset
DELETE FROM mcp_notes.notes WHERE title = 'tps draft';
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes/sub', 'draft',
                        t.accept((t.choices(:'r'))[1]), t.state(:'r'))) AS note_gone;
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes/sub', 'draft',
                        t.accept((t.choices(:'r'))[1]), t.state(:'r'))) AS note_gone_replay;

-- The note was moved out of the workspace after the form was shown.
SELECT mcp_notes.add_note('file:///t/flow/notes/moving.md', 'moving note') IS NOT NULL AS added;
SELECT t.call('alice', 'file:///t/flow/notes', 'moving') AS r \gset
SELECT mcp_notes.move_note(t.note_id('moving note'), 'file:///t/flow/notes-evil/moving.md');
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'moving',
                        t.accept(t.note_id('moving note')), t.state(:'r'))) AS moved_out;
SELECT uri FROM mcp_notes.notes WHERE title = 'moving note';

-- The grant was revoked after the form was shown.
SELECT t.call('alice', 'file:///t/flow/notes', 'lunch') AS r \gset
SELECT mcp_notes.revoke_workspace('alice', 'file:///t/flow/notes/');
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'lunch',
                        t.accept(t.note_id('Lunch menu')), t.state(:'r'))) AS grant_revoked;
SELECT count(*) AS lunch_left FROM mcp_notes.notes WHERE title = 'Lunch menu';
SELECT mcp_notes.grant_workspace('alice', 'file:///t/flow/notes');

-- The mutating step refuses to run below SERIALIZABLE; step 1 does not mutate.
SET default_transaction_isolation = 'read committed';
SELECT t.outcome(t.call('alice', 'file:///t/flow/notes', 'lunch')) AS step1_read_committed;
SELECT t.call('alice', 'file:///t/flow/notes', 'lunch', t.answer('decline'), t.state(:'r'));
SET default_transaction_isolation = serializable;

-- What the audit kept.
SELECT principal, workspace_uri, title, note_uri, outcome, request_id, gateway_id, client_info ->> 'name' AS client
FROM mcp_notes.delete_audit WHERE workspace_uri LIKE 'file:///t/flow/%' ORDER BY audit_id;
SELECT outcome, count(*) FROM mcp_notes.spent_states GROUP BY outcome ORDER BY outcome;
