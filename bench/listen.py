"""The `listen` part of bench/run.py: what held change-notification streams cost a gateway.

One gateway (--max-listen-streams and --max-connections above N), N subscriptions/listen
streams on one note (N/8 principals: the extension allows 8 live streams a principal),
opened over raw sockets so the client side costs nothing measurable:

  rss       gateway RSS with N streams held / idle (same process, same run)
  latency   time from sending an UPDATE of the note (autocommit, on a psql session
            already connected) until every stream received
            notifications/resources/updated, at N streams / at 1 stream,
            alternating per round

Ratios are the result (the machine is shared); absolute numbers are kept in the JSON.
"""
import json
import select
import socket
import subprocess
import time

from run import Gateway, lit, median, ratio_summary, rss_kb, say  # noqa: E402 (bench/run.py's module)

WORKSPACE = "file:///bench/listen"
PER_PRINCIPAL = 8
MARK = b"notifications/resources/updated"


def open_stream(port, token, uri, rid):
    """A listen stream, returned once its acknowledgment arrived."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "subscriptions/listen", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}},
        "notifications": {"resourceSubscriptions": [uri]}}})
    s.sendall((f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               f"Accept: application/json, text/event-stream\r\nAuthorization: Bearer {token}\r\n"
               f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"
               f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
    got = b""
    while b"notifications/subscriptions/acknowledged" not in got:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError(f"listen stream {rid} closed before its acknowledgment: {got[-300:]!r}")
        got += chunk
    return s


def drain(socks):
    """Read what is buffered (keep-alive comments) without waiting."""
    while True:
        ready, _, _ = select.select(socks, [], [], 0)
        if not ready:
            return
        for s in ready:
            s.recv(65536)


def until_all(socks, timeout=10.0):
    """Seconds until every stream received an update."""
    pending = {s: b"" for s in socks}
    t0 = time.monotonic()
    while pending and time.monotonic() - t0 < timeout:
        ready, _, _ = select.select(list(pending), [], [], 0.5)
        for s in ready:
            pending[s] += s.recv(65536)
            if MARK in pending[s]:
                del pending[s]
    if pending:
        raise RuntimeError(f"{len(pending)} of {len(socks)} streams got no update within {timeout} s")
    return time.monotonic() - t0


def run_listen(suite):
    p = suite.p
    n = p.get("listeners", 64)
    rounds = max(5, p["rounds"])
    c = suite.cluster
    say(f"listen: gateway RSS and delivery latency at {n} listen streams vs idle / 1 stream")
    c.psql(f"SELECT mcp_notes.add_workspace({lit(WORKSPACE)})")
    principals = [f"listener{i}" for i in range((n + PER_PRINCIPAL - 1) // PER_PRINCIPAL)]
    tokens = []
    for who in principals:
        c.psql(f"SELECT mcp_notes.grant_workspace({lit(who)}, {lit(WORKSPACE)})")
        tokens.append(c.psql(f"SELECT mcp_notes.issue_token({lit(who)})"))
    uri = f"{WORKSPACE}/watched.md"
    note = c.psql(f"SELECT mcp_notes.add_note({lit(uri)}, 'Watched', 'v0')")
    gw = Gateway(suite.args.gateway, suite.cluster, suite.tmp, "gw-listen", threads=n + 44,
                 extra=["--max-listen-streams", str(n + 1)])
    m = {"listeners": n, "rounds": rounds}
    try:
        m["idle"] = rss_kb(gw.proc.pid)
        one = [open_stream(gw.port, tokens[0], uri, 1)]
        many = one + [open_stream(gw.port, tokens[i // PER_PRINCIPAL], uri, i + 1)
                      for i in range(1, n)]
        time.sleep(0.5)
        m["held"] = rss_kb(gw.proc.pid)
        lat1, latn = [], []
        writer = subprocess.Popen(["psql", "-X", "-q", "-d", "bench", "-U", "postgres"], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, env=c.env, text=True)
        # warm-up, not counted: psql's connection, the first delivery to every stream
        writer.stdin.write(f"UPDATE mcp_notes.notes SET body = 'warm' WHERE note_id = {lit(note)};\n")
        writer.stdin.flush()
        until_all(many)
        time.sleep(0.2)
        for r in range(rounds):
            order = [("1", one, lat1), ("N", many, latn)]
            for which, socks, into in (order if r % 2 == 0 else order[::-1]):
                drain(many)
                t0 = time.monotonic()
                writer.stdin.write(f"UPDATE mcp_notes.notes SET body = 'round {r} {which}' WHERE note_id = {lit(note)};\n")
                writer.stdin.flush()
                until_all(socks)
                into.append(time.monotonic() - t0)
                time.sleep(0.2)
                drain(many)
        m["latency_1_ms"] = [round(x * 1000, 1) for x in lat1]
        m["latency_n_ms"] = [round(x * 1000, 1) for x in latn]
        writer.stdin.close()
        writer.wait(timeout=30)
        m["ratio_latency_n_vs_1"] = ratio_summary(latn, lat1)
        m["ratio_rss_held_vs_idle"] = round(m["held"]["VmRSS"] / m["idle"]["VmRSS"], 3)
        m["rss_per_stream_kb"] = round((m["held"]["VmRSS"] - m["idle"]["VmRSS"]) / n, 1)
        for s in many:
            s.close()
    finally:
        gw.proc.stop()
    suite.result["listen"] = m
    say(f"  RSS idle {m['idle']['VmRSS'] / 1024:.1f} MB, {n} streams {m['held']['VmRSS'] / 1024:.1f} MB "
        f"(x{m['ratio_rss_held_vs_idle']}, {m['rss_per_stream_kb']} kB a stream, {m['held']['Threads']} threads); "
        f"delivery p50 1 stream {median(m['latency_1_ms'])} ms, {n} streams {median(m['latency_n_ms'])} ms "
        f"(x{m['ratio_latency_n_vs_1']['median']})")
