-------------------------------------------------------------------------------
-- The notes_search tool
-------------------------------------------------------------------------------

-- Title contains the query, case-insensitive, through _titles_containing
-- (the title search; a query copied from a label finds its note too).
-- Best first: exact title (rank 0), title starting with the query (1),
-- title containing it (2), the title as stored or as labels show it; then
-- by URI byte-wise.  The keyset is (rank, URI).
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
    SELECT * INTO a FROM _notes_arguments(principal, request);
    IF a.outcome IS NOT NULL THEN
        RETURN a.outcome;
    END IF;
    q := a.args ->> 'query';
    IF btrim(q) = '' THEN
        RETURN _tool_refusal('notes_search: query must not be blank.');
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
        SELECT m AS note, m.uri, CASE WHEN lower(q) IN (lower(m.title), lower(_title_label(m.title))) THEN 0
                                      WHEN starts_with(lower(m.title), lower(q))
                                           OR starts_with(lower(_title_label(m.title)), lower(q)) THEN 1
                                      ELSE 2 END AS rank,
               count(*) OVER () AS total
        FROM _titles_containing(a.workspace, q, max_matches + 1) m)
    SELECT jsonb_agg(_note_summary(p.note) || jsonb_build_object('after', jsonb_build_object('rank', p.rank, 'uri', p.uri))
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
                                    max_matches, a.workspace, _printable(q)));
    END IF;
    RETURN _notes_page(principal, 'notes_search', digest, coalesce(found, '[]'), page_size);
END;
$$;
COMMENT ON FUNCTION _tool_notes_search(text, jsonb) IS
'Internal: the notes_search tool: notes inside a granted workspace whose title contains the query, best matches first, 50 a page, with a sealed keyset cursor';

-- notes_search in the registry: its descriptor for tools/list, its handler for tools/call.
SELECT _register_tool(6, _tool_descriptor('{
  "name": "notes_search",
  "title": "Search notes by title",
  "description": "Finds the notes inside a workspace you are granted whose title contains the query (case-insensitive; titles only, not bodies). Best matches first: exact title, then titles starting with the query, then the rest, each by uri; 50 a page, at most 1000 matches. When nextCursor is present, call again with it as cursor (same workspaceUri and query). Titles are shown as notes_list shows them.",
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "workspaceUri": {"$use": "workspaceUri"},
      "query": {"$use": "titleText", "description": "Text the titles contain"},
      "cursor": {"$use": "cursor"}
    },
    "required": ["workspaceUri", "query"],
    "additionalProperties": false
  },
  "outputSchema": {"$use": "notesPage"},
  "annotations": {"readOnlyHint": true, "openWorldHint": false}
}'));
