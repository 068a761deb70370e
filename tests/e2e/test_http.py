"""HTTP-level and JSON-RPC envelope errors, in the order docs/protocol.md gives."""
import base64
import json
import socket
import time

from .harness import EXTENSION_VERSION, GatewayTestCase, PROTOCOL_VERSION, WORKSPACE, meta


def b64(text):
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


class HttpTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway("--max-body", "4096")

    def good_body(self, method="tools/list", id=1, params=None):
        p = {"_meta": meta()}
        p.update(params or {})
        return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": p})

    def headers(self, method="tools/list", **extra):
        h = {"MCP-Protocol-Version": PROTOCOL_VERSION, "Mcp-Method": method,
             "Authorization": f"Bearer {self.token}"}
        h.update(extra)
        return h

    # ---- endpoints and HTTP methods ----

    def test_healthz_and_readyz(self):
        self.assertEqual(self.gw.get("/healthz").status, 200)
        r = self.gw.get("/readyz")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json["status"], "ready")
        self.assertIsInstance(r.json["gateway"], str)
        self.assertEqual(r.json["extension"], EXTENSION_VERSION)

    def test_other_http_methods_get_405_with_allow(self):
        # DELETE ends a 2025-era session (tests/e2e/test_legacy.py), GET is its
        # stream (tests/e2e/test_subscriptions.py): without a session it is 400
        for method in ("PUT", "PATCH", "OPTIONS"):
            with self.subTest(method=method):
                r = self.gw.request(method, "/mcp", headers={"Authorization": f"Bearer {self.token}"})
                self.assertEqual(r.status, 405, r)
                self.assertEqual(r.headers.get("allow"), "GET, POST, DELETE")
        r = self.gw.request("GET", "/mcp", headers={"Authorization": f"Bearer {self.token}"})
        self.assertEqual(r.status, 400, r)

    def test_unknown_path_is_404(self):
        for path in ("/", "/mcp/", "/MCP", "/mcp/x", "/sse"):
            with self.subTest(path=path):
                r = self.gw.request("POST", path, body=self.good_body(),
                                    headers=dict(self.headers(), **{"Content-Type": "application/json"}))
                self.assertEqual(r.status, 404, r)

    def test_query_string_is_ignored(self):
        r = self.gw.request("POST", "/mcp?x=1", body=self.good_body(),
                            headers=dict(self.headers(), **{"Content-Type": "application/json"}))
        self.assertEqual(r.status, 200, r)

    def test_content_type_must_be_json(self):
        for ct in ("text/plain", "application/x-www-form-urlencoded", "application/jsonx", None):
            with self.subTest(ct=ct):
                r = self.gw.post_raw(self.good_body(), headers=self.headers(), content_type=ct)
                self.assertEqual(r.status, 415, r)
        for ct in ("application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"):
            with self.subTest(ct=ct):
                r = self.gw.post_raw(self.good_body(), headers=self.headers(), content_type=ct)
                self.assertEqual(r.status, 200, r)

    # ---- sizes ----

    def test_oversized_body_by_content_length_is_413(self):
        body = self.good_body(params={"pad": "x" * 5000})
        r = self.gw.post_raw(body, headers=self.headers())
        self.assertEqual(r.status, 413, r)

    def test_oversized_announced_body_is_refused_before_it_is_sent(self):
        # announce 100 MB, send only the headers: the answer must not wait for the body
        s = socket.create_connection(("127.0.0.1", self.gw.port), timeout=10)
        try:
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000000\r\n\r\n")
            start = time.monotonic()
            data = s.recv(4096)
            self.assertTrue(data.startswith(b"HTTP/1.1 413"), data)
            self.assertLess(time.monotonic() - start, 5)
        finally:
            s.close()

    def test_oversized_chunked_body_is_413(self):
        s = socket.create_connection(("127.0.0.1", self.gw.port), timeout=10)
        try:
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"x" * 3000
            for _ in range(3):
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            s.sendall(b"0\r\n\r\n")
            data = s.recv(4096)
            self.assertTrue(data.startswith(b"HTTP/1.1 413"), data)
        finally:
            s.close()

    def test_body_at_the_limit_is_accepted(self):
        body = self.good_body()
        body = body[:-1] + ', "pad": "' + "x" * (4096 - len(body) - 11) + '"}'
        self.assertEqual(len(body.encode()), 4096)
        r = self.gw.post_raw(body, headers=self.headers())
        self.assertEqual(r.status, 200, r)

    # ---- Origin ----

    def test_foreign_origin_is_403(self):
        for origin in ("http://evil.example", "https://localhost.evil.example", "null",
                       "http://127.0.0.1.nip.io", "file://"):
            with self.subTest(origin=origin):
                r = self.gw.post_raw(self.good_body(), headers=self.headers(Origin=origin))
                self.assertEqual(r.status, 403, r)

    def test_loopback_origins_are_allowed_by_default(self):
        for origin in ("http://localhost", "http://localhost:6274", "http://127.0.0.1:8080", "http://[::1]:3000"):
            with self.subTest(origin=origin):
                r = self.gw.post_raw(self.good_body(), headers=self.headers(Origin=origin))
                self.assertEqual(r.status, 200, r)

    def test_configured_origins_replace_the_default(self):
        gw = self.start_gateway("--allowed-origins", "https://app.example, https://other.example")
        self.assertEqual(gw.post_raw(self.good_body(), headers=self.headers(Origin="https://app.example")).status, 200)
        self.assertEqual(gw.post_raw(self.good_body(), headers=self.headers(Origin="https://other.example")).status, 200)
        self.assertEqual(gw.post_raw(self.good_body(), headers=self.headers(Origin="http://localhost")).status, 403)
        self.assertEqual(gw.post_raw(self.good_body(), headers=self.headers()).status, 200)

    def test_origin_is_checked_before_the_body(self):
        r = self.gw.post_raw("{not json", headers=self.headers(Origin="http://evil.example"))
        self.assertEqual(r.status, 403, r)

    # ---- errors whose id could not be read omit it (never "id": null) ----

    def test_refusals_before_the_id_is_read_have_no_id(self):
        big = self.good_body(params={"pad": "x" * 5000})
        cases = [
            ("403 Origin", lambda: self.gw.post_raw(self.good_body(), headers=self.headers(Origin="http://evil.example")), 403),
            ("405", lambda: self.gw.request("PUT", "/mcp"), 405),
            ("GET without a session", lambda: self.gw.request("GET", "/mcp"), 400),
            ("415", lambda: self.gw.post_raw(self.good_body(), headers=self.headers(), content_type="text/plain"), 415),
            ("413", lambda: self.gw.post_raw(big, headers=self.headers()), 413),
            ("parse error", lambda: self.gw.post_raw("{", headers=self.headers()), 400),
            ("batch", lambda: self.gw.post_raw("[" + self.good_body() + "]", headers=self.headers()), 400),
            ("id null", lambda: self.gw.post_raw('{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
                                                 headers=self.headers()), 400),
            ("id 1.5", lambda: self.gw.post_raw('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
                                                headers=self.headers()), 400),
        ]
        for label, send, status in cases:
            with self.subTest(label):
                r = send()
                self.assertEqual(r.status, status, r)
                self.assertIsNotNone(r.json, r)
                self.assertIn("error", r.json, r)
                self.assertNotIn("id", r.json, r)

    # ---- -32700 ----

    def test_malformed_json_is_32700(self):
        bodies = ["{", "", "   ", "{'jsonrpc': '2.0'}", '{"jsonrpc":"2.0","id":1,"method":"x",}',
                  '{"jsonrpc":"2.0","id":1,"method":"x"} trailing', "NaN", '{"a":NaN}',
                  '{"a":"\x01"}', '{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}',
                  '{"a":"\\ud800"}', '{"a":99999999999999999999}', '{"a":' + "[" * 100 + "]" * 100 + "}",
                  '\ufeff{"jsonrpc":"2.0"}']
        for body in bodies:
            with self.subTest(body=body[:40]):
                r = self.gw.post_raw(body, headers=self.headers())
                self.assertRpcError(r, -32700, 400, id=None)
        r = self.gw.post_raw(b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', headers=self.headers())
        self.assertRpcError(r, -32700, 400, id=None)

    # ---- -32600 ----

    def test_invalid_requests_are_32600(self):
        cases = [
            ("[]", None), ('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', None), ("42", None),
            ('"x"', None), ("null", None),
            ('{"id":1,"method":"tools/list"}', 1), ('{"jsonrpc":"1.0","id":"a","method":"tools/list"}', "a"),
            ('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', None),
            ('{"jsonrpc":"2.0","id":null,"method":"tools/list"}', None),
            ('{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None),
            ('{"jsonrpc":"2.0","id":{},"method":"tools/list"}', None),
            ('{"jsonrpc":"2.0","id":3}', 3), ('{"jsonrpc":"2.0","id":3,"method":5}', 3),
            ('{"jsonrpc":"2.0","id":4,"result":{}}', 4),
            ('{"jsonrpc":"2.0","id":5,"method":"tools/list","params":"x"}', 5),
        ]
        for body, id in cases:
            with self.subTest(body=body):
                r = self.gw.post_raw(body, headers=self.headers())
                self.assertRpcError(r, -32600, 400, id=id)

    # ---- -32602 before dispatch ----

    def test_missing_meta_pieces_are_32602(self):
        full = meta()
        cases = {
            "no params": None,
            "no _meta": {},
            "_meta not object": {"_meta": []},
            "no version": {"_meta": {k: v for k, v in full.items() if k != "io.modelcontextprotocol/protocolVersion"}},
            "version not string": {"_meta": dict(full, **{"io.modelcontextprotocol/protocolVersion": 20260728})},
            "no capabilities": {"_meta": {k: v for k, v in full.items() if k != "io.modelcontextprotocol/clientCapabilities"}},
            "capabilities not object": {"_meta": dict(full, **{"io.modelcontextprotocol/clientCapabilities": True})},
        }
        for label, params in cases.items():
            with self.subTest(label):
                body = {"jsonrpc": "2.0", "id": "m", "method": "tools/list"}
                if params is not None:
                    body["params"] = params
                r = self.gw.post_raw(json.dumps(body), headers=self.headers())
                self.assertRpcError(r, -32602, 400, id="m")
        # clientInfo is optional
        body = {"jsonrpc": "2.0", "id": "n", "method": "tools/list", "params": {"_meta": meta(client_info=False)}}
        self.assertEqual(self.gw.post_raw(json.dumps(body), headers=self.headers()).status, 200)

    def test_params_array_is_32602(self):
        r = self.gw.post_raw('{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[]}', headers=self.headers())
        self.assertRpcError(r, -32602, 400, id=8)

    def test_meta_is_checked_before_headers(self):
        r = self.gw.post_raw('{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}', headers={})
        self.assertRpcError(r, -32602, 400, id=9)

    # ---- -32020 ----

    def call_body(self, name="notes_delete", id=1):
        return self.good_body("tools/call", id, {"name": name, "arguments": {"workspaceUri": WORKSPACE, "title": "x"}})

    def test_header_errors_are_32020(self):
        cases = {
            "no protocol version": ("tools/list", {"MCP-Protocol-Version": None}),
            "other protocol version": ("tools/list", {"MCP-Protocol-Version": "2025-11-25"}),
            "no method": ("tools/list", {"Mcp-Method": None}),
            "other method": ("tools/list", {"Mcp-Method": "tools/call"}),
            "method case": ("tools/list", {"Mcp-Method": "Tools/List"}),
            "no name": ("tools/call", {"Mcp-Name": None}),
            "other name": ("tools/call", {"Mcp-Name": "notes_list"}),
            "name case": ("tools/call", {"Mcp-Name": "Notes_Delete"}),
            "base64 other name": ("tools/call", {"Mcp-Name": b64("notes_list")}),
            "bad base64": ("tools/call", {"Mcp-Name": "=?base64?!!!?="}),
        }
        for label, (method, override) in cases.items():
            with self.subTest(label):
                h = self.headers(method)
                if method == "tools/call":
                    h["Mcp-Name"] = "notes_delete"
                for k, v in override.items():
                    h.pop(k, None)
                    if v is not None:
                        h[k] = v
                body = self.call_body() if method == "tools/call" else self.good_body(method)
                r = self.gw.post_raw(body, headers=h)
                self.assertRpcError(r, -32020, 400, id=1)

    def test_header_names_are_case_insensitive_and_values_trimmed(self):
        h = {"mcp-protocol-version": " " + PROTOCOL_VERSION + " ", "MCP-METHOD": "tools/call",
             "mcp-name": "  notes_delete\t", "authorization": f"Bearer {self.token}"}
        r = self.gw.post_raw(self.call_body(), headers=h)
        self.assertEqual(r.status, 400, r)     # -32021: no elicitation capability: headers were accepted
        self.assertEqual(r.error["code"], -32021, r)

    def test_base64_mcp_name_is_decoded(self):
        h = self.headers("tools/call", **{"Mcp-Name": b64("notes_delete")})
        r = self.gw.post_raw(self.call_body(), headers=h)
        self.assertEqual(r.error["code"], -32021, r)
        # a name that needs the encoding
        h = self.headers("tools/call", **{"Mcp-Name": b64("notes délete")})
        r = self.gw.post_raw(self.call_body(name="notes délete"), headers=h)
        self.assertRpcError(r, -32602, 200, id=1)    # unknown tool, but headers matched

    def test_base64_mcp_name_must_be_padded(self):
        # canonical padded base64 only (SEP-2243, the conformance suite's ServerRejectsInvalidBase64Padding);
        # the unpadded form was accepted before the Mcp-Param-* change
        name = "notes_delete_"                      # 13 bytes: base64 ends in "=="
        h = self.headers("tools/call", **{"Mcp-Name": b64(name)})
        self.assertRpcError(self.gw.post_raw(self.call_body(name=name), headers=h), -32602, 200, id=1)
        h = self.headers("tools/call", **{"Mcp-Name": b64(name).replace("==?=", "?=")})
        self.assertRpcError(self.gw.post_raw(self.call_body(name=name), headers=h), -32020, 400, id=1)

    def test_header_mismatch_is_checked_before_version(self):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                           "params": {"_meta": meta(version="2099-01-01")}})
        r = self.gw.post_raw(body, headers=self.headers())
        self.assertRpcError(r, -32020, 400, id=1)

    # ---- -32601 ----

    def test_removed_and_unknown_methods_are_32601_404(self):
        # subscriptions/listen is served (tests/e2e/test_subscriptions.py)
        for method in ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
                       "notes/delete", "tasks/get"):
            with self.subTest(method=method):
                r = self.gw.post_raw(self.good_body(method, id=method), headers=self.headers(method))
                self.assertRpcError(r, -32601, 404, id=method)

    def test_unknown_method_is_checked_before_auth(self):
        r = self.gw.post_raw(self.good_body("ping", id=2),
                             headers={"MCP-Protocol-Version": PROTOCOL_VERSION, "Mcp-Method": "ping"})
        self.assertRpcError(r, -32601, 404, id=2)

    # ---- notifications ----

    def test_notifications_get_202_and_an_empty_body(self):
        for body in ('{"jsonrpc":"2.0","method":"notifications/initialized"}',
                     '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
                     '{"jsonrpc":"2.0","method":"tools/list","params":{}}'):
            with self.subTest(body=body):
                r = self.gw.post_raw(body, headers={})
                self.assertEqual(r.status, 202, r)
                self.assertEqual(r.raw, "")

    # ---- keep-alive ----

    def test_keep_alive_serves_several_requests_on_one_connection(self):
        conn = self.gw.connection()
        try:
            for i in range(3):
                r = self.gw.post_raw(self.good_body(id=i), headers=self.headers(), conn=conn)
                self.assertEqual(r.status, 200)
                self.assertEqual(r.json["id"], i)
        finally:
            conn.close()
