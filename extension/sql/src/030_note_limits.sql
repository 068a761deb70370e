-- Limits on what a note holds, written once: _note_limit says them,
-- _check_note_title and _check_note_body apply them to every write path
-- (add_note, the notes tools; the trigger notes_size to any other writer),
-- and the tools' inputSchemas publish them (_tool_schema).
CREATE OR REPLACE FUNCTION _note_limit(what text) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$ SELECT CASE what WHEN 'title_chars' THEN 500 WHEN 'body_bytes' THEN 1048576 END $$;
COMMENT ON FUNCTION _note_limit(text) IS
'Internal: a limit on what a note holds: title_chars (500 characters) or body_bytes (1048576 bytes of UTF-8)';

-- 22001 string_data_right_truncation, with the limit.
CREATE OR REPLACE FUNCTION _check_note_title(title text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF title IS NULL OR btrim(title) = '' THEN
        RAISE EXCEPTION 'note title must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(title) > _note_limit('title_chars') THEN
        RAISE EXCEPTION 'note title is too long'
            USING ERRCODE = 'string_data_right_truncation',
                  DETAIL = format('A title has at most %s characters; this one has %s.',
                                  _note_limit('title_chars'), length(title));
    END IF;
END;
$$;
COMMENT ON FUNCTION _check_note_title(text) IS
'Internal: raises 22023 for an empty or blank note title, 22001 for one longer than 500 characters';

CREATE OR REPLACE FUNCTION _check_note_body(body text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF octet_length(body) > _note_limit('body_bytes') THEN
        RAISE EXCEPTION 'note body is too long'
            USING ERRCODE = 'string_data_right_truncation',
                  DETAIL = format('A body has at most %s bytes in UTF-8; this one has %s.',
                                  _note_limit('body_bytes'), octet_length(body));
    END IF;
END;
$$;
COMMENT ON FUNCTION _check_note_body(text) IS
'Internal: raises 22001 for a note body longer than 1048576 bytes (1 MiB); NULL passes (it means an empty body)';

-- Any other writer of notes meets the same limits, but only for a title or
-- body it writes: a note written before the limits keeps its title and body
-- and can still be moved.
CREATE OR REPLACE FUNCTION _check_note_size() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title THEN
        PERFORM _check_note_title(NEW.title);
    END IF;
    IF TG_OP = 'INSERT' OR NEW.body IS DISTINCT FROM OLD.body THEN
        PERFORM _check_note_body(NEW.body);
    END IF;
    RETURN NEW;
END;
$$;
COMMENT ON FUNCTION _check_note_size() IS
'Internal: trigger that applies _check_note_title and _check_note_body to a title or body being written';
