"""The client address behind a balancer (--trusted-proxies, docs/gateway.md):
from a trusted peer the last X-Forwarded-For hop is the address in the
request log (the peer is logged as `proxy`); from any other peer the header
is ignored.  Requests are sent over raw sockets from chosen loopback source
addresses (all of 127.0.0.0/8 is this host), so trusted and untrusted peers
are real TCP peers, not a header the test claims."""
import json
import secrets
import socket
import subprocess
import time

from .harness import GATEWAY, GatewayTestCase, wait_until


def get(port, path, header_lines=(), source="127.0.0.1", timeout=10):
    """GET path with extra raw header lines from the given source address; the status."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        head = [f"GET {path} HTTP/1.1".encode(), b"Host: 127.0.0.1", *header_lines, b"Connection: close"]
        sock.sendall(b"\r\n".join(head) + b"\r\n\r\n")
        data = b""
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        return int(data.split(b" ", 2)[1]) if data else None
    finally:
        sock.close()


def request_line(gw, path, timeout=5):
    """The gateway's `request` log line for path (each test path is unique)."""
    found = []

    def seen():
        found[:] = [l for l in gw.log_lines() if l.get("event") == "request" and l.get("path") == path]
        return found
    wait_until(seen, timeout)
    if len(found) != 1:
        raise AssertionError(f"{len(found)} request lines for {path}: {gw.log()[-2000:]}")
    return found[0]


class ClientAddressTest(GatewayTestCase):

    def logged(self, gw, header_lines=(), source="127.0.0.1"):
        """(peer, proxy) that gw logs for one request with those headers from source."""
        path = f"/nope-{secrets.token_hex(6)}"
        self.assertEqual(get(gw.port, path, header_lines, source), 404)
        line = request_line(gw, path)
        return line.get("peer"), line.get("proxy")

    def test_trusted_peer_last_hop_is_the_client(self):
        gw = self.start_gateway("--trusted-proxies", "127.0.0.1/32")
        cases = [
            ([b"X-Forwarded-For: 192.0.2.5"], "192.0.2.5"),
            # a client's own claims come first; the balancer appends what it saw
            ([b"X-Forwarded-For: 198.51.100.1, 203.0.113.9,192.0.2.6"], "192.0.2.6"),
            ([b"X-Forwarded-For: 198.51.100.1", b"X-Forwarded-For: 192.0.2.7"], "192.0.2.7"),
            ([b"x-forwarded-for:\t192.0.2.8 \t"], "192.0.2.8"),
            ([b"X-Forwarded-For: 2001:db8::17"], "2001:db8::17"),
            ([b"X-Forwarded-For: 2001:0DB8:0:0::0:17"], "2001:db8::17"),
            ([b"X-Forwarded-For: ::ffff:192.0.2.9"], "192.0.2.9"),
        ]
        for headers, client in cases:
            with self.subTest(headers=headers):
                self.assertEqual(self.logged(gw, headers), (client, "127.0.0.1"))
        # no header: the peer, no proxy field
        self.assertEqual(self.logged(gw), ("127.0.0.1", None))

    def test_untrusted_peer_header_ignored(self):
        for flags in ((), ("--trusted-proxies", "10.0.0.0/8,::1"), ("--trusted-proxies", "")):
            with self.subTest(flags=flags):
                gw = self.start_gateway(*flags)
                self.assertEqual(self.logged(gw, [b"X-Forwarded-For: 192.0.2.5"]), ("127.0.0.1", None))

    def test_prefix_bounds_and_environment(self):
        # 127.0.0.4/30 is 127.0.0.4-7: host bits of 127.0.0.5/30 are cleared the same way
        for spec in ("127.0.0.4/30", "127.0.0.5/30", " 10.1.0.0/16 , 127.0.0.4/30 ", "::ffff:127.0.0.4/126"):
            with self.subTest(spec=spec):
                gw = self.start_gateway(env={"MCP_NOTES_TRUSTED_PROXIES": spec})
                xff = [b"X-Forwarded-For: 192.0.2.44"]
                self.assertEqual(self.logged(gw, xff, source="127.0.0.4"), ("192.0.2.44", "127.0.0.4"))
                self.assertEqual(self.logged(gw, xff, source="127.0.0.7"), ("192.0.2.44", "127.0.0.7"))
                self.assertEqual(self.logged(gw, xff, source="127.0.0.3"), ("127.0.0.3", None))
                self.assertEqual(self.logged(gw, xff, source="127.0.0.8"), ("127.0.0.8", None))
        # the flag wins over the environment
        gw = self.start_gateway("--trusted-proxies", "127.0.0.9", env={"MCP_NOTES_TRUSTED_PROXIES": "127.0.0.0/8"})
        self.assertEqual(self.logged(gw, [b"X-Forwarded-For: 192.0.2.45"], source="127.0.0.10"), ("127.0.0.10", None))
        self.assertEqual(self.logged(gw, [b"X-Forwarded-For: 192.0.2.45"], source="127.0.0.9"), ("192.0.2.45", "127.0.0.9"))

    def test_mcp_request_line_names_the_client(self):
        gw = self.start_gateway("--trusted-proxies", "127.0.0.1")
        r = gw.rpc("tools/list", id=4242, token=self.token, headers={"X-Forwarded-For": "192.0.2.77"})
        self.assertResult(r, id=4242)
        lines = []
        wait_until(lambda: lines.extend(l for l in gw.log_lines() if l.get("event") == "request"
                                        and l.get("rpc_id") == "4242") or lines, 5)
        self.assertEqual([(l["peer"], l.get("proxy")) for l in lines], [("192.0.2.77", "127.0.0.1")], lines)

    def test_bad_lists_are_configuration_errors(self):
        bad = ["10.0.0.0/33", "::1/129", "lb", "1.2.3.4/", "1.2.3.4/-1", "1.2.3.4/8x", "1.2.3.4/0008",
               "10.0.0.0/8;rm", "[::1]", "1.2.3.4:80", ",".join(f"10.0.0.{i}" for i in range(65))]
        for spec in bad:
            with self.subTest(spec=spec):
                proc = subprocess.run([str(GATEWAY), "--trusted-proxies", spec], capture_output=True, text=True,
                                      timeout=30)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                lines = proc.stderr.splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                entry = json.loads(lines[0])
                self.assertEqual((entry["level"], entry["event"]), ("error", "config_error"), entry)
                self.assertIn("--trusted-proxies", entry["msg"], entry)


if __name__ == "__main__":
    import unittest
    unittest.main()
