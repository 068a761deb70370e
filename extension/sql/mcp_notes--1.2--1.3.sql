-- mcp_notes 1.2 -> 1.3: candidate search that keeps its own statistics and
-- is scoped to the workspace first, limits on titles and bodies and a
-- statement timeout for gateway roles; the notes surface (create, read,
-- update, list, search, resources, prompts, completion); legacy-era
-- sessions for the 2025-11-25 adapter; the operators' view of the delete
-- flow.  What this script creates is the same as sql/mcp_notes.sql
-- (test/sql/zz_upgrade.sql).
\echo Use "ALTER EXTENSION mcp_notes UPDATE TO '1.3'" to load this file. \quit

-------------------------------------------------------------------------------
-- Search: statistics of its own, workspace first, limits, statement timeout
-------------------------------------------------------------------------------

-- The title index becomes one of folder-scoped keys with counts of its own
-- (no planner statistics); _title_search_keys, which read them, goes.
DROP INDEX notes_title_trigrams;
DROP FUNCTION _title_search_keys(text);

-- One pass over the characters (the window functions read each once), so
-- the cost is linear in the title's length.
CREATE OR REPLACE FUNCTION _title_trigrams(title text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT coalesce(array_agg(s.gram ORDER BY s.i), '{}')
    FROM (SELECT u.i, u.c || lead(u.c, 1) OVER w || lead(u.c, 2) OVER w AS gram
          FROM unnest(regexp_split_to_array(lower(title), '')) WITH ORDINALITY AS u(c, i)
          WINDOW w AS (ORDER BY u.i)) s
    WHERE s.gram IS NOT NULL
$$;
COMMENT ON FUNCTION _title_trigrams(text) IS
'Internal: the three-character substrings of lower(title), in order (a title that contains a text has all of its trigrams)';

-- A text of three characters or more is looked up by its trigrams; a
-- shorter one has none, so it stands for itself: it finds the notes whose
-- whole title it is (case-insensitive), which one key per short title
-- answers at the cost of any other key.
CREATE FUNCTION _title_grams(title text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
    SELECT CASE WHEN length(lower(title)) < 3 THEN ARRAY[lower(title)]
                ELSE ARRAY(SELECT DISTINCT g FROM unnest(_title_trigrams(title)) AS g ORDER BY g) END
$$;
COMMENT ON FUNCTION _title_grams(text) IS
'Internal: the distinct trigrams of lower(title), or lower(title) itself when it is shorter than three characters';

-- The keys of a note: a 64-bit hash of (folder, gram), for the root and
-- each folder above the note down to 16 levels (a deeper workspace is
-- searched through its ancestor 16 levels down: the same answer, a wider
-- posting list) and each of _title_grams(title).  Not the note's own URI: a
-- workspace equal to a note's URI is looked up by URI.  A collision only
-- lets a note of another folder into a posting list, where uri_contains()
-- drops it.  In C (src/search.c): every insert computes them twice.
CREATE FUNCTION _title_keys(uri text, title text) RETURNS bigint[]
AS 'MODULE_PATHNAME', 'mcp_notes_title_keys'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _title_keys(text, text) IS
'Internal: the title index keys of a note: hashtextextended(folder || '' '' || gram, 0) for each folder it is in (root, then 16 levels) and gram of _title_grams(title)';

-- fastupdate = off: a pending list would be scanned linearly by every search
-- until the next vacuum; notes are added far less often than searched.
CREATE INDEX notes_title_keys ON notes USING gin (_title_keys(uri, title)) WITH (fastupdate = off);

-- How many notes were given each key (an upper bound: a delete does not
-- count down, so deletes never contend on these rows).  Split into 8 shards
-- by note id, so two writers in one folder seldom update the same row.
CREATE TABLE title_key_counts (
    title_key  bigint NOT NULL,
    shard      smallint NOT NULL,
    notes      bigint NOT NULL,
    PRIMARY KEY (title_key, shard)
);
COMMENT ON TABLE title_key_counts IS
'Title search: how many notes were given each title key (per shard; never counted down), kept by triggers on notes';

-- Counting at commit, once per key and transaction: a row updated many
-- times in one transaction leaves a chain of versions that each later
-- update walks, so counting each note as it comes would make a bulk import
-- in one transaction quadratic.  Each written note's keys are appended to a
-- temporary table (this session's, invisible to others, outside the
-- serializable checks), and the first of the deferred triggers at commit
-- adds them up into title_key_counts.
CREATE FUNCTION _note_title_keys_written() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF to_regclass('pg_temp.title_keys_written') IS NULL THEN
        CREATE TEMPORARY TABLE title_keys_written (title_key bigint NOT NULL, shard smallint NOT NULL);
    END IF;
    INSERT INTO pg_temp.title_keys_written (title_key, shard)
    SELECT k.key, (hashtext(NEW.note_id) & 7)::smallint FROM unnest(_title_keys(NEW.uri, NEW.title)) AS k(key);
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _note_title_keys_written() IS
'Internal: trigger that notes the title keys of a written note (inserted, or URI or title changed) for _count_title_keys at commit';

CREATE FUNCTION _count_title_keys() RETURNS trigger
LANGUAGE plpgsql
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF to_regclass('pg_temp.title_keys_written') IS NULL THEN
        RETURN NULL;
    END IF;
    -- keys in order: two writers lock shared rows in the same order
    INSERT INTO title_key_counts AS c (title_key, shard, notes)
    SELECT w.title_key, w.shard, count(*) FROM pg_temp.title_keys_written w
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (title_key, shard) DO UPDATE SET notes = c.notes + excluded.notes;
    -- TRUNCATE, not DELETE: the deferred triggers after this one scan the
    -- table again, and deleted rows would stay in it until commit
    TRUNCATE pg_temp.title_keys_written;
    RETURN NULL;
END;
$$;
COMMENT ON FUNCTION _count_title_keys() IS
'Internal: deferred trigger: adds the title keys this transaction wrote (_note_title_keys_written) to title_key_counts, once per key';
CREATE TRIGGER notes_title_keys_added AFTER INSERT ON notes
    FOR EACH ROW EXECUTE FUNCTION _note_title_keys_written();
CREATE TRIGGER notes_title_keys_changed AFTER UPDATE OF uri, title ON notes
    FOR EACH ROW WHEN (OLD.uri IS DISTINCT FROM NEW.uri OR OLD.title IS DISTINCT FROM NEW.title)
    EXECUTE FUNCTION _note_title_keys_written();
CREATE CONSTRAINT TRIGGER notes_title_keys_counted AFTER INSERT OR UPDATE OF uri, title ON notes
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION _count_title_keys();
-- also where the notes arrive by logical replication (a second count only
-- overstates)
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_added;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_changed;
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_title_keys_counted;

-- Recounting from the notes themselves: the upgrade's back-fill, the end of
-- a bulk load made with the counting trigger disabled (much faster), and a
-- way to bring the counts down after many deletes (never needed for answers).
CREATE FUNCTION recount_title_keys() RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    keys bigint;
BEGIN
    LOCK TABLE notes IN SHARE MODE;
    DELETE FROM title_key_counts;
    INSERT INTO title_key_counts (title_key, shard, notes)
    SELECT k.key, (hashtext(n.note_id) & 7)::smallint, count(*)
    FROM notes n, unnest(_title_keys(n.uri, n.title)) AS k(key)
    GROUP BY 1, 2;
    GET DIAGNOSTICS keys = ROW_COUNT;
    RETURN keys;
END;
$$;
COMMENT ON FUNCTION recount_title_keys() IS
'Recounts title_key_counts from the notes (after many deletes the counts only overstate); returns the number of count rows';

-- the existing notes: the index above was built over them; now their counts
SELECT recount_title_keys() IS NOT NULL AS counted;

-- Limits on what a note holds, in one place for every write path (add_note,
-- the notes tools); the trigger notes_size applies them to any other
-- writer.  22001 string_data_right_truncation, with the limit.
CREATE FUNCTION _check_note_title(title text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF title IS NULL OR btrim(title) = '' THEN
        RAISE EXCEPTION 'note title must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF length(title) > 500 THEN
        RAISE EXCEPTION 'note title is too long'
            USING ERRCODE = 'string_data_right_truncation',
                  DETAIL = format('A title has at most 500 characters; this one has %s.', length(title));
    END IF;
END;
$$;
COMMENT ON FUNCTION _check_note_title(text) IS
'Internal: raises 22023 for an empty or blank note title, 22001 for one longer than 500 characters';

CREATE FUNCTION _check_note_body(body text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    IF octet_length(body) > 1048576 THEN
        RAISE EXCEPTION 'note body is too long'
            USING ERRCODE = 'string_data_right_truncation',
                  DETAIL = format('A body has at most 1048576 bytes (1 MiB) in UTF-8; this one has %s.', octet_length(body));
    END IF;
END;
$$;
COMMENT ON FUNCTION _check_note_body(text) IS
'Internal: raises 22001 for a note body longer than 1048576 bytes (1 MiB); NULL passes (it means an empty body)';

-- Any other writer of notes meets the same limits, but only for a title or
-- body it writes: a note written before the limits keeps its title and body
-- and can still be moved.
CREATE FUNCTION _check_note_size() RETURNS trigger
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
CREATE TRIGGER notes_size BEFORE INSERT OR UPDATE OF title, body ON notes
    FOR EACH ROW EXECUTE FUNCTION _check_note_size();
ALTER TABLE notes ENABLE ALWAYS TRIGGER notes_size;

CREATE OR REPLACE FUNCTION add_note(uri text, title text, body text DEFAULT '') RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    normalized text := _normalize_or_raise(uri, 'note');
    id text;
BEGIN
    PERFORM _check_note_title(title);
    PERFORM _check_note_body(body);
    INSERT INTO notes (uri, title, body)
    VALUES (normalized, add_note.title, coalesce(body, ''))
    RETURNING note_id INTO id;
    RETURN id;
END;
$$;
COMMENT ON FUNCTION add_note(text, text, text) IS
'Creates a note at a file: URI; returns its id.  Title 1 to 500 characters, not blank; body at most 1 MiB (22001 beyond)';

-- Candidate notes: inside the workspace by whole components, title contains
-- the text (uri_contains() and strpos() decide; the index only narrows).  A
-- text shorter than three characters finds the notes whose whole title it
-- is (_title_grams).  The keys looked up are the text's three rarest in the
-- workspace's folder by title_key_counts, so the cost follows the notes
-- inside the workspace that have them, whatever the rest of the table holds
-- and whether or not it was ever analyzed; it is at most the workspace's
-- own posting lists, and stops at max_rows rows.  The planner is left no
-- plan but the bitmap scan of notes_title_keys (no sequential or plain
-- index scan), since without statistics it might guess "scan in some order
-- until max_rows match", a full scan when few match.  Which max_rows rows
-- come back is unspecified: the caller only asks whether there are more
-- than it can offer, and sorts what it keeps.
CREATE OR REPLACE FUNCTION _candidates(workspace text, title_text text, max_rows integer) RETURNS SETOF notes
LANGUAGE plpgsql STABLE
SET search_path = mcp_notes, pg_temp
SET enable_seqscan = off
SET enable_indexscan = off
AS $$
DECLARE
    short constant boolean := length(lower(title_text)) < 3;
    folder text;
    parts text[];
    scope text;
    keys bigint[];
BEGIN
    IF _uri_problem(workspace) IS NOT NULL THEN
        RETURN;     -- uri_contains() is false for every note
    END IF;
    folder := normalize_uri(workspace);
    parts := string_to_array(substr(folder, 9), '/');
    scope := CASE WHEN cardinality(parts) <= 16 THEN folder
                  ELSE 'file:///' || array_to_string(parts[1:16], '/') END;
    SELECT array_agg(r.key ORDER BY r.notes, r.key) INTO keys
    FROM (SELECT k.key, (SELECT coalesce(sum(c.notes), 0) FROM title_key_counts c
                         WHERE c.title_key = k.key) AS notes
          FROM unnest(_title_grams(title_text)) AS g(gram),
               LATERAL (SELECT hashtextextended(scope || ' ' || g.gram, 0)) AS k(key)) r;
    RETURN QUERY
    SELECT n.* FROM notes n
    WHERE n.uri = folder
      AND CASE WHEN short THEN lower(n.title) = lower(title_text)
               ELSE strpos(lower(n.title), lower(title_text)) > 0 END
    UNION ALL
    (SELECT n.* FROM notes n
     WHERE _title_keys(n.uri, n.title) @> keys[1:3]
       AND n.uri <> folder
       AND uri_contains(workspace, n.uri)
       AND CASE WHEN short THEN lower(n.title) = lower(title_text)
                ELSE strpos(lower(n.title), lower(title_text)) > 0 END
     LIMIT max_rows)
    LIMIT max_rows;
END;
$$;
COMMENT ON FUNCTION _candidates(text, text, integer) IS
'Internal: up to max_rows notes inside a workspace whose title contains the text (equals it, below three characters), through the workspace''s own title keys';

-- Step 1: no state yet, so find the candidates and ask.
CREATE OR REPLACE FUNCTION _delete_ask(principal text, request jsonb, workspace text, title_text text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
DECLARE
    refusal jsonb;
    max_candidates constant integer := 25;
    found notes[];
BEGIN
    refusal := _delete_may_ask(principal, request, workspace);
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    -- One read: the form and the digests the state binds come from the same rows.
    SELECT array_agg(c ORDER BY c.uri, c.note_id) INTO found
    FROM _candidates(workspace, title_text, max_candidates + 1) c;
    IF found IS NULL AND length(lower(title_text)) < 3 THEN
        RETURN _tool_result(format('No note in %s has the title "%s". A text shorter than 3 characters finds only '
                                   'notes whose whole title it is: give at least 3 characters of the title.',
                                   workspace, _printable(title_text)), NULL, true);
    END IF;
    IF found IS NULL THEN
        RETURN _tool_result(format('No note in %s has a title containing "%s".', workspace, _printable(title_text)),
                            NULL, true);
    END IF;
    IF cardinality(found) > max_candidates THEN
        RETURN _tool_result(format('More than %s notes in %s have a title containing "%s". Use a longer title or a narrower workspace.',
                                   max_candidates, workspace, _printable(title_text)), NULL, true);
    END IF;
    RETURN jsonb_build_object('result', jsonb_build_object(
        'resultType', 'input_required',
        'inputRequests', _delete_form(workspace, found),
        'requestState', _seal_state(jsonb_build_object(
            'principal', principal,
            'method', 'tools/call',
            'tool', 'notes_delete',
            'args', _args_digest(workspace, title_text),
            'workspace', workspace,
            'candidates', (SELECT jsonb_agg((found[i]).note_id ORDER BY i) FROM generate_subscripts(found, 1) i),
            'shown', (SELECT jsonb_agg(_note_digest(found[i]) ORDER BY i) FROM generate_subscripts(found, 1) i),
            'phase', 'confirm_delete'))));
END;
$$;
COMMENT ON FUNCTION _delete_ask(text, jsonb, text, text) IS
'Internal: notes_delete step 1: the confirmation form for the candidates, with a sealed requestState';

-- The settings of a gateway role: every call serializable; no statement
-- longer than mcp_notes.gateway_statement_timeout (default 5s; read when
-- grant_gateway runs), so no request holds a backend for long (the gateway
-- answers 57014 with a retryable 503); a transaction left open (which the
-- entry points refuse to act in anyway) cut off after 10 s; and no bind
-- parameter in the server log, since $1 of handle() and call_tool() is a
-- bearer token and $2 carries requestState and clientInfo.  The log
-- settings are superuser-only, so the role cannot undo them.
CREATE OR REPLACE FUNCTION _gateway_role_settings(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = mcp_notes, pg_temp
AS $$
BEGIN
    EXECUTE format('ALTER ROLE %s SET default_transaction_isolation = %L', role, 'serializable');
    EXECUTE format('ALTER ROLE %s SET statement_timeout = %L', role,
                   coalesce(nullif(current_setting('mcp_notes.gateway_statement_timeout', true), ''), '5s'));
    EXECUTE format('ALTER ROLE %s SET idle_in_transaction_session_timeout = %L', role, '10s');
    EXECUTE format('ALTER ROLE %s SET log_parameter_max_length = 0', role);
    EXECUTE format('ALTER ROLE %s SET log_parameter_max_length_on_error = 0', role);
END;
$$;
COMMENT ON FUNCTION _gateway_role_settings(regrole) IS
'Internal: a gateway role''s settings: serializable, statement_timeout from mcp_notes.gateway_statement_timeout (default 5s), idle_in_transaction_session_timeout 10s, no bind parameters in the server log';

-- Gateway roles made by grant_gateway before 1.3 (their settings say so)
-- get the statement timeout now.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT s.setrole::regrole AS role FROM pg_db_role_setting s
             WHERE s.setdatabase = 0
               AND 'default_transaction_isolation=serializable' = ANY (s.setconfig)
               AND 'log_parameter_max_length_on_error=0' = ANY (s.setconfig) LOOP
        PERFORM _gateway_role_settings(r.role);
    END LOOP;
END;
$$;

REVOKE ALL ON TABLE title_key_counts FROM PUBLIC;
REVOKE ALL ON FUNCTION _title_grams(text), _title_keys(text, text), _count_title_keys(), _note_title_keys_written(), recount_title_keys(),
    _check_note_title(text), _check_note_body(text), _check_note_size() FROM PUBLIC;

-- (end of search)

-------------------------------------------------------------------------------
-- Notes tools: create, read, update, list, search; audit of changes
-------------------------------------------------------------------------------

-- (end of notes tools)

-------------------------------------------------------------------------------
-- Resources, prompts, completion
-------------------------------------------------------------------------------

-- (end of resources, prompts, completion)

-------------------------------------------------------------------------------
-- Legacy-era sessions (2025-11-25 adapter)
-------------------------------------------------------------------------------

-- (end of legacy sessions)

-------------------------------------------------------------------------------
-- Operators' view of the delete flow
-------------------------------------------------------------------------------

-- (end of operators' view)
