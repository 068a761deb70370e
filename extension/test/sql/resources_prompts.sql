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
SELECT (t.complete('rita', 'noteId', '', 'file:///t/rp') - 'values') AS more_than_100,
       jsonb_array_length(t.complete('rita', 'noteId', '', 'file:///t/rp') -> 'values') AS values_sent;
SELECT t.rp('rita', 'completion/complete', '{"ref": {"type": "ref/resource", "uri": "file:///t/rp/{+path}"}, "argument": {"name": "path", "value": "inner/"}}')
       #> '{result,completion,values}' AS paths,
       t.rp('eve', 'completion/complete', '{"ref": {"type": "ref/resource", "uri": "file:///t/rp/{+path}"}, "argument": {"name": "path", "value": ""}}')
       #> '{error,data}' AS eve_paths;
SELECT t.rp('rita', 'completion/complete', p) -> 'error' AS malformed
FROM unnest(ARRAY['{}'::jsonb, '{"ref": {"type": "ref/prompt", "name": "review_note"}}',
                  '{"ref": {"type": "ref/other"}, "argument": {"name": "a", "value": "b"}}',
                  '{"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": "b"}}']) p;

-- the registries decide what features() advertises
BEGIN;
DELETE FROM mcp_notes.prompts;
SELECT mcp_notes.features() -> 'methods' AS methods, mcp_notes.features() -> 'capabilities' AS capabilities,
       mcp_notes.features() -> 'publicResults' ? 'prompts/list' AS prompts_public;
DELETE FROM mcp_notes.resource_kinds;
SELECT mcp_notes.features() -> 'methods' AS methods, mcp_notes.features() -> 'capabilities' AS capabilities;
ROLLBACK;
