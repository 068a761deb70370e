"""server/discover and tools/list over real HTTP."""
from .harness import GatewayTestCase, META_SERVER, PROTOCOL_VERSION


class DiscoveryTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()

    def test_discover_has_tools_and_no_roots(self):
        r = self.gw.rpc("server/discover", id="discover-1", token=self.token)
        result = self.assertResult(r, id="discover-1")
        self.assertEqual(result["supportedVersions"], [PROTOCOL_VERSION])
        self.assertEqual(result["capabilities"].get("tools"), {})
        self.assertNotIn("roots", result["capabilities"])
        self.assertNotIn("serverInfo", result)
        self.assertIsInstance(result["ttlMs"], int)
        self.assertGreaterEqual(result["ttlMs"], 0)
        self.assertIn(result["cacheScope"], ("public", "private"))
        self.assertIsInstance(result.get("instructions"), str)
        self.assertEqual(result["_meta"][META_SERVER]["name"], "mcp-notes")

    def test_tools_list_shape_and_cache_hints(self):
        r = self.gw.rpc("tools/list", id=2, token=self.token)
        result = self.assertResult(r, id=2)
        self.assertIsInstance(result["ttlMs"], int)
        self.assertGreaterEqual(result["ttlMs"], 0)
        self.assertIn(result["cacheScope"], ("public", "private"))
        self.assertNotIn("nextCursor", result)
        tools = {t["name"]: t for t in result["tools"]}
        self.assertIn("notes_delete", tools)
        tool = tools["notes_delete"]
        self.assertIsInstance(tool["title"], str)
        self.assertIsInstance(tool["description"], str)
        self.assertEqual(tool["inputSchema"]["type"], "object")
        self.assertEqual(set(tool["inputSchema"]["required"]), {"workspaceUri", "title"})
        self.assertEqual(tool["annotations"], {
            "destructiveHint": True, "idempotentHint": False,
            "readOnlyHint": False, "openWorldHint": False})

    def test_tools_list_is_deterministic(self):
        first = self.gw.rpc("tools/list", id=3, token=self.token)
        second = self.gw.rpc("tools/list", id=3, token=self.token)
        self.assertEqual(first.status, 200)
        self.assertEqual(first.raw, second.raw)

    def test_tools_list_unknown_cursor(self):
        r = self.gw.rpc("tools/list", {"cursor": "nope"}, id=4, token=self.token)
        self.assertRpcError(r, -32602, 200, id=4)

    def test_results_are_json_with_no_store(self):
        r = self.gw.rpc("server/discover", id=5, token=self.token)
        self.assertEqual(r.headers["content-type"], "application/json")
        self.assertEqual(r.headers.get("cache-control"), "no-store")

    def test_http_caching_stays_no_store_whatever_cache_scope_says(self):
        """docs/gateway.md, Caching: ttlMs/cacheScope are for the MCP client's result cache (keyed by
        method and params); the HTTP message is a POST answer carrying this request's id, so it is
        no-store, never public (which would let a shared cache keep a response to a request with
        Authorization) and without the Content-Location a cache would need to reuse it."""
        for method, params in (("server/discover", None), ("tools/list", None), ("tools/list", {"pad": 1})):
            with self.subTest(method=method, params=params):
                r = self.gw.rpc(method, params, id="c", token=self.token)
                result = self.assertResult(r, id="c")
                self.assertEqual(result["cacheScope"], "public")
                self.assertGreater(result["ttlMs"], 0)
                self.assertEqual(r.headers.get("cache-control"), "no-store", r.headers)
                for h in ("expires", "content-location", "age", "pragma", "vary"):
                    self.assertNotIn(h, r.headers, r.headers)
