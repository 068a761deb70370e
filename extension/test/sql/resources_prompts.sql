-- Resources, prompts and completion (docs/resources-prompts.md): only what
-- the principal's grants reach, one answer for unknown and unauthorized,
-- sealed cursors, registries that advertise what they hold.
\set ECHO none
\set fixture `[ -f test/fixture.sql ] && echo test/fixture.sql || echo extension/test/fixture.sql`
\i :fixture
\set ECHO all
SET default_transaction_isolation = serializable;

SELECT mcp_notes.add_workspace('file:///t/rp');
SELECT mcp_notes.add_workspace('file:///t/rp-evil');
SELECT mcp_notes.add_workspace('file:///t/rp/inner');
SELECT mcp_notes.grant_workspace('rita', 'file:///t/rp');
SELECT mcp_notes.grant_workspace('rita', 'file:///t/rp/inner');
SELECT mcp_notes.grant_workspace('eve', 'file:///t/rp-evil');
SELECT mcp_notes.add_note('file:///t/rp/a.md', 'Alpha', E'# Alpha\nbody') AS alpha \gset
SELECT mcp_notes.add_note('file:///t/rp/inner/b.txt', 'Beta', 'beta') AS beta \gset
SELECT mcp_notes.add_note('file:///t/rp/c.MARKDOWN', 'Gamma', 'gamma') AS gamma \gset
SELECT mcp_notes.add_note('file:///t/rp-evil/secret.md', 'Alpha secret', 'secret') AS evil \gset

CREATE FUNCTION t.rp(principal text, method text, params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql AS $$ SELECT mcp_notes.handle_as(principal, jsonb_build_object('method', method, 'params', params)) $$;

-- resources/list: each readable note once (b.txt is in two grants), none of eve's
SELECT jsonb_pretty(t.rp('rita', 'resources/list') #> '{result}' #- '{resources,0,description}'
                    #- '{resources,1,description}' #- '{resources,2,description}') AS page;
SELECT jsonb_array_length(t.rp('eve', 'resources/list') #> '{result,resources}') AS eves_resources,
       t.rp('nobody', 'resources/list') #> '{result,resources}' AS nobodys;

-- paging: 120 more notes, pages of 50, no repeat, no gap
SELECT count(*) FROM (SELECT mcp_notes.add_note(format('file:///t/rp/p/n%s.md', lpad(i::text, 3, '0')), 'n' || i)
                      FROM generate_series(1, 120) i) x;
CREATE FUNCTION t.all_pages(principal text) RETURNS TABLE (page integer, uris text[])
LANGUAGE plpgsql AS $$
DECLARE
    r jsonb;
    cursor_ jsonb := NULL;
BEGIN
    FOR i IN 1 .. 10 LOOP
        r := t.rp(principal, 'resources/list', jsonb_strip_nulls(jsonb_build_object('cursor', cursor_)));
        page := i;
        uris := ARRAY(SELECT x ->> 'uri' FROM jsonb_array_elements(r #> '{result,resources}') x);
        RETURN NEXT;
        cursor_ := r #> '{result,nextCursor}';
        EXIT WHEN cursor_ IS NULL;
    END LOOP;
END;
$$;
SELECT page, cardinality(uris) FROM t.all_pages('rita') ORDER BY page;
SELECT count(*) AS listed, count(DISTINCT u) AS distinct_uris,
       array_agg(u ORDER BY p, o) = array_agg(u ORDER BY u COLLATE "C") AS in_uri_order
FROM t.all_pages('rita') p(p, uris), unnest(uris) WITH ORDINALITY AS x(u, o);

-- cursors: sealed, bound to the principal
SELECT t.rp('rita', 'resources/list') #>> '{result,nextCursor}' AS cur \gset
SELECT t.rp('eve', 'resources/list', jsonb_build_object('cursor', :'cur')) #> '{error,data}' AS other_principal;
SELECT t.rp('rita', 'resources/list', jsonb_build_object('cursor', :'cur' || 'x')) #> '{error,data}' AS altered;
SELECT t.rp('rita', 'resources/list', '{"cursor": 7}') #> '{error,data}' AS not_a_string;
SELECT t.rp('rita', 'resources/list', '{"cursor": null}') #> '{result}' ? 'nextCursor' AS null_cursor_is_the_first_page;

-- templates: one per grant
SELECT t.rp('rita', 'resources/templates/list') #> '{result}' AS templates;
SELECT t.rp('eve', 'resources/templates/list') #> '{result,resourceTemplates}' AS eves_templates;

-- resources/read
SELECT t.rp('rita', 'resources/read', '{"uri": "file:///t/rp/a.md"}') AS read_md;
SELECT t.rp('rita', 'resources/read', '{"uri": "file:///t/rp/inner/b.txt"}') #>> '{result,contents,0,mimeType}' AS txt,
       t.rp('rita', 'resources/read', '{"uri": "file:///t/rp/c.MARKDOWN"}') #>> '{result,contents,0,mimeType}' AS markdown,
       t.rp('rita', 'resources/read', '{"uri": "file:///t/rp/x/../a.md"}') #>> '{result,contents,0,uri}' AS normalized;
-- unknown and unauthorized: the same answer, data.uri echoing the request
SELECT u AS uri, t.rp('rita', 'resources/read', jsonb_build_object('uri', u)) -> 'error' AS error
FROM unnest(ARRAY['file:///t/rp-evil/secret.md', 'file:///t/rp/../rp-evil/secret.md',
                  'file:///t/rp/%2e%2e/rp-evil/secret.md', 'file:///t/rp/none.md', 'file:///t/rp%2fx',
                  'test://x', '']) u;
SELECT t.rp('eve', 'resources/read', '{"uri": "file:///t/rp/a.md"}') #> '{error,data}' AS eve_reads_alpha;
SELECT t.rp('rita', 'resources/read', '{"uri": 1}') #> '{error,data}' AS uri_not_a_string;
-- a revoked grant takes effect at once
SELECT mcp_notes.revoke_workspace('rita', 'file:///t/rp/inner');
SELECT t.rp('rita', 'resources/read', '{"uri": "file:///t/rp/inner/b.txt"}') ? 'result' AS still_in_the_outer_grant;
SELECT mcp_notes.grant_workspace('rita', 'file:///t/rp/inner');

-- prompts
SELECT (t.rp('rita', 'prompts/list') #> '{result}') - 'prompts' AS prompts_list,
       t.rp('rita', 'prompts/list') #> '{result}' = mcp_notes.features() #> '{publicResults,prompts/list}' AS public;
SELECT jsonb_pretty(t.rp('rita', 'prompts/get', jsonb_build_object('name', 'review_note',
    'arguments', jsonb_build_object('workspaceUri', 'file:///t/rp', 'noteId', :'alpha')))) AS review;
SELECT t.rp('rita', 'prompts/get', '{"name": "review_note", "arguments": {"workspaceUri": "file:///t/rp", "title": "gAMm"}}')
       #>> '{result,messages,1,content,resource,uri}' AS by_title;
SELECT c.label, t.rp('rita', 'prompts/get', jsonb_build_object('name', 'review_note', 'arguments', c.a)) -> 'error' AS error
FROM (VALUES
    ('id outside the workspace', jsonb_build_object('workspaceUri', 'file:///t/rp', 'noteId', :'evil')),
    ('workspace not granted', jsonb_build_object('workspaceUri', 'file:///t/rp-evil', 'noteId', :'evil')),
    ('title, not granted', jsonb_build_object('workspaceUri', 'file:///t/rp-evil', 'title', 'secret')),
    ('traversal', jsonb_build_object('workspaceUri', 'file:///t/rp/../rp-evil', 'title', 'secret')),
    ('no such title', jsonb_build_object('workspaceUri', 'file:///t/rp', 'title', 'no such')),
    ('two titles match', jsonb_build_object('workspaceUri', 'file:///t/rp', 'title', 'n10')),
    ('neither noteId nor title', jsonb_build_object('workspaceUri', 'file:///t/rp')),
    ('a number', jsonb_build_object('workspaceUri', 'file:///t/rp', 'noteId', 5))) c(label, a);
SELECT t.rp('rita', 'prompts/get', '{"name": "nope"}') -> 'error' AS unknown_prompt,
       t.rp('rita', 'prompts/get', '{}') -> 'error' AS no_name;

-- completion: scoped to the grants
CREATE FUNCTION t.complete(principal text, arg text, typed text, ws text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql AS $$
    SELECT t.rp(principal, 'completion/complete', jsonb_strip_nulls(jsonb_build_object(
        'ref', '{"type": "ref/prompt", "name": "review_note"}'::jsonb,
        'argument', jsonb_build_object('name', arg, 'value', typed),
        'context', CASE WHEN ws IS NOT NULL THEN jsonb_build_object('arguments', jsonb_build_object('workspaceUri', ws)) END)))
        #> '{result,completion}'
$$;
SELECT t.complete('rita', 'workspaceUri', 'file:///t/') AS rita_workspaces,
       t.complete('eve', 'workspaceUri', 'file:///t/rp/') AS eve_workspaces;
SELECT t.complete('rita', 'title', 'alpha', 'file:///t/rp') AS titles,
       t.complete('rita', 'title', 'alpha', 'file:///t/rp-evil') AS not_granted,
       t.complete('rita', 'title', 'alpha') AS no_workspace;
SELECT t.complete('rita', 'noteId', left(:'alpha', 8), 'file:///t/rp') -> 'values' = jsonb_build_array(:'alpha') AS note_id,
       t.complete('rita', 'noteId', left(:'evil', 8), 'file:///t/rp') AS outside;
SELECT (x - 'values') AS more_than_100, jsonb_array_length(x -> 'values') AS values_sent
FROM (SELECT t.rp('rita', 'completion/complete', '{"ref": {"type": "ref/resource", "uri": "file:///t/rp/{+path}"}, "argument": {"name": "path", "value": "p/"}}')
             #> '{result,completion}') AS c(x);
SELECT t.rp('rita', 'completion/complete', '{"ref": {"type": "ref/resource", "uri": "file:///t/rp/{+path}"}, "argument": {"name": "path", "value": "inner/"}}')
       #> '{result,completion,values}' AS paths,
       t.rp('eve', 'completion/complete', '{"ref": {"type": "ref/resource", "uri": "file:///t/rp/{+path}"}, "argument": {"name": "path", "value": ""}}')
       #> '{error,data}' AS eve_paths;
SELECT t.rp('rita', 'completion/complete', p) -> 'error' AS malformed
FROM unnest(ARRAY['{}'::jsonb, '{"ref": {"type": "ref/prompt", "name": "review_note"}}',
                  '{"ref": {"type": "ref/other"}, "argument": {"name": "a", "value": "b"}}',
                  '{"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": "b"}}']) p;

-- What a suggester reads is bounded first: a value or name longer than
-- any argument, a prompt name longer than the registry's, a template
-- longer than any.
SELECT label, t.rp('rita', 'completion/complete', p) #> '{error,data}' AS refused
FROM (VALUES
    ('value of 4097', jsonb_build_object('ref', '{"type": "ref/prompt", "name": "review_note"}'::jsonb,
                                         'argument', jsonb_build_object('name', 'title', 'value', repeat('v', 4097)))),
    ('name of 101', jsonb_build_object('ref', '{"type": "ref/prompt", "name": "review_note"}'::jsonb,
                                       'argument', jsonb_build_object('name', repeat('n', 101), 'value', ''))),
    ('prompt name of 65', jsonb_build_object('ref', jsonb_build_object('type', 'ref/prompt', 'name', repeat('p', 65)),
                                             'argument', '{"name": "a", "value": ""}'::jsonb)),
    ('template of 8193', jsonb_build_object('ref', jsonb_build_object('type', 'ref/resource', 'uri', repeat('u', 8193)),
                                            'argument', '{"name": "path", "value": ""}'::jsonb))) AS v(label, p);
-- A value longer than its argument may be (title: 500, as a title) suggests
-- nothing, and never reaches the title search; neither does a prompt's.
SET track_functions = 'all';
SELECT pg_stat_reset_single_function_counters('mcp_notes._candidates(text,text,integer)'::regprocedure);
SELECT t.complete('rita', 'title', repeat('alpha ', 84), 'file:///t/rp') AS title_of_504;
SELECT t.rp('rita', 'prompts/get', jsonb_build_object('name', 'review_note', 'arguments',
            jsonb_build_object('workspaceUri', 'file:///t/rp', 'title', repeat('alpha ', 84)))) -> 'error' AS prompt_title_of_504;
SELECT t.rp('rita', 'prompts/get', jsonb_build_object('name', 'review_note', 'arguments',
            jsonb_build_object('workspaceUri', 'file:///t/rp', 'noteId', repeat('i', 101)))) #> '{error,message}' AS prompt_note_id_of_101;
SELECT coalesce((SELECT f.calls FROM pg_stat_xact_user_functions f WHERE f.funcname = '_candidates'), 0) AS title_searches;
-- A resource URI longer than any URI names nothing; no kind is asked.
SELECT t.rp('rita', 'resources/read', jsonb_build_object('uri', 'file:///t/rp/' || repeat('u', 4090))) #>> '{error,data,reason}' AS long_uri,
       coalesce((SELECT f.calls FROM pg_stat_xact_user_functions f WHERE f.funcname = '_resources_notes'), 0) AS kinds_asked;
RESET track_functions;

-- Completion reads what the typed text names, not the workspace: 2,000
-- notes in folders, and the rows of notes each completion read (by index
-- or otherwise; counted for this transaction).
SELECT count(mcp_notes.add_note(format('file:///t/rp/big/d%s/n%s.md', i / 100, i), 'big ' || i))
FROM generate_series(1, 2000) i;
CREATE FUNCTION t.reads() RETURNS bigint LANGUAGE sql AS $$
    SELECT coalesce((SELECT r.idx_tup_fetch + r.seq_tup_read FROM pg_stat_xact_user_tables r
                     WHERE r.schemaname = 'mcp_notes' AND r.relname = 'notes'), 0)
$$;
BEGIN;
SELECT t.reads() AS r0 \gset
SELECT t.rp('rita', 'completion/complete', '{"ref": {"type": "ref/resource", "uri": "file:///t/rp/{+path}"}, "argument": {"name": "path", "value": "big/d17/n170"}}')
       #> '{result,completion}' AS path_values;
SELECT t.reads() - :r0 < 30 AS path_read_only_the_prefix;
SELECT mcp_notes.add_note('file:///t/rp/big/idnote.md', 'id note') AS idnote \gset
SELECT t.reads() AS r2 \gset
SELECT t.complete('rita', 'noteId', left(:'idnote', 6), 'file:///t/rp') -> 'values' = jsonb_build_array(:'idnote') AS id_values;
SELECT t.reads() - :r2 < 30 AS id_read_only_the_key_range;
COMMIT;
-- ids complete from 4 typed characters of an id's form; fewer, or another
-- form, suggest nothing
SELECT t.complete('rita', 'noteId', left(:'idnote', 3), 'file:///t/rp') AS three_characters,
       t.complete('rita', 'noteId', 'ABCD', 'file:///t/rp') AS upper_case,
       t.complete('rita', 'noteId', left(:'idnote', 8) || 'x', 'file:///t/rp') AS not_an_id,
       t.complete('rita', 'noteId', :'idnote', 'file:///t/rp') -> 'values' = jsonb_build_array(:'idnote') AS the_whole_id;

-- Titles leave as labels: resources/list, prompt text, completion values
-- are printable; a completed title names its note in prompts/get.
SELECT mcp_notes.add_note('file:///t/rp/bidi.md', E'memo \u202Etxt.exe\u202C\nnext', 'memo body') AS bidi \gset
CREATE FUNCTION t.invisible(s text) RETURNS boolean LANGUAGE sql AS $$
    SELECT s ~ '[\u0001-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF]'
$$;
SELECT r ->> 'name' AS name, t.invisible(r::text) AS resource_has_invisible
FROM jsonb_array_elements(t.rp('rita', 'resources/list') #> '{result,resources}') r WHERE r ->> 'uri' = 'file:///t/rp/bidi.md';
SELECT t.complete('rita', 'title', 'memo', 'file:///t/rp') -> 'values' AS completed,
       t.invisible((t.complete('rita', 'title', 'memo', 'file:///t/rp') -> 'values')::text) AS has_invisible;
SELECT x #>> '{result,description}' AS description, x #>> '{result,messages,1,content,resource,text}' AS note_text,
       t.invisible(x #>> '{result,description}') OR t.invisible(x #>> '{result,messages,0,content,text}') AS has_invisible,
       x #>> '{result,messages,1,content,resource,uri}' AS uri
FROM t.rp('rita', 'prompts/get', jsonb_build_object('name', 'review_note', 'arguments', jsonb_build_object(
        'workspaceUri', 'file:///t/rp', 'title', t.complete('rita', 'title', 'memo', 'file:///t/rp') -> 'values' ->> 0))) x;

-- the registries decide what features() advertises
BEGIN;
DELETE FROM mcp_notes.prompts;
SELECT mcp_notes.features() -> 'methods' AS methods, mcp_notes.features() -> 'capabilities' AS capabilities,
       mcp_notes.features() -> 'publicResults' ? 'prompts/list' AS prompts_public;
DELETE FROM mcp_notes.resource_kinds;
SELECT mcp_notes.features() -> 'methods' AS methods, mcp_notes.features() -> 'capabilities' AS capabilities;
ROLLBACK;
