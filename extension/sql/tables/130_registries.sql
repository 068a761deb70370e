-------------------------------------------------------------------------------
-- The tool registry
-------------------------------------------------------------------------------

-- One row per tool: tools/list lists the descriptors in position order and
-- tools/call runs the handler named by the row.  The handler is a function
-- name, not a regprocedure: pg_upgrade refuses tables with reg* columns
-- other than regclass, regrole and regtype.  Every handler has the
-- signature (principal text, request jsonb) -> jsonb.
CREATE TABLE tools (
    name        text PRIMARY KEY CHECK (name OPERATOR(pg_catalog.~) '^[a-z][a-z0-9_]{0,63}$'),
    position    integer NOT NULL UNIQUE,
    descriptor  jsonb NOT NULL CHECK ((descriptor OPERATOR(pg_catalog.->>) 'name') OPERATOR(pg_catalog.=) name),
    handler     text NOT NULL CHECK (handler OPERATOR(pg_catalog.=) ('_tool_' OPERATOR(pg_catalog.||) name))
);
COMMENT ON TABLE tools IS
'The tool registry: one row per tool (descriptor for tools/list, handler _tool_<name>(principal text, request jsonb) for tools/call); part of the extension version';

-- Resources come from resource kinds: one row per kind, whose handler
-- _resources_<name>(principal text, request jsonb) -> jsonb answers four
-- questions for its own URIs, by request.method (docs/resources-prompts.md):
--   resources/list            params {after, limit}: up to limit rows
--                             [{key, resource}] with key > after, by key
--   resources/templates/list  the principal's templates, an array
--   resources/read            the outcome, or NULL: not a URI of this kind
--                             (or not one the principal may read)
--   completion/complete       values for a template argument, or NULL: not
--                             a template of this kind
-- Like tools, the handler is a name that the CHECK ties to the kind.
CREATE TABLE resource_kinds (
    name        text PRIMARY KEY CHECK (name OPERATOR(pg_catalog.~) '^[a-z][a-z0-9_]{0,63}$'),
    position    integer NOT NULL UNIQUE,
    handler     text NOT NULL CHECK (handler OPERATOR(pg_catalog.=) ('_resources_' OPERATOR(pg_catalog.||) name))
);
COMMENT ON TABLE resource_kinds IS
'The resource registry: one row per kind of resource, answered by _resources_<name>(principal text, request jsonb); part of the extension version';

-- One row per prompt: prompts/list lists the descriptors in position
-- order, prompts/get runs the handler, completion/complete the completer
-- (NULL: the prompt's arguments have no suggestions).
CREATE TABLE prompts (
    name        text PRIMARY KEY CHECK (name OPERATOR(pg_catalog.~) '^[a-z][a-z0-9_]{0,63}$'),
    position    integer NOT NULL UNIQUE,
    descriptor  jsonb NOT NULL CHECK ((descriptor OPERATOR(pg_catalog.->>) 'name') OPERATOR(pg_catalog.=) name),
    handler     text NOT NULL CHECK (handler OPERATOR(pg_catalog.=) ('_prompt_' OPERATOR(pg_catalog.||) name)),
    completer   text CHECK (completer OPERATOR(pg_catalog.=) ('_complete_' OPERATOR(pg_catalog.||) name))
);
COMMENT ON TABLE prompts IS
'The prompt registry: one row per prompt (descriptor for prompts/list, handler _prompt_<name> for prompts/get, optional completer _complete_<name> for completion/complete); part of the extension version';
