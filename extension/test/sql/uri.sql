--
-- file: URI normalization and containment (docs/uri-normalization.md).
--
\set ECHO none
\i test/fixture.sql
\set ECHO all
\set VERBOSITY default
\set SHOW_CONTEXT never
-- Shows a value byte by byte: printable ASCII as is, anything else as \xNN,
-- long values cut; so the output does not depend on the database encoding.
CREATE FUNCTION pg_temp.shown(t text, width int DEFAULT 40) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT coalesce(string_agg(CASE WHEN b BETWEEN 32 AND 126 THEN chr(b)
                                  ELSE '\x' || upper(lpad(to_hex(b), 2, '0')) END,
                             '' ORDER BY i), '')
         || CASE WHEN octet_length(t) > width
                 THEN '...(' || octet_length(t) || ' bytes)' ELSE '' END
  FROM generate_series(0, least(octet_length(t), width) - 1) AS i,
       LATERAL get_byte(textsend(t), i) AS b
$$;
-- The canonical form, or NULL when the URI is malformed.
CREATE FUNCTION pg_temp.try_normalize(u text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  RETURN mcp_notes.normalize_uri(u);
EXCEPTION WHEN invalid_text_representation THEN
  RETURN NULL;
END $$;
-- The canonical form, or the DETAIL of the error.
CREATE FUNCTION pg_temp.outcome(u text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  d text;
BEGIN
  RETURN mcp_notes.normalize_uri(u);
EXCEPTION WHEN invalid_text_representation THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN 'malformed: ' || d;
END $$;
--
-- Canonical forms.
--
SELECT pg_temp.shown(input, 60) AS input, mcp_notes.normalize_uri(input) AS canonical
FROM (VALUES
  (1, 'file:///work/notes'),
  (2, 'file:///work/notes/'),
  (3, 'file:///work/notes/.'),
  (4, 'FILE://LOCALHOST/work/notes'),
  (5, 'file:/work/notes'),
  (6, 'file:///'),
  (7, 'file://localhost/'),
  (8, 'file:/'),
  (9, 'file:///work/./.'),
  (10, 'file:///work/notes/a/../b'),
  (11, 'file:///work/notes/%2e%2e/x'),
  (12, 'file:///work/notes/.%2E/x'),
  (13, 'file:///a/b/c/../../d/'),
  (14, 'file:///work/%2D%41%7e%5f'),
  (15, 'file:///work/a%2db'),
  (16, 'file:///work/%25'),
  (17, 'file:///work/%252e%252e'),
  (18, 'file:///work/é'),
  (19, 'file:///work/%c3%a9'),
  (20, 'file:///work/%F0%9F%98%80'),
  (21, 'file:///work/a%20b'),
  (22, 'file:///work/a%3Fb%23c'),
  (23, 'file:///work/!$&''()*+,;=:@-._~'),
  (24, 'file:///work/%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%40'),
  (25, 'file:///work/%5B%5D%7B%7D%22%3C%3E%5E%60%7C'),
  (26, 'file:///work/...'),
  (27, 'file:///work/a/././b/'),
  (28, 'file:///..a/.b/a..')
) AS v(n, input)
ORDER BY n;
--
-- Malformed URIs: each raises 22P02 with a detail naming the problem.
--
SELECT mcp_notes.normalize_uri('');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT mcp_notes.normalize_uri('http://example.com/work/notes');
SELECT mcp_notes.normalize_uri('/work/notes');
SELECT mcp_notes.normalize_uri('file:work/notes');
SELECT mcp_notes.normalize_uri('file://localhost');
SELECT mcp_notes.normalize_uri('file://example.com/work/notes');
SELECT mcp_notes.normalize_uri('file://alice@localhost/work/notes');
SELECT mcp_notes.normalize_uri('file://localhost:22/work/notes');
SELECT mcp_notes.normalize_uri('file:///work/notes?x=1');
SELECT mcp_notes.normalize_uri('file:///work/notes#top');
SELECT mcp_notes.normalize_uri(' file:///work/notes');
SELECT mcp_notes.normalize_uri('file:///work/notes/a%2Fb');
SELECT mcp_notes.normalize_uri('file:///work/notes/a%5cb');
SELECT mcp_notes.normalize_uri('file:///work/notes/a\b');
SELECT mcp_notes.normalize_uri('file:///work/notes/a' || chr(1) || 'b');
SELECT mcp_notes.normalize_uri('file:///work/notes/a%00');
SELECT mcp_notes.normalize_uri('file:///work/notes/a%7F');
SELECT mcp_notes.normalize_uri('file:///work/notes/%C0%AF');
SELECT mcp_notes.normalize_uri('file:///work//notes');
SELECT mcp_notes.normalize_uri('file:///work/../..');
SELECT mcp_notes.normalize_uri('file:///work/notes/a%G1');
SELECT mcp_notes.normalize_uri('file:///work/notes/a b');
SELECT mcp_notes.normalize_uri('file:///work/"é"/%');
SELECT mcp_notes.normalize_uri('file:///' || repeat('a', 5000));
SELECT mcp_notes.normalize_uri('file:///work/' || repeat('é', 1500));
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
--
-- NULL input: both functions are STRICT.
--
SELECT mcp_notes.normalize_uri(NULL) IS NULL AS normalize_null,
       mcp_notes.uri_contains(NULL, 'file:///') IS NULL AS contains_null_workspace,
       mcp_notes.uri_contains('file:///', NULL) IS NULL AS contains_null_target;
--
-- Containment: (workspace, target, expected verdict).
--
CREATE TEMP TABLE cases (id int PRIMARY KEY, ws text, target text, expected boolean, note text);
INSERT INTO cases VALUES
  (1, 'file:///work/notes', 'file:///work/notes', true, 'equal'),
  (2, 'file:///work/notes', 'file:///work/notes/', true, 'trailing slash on target'),
  (3, 'file:///work/notes/', 'file:///work/notes', true, 'trailing slash on workspace'),
  (4, 'file:///work/notes/', 'file:///work/notes/a.md', true, 'trailing slash on workspace, inside'),
  (5, 'file:///work/notes', 'file:///work/notes/a.md', true, 'inside'),
  (6, 'file:///work/notes', 'file:///work/notes/sub/dir/b.md', true, 'deep inside'),
  (7, 'file:///work/notes', 'file:///work/notes/sub/', true, 'inside, trailing slash'),
  (8, 'file:///work/notes', 'file:///work/notes-evil/x', false, 'sibling prefix'),
  (9, 'file:///work/notes', 'file:///work/notes-evil', false, 'sibling prefix, exact'),
  (10, 'file:///work/notes', 'file:///work/notesx', false, 'sibling prefix, no separator'),
  (11, 'file:///work/notes', 'file:///work', false, 'parent'),
  (12, 'file:///work/notes', 'file:///work/other/a', false, 'outside'),
  (13, 'file:///work/notes', 'file:///', false, 'root target'),
  (14, 'file:///work/notes', 'file:///work/notes/%2e%2e/x', false, 'encoded traversal, lower case'),
  (15, 'file:///work/notes', 'file:///work/notes/%2E%2E/x', false, 'encoded traversal, upper case'),
  (16, 'file:///work/notes', 'file:///work/notes/.%2e/x', false, 'encoded traversal, mixed'),
  (17, 'file:///work/notes', 'file:///work/notes/%2E./x', false, 'encoded traversal, mixed'),
  (18, 'file:///work/notes', 'file:///work/notes/%2e%2E/notes/x', true, 'encoded traversal that comes back'),
  (19, 'file:///work/notes', 'file:///work/notes/../x', false, 'raw traversal'),
  (20, 'file:///work/notes', 'file:///work/notes/../notes/a', true, 'raw traversal that comes back'),
  (21, 'file:///work/notes', 'file:///work/notes/a/../b', true, 'traversal within'),
  (22, 'file:///work/notes', 'file:///work/notes/a/../..', false, 'traversal to parent'),
  (23, 'file:///work/notes', 'file:///work/notes/../notes-evil/x', false, 'traversal to sibling'),
  (24, 'file:///work/notes', 'file:///work/notes/./a', true, 'dot segment'),
  (25, 'file:///work/notes', 'file:///work/./notes/a', true, 'dot segment above'),
  (26, 'file:///work/notes', 'file:///work/notes/.', true, 'trailing dot'),
  (27, 'file:///work/notes', 'file:///work/notes/%2e', true, 'encoded trailing dot'),
  (28, 'file:///work/notes', 'file:///work/notes/a/.', true, 'trailing dot inside'),
  (29, 'file:///work/notes', 'file:///work/notes/...', true, 'three dots is a name'),
  (30, 'file:///work/notes', 'file:///work/notes/..a', true, 'dot-dot prefix is a name'),
  (31, 'file:///work/notes', 'file:///work/notes%2Dx/a', false, '%2D is -, sibling'),
  (32, 'file:///work/notes%2Devil', 'file:///work/notes-evil/x', true, '%2D in workspace'),
  (33, 'file:///work/notes', 'file:///work/%6Eotes/a', true, 'encoded unreserved letter'),
  (34, 'file:///work/notes', 'file:///work/NOTES/a', false, 'path is case-sensitive'),
  (35, 'file:///work/notes', 'file://localhost/work/notes/a', true, 'localhost host'),
  (36, 'file:///work/notes', 'file://LOCALHOST/work/notes/a', true, 'localhost, upper case'),
  (37, 'file://localhost/work/notes', 'file:///work/notes/a', true, 'localhost workspace'),
  (38, 'file:///work/notes', 'file:/work/notes/a', true, 'file:/x form'),
  (39, 'file:/work/notes', 'file:///work/notes/a', true, 'file:/x form workspace'),
  (40, 'file:///work/notes', 'FILE:///work/notes/a', true, 'upper-case scheme'),
  (41, 'file:///work/notes', 'File:/work/notes/a', true, 'mixed-case scheme, short form'),
  (42, 'file:///work/notes', 'file:///work/notes/a%2Fb', false, 'encoded slash'),
  (43, 'file:///work/notes', 'file:///work/notes/a%2fb', false, 'encoded slash, lower case'),
  (44, 'file:///work/notes', 'file:///work/notes/%2e%2e%2Fx', false, 'encoded traversal with encoded slash'),
  (45, 'file:///work/notes', 'file:///work/notes/a%5Cb', false, 'encoded backslash'),
  (46, 'file:///work/notes', 'file:///work/notes/..%5C..%5Cx', false, 'encoded backslash traversal'),
  (47, 'file:///work/notes', 'file:///work/notes/a\b', false, 'raw backslash'),
  (48, 'file:///work/notes', 'file:///work/notes/a%00b', false, 'encoded NUL'),
  (49, 'file:///work/notes', 'file:///work/notes/a' || chr(1) || 'b', false, 'raw control character'),
  (50, 'file:///work/notes', 'file:///work/notes/a%1Fb', false, 'encoded control character'),
  (51, 'file:///work/notes', 'file:///work/notes/a%7Fb', false, 'encoded DEL'),
  (52, 'file:///work/notes', 'file:///work/notes/a' || chr(127) || 'b', false, 'raw DEL'),
  (53, 'file:///work/notes', 'file:///work/notes/a%0Ab', false, 'encoded newline'),
  (54, 'file:///work/notes', 'file:///work/notes/%FF', false, 'invalid UTF-8 byte'),
  (55, 'file:///work/notes', 'file:///work/notes/%C3', false, 'truncated UTF-8'),
  (56, 'file:///work/notes', 'file:///work/notes/%C3/x', false, 'truncated UTF-8 before slash'),
  (57, 'file:///work/notes', 'file:///work/notes/%C0%AF', false, 'overlong slash, 2 bytes'),
  (58, 'file:///work/notes', 'file:///work/notes/%E0%80%AF', false, 'overlong slash, 3 bytes'),
  (59, 'file:///work/notes', 'file:///work/notes/%C0%AE%C0%AE/x', false, 'overlong dots'),
  (60, 'file:///work/notes', 'file:///work/notes/%ED%A0%80', false, 'surrogate'),
  (61, 'file:///work/notes', 'file:///work/notes/%F4%90%80%80', false, 'above U+10FFFF'),
  (62, 'file:///work/notes', 'file:///work/notes/%C3%A9', true, 'encoded UTF-8'),
  (63, 'file:///work/notes', 'file:///work/notes/é', true, 'raw UTF-8'),
  (64, 'file:///work/n%C3%A9', 'file:///work/né/x', true, 'raw and encoded UTF-8 agree'),
  (65, 'file:///work/n%C3%A9', 'file:///work/ne%CC%81/x', false, 'no Unicode normalization (NFD)'),
  (66, 'file:///work/notes', 'file://example.com/work/notes/a', false, 'remote host'),
  (67, 'file:///work/notes', 'file://alice@localhost/work/notes/a', false, 'userinfo'),
  (68, 'file:///work/notes', 'file://localhost:22/work/notes/a', false, 'port'),
  (69, 'file:///work/notes', 'file://[::1]/work/notes/a', false, 'IPv6 host'),
  (70, 'file:///work/notes', 'file:///work/notes/a?x=1', false, 'query'),
  (71, 'file:///work/notes', 'file:///work/notes/a#top', false, 'fragment'),
  (72, 'file:///work/notes', 'file:///work/notes/a%3Fb%23c', true, 'encoded ? and # are names'),
  (73, 'file:///work/notes', '/work/notes/a', false, 'relative reference'),
  (74, 'file:///work/notes', 'notes/a', false, 'relative path'),
  (75, 'file:///work/notes', 'file:work/notes/a', false, 'rootless path'),
  (76, 'file:///work/notes', 'file:', false, 'no path'),
  (77, 'file:///work/notes', 'file://', false, 'no path after authority'),
  (78, 'file:///work/notes', 'file://localhost', false, 'localhost, no path'),
  (79, 'file:///work/notes', 'file:///work/notes/../../../x', false, '.. above root'),
  (80, 'file:///', 'file:///../x', false, '.. above root, root workspace'),
  (81, 'file:///work/notes', 'file:///work//notes/a', false, 'empty segment'),
  (82, 'file:///work/notes', 'file:///work/notes//', false, 'two trailing slashes'),
  (83, 'file:///work/notes', 'file:////work/notes/a', false, 'four slashes'),
  (84, 'file:///work/notes', ' file:///work/notes/a', false, 'leading space'),
  (85, 'file:///work/notes', 'file:///work/notes/a ', false, 'trailing space'),
  (86, 'file:///work/notes', 'file:///work/notes/a' || chr(9), false, 'trailing tab'),
  (87, 'file:///work/notes ', 'file:///work/notes/a', false, 'workspace with trailing space'),
  (88, 'file:///work/notes', 'file:///work/notes/a b', false, 'raw space'),
  (89, 'file:///work/notes', 'file:///work/notes/a%20b', true, 'encoded space'),
  (90, 'file:///work/notes', 'file:///work/notes/a"b', false, 'raw double quote'),
  (91, 'file:///work/notes', 'file:///work/notes/a|b', false, 'raw vertical bar'),
  (92, 'file:///work/notes', 'file:///work/notes/%252e%252e', true, 'double encoding is a name'),
  (93, 'file:///work/notes', 'file:///work/notes/%252e%252e/x', true, 'double encoding is a name, inside'),
  (94, 'file:///work/notes', 'file:///work/notes/%25', true, 'encoded percent'),
  (95, 'file:///work/notes', 'file:///work/notes/a%zz', false, 'percent without hex'),
  (96, 'file:///work/notes', 'file:///work/notes/a%2', false, 'truncated percent'),
  (97, 'file:///work/notes', 'file:///work/notes/a%', false, 'bare percent'),
  (98, 'file:///', 'file:///anything/x', true, 'root workspace'),
  (99, 'file:///', 'file:///', true, 'root workspace, root target'),
  (100, 'file://localhost/', 'file:/etc', true, 'root workspace, other forms'),
  (101, 'file:///', 'http:///x', false, 'root workspace, other scheme'),
  (102, 'http://example.com/work/notes', 'file:///work/notes', false, 'malformed workspace'),
  (103, 'file:///work/notes/../notes-evil', 'file:///work/notes-evil/x', true, 'workspace is normalized too'),
  (104, 'file:///work/notes%2e', 'file:///work/notes./x', true, 'encoded dot in a name'),
  (105, 'file:///work/notes', '', false, 'empty'),
  (106, 'file:///work/notes', 'file:///work/notes/' || repeat('a', 4000), true, 'long, under the limit'),
  (107, 'file:///work/notes', 'file:///work/notes/' || repeat('a', 5000), false, 'longer than 4096 bytes'),
  (108, 'file:///work/' || repeat('a', 5000), 'file:///work/notes', false, 'huge workspace'),
  (109, 'file:///work/notes', 'file:///work/notes/' || repeat('é', 1500), false, 'canonical form too long'),
  (110, 'file:///work/notes', 'file:///work/notes/~user;v=1/a:b@c', true, 'pchar punctuation');
SELECT id, note, pg_temp.shown(ws) AS workspace, pg_temp.shown(target) AS target,
       expected, mcp_notes.uri_contains(ws, target) AS verdict,
       CASE WHEN mcp_notes.uri_contains(ws, target) IS NOT DISTINCT FROM expected
            THEN 'ok' ELSE 'MISMATCH' END AS check
FROM cases
ORDER BY id;
SELECT count(*) AS mismatches
FROM cases
WHERE mcp_notes.uri_contains(ws, target) IS DISTINCT FROM expected;
-- Why: each target's canonical form or problem.
SELECT id, pg_temp.shown(pg_temp.outcome(target), 80) AS target_outcome
FROM cases
ORDER BY id;
--
-- Idempotence: a canonical form normalizes to itself (never decoded twice).
--
SELECT count(n) AS canonical_forms_checked,
       count(*) FILTER (WHERE mcp_notes.normalize_uri(n) <> n) AS not_idempotent
FROM (SELECT pg_temp.try_normalize(target) FROM cases
      UNION ALL
      SELECT pg_temp.try_normalize(ws) FROM cases) AS s(n);
-- Containment agrees with normalize_uri: a malformed side is never inside.
SELECT count(*) AS contains_despite_malformed
FROM cases
WHERE mcp_notes.uri_contains(ws, target)
  AND (pg_temp.try_normalize(ws) IS NULL OR pg_temp.try_normalize(target) IS NULL);
