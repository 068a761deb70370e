"""Mcp-Param-* headers (2026-07-28 Streamable HTTP, SEP-2243) against a real gateway.

The fixture tool test_param_headers (share/conformance-fixture.sql) marks
region (string), priority (integer) and verbose (boolean) with
x-mcp-header; the gateway reads those marks from features() at startup and
rejects a tools/call whose Mcp-Param-Region / -Priority / -Verbose header
is missing, undecodable or different from the argument: HTTP 400, -32020
(gateway/src/paramheaders.c, docs/gateway.md).
"""
import base64
import json
import pathlib
import subprocess
import unittest

from tests.e2e.harness import PROTOCOL_VERSION, WORKSPACE, GatewayTestCase, Response, meta, wait_until

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = "test_param_headers"


def b64(raw):
    raw = raw if isinstance(raw, bytes) else raw.encode()
    return "=?base64?" + base64.b64encode(raw).decode() + "?="


class ParamHeaderTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", cls.db.name,
                        "-f", str(ROOT / "share" / "conformance-fixture.sql")],
                       check=True, capture_output=True, text=True, timeout=120)
        cls.gw = cls.start_class_gateway()

    def call(self, arguments, headers, id=1, token=...):
        return self.gw.rpc("tools/call", {"name": TOOL, "arguments": arguments}, id=id,
                           token=self.token if token is ... else token, headers=headers)

    def assertEchoed(self, resp, **expected):
        result = self.assertResult(resp)
        self.assertFalse(result.get("isError"), resp)
        self.assertEqual(result["structuredContent"], expected, resp)

    def assertMismatch(self, resp, header):
        self.assertRpcError(resp, -32020, 400, id=1)
        self.assertIn(header, resp.error["message"], resp)

    # ---- accepted ----

    def test_plain_values_that_match_are_accepted(self):
        r = self.call({"region": "us-west1", "priority": 5, "verbose": True},
                      {"Mcp-Param-Region": "us-west1", "Mcp-Param-Priority": "5", "Mcp-Param-Verbose": "true"})
        self.assertEchoed(r, region="us-west1", priority=5, verbose=True)

    def test_header_names_are_case_insensitive_and_values_trimmed(self):
        r = self.call({"region": "eu"}, {"mcp-param-region": "  eu\t"})
        self.assertEchoed(r, region="eu")
        r = self.call({"region": "eu"}, {"MCP-PARAM-REGION": "eu"})
        self.assertEchoed(r, region="eu")

    def test_base64_values_are_decoded(self):
        for value in ("Hello", "Zürich", " leading and trailing ", "line\r\nbreak", "\ttab", ""):
            with self.subTest(value=value):
                self.assertEchoed(self.call({"region": value}, {"Mcp-Param-Region": b64(value)}), region=value)

    def test_values_without_the_whole_sentinel_are_literal(self):
        # the conformance suite's ServerLiteralMissingBase64Prefix / ...Suffix cases
        for value in ("SGVsbG8=", "=?base64?SGVsbG8=", "SGVsbG8=?=", "a?b=c"):
            with self.subTest(value=value):
                self.assertEchoed(self.call({"region": value}, {"Mcp-Param-Region": value}), region=value)

    def test_numbers_are_compared_numerically(self):
        for header in ("42", "42.0", "=?base64?NDI=?="):
            with self.subTest(header=header):
                r = self.call({"region": "x", "priority": 42}, {"Mcp-Param-Region": "x", "Mcp-Param-Priority": header})
                self.assertEchoed(r, region="x", priority=42)

    def test_absent_or_null_arguments_need_no_header(self):
        self.assertEchoed(self.call({"region": "x"}, {"Mcp-Param-Region": "x"}), region="x")
        self.assertEchoed(self.call({"region": "x", "verbose": None}, {"Mcp-Param-Region": "x"}), region="x")
        # a header without a body value is ignored, as is one no tool declares
        r = self.call({"region": "x"}, {"Mcp-Param-Region": "x", "Mcp-Param-Verbose": "false",
                                        "Mcp-Param-Other": "whatever"})
        self.assertEchoed(r, region="x")

    def test_tools_without_marks_are_not_checked(self):
        r = self.gw.rpc("tools/call", {"name": "notes_delete", "arguments": {"workspaceUri": WORKSPACE, "title": "x"}},
                        token=self.token, headers={"Mcp-Param-Region": "=?base64?!!?="})
        self.assertRpcError(r, -32021, 400, id=1)    # past the header checks: the capability gate

    # ---- refused: -32020, HTTP 400 ----

    def test_missing_header_is_refused(self):
        self.assertMismatch(self.call({"region": "us-west1"}, {}), "Mcp-Param-Region")
        r = self.call({"region": "x", "priority": 1}, {"Mcp-Param-Region": "x"})
        self.assertMismatch(r, "Mcp-Param-Priority")

    def test_different_values_are_refused(self):
        cases = {
            "other string": ({"region": "us-west1"}, {"Mcp-Param-Region": "us-east1"}),
            "case": ({"region": "eu"}, {"Mcp-Param-Region": "EU"}),
            "base64 of another value": ({"region": "Hello"}, {"Mcp-Param-Region": b64("Hello!")}),
            "base64 of the value and a NUL": ({"region": "a"}, {"Mcp-Param-Region": b64(b"a\x00")}),
            "other number": ({"region": "x", "priority": 42}, {"Mcp-Param-Region": "x", "Mcp-Param-Priority": "43"}),
            "not a number": ({"region": "x", "priority": 42}, {"Mcp-Param-Region": "x", "Mcp-Param-Priority": "4e1"}),
            "boolean case": ({"region": "x", "verbose": True}, {"Mcp-Param-Region": "x", "Mcp-Param-Verbose": "True"}),
            "boolean other": ({"region": "x", "verbose": False}, {"Mcp-Param-Region": "x", "Mcp-Param-Verbose": "true"}),
        }
        for label, (arguments, headers) in cases.items():
            with self.subTest(label):
                self.assertMismatch(self.call(arguments, headers), "Mcp-Param-")

    def test_invalid_base64_is_refused(self):
        cases = {
            "unpadded": "=?base64?SGVsbG8?=",       # the suite's ServerRejectsInvalidBase64Padding
            "not the alphabet": "=?base64?SGVs!!!bG8=?=",
            "url-safe alphabet": "=?base64?-_-_?=",
            "too much padding": "=?base64?SGVsbG8==?=",
            "stray bits": "=?base64?SGVsbG9=?=",
            "not UTF-8": b64(b"\xff\xfe"),
        }
        for label, header in cases.items():
            with self.subTest(label):
                r = self.call({"region": "Hello"}, {"Mcp-Param-Region": header})
                self.assertMismatch(r, "Mcp-Param-Region")
                self.assertIn("base64", r.error["message"], r)

    def test_non_ascii_header_bytes_are_refused(self):
        r = self.gw.post_raw(
            ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":{"region":"\\u00e9"},'
             '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
             '"io.modelcontextprotocol/clientCapabilities":{}}}}' % TOOL).encode(),
            headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": TOOL,
                     "Authorization": f"Bearer {self.token}", "Mcp-Param-Region": "é".encode().decode("latin-1")})
        self.assertMismatch(r, "Mcp-Param-Region")

    def raw_call(self, header_lines):
        """A matching call sent with http.client's putheader, so that a header may repeat."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": TOOL, "arguments": {"region": "x"}, "_meta": meta()}}).encode()
        conn = self.gw.connection()
        try:
            conn.putrequest("POST", "/mcp")
            for k, v in [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                         ("MCP-Protocol-Version", PROTOCOL_VERSION), ("Mcp-Method", "tools/call"),
                         ("Mcp-Name", TOOL), ("Authorization", f"Bearer {self.token}")] + header_lines:
                conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            return Response(r.status, r.getheaders(), r.read().decode())
        finally:
            conn.close()

    def test_repeated_or_too_many_headers_are_refused(self):
        self.assertEchoed(self.raw_call([("Mcp-Param-Region", "x")]), region="x")
        self.assertMismatch(self.raw_call([("Mcp-Param-Region", "x"), ("mcp-param-region", "x")]),
                            "more than once")
        # 32 are read; one more and a marked tool's headers cannot all be known
        junk = [(f"Mcp-Param-J{i}", "j") for i in range(32)]
        self.assertEchoed(self.raw_call([("Mcp-Param-Region", "x")] + junk[:31]), region="x")
        self.assertMismatch(self.raw_call([("Mcp-Param-Region", "x")] + junk), "more Mcp-Param headers")

    def test_checked_before_authentication(self):
        # like the other header checks: a mismatch is -32020 even without a token
        self.assertMismatch(self.call({"region": "a"}, {"Mcp-Param-Region": "b"}, token=None), "Mcp-Param-Region")
        r = self.call({"region": "a"}, {"Mcp-Param-Region": "a"}, token=None)
        self.assertEqual(r.status, 401, r)

    def test_a_refusal_is_logged_as_a_header_mismatch(self):
        self.call({"region": "a"}, {"Mcp-Param-Region": "b"}, id=1)

        def refusals():
            return [line for line in self.gw.log_lines() if line.get("tool") == TOOL and line.get("code") == -32020]
        # the request's log line is written after its response
        self.assertTrue(wait_until(refusals, 5), self.gw.log()[-2000:])
        self.assertNotIn('"b"', self.gw.log())   # the header's value is not logged


if __name__ == "__main__":
    unittest.main()
