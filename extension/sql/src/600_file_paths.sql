-------------------------------------------------------------------------------
-- File-backed workspaces: note URIs and file paths, note text and file content
-------------------------------------------------------------------------------

-- A note's URI below a file workspace is the workspace's URI and the file's
-- path below the root, each byte that is not unreserved percent-encoded,
-- then normalized (normalize_uri decodes the ones its canonical form writes
-- raw).  NULL when the path makes no URI (normalize_uri refuses it: a
-- backslash, a control character).
CREATE OR REPLACE FUNCTION _file_uri(workspace text, rel_path text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    encoded text;
BEGIN
    -- each byte of a character that is not unreserved: %E2%82%AC for one euro sign
    SELECT string_agg(CASE WHEN c.b ~ '^[A-Za-z0-9._~/-]$' THEN c.b
                           ELSE regexp_replace(upper(encode(convert_to(c.b, 'UTF8'), 'hex')), '(..)', '%\1', 'g')
                      END, '' ORDER BY c.i)
    INTO encoded
    FROM regexp_split_to_table(rel_path, '') WITH ORDINALITY AS c(b, i);
    RETURN normalize_uri(CASE WHEN workspace = 'file:///' THEN 'file://' ELSE workspace END || '/' || encoded);
EXCEPTION WHEN invalid_text_representation THEN
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _file_uri(text, text) IS
'Internal: the canonical note URI of the file at rel_path below a file workspace, NULL when that path makes no valid URI';

-- The inverse: the path below the root of a note URI inside the workspace,
-- percent-decoded exactly once (the URI is canonical, so every % is an
-- encoding).  NULL when the URI is not strictly inside.
CREATE OR REPLACE FUNCTION _file_rel_path(workspace text, uri text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN uri_contains(workspace, uri) AND uri <> workspace THEN
        convert_from(coalesce((
            SELECT string_agg(CASE WHEN p.m[1] IS NOT NULL THEN decode(substr(p.m[1], 2), 'hex')
                                   ELSE convert_to(p.m[2], 'UTF8') END, ''::bytea ORDER BY p.i)
            FROM regexp_matches(substr(uri, length(CASE WHEN workspace = 'file:///' THEN 'file://' ELSE workspace END) + 2),
                                '(%[0-9A-Fa-f]{2})|([^%]+)', 'g')
                     WITH ORDINALITY AS p(m, i)), ''::bytea), 'UTF8')
    END
$$;
COMMENT ON FUNCTION _file_rel_path(text, text) IS
'Internal: the path below a file workspace''s root of a note URI inside it, decoded once; NULL when not strictly inside';

-- What mcp-notes-fsd takes for a note (fsd/src/scan.h): every component a
-- visible name (no leading '.'), the last ending in ".md".  NULL when rel_path
-- may be a note's file, else the sentence saying why not.
CREATE OR REPLACE FUNCTION _file_path_problem(rel_path text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE
        WHEN rel_path = '' THEN 'A file-backed note needs a file name below the workspace.'
        WHEN rel_path ~ '(^|/)\.' THEN 'Names starting with "." are hidden (the trash, temporary files, .git) and never notes.'
        WHEN rel_path !~ '\.md$' OR rel_path ~ '(^|/)\.md$' THEN 'A file-backed note is a Markdown file: its name ends in ".md".'
        WHEN octet_length(rel_path) > 4000 THEN 'The path is too long for a file.'
    END
$$;
COMMENT ON FUNCTION _file_path_problem(text) IS
'Internal: NULL when a path below a file workspace may be a note''s file (visible names, ending in .md), else why not';

-- A note's file holds "# <title>", a blank line and the body.  A file
-- without that first line (written by someone else) has its name, without
-- ".md", for the title and all of it for the body; heading says which form
-- the file had, so writing it back keeps that form.
CREATE OR REPLACE FUNCTION _file_parse(rel_path text, content text, OUT title text, OUT body text, OUT heading boolean)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    first_line text := split_part(content, E'\n', 1);
    stem text := regexp_replace(regexp_replace(rel_path, '^.*/', ''), '\.md$', '');
BEGIN
    title := left(btrim(substr(first_line, 3), E' \t\r'), 500);
    IF first_line LIKE '# %' AND title <> '' THEN
        body := substr(content, length(first_line) + 2);
        body := CASE WHEN body LIKE E'\n%' THEN substr(body, 2)
                     WHEN body LIKE E'\r\n%' THEN substr(body, 3) ELSE body END;
        heading := true;
    ELSE
        title := left(stem, 500);
        body := content;
        heading := false;
    END IF;
END;
$$;
COMMENT ON FUNCTION _file_parse(text, text) IS
'Internal: title, body and form of a note file''s content ("# title", a blank line, the body; or, without that line, the file name and all of it)';

CREATE OR REPLACE FUNCTION _file_render(rel_path text, title text, body text, heading boolean) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN NOT heading AND title = regexp_replace(regexp_replace(rel_path, '^.*/', ''), '\.md$', '')
                THEN body
                ELSE '# ' || regexp_replace(title, E'[\r\n]+', ' ', 'g') || E'\n\n' || body END
$$;
COMMENT ON FUNCTION _file_render(text, text, text, boolean) IS
'Internal: the content of a note''s file (the inverse of _file_parse): "# title", a blank line and the body, or the body alone when the file had no heading and the title is still its name';
