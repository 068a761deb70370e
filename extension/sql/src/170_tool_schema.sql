-------------------------------------------------------------------------------
-- Descriptors: the schema parts tools share
-------------------------------------------------------------------------------

-- What the descriptors of the notes tools share, written once: the
-- arguments several tools take, with the limits (_note_limit for titles and
-- bodies; 4096 is the URI limit of normalize_uri, 16384 the longest sealed
-- token _open_state reads, 200 the longest text a title search takes), and
-- the page of notes that notes_list and notes_search return.  Schemas are
-- JSON Schema 2020-12 (the MCP default dialect), said explicitly by
-- $schema.  _tool_arguments enforces what they say before a tool runs.
CREATE OR REPLACE FUNCTION _tool_schema(part text) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE part
        WHEN 'workspaceUri' THEN '{"type": "string", "format": "uri", "maxLength": 4096,
                         "description": "file: URI of the workspace (or a folder inside it), e.g. file:///work/notes"}'::jsonb
        WHEN 'noteUri' THEN '{"type": "string", "format": "uri", "maxLength": 4096}'
        WHEN 'noteId' THEN '{"type": "string", "maxLength": 100}'
        WHEN 'noteTitle' THEN jsonb_build_object('type', 'string', 'minLength', 1, 'maxLength', _note_limit('title_chars'))
        WHEN 'noteBody' THEN jsonb_build_object('type', 'string', 'maxLength', _note_limit('body_bytes'))
        WHEN 'titleText' THEN '{"type": "string", "minLength": 1, "maxLength": 200}'
        WHEN 'expectedUpdatedAt' THEN '{"type": "string", "format": "date-time", "maxLength": 40,
                         "description": "The note''s updatedAt exactly as a notes tool returned it; the call is refused if the note changed since"}'
        WHEN 'cursor' THEN '{"type": "string", "maxLength": 16384, "description": "nextCursor of the previous page, as it was returned"}'
        WHEN 'notesPage' THEN '{"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "type": "object",
                      "properties": {"notes": {"type": "array", "items": {"$ref": "#/$defs/noteSummary"}},
                                     "nextCursor": {"type": "string"}},
                      "required": ["notes"],
                      "$defs": {"noteSummary": {"type": "object",
                                                "properties": {"noteId": {"type": "string"}, "uri": {"type": "string"},
                                                               "title": {"type": "string"},
                                                               "updatedAt": {"type": "string", "format": "date-time"}},
                                                "required": ["noteId", "uri", "title", "updatedAt"]}}}'
    END
$$;
COMMENT ON FUNCTION _tool_schema(text) IS
'Internal: a schema part the notes tools'' descriptors share: an argument (workspaceUri, noteUri, noteId, noteTitle, noteBody, titleText, expectedUpdatedAt, cursor) or notesPage (an outputSchema)';

-- A descriptor as a tool file writes it, with {"$use": part, ...} where a
-- shared part goes: in inputSchema.properties (the part, then the members
-- written beside $use, e.g. a description) and as outputSchema.
CREATE OR REPLACE FUNCTION _tool_descriptor(descriptor jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT jsonb_set(d, '{inputSchema,properties}', coalesce((
               SELECT jsonb_object_agg(p.key, CASE WHEN p.value ? '$use'
                                                   THEN _tool_schema(p.value ->> '$use') || (p.value - '$use')
                                                   ELSE p.value END)
               FROM jsonb_each(d #> '{inputSchema,properties}') p), '{}'))
    FROM (SELECT CASE WHEN descriptor #> '{outputSchema,$use}' IS NOT NULL
                      THEN jsonb_set(descriptor, '{outputSchema}', _tool_schema(descriptor #>> '{outputSchema,$use}'))
                      ELSE descriptor END AS d) x
$$;
COMMENT ON FUNCTION _tool_descriptor(jsonb) IS
'Internal: a tool descriptor with each {"$use": part} of inputSchema.properties and outputSchema replaced by _tool_schema(part) (and the members beside it)';
