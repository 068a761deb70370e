"""Every notes tool end to end from the official TypeScript SDK v2 client
(@modelcontextprotocol/client, pinned to protocol 2026-07-28): sdk_tools.mjs
runs under Node 22 (scripts/install-node) against a real gateway and prints
what it saw; this test judges it."""
import json
import pathlib
import subprocess
import uuid

from .harness import ROOT, WORKSPACE, GatewayTestCase, lit

SCRIPT = pathlib.Path(__file__).with_name("sdk_tools.mjs")


def node_binary():
    """The Node 22 that scripts/install-node provides (installing it if the lock changed)."""
    out = subprocess.run([str(ROOT / "scripts" / "install-node")], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"scripts/install-node failed: {out.stderr.strip()}")
    return out.stdout.strip().splitlines()[-1]


class SdkToolsTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.node = node_binary()
        cls.gw = cls.start_class_gateway()

    def run_client(self, folder):
        proc = subprocess.run([self.node, str(SCRIPT), f"http://127.0.0.1:{self.gw.port}/mcp", self.token,
                               WORKSPACE, folder], capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, f"sdk client failed:\n{proc.stderr}\n{proc.stdout}")
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def test_every_tool_from_the_sdk_client(self):
        folder = f"{WORKSPACE}/sdk-{uuid.uuid4().hex[:8]}"
        self.db.sql("INSERT INTO mcp_notes.notes (uri, title) SELECT format('%s/p%s.md', "
                    f"{lit(folder)}, lpad(i::text, 3, '0')), 'SDK page ' || i FROM generate_series(1, 60) i")
        seen = self.run_client(folder)

        self.assertEqual((seen["era"], seen["version"], seen["server"]), ("modern", "2026-07-28", "mcp-notes"))
        for name in ("notes_create", "notes_read", "notes_update", "notes_list", "notes_search", "notes_delete"):
            self.assertIn(name, seen["tools"])
            self.assertTrue(seen["tools"][name]["hasOutputSchema"], name)
        self.assertTrue(seen["tools"]["notes_read"]["annotations"]["readOnlyHint"])

        note_id = seen["created"]["noteId"]
        self.assertEqual(seen["created"]["uri"], f"{folder}/sdk.md")
        self.assertEqual(seen["read"], seen["readText"])
        self.assertEqual((seen["read"]["noteId"], seen["read"]["title"], seen["read"]["body"]),
                         (note_id, "Written by the SDK", "first"))
        self.assertGreater(seen["updated"]["updatedAt"], seen["read"]["updatedAt"])
        self.assertTrue(seen["stale"]["isError"])
        self.assertIn(seen["updated"]["updatedAt"], seen["stale"]["text"])
        self.assertEqual(seen["readAgain"]["body"], "second")

        uris = [u for page in seen["pages"] for u in page]
        self.assertEqual([len(p) for p in seen["pages"]], [50, 11])
        self.assertEqual(len(uris), len(set(uris)))
        self.assertIn(f"{folder}/sdk.md", uris)
        self.assertEqual(seen["found"], [note_id])
        self.assertTrue(seen["outside"]["isError"])
        self.assertIn("No note with noteId", seen["outside"]["text"])
        self.assertTrue(seen["badCursor"]["isError"])
        self.assertIn("cursor is not valid", seen["badCursor"]["text"])

        audit = self.db.sql("SELECT string_agg(action || ':' || coalesce(client_info ->> 'name', '-'), ',' "
                            "ORDER BY audit_id) FROM mcp_notes.change_audit WHERE note_id = " + lit(note_id))
        self.assertEqual(audit, "create:mcp-notes-sdk-test,update:mcp-notes-sdk-test")


if __name__ == "__main__":
    import unittest
    unittest.main()
