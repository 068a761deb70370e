"""Every line a gateway writes is one JSON object, whatever its flags, and
libmicrohttpd's own messages (the EXTERNAL_LOGGER warning, the thread-pool
warning of --io-threads 1) never appear."""
import json
import socket
import subprocess

from .harness import EXTENSION_VERSION, GATEWAY, Gateway, GatewayTestCase


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class JsonLinesTest(GatewayTestCase):

    def exercise(self, gw, token):
        gw.get("/healthz")
        gw.get("/readyz")
        gw.get("/nope")
        gw.rpc("server/discover", id=1, token=token)
        gw.rpc("tools/list", id=2, token=token)
        gw.rpc("tools/call", {"name": "notes_delete", "arguments": {}}, id=3, token=token)
        gw.rpc("initialize", id=4, token=token)
        gw.post_raw("{not json")

    def assertAllJson(self, gw):
        self.assertEqual(gw.stop(), 0, gw.log())
        text = gw.settled_log()
        self.assertTrue(text.strip(), "no log lines at all")
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                self.fail(f"a log line is not JSON: {line!r}")
            self.assertIsInstance(entry, dict, line)
            for field in ("time", "level", "gateway", "event"):
                self.assertIn(field, entry, line)
        self.assertNotIn("MHD_OPTION_EXTERNAL_LOGGER", text)
        self.assertNotIn("thread pool", text.lower())
        return [json.loads(l) for l in text.splitlines()]

    def test_flag_sets(self):
        flag_sets = [
            (),
            ("--io-threads", "1"),
            ("--io-threads", "3"),
            ("--log-level", "debug"),
            ("--threads", "8"),
            ("--max-connections", "9", "--io-threads", "1", "--auth-cache-ms", "0"),
        ]
        for flags in flag_sets:
            with self.subTest(flags=flags):
                gw = self.start_gateway(*flags)
                self.exercise(gw, self.token)
                lines = self.assertAllJson(gw)
                listening = [l for l in lines if l["event"] == "listening"][0]
                if "--threads" in flags:
                    self.assertEqual(listening["max_connections"], 8)
                if "--max-connections" in flags:
                    self.assertEqual(listening["max_connections"], 9)
                if "--io-threads" in flags:
                    self.assertEqual(listening["io_threads"], int(flags[flags.index("--io-threads") + 1]))
                self.assertEqual(listening["extension_version"], EXTENSION_VERSION)

    def test_database_down(self):
        conninfo = f"host=127.0.0.1 port={closed_port()} dbname=nothing user=nobody connect_timeout=2"
        for flags in ((), ("--io-threads", "1")):
            with self.subTest(flags=flags):
                gw = Gateway(conninfo, *flags)
                self.addCleanup(gw.cleanup)
                self.assertEqual(gw.get("/readyz").status, 503)
                r = gw.rpc("tools/list", id=1, token=self.token)
                self.assertRpcError(r, -32603, 503, id=1)
                self.exercise(gw, self.token)
                lines = self.assertAllJson(gw)
                self.assertIn("db_not_ready", [l["event"] for l in lines])


class ConfigErrorTest(GatewayTestCase):

    def test_configuration_errors_are_json_lines(self):
        for args in (("--threads", "0"), ("--bogus",), ("--listen", "10.0.0.1:80", "--insecure-dev-principal", "x")):
            with self.subTest(args=args):
                proc = subprocess.run([str(GATEWAY), *args], capture_output=True, text=True, timeout=30)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                lines = proc.stderr.splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                entry = json.loads(lines[0])
                self.assertEqual((entry["level"], entry["event"]), ("error", "config_error"), entry)


class DevJsonLinesTest(JsonLinesTest):
    DEV = True

    def test_flag_sets(self):
        for flags in ((), ("--io-threads", "1")):
            with self.subTest(flags=flags):
                gw = self.start_gateway("--insecure-dev-principal", "alice", *flags)
                self.exercise(gw, None)
                lines = self.assertAllJson(gw)
                self.assertIn("insecure_dev_principal", [l["event"] for l in lines])

    test_database_down = None
