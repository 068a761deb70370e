-- Title contains the query, case-insensitive, through _candidates.  Best
-- first: exact title (rank 0), title starting with the query (1), title
-- containing it (2); then by URI byte-wise.  The keyset is (rank, URI).
-- At most max_matches notes are ranked: a broader query is refused, so
-- every page ranks the same complete set.
CREATE OR REPLACE FUNCTION _tool_notes_search(principal text, request jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    page_size constant integer := 50;
    max_matches constant integer := 1000;
    a record;
    refusal jsonb;
    after jsonb;
    q text;
    digest text;
    found jsonb;
    matches bigint;
BEGIN
    SELECT * INTO a FROM _notes_arguments('notes_search', principal, request #> '{params,arguments}',
                                          '{workspaceUri,query}', '{cursor}');
    IF a.outcome IS NOT NULL THEN
        RETURN a.outcome;
    END IF;
    q := a.args ->> 'query';
    IF length(q) NOT BETWEEN 1 AND 200 OR btrim(q) = '' THEN
        RETURN _tool_refusal('notes_search: query must be 1 to 200 characters and not blank.');
    END IF;
    digest := _args_digest(a.workspace, q);
    IF a.args ? 'cursor' THEN
        SELECT o.refusal, o.after INTO refusal, after
        FROM _cursor_open(principal, 'notes_search', digest, a.args ->> 'cursor') o;
        IF refusal IS NOT NULL THEN
            RETURN refusal;
        END IF;
    END IF;
    WITH ranked AS (
        SELECT m.*, CASE WHEN lower(m.title) = lower(q) THEN 0
                         WHEN starts_with(lower(m.title), lower(q)) THEN 1 ELSE 2 END AS rank,
               count(*) OVER () AS total
        FROM _candidates(a.workspace, q, max_matches + 1) m)
    SELECT jsonb_agg(jsonb_build_object('noteId', p.note_id, 'uri', p.uri, 'title', p.title,
                                        'updatedAt', _note_time(p.updated_at),
                                        'after', jsonb_build_object('rank', p.rank, 'uri', p.uri))
                     ORDER BY p.rank, p.uri COLLATE "C"),
           max(p.total)
      INTO found, matches
    FROM (SELECT r.* FROM ranked r
          WHERE after IS NULL
             OR (r.rank, r.uri COLLATE "C") > ((after ->> 'rank')::integer, (after ->> 'uri') COLLATE "C")
          ORDER BY r.rank, r.uri COLLATE "C"
          LIMIT page_size + 1) p;
    IF matches > max_matches THEN
        RETURN _tool_refusal(format('More than %s notes in %s have a title containing "%s". Use a longer query or a narrower workspace (or notes_list).',
                                    max_matches, a.workspace, _printable(q, 200)));
    END IF;
    RETURN _notes_page(principal, 'notes_search', digest, coalesce(found, '[]'), page_size);
END;
$$;
COMMENT ON FUNCTION _tool_notes_search(text, jsonb) IS
'Internal: the notes_search tool: notes inside a granted workspace whose title contains the query, best matches first, 50 a page, with a sealed keyset cursor';

-- notes_search in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(6, jsonb_set('{
  "name": "notes_search",
  "title": "Search notes by title",
  "description": "Finds the notes inside a workspace you are granted whose title contains the query (case-insensitive; titles only, not bodies). Best matches first: exact title, then titles starting with the query, then the rest, each by uri; 50 a page, at most 1000 matches. When nextCursor is present, call again with it as cursor (same workspaceUri and query).",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Text the titles contain"},
      "cursor": {"type": "string", "maxLength": 16384, "description": "nextCursor of the previous page, as it was returned"}
    },
    "required": ["workspaceUri", "query"],
    "additionalProperties": false
  },
  "annotations": {"readOnlyHint": true, "openWorldHint": false}
}'::jsonb, '{inputSchema,properties,workspaceUri}', _tool_schema('workspaceUri'))
    || jsonb_build_object('outputSchema', _tool_schema('notesPage')));
