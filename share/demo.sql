-- Demo data for `make run`: one workspace with three TPS reports, a note
-- outside it, and a sibling workspace whose name starts the same way and
-- holds a secret.  The demo principal is granted only file:///work/notes.
-- Safe to run more than once.
\set ON_ERROR_STOP on

SELECT mcp_notes.add_workspace('file:///work/notes');
SELECT mcp_notes.add_workspace('file:///work/notes-evil');
SELECT mcp_notes.grant_workspace('demo', 'file:///work/notes');
SELECT mcp_notes.grant_workspace('mallory', 'file:///work/notes-evil');

INSERT INTO mcp_notes.notes (uri, title, body)
VALUES ('file:///work/notes/tps-2023.md', 'TPS report 2023', 'Cover sheets: mandatory since March.'),
       ('file:///work/notes/tps-2024.md', 'TPS report 2024', 'New cover sheets. Did you get the memo?'),
       ('file:///work/notes/tps-2025.md', 'TPS report 2025', 'Draft; cover sheet pending.'),
       ('file:///work/tps-outside.md',   'TPS report (outside the workspace)', 'Not in any granted workspace.'),
       ('file:///work/notes-evil/secret.md', 'TPS report secret', 'A sibling workspace: never offered to demo.')
ON CONFLICT (uri) DO NOTHING;
