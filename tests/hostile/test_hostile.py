"""A table of hostile HTTP requests against real gateways.

Every row is one request (or one family of requests) sent over a raw socket,
so that nothing in a client library fixes, refuses or re-encodes what is sent,
and has one defined outcome: the HTTP status, the JSON-RPC code, the id that
must be echoed and, where the database answers, data.reason.  The outcomes
come from docs/protocol.md and docs/gateway.md (request flow table, Limits and
strictness), docs/state-format.md for requestState, and RFC 9110/9112 where
those documents are silent (malformed HTTP that libmicrohttpd refuses before
the gateway sees it).

The requestState rows use a real state from a real step 1 and answer it with
"accept": if any tampered state were taken as valid, the note would be
deleted.  After the table (the test_999 rows, which sort last): the note
still exists, the audit has no accept row, the original state is still
unspent and usable, every gateway process is alive and answers a normal
request, and every line it logged is valid UTF-8 JSON.

A row marked known_bug is a deviation this table found in a file this suite
does not own; it runs as an expected failure, so fixing the bug turns it into
an "unexpected success" that fails the suite until the mark is removed.
HOSTILE_KNOWN_BUGS_FAIL=1 runs them as ordinary tests, to see how they fail.
"""
import base64
import json
import os
import socket
import string
import time
import unittest

from tests.e2e.harness import (META_SERVER, META_VERSION, PROTOCOL_VERSION, WORKSPACE, GatewayTestCase,
                               accept, form_of, meta, unique_title, wait_until)

MiB = 1024 * 1024
RAISED_CAP = 10 * MiB           # --max-body of the second gateway
TEN_MB = 10_000_000             # "a 10 MB string"
ELICIT = {"elicitation": {}}


# ---------------------------------------------------------------- raw HTTP

class Reply:
    """What came back on the socket: nothing, an HTTP response, and whether
    the server closed the connection afterwards (None: not probed)."""

    def __init__(self, raw, closed):
        self.raw = raw
        self.closed = closed
        self.status = None
        self.headers = {}
        self.body = b""
        if not raw:
            return
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        self.status = int(lines[0].split()[1])
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            self.headers.setdefault(k.strip().lower().decode("latin-1"), []).append(v.strip().decode("latin-1"))
        n = int(self.header("content-length") or len(rest))
        self.body = rest[:n]

    def header(self, name):
        v = self.headers.get(name)
        return v[0] if v else None

    def json(self):
        def no_duplicates(pairs):
            keys = [k for k, _ in pairs]
            if len(keys) != len(set(keys)):
                raise ValueError(f"duplicate member names in the response: {keys}")
            return dict(pairs)
        # bytes: json decodes them as strict UTF-8
        return json.loads(self.body, object_pairs_hook=no_duplicates)

    def __repr__(self):
        return f"<Reply {self.status} closed={self.closed} {self.raw[:400]!r}>"


def read_response(sock, deadline):
    """One HTTP response (headers + Content-Length body) or b"" when the peer
    closed or reset without one."""
    buf = b""
    while True:
        if b"\r\n\r\n" in buf:
            head, _, rest = buf.partition(b"\r\n\r\n")
            n = 0
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    n = int(v.strip())
            if len(rest) >= n:
                return buf
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError, socket.timeout):
            return buf
        if not chunk:
            return buf
        buf += chunk


def probe_closed(sock, wait):
    """True when the server closes the connection within `wait` seconds."""
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def exchange(port, data, timeout=30, probe_close=None):
    """Send raw bytes (a bytes object, or an iterable of pieces sent in turn);
    read one response.  probe_close: seconds to wait for the server to close."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        pieces = [data] if isinstance(data, (bytes, bytearray)) else data
        try:
            for piece in pieces:
                sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        raw = read_response(sock, time.monotonic() + timeout)
        closed = probe_closed(sock, probe_close) if (probe_close and raw) else None
        return Reply(raw, closed)
    finally:
        sock.close()


def http_request(body, headers, target=b"/mcp", method=b"POST", content_length=True,
                 connection_close=True):
    h = [method + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    h += headers
    if content_length:
        h.append(b"Content-Length: %d" % len(body))
    if connection_close:
        h.append(b"Connection: close")
    return b"\r\n".join(h) + b"\r\n\r\n" + body


def chunked(body, size, ext=b""):
    out = b""
    for i in range(0, len(body), size):
        piece = body[i:i + size]
        out += b"%x%s\r\n%s\r\n" % (len(piece), ext, piece)
    return out + b"0\r\n\r\n"


# ---------------------------------------------------------------- requests

def rpc_body(method="tools/list", params=None, id=1, with_meta=True, caps=None):
    p = dict(params or {})
    if with_meta:
        p.setdefault("_meta", meta(caps))
    body = {"jsonrpc": "2.0", "method": method, "params": p}
    if id is not None:
        body["id"] = id
    return json.dumps(body).encode()


def mcp_headers(ctx, method="tools/list", name=None, token=..., content_type=b"application/json",
                extra=(), drop=()):
    """Header lines of a well-formed request; drop removes by lower-case name."""
    token = ctx.token if token is ... else token
    h = [(b"Content-Type", content_type), (b"MCP-Protocol-Version", PROTOCOL_VERSION.encode()),
         (b"Mcp-Method", method.encode())]
    if name is not None:
        h.append((b"Mcp-Name", name if isinstance(name, bytes) else name.encode()))
    if token is not None:
        h.append((b"Authorization", b"Bearer " + token.encode()))
    h = [(k, v) for k, v in h if k.lower() not in drop and v is not None]
    return [k + b": " + v for k, v in h] + list(extra)


def call_params(ctx, title=None, responses=None, state=..., workspace=WORKSPACE):
    p = {"name": "notes_delete",
         "arguments": {"workspaceUri": workspace, "title": ctx.title if title is None else title}}
    if responses is not None:
        p["inputResponses"] = responses
    if state is not ...:
        p["requestState"] = state
    return p


def tool_call(ctx, id=1, **kw):
    """(body, headers) of a notes_delete tools/call."""
    return (rpc_body("tools/call", call_params(ctx, **kw), id=id, caps=ELICIT),
            mcp_headers(ctx, "tools/call", name="notes_delete"))


def send(ctx, body, headers=None, gw=None, **kw):
    """POST body to /mcp of ctx.gw (or gw) with the standard headers."""
    headers = mcp_headers(ctx) if headers is None else headers
    return exchange((gw or ctx.gw).port, http_request(body, headers), **kw)


def patch(body, placeholder, raw):
    """Replace a JSON string placeholder ("@@X@@", quotes included) by raw bytes."""
    token = json.dumps(placeholder).encode()
    assert token in body, placeholder
    return body.replace(token, raw)


def list_with(ctx, raw_value, id=1):
    """A valid tools/list whose params carry raw_value (bytes) as params.pad."""
    return patch(rpc_body("tools/list", {"pad": "@@PAD@@"}, id=id), "@@PAD@@", raw_value)


def call_with_title(ctx, raw_title, id=1):
    body, headers = tool_call(ctx, id=id, title="@@TITLE@@")
    return patch(body, "@@TITLE@@", raw_title), headers


def nested(depth, kind="array"):
    if kind == "array":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


def b64(text_or_bytes):
    raw = text_or_bytes if isinstance(text_or_bytes, bytes) else text_or_bytes.encode()
    return b"=?base64?" + base64.b64encode(raw) + b"?="


def meta_raw():
    return json.dumps(meta(ELICIT)).encode()


# ---------------------------------------------------------------- requestState model

B64URL = set(string.ascii_letters + string.digits + "-_")


def b64url_canonical(text):
    """The bytes of canonical unpadded base64url text, or None (docs/state-format.md)."""
    if not text or len(text) % 4 == 1 or any(c not in B64URL for c in text):
        return None
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(raw).decode().rstrip("=") != text:
        return None
    return raw


def predicted_reason(state, original, key_ids):
    """data.reason docs/state-format.md gives a state that is not `original`."""
    if len(state.encode()) > 16384:
        return "state_malformed"
    parts = state.split(".")
    if len(parts) != 4 or parts[0] != "v1":
        return "state_malformed"
    kid, payload, mac = parts[1:]
    if not (1 <= len(kid) <= 9) or kid[0] == "0" or any(c not in "0123456789" for c in kid):
        return "state_malformed"
    decoded = b64url_canonical(payload)
    if not decoded:
        return "state_malformed"
    sig = b64url_canonical(mac)
    if sig is None or len(sig) != 32:
        return "state_malformed"
    if int(kid) not in key_ids:
        return "state_unknown_key"
    assert state != original
    return "state_bad_signature"


def flip_bytes(text, transform):
    """text with its decoded bytes changed by transform, re-encoded canonically."""
    raw = bytearray(b64url_canonical(text))
    transform(raw)
    return base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


# ---------------------------------------------------------------- expectations

class Expect:
    """status: HTTP status; code: JSON-RPC error code (None: not a JSON-RPC
    error); id: the id the error/result must carry (... = not checked, None = no
    id member: the id could not be read);
    reason: error.data.reason (... = not checked, None = no data.reason);
    result: resultType of a result; closed: the server must close the
    connection after answering; http_only: libmicrohttpd's own error page
    (no JSON-RPC); no_response: the connection ends without a response;
    oauth_error: a 401 whose body is the OAuth error object {error, error_description}."""

    def __init__(self, status=None, code=None, id=..., reason=..., result=None, closed=None,
                 http_only=False, no_response=False, oauth_error=None):
        self.status, self.code, self.id, self.reason = status, code, id, reason
        self.result, self.closed, self.http_only, self.no_response = result, closed, http_only, no_response
        self.oauth_error = oauth_error


def err(code, status, id=1, reason=..., **kw):
    return Expect(status=status, code=code, id=id, reason=reason, **kw)


PARSE = err(-32700, 400, id=None)
INVALID = err(-32600, 400)
INVALID_NO_ID = err(-32600, 400, id=None)
HEADER = err(-32020, 400)
# 401: the OAuth error object of RFC 6750 / the official SDK's bearer auth, not JSON-RPC (was -32001)
UNAUTH = Expect(status=401, oauth_error="invalid_token")
MEDIA = Expect(status=415, code=-32600, id=None)
FRAMING = Expect(status=400, code=-32600, id=None, closed=True)
OK = Expect(status=200, result="complete", id=1)


def refused(reply, statuses, closed=None):
    """A known-bug row's own check: answered with one of `statuses` and, if
    JSON-RPC, not as if the request had been read (-32700 of a cut body, or a
    result); closed: the connection must then be closed."""
    assert reply.status in statuses, reply
    if reply.body.startswith(b"{"):
        doc = json.loads(reply.body)
        assert "result" not in doc and doc["error"]["code"] not in (-32700,), reply
    if closed is not None:
        assert reply.closed == closed, reply
    return None


def state_error(reason, id=1):
    return err(-32602, 200, id=id, reason=reason)


# ---------------------------------------------------------------- the table

ROWS = []


def row(name, expect=None, known_bug=None):
    """Register fn(ctx) -> Reply (checked against expect) as one test; with
    expect None the function makes its own assertions."""
    def register(fn):
        ROWS.append((name, fn, expect, known_bug))
        return fn
    return register


# ---- invalid UTF-8 and encodings (docs/gateway.md: UTF-8 RFC 8259 JSON, else -32700)

row("utf8_invalid_byte_in_method", PARSE)(
    lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/\xfflist","params":{"_meta":' + meta_raw() + b"}}"))
row("utf8_invalid_sequence_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"TPS \xc3\x28"')))
row("utf8_overlong_slash_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"..\xc0\xaf..\xc0\xafetc"')))
row("utf8_encoded_surrogate_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"\xed\xa0\x80"')))
row("utf8_above_u10ffff_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"\xf4\x90\x80\x80"')))
row("utf8_truncated_sequence_at_end_of_body", PARSE)(lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"\xe2\x82'))
row("latin1_byte_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"caf\xe9"')))
row("escape_lone_high_surrogate_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"x\\ud800y"')))
row("escape_lone_low_surrogate_in_title", PARSE)(lambda c: send(c, *call_with_title(c, b'"\\udc00"')))
row("escape_u0000_in_workspace_uri", PARSE)(
    lambda c: send(c, *(lambda b, h: (patch(b, WORKSPACE, b'"file:///work/notes\\u0000/x"'), h))(*tool_call(c))))
row("raw_control_character_in_string", PARSE)(lambda c: send(c, *call_with_title(c, b'"a\x01b"')))
row("byte_order_mark_before_body", PARSE)(lambda c: send(c, b"\xef\xbb\xbf" + rpc_body()))
row("utf16_body", PARSE)(lambda c: send(c, rpc_body().decode().encode("utf-16-le"),
                                        mcp_headers(c, content_type=b"application/json; charset=utf-16")))

# ---- structure (depth 64, duplicate names, numbers, shapes)

row("nesting_10000_arrays", PARSE)(lambda c: send(c, list_with(c, nested(10_000))))
row("nesting_10000_objects", PARSE)(lambda c: send(c, list_with(c, nested(10_000, "object"))))
row("nesting_10000_unclosed", PARSE)(lambda c: send(c, b"[" * 10_000))
# root object (1) > params (2) > pad: 62 arrays reach depth 64, the limit; 63 exceed it
row("nesting_64_is_the_limit", OK)(lambda c: send(c, list_with(c, nested(62))))
row("nesting_65_is_refused", PARSE)(lambda c: send(c, list_with(c, nested(63))))
row("number_1e999_in_params", OK)(lambda c: send(c, list_with(c, b"1e999")))
# a title that is not a string is a tool error (isError: true), a result a model can act on
row("number_1e999_as_title", OK)(lambda c: send(c, *call_with_title(c, b"1e999")))
# jsonb's numeric overflows beyond 1e131071: SQLSTATE 22003, class 22 -> -32602, HTTP 200, no data.reason
row("number_1e999999999_as_title", state_error(None))(lambda c: send(c, *call_with_title(c, b"-1e999999999")))
# an unknown member of tools/list's params is ignored by the extension, but a
# number jsonb cannot hold makes the request one the database cannot read:
# class 22 -> -32602 (the gateway serves tools/list from memory only when
# params holds nothing but _meta)
row("number_1e999999999_in_params", state_error(None))(lambda c: send(c, list_with(c, b"1e999999999")))
row("integer_100_digits_in_params", PARSE)(lambda c: send(c, list_with(c, b"1" * 100)))
row("duplicate_method", PARSE)(lambda c: send(c, rpc_body()[:-1] + b', "method": "tools/call"}'))
row("duplicate_method_spelled_with_escape", PARSE)(
    lambda c: send(c, rpc_body()[:-1] + b', "m\\u0065thod": "tools/list"}'))
row("duplicate_id", PARSE)(lambda c: send(c, rpc_body()[:-1] + b', "id": 2}'))
row("duplicate_protocol_version_in_meta", PARSE)(
    lambda c: send(c, rpc_body().replace(b'"%s": "2026-07-28"' % META_VERSION.encode(),
                                         b'"%s": "2026-07-28", "%s": "2025-11-25"' % ((META_VERSION.encode(),) * 2))))
row("duplicate_title_in_arguments", PARSE)(
    lambda c: send(c, *(lambda b, h: (b.replace(b'"title": ', b'"title": "other", "title": '), h))(*tool_call(c))))
row("trailing_garbage", PARSE)(lambda c: send(c, rpc_body() + b" x"))
row("single_quotes", PARSE)(lambda c: send(c, b"{'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}"))
row("nan_literal", PARSE)(lambda c: send(c, list_with(c, b"NaN")))
row("empty_body", PARSE)(lambda c: send(c, b""))
row("whitespace_only_body", PARSE)(lambda c: send(c, b" \t\r\n  \n"))
row("batch_array", INVALID_NO_ID)(lambda c: send(c, b"[" + rpc_body(id=1) + b"," + rpc_body(id=2) + b"]"))
row("empty_batch", INVALID_NO_ID)(lambda c: send(c, b"[]"))
row("body_is_a_string", INVALID_NO_ID)(lambda c: send(c, b'"tools/list"'))
row("body_is_null", INVALID_NO_ID)(lambda c: send(c, b"null"))
row("body_is_a_number", INVALID_NO_ID)(lambda c: send(c, b"42"))
row("response_object_as_request", err(-32600, 400, id=4))(lambda c: send(c, b'{"jsonrpc":"2.0","id":4,"result":{}}'))
row("jsonrpc_1_0", INVALID)(lambda c: send(c, rpc_body().replace(b'"2.0"', b'"1.0"', 1)))
row("params_string", INVALID)(lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"_meta"}'))
row("params_number", INVALID)(lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":7}'))
row("params_true", INVALID)(lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":true}'))
row("params_null", INVALID)(lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}'))
row("params_array", err(-32602, 400))(
    lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[' + meta_raw() + b"]}"))
row("meta_not_an_object", err(-32602, 400))(
    lambda c: send(c, b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":"x"}}'))
row("arguments_not_an_object", state_error("invalid_arguments"))(
    lambda c: send(c, *(lambda b, h: (b.replace(b'"arguments": {', b'"arguments": [{').replace(b'}, "_meta"', b'}], "_meta"'), h))(*tool_call(c))))


# ---- ids of every JSON type (docs/gateway.md step 8: absent, a string or an integer)

def with_id(raw_id):
    return lambda c: send(c, rpc_body(id=None)[:-1] + b', "id": ' + raw_id + b"}")


for label, raw_id, expect in [
        ("id_integer", b"7", Expect(status=200, result="complete", id=7)),
        ("id_zero", b"0", Expect(status=200, result="complete", id=0)),
        ("id_negative_zero", b"-0", Expect(status=200, result="complete", id=0)),
        ("id_int64_max", b"9223372036854775807", Expect(status=200, result="complete", id=9223372036854775807)),
        ("id_int64_min", b"-9223372036854775808", Expect(status=200, result="complete", id=-9223372036854775808)),
        ("id_int64_max_plus_one", b"9223372036854775808", PARSE),
        ("id_100_digit_integer", b"1" * 100, PARSE),
        ("id_1e999", b"1e999", INVALID_NO_ID),
        ("id_float", b"1.5", INVALID_NO_ID),
        ("id_integral_float", b"1.0", INVALID_NO_ID),
        ("id_exponent", b"1e2", INVALID_NO_ID),
        ("id_true", b"true", INVALID_NO_ID),
        ("id_false", b"false", INVALID_NO_ID),
        ("id_null", b"null", INVALID_NO_ID),
        ("id_object", b'{"a": 1}', INVALID_NO_ID),
        ("id_array", b"[1]", INVALID_NO_ID),
        ("id_empty_string", b'""', Expect(status=200, result="complete", id="")),
        ("id_unicode_string", json.dumps("é✓😀").encode(), Expect(status=200, result="complete", id="é✓😀")),
        ("id_string_with_escapes", b'"a\\"b\\\\c\\n\\u00e9"', Expect(status=200, result="complete", id='a"b\\c\né')),
        ("id_string_10_kb", b'"' + "é".encode() * 5000 + b'"', Expect(status=200, result="complete", id="é" * 5000)),
        # the log keeps 71 bytes of the id's JSON text: the cut falls inside an "é"
        ("id_cut_in_the_log_inside_a_character", json.dumps("a" + "é" * 100, ensure_ascii=False).encode(),
         Expect(status=200, result="complete", id="a" + "é" * 100)),
]:
    row(label, expect)(with_id(raw_id))

row("notification_tools_call_is_not_executed", Expect(status=202))(
    lambda c: send(c, *(lambda b, h: (rpc_body("tools/call", call_params(c, responses=accept(c.note), state=c.state),
                                               id=None, caps=ELICIT), h))(*tool_call(c))))

# ---- sizes: --max-body (default 1 MiB; the second gateway 10 MiB)


def announce_only(ctx, length, gw):
    """Send only the headers of a body of `length` bytes; the answer must come
    before any byte of the body (docs/gateway.md step 5)."""
    head = http_request(b"", mcp_headers(ctx), content_length=False, connection_close=False)
    head = head[:-2] + b"Content-Length: %d\r\n\r\n" % length
    start = time.monotonic()
    r = exchange(gw.port, head, timeout=10, probe_close=5)
    assert time.monotonic() - start < 5, "413 must not wait for the body"
    return r


TOO_LARGE = Expect(status=413, code=-32600, id=None, closed=True)
row("string_10_mb_over_the_default_cap", TOO_LARGE)(lambda c: announce_only(c, TEN_MB + 200, c.gw))
row("string_10_mb_sent_anyway_over_the_default_cap", TOO_LARGE)(
    lambda c: send(c, list_with(c, b'"' + b"x" * TEN_MB + b'"'), probe_close=5))
row("string_10_mb_under_a_raised_cap", OK)(lambda c: send(c, list_with(c, b'"' + b"x" * TEN_MB + b'"'), gw=c.gw_big))
row("title_10_mb_under_a_raised_cap", OK)(
    lambda c: send(c, *call_with_title(c, b'"' + "é".encode() * (TEN_MB // 2) + b'"'), gw=c.gw_big))


# ---- a 400 KB string wherever the extension reads one (issue 18.3): refused
# by the length its schema declares, before any other work, and the answer
# quotes none of it (docs/tools.md, docs/resources-prompts.md)

KB400 = 400_000


def long_tool_argument(ctx, name, arguments, says):
    """A tools/call whose answer must be a short tool error containing says."""
    reply = send(ctx, rpc_body("tools/call", {"name": name, "arguments": arguments}),
                 mcp_headers(ctx, "tools/call", name=name))
    assert reply.status == 200, reply
    result = reply.json()["result"]
    assert result["isError"] is True, reply
    text = result["content"][0]["text"]
    assert says in text and len(text) < 400, text


row("long_note_id_400_kb")(lambda c: long_tool_argument(
    c, "notes_read", {"workspaceUri": WORKSPACE, "noteId": "\u202e" + "z" * KB400},
    "noteId must be at most 100 characters"))
row("long_query_400_kb")(lambda c: long_tool_argument(
    c, "notes_search", {"workspaceUri": WORKSPACE, "query": "q" * KB400}, "query must be at most 200 characters"))
row("long_cursor_400_kb")(lambda c: long_tool_argument(
    c, "notes_list", {"workspaceUri": WORKSPACE, "cursor": "v1." + "A" * KB400},
    "cursor must be at most 16384 characters"))
row("long_workspace_uri_400_kb")(lambda c: long_tool_argument(
    c, "notes_list", {"workspaceUri": WORKSPACE + "/" + "w" * KB400}, "workspaceUri must be at most 4096 characters"))
row("long_argument_name_400_kb")(lambda c: long_tool_argument(
    c, "notes_list", {"workspaceUri": WORKSPACE, "\u202e" + "k" * KB400: 1}, "unknown argument(s): \\u202Ekkk"))
row("long_delete_title_400_kb")(lambda c: long_tool_argument(
    c, "notes_delete", {"workspaceUri": WORKSPACE, "title": "t" * KB400}, "title must be at most 200 characters"))
row("long_completion_value_400_kb", state_error("invalid_argument"))(lambda c: send(
    c, rpc_body("completion/complete", {"ref": {"type": "ref/prompt", "name": "review_note"},
                                        "argument": {"name": "title", "value": "v" * KB400},
                                        "context": {"arguments": {"workspaceUri": WORKSPACE}}}),
    mcp_headers(c, "completion/complete")))
row("long_prompt_title_400_kb", state_error("invalid_arguments"))(lambda c: send(
    c, rpc_body("prompts/get", {"name": "review_note", "arguments": {"workspaceUri": WORKSPACE, "title": "t" * KB400}}),
    mcp_headers(c, "prompts/get", name="review_note")))
row("body_one_byte_over_the_raised_cap", TOO_LARGE)(lambda c: announce_only(c, RAISED_CAP + 1, c.gw_big))
row("body_exactly_the_raised_cap", OK)(
    lambda c: send(c, (lambda b: b[:-1] + b', "pad": "' + b"y" * (RAISED_CAP - len(b) - 11) + b'"}')(rpc_body()),
                   gw=c.gw_big))
row("object_with_60000_members", OK)(
    lambda c: send(c, list_with(c, b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(60_000)) + b"}")))
row("array_with_200000_elements", OK)(lambda c: send(c, list_with(c, b"[" + b"0," * 199_999 + b"0]")))
row("string_of_100000_escapes", OK)(lambda c: send(c, list_with(c, b'"' + b"\\u00e9\\n" * 100_000 + b'"')))

# ---- headers (step 11: visible ASCII, SP, HTAB; else -32020; Authorization step 14)

row("nul_in_mcp_method", HEADER)(lambda c: send(c, rpc_body(), mcp_headers(c, "tools/\x00list")))
row("nul_in_mcp_protocol_version", None,
    known_bug="http.c: the same C-string truncation reads 'MCP-Protocol-Version: 2026-07-28\\0x' as matching")(
    lambda c: refused(send(c, rpc_body(), mcp_headers(c, drop=(b"mcp-protocol-version",),
                                                      extra=[b"MCP-Protocol-Version: 2026-07-28\x00x"])), (400,)))
row("nul_in_authorization_after_a_valid_token", None,
    known_bug="libmicrohttpd 0.9.75 cuts a header value at a NUL byte before the gateway sees it "
              "(MHD_get_connection_values_n reports the cut length too), so 'Bearer <token>\\0junk' is read as "
              "'Bearer <token>'; only a client that holds the token can do this")(
    lambda c: refused(send(c, rpc_body(), mcp_headers(c, token=None, extra=[b"Authorization: Bearer " + c.token.encode() + b"\x00junk"])),
                      (400, 401)))
row("cr_in_mcp_method", HEADER)(lambda c: send(c, rpc_body(), mcp_headers(c, "tools/\rlist")))
row("bare_lf_in_mcp_method", Expect(status=400, http_only=True))(
    lambda c: send(c, rpc_body(), mcp_headers(c, "tools/\nlist")))
# libmicrohttpd appends the continuation to the name ("Mcp-Methodfolded"): refused as framing since
# the obs-fold fix (it was -32020, "required Mcp-Method header is missing")
row("obs_fold_continuation_of_mcp_method", FRAMING)(
    lambda c: send(c, rpc_body(), mcp_headers(c, drop=(b"mcp-method",), extra=[b"Mcp-Method: tools/list", b" folded"]), probe_close=2))
row("crlf_injection_in_a_json_string_header_mirror", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "a\r\nX-Evil: 1"}, caps=ELICIT),
                   mcp_headers(c, "tools/call", name=b"a")))
row("non_ascii_mcp_method", HEADER)(lambda c: send(c, rpc_body(), mcp_headers(c, "tools/listé")))
# the log keeps 63 bytes of the method and of the tool name: both cuts fall inside an "é"
row("non_ascii_method_cut_in_the_log", HEADER)(lambda c: send(c, rpc_body("é" * 40), mcp_headers(c, "x")))
row("non_ascii_tool_name_cut_in_the_log", state_error("unknown_tool"))(
    lambda c: send(c, rpc_body("tools/call", {"name": "é" * 40, "arguments": {}}, caps=ELICIT),
                   mcp_headers(c, "tools/call", name=b64("é" * 40))))
row("invalid_utf8_in_mcp_name", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "notes_delete"}), mcp_headers(c, "tools/call", name=b"notes\xff")))
row("base64_mcp_name_of_invalid_utf8", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "notes_delete"}), mcp_headers(c, "tools/call", name=b64(b"\xff\xfe"))))
row("base64_mcp_name_of_nul", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "notes_delete"}), mcp_headers(c, "tools/call", name=b64(b"\x00"))))
row("base64_mcp_name_non_canonical", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "A"}), mcp_headers(c, "tools/call", name=b"=?base64?QR==?=")))
# SEP-2243: the base64 of a sentinel is canonical, padded standard base64 (the conformance suite's
# ServerRejectsInvalidBase64Padding); until the param-headers change unpadded text was accepted
row("base64_mcp_name_unpadded", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "A"}), mcp_headers(c, "tools/call", name=b"=?base64?QQ?=")))
row("base64_mcp_name_overpadded", HEADER)(
    lambda c: send(c, rpc_body("tools/call", {"name": "A"}), mcp_headers(c, "tools/call", name=b"=?base64?QQ===?=")))
row("base64_mcp_name_padded_matching", state_error("unknown_tool"))(
    lambda c: send(c, rpc_body("tools/call", {"name": "A", "arguments": {}}, caps=ELICIT),
                   mcp_headers(c, "tools/call", name=b"=?base64?QQ==?=")))
# Mcp-Param-* lines are read only for a tool whose inputSchema marks x-mcp-header arguments
# (tests/e2e/test_param_headers.py); notes_delete marks none, so 40 junk ones change nothing
row("mcp_param_junk_on_a_tool_without_marks", Expect(status=200, result="input_required", id=1))(
    lambda c: send(c, *(lambda b, h: (b, h + [b"Mcp-Param-P%d: =?base64?%s?=" % (i, b"\xff!" * i) for i in range(40)]))(
        *tool_call(c))))
row("base64_mcp_name_matching", OK)(
    lambda c: send(c, rpc_body("tools/call", {"name": "notes_delete", "arguments": {}}, caps=ELICIT),
                   mcp_headers(c, "tools/call", name=b64("notes_delete"))))
row("mcp_method_twice", HEADER)(lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"mcp-method: tools/list"])))
# The request line and headers share a 16 KiB buffer per connection (HAProxy's
# default tune.bufsize is the same size, so nothing larger gets through it).
row("header_value_12_kb", OK)(lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"X-Pad: " + b"p" * 12_000])))
row("mcp_name_8_kb_matching_params_name", state_error("unknown_tool"))(
    lambda c: send(c, rpc_body("tools/call", {"name": "n" * 8_000, "arguments": {}}, caps=ELICIT),
                   mcp_headers(c, "tools/call", name="n" * 8_000)))
row("header_block_over_16_kb", Expect(status=431, http_only=True))(
    lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"X-Pad: " + b"p" * 17_000])))
row("header_block_of_100_kb", Expect(status=431, http_only=True))(
    lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"X-Pad: " + b"p" * 100_000])))
row("authorization_token_2000_characters", UNAUTH)(lambda c: send(c, rpc_body(), mcp_headers(c, token="t" * 2000)))
row("authorization_twice", UNAUTH)(
    lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"Authorization: Bearer " + c.token.encode()])))
row("authorization_basic", UNAUTH)(lambda c: send(c, rpc_body(), mcp_headers(c, token=None, extra=[b"Authorization: Basic YTpi"])))
row("url_of_100_kb", Expect(status=414, http_only=True))(
    lambda c: exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c), target=b"/mcp?" + b"q" * 100_000)))
row("url_of_10_kb_query_is_ignored", OK)(
    lambda c: exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c), target=b"/mcp?" + b"q" * 10_000)))
row("http_version_9_9", Expect(status=505, http_only=True))(
    lambda c: exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c)).replace(b"HTTP/1.1", b"HTTP/9.9", 1)))

# ---- content types (step 4: application/json, parameters allowed, exactly one header)

for label, ct in [("text_plain", b"text/plain"), ("form_urlencoded", b"application/x-www-form-urlencoded"),
                  ("multipart", b"multipart/form-data; boundary=x"), ("jsonp", b"application/jsonp"),
                  ("json_list", b"application/json, text/plain"), ("json_seq", b"application/json-seq"),
                  ("empty", b"")]:
    row(f"content_type_{label}", MEDIA)(lambda c, ct=ct: send(c, rpc_body(), mcp_headers(c, content_type=ct)))
row("content_type_nul_after_json", None,
    known_bug="http.c: the same C-string truncation reads 'application/json\\0junk' as application/json")(
    lambda c: refused(send(c, rpc_body(), mcp_headers(c, content_type=b"application/json\x00junk")), (400, 415)))
row("content_type_missing", MEDIA)(lambda c: send(c, rpc_body(), mcp_headers(c, drop=(b"content-type",))))
row("content_type_twice", MEDIA)(lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"Content-Type: application/json"])))
row("content_type_with_charset_and_case", OK)(
    lambda c: send(c, rpc_body(), mcp_headers(c, content_type=b"Application/JSON ; charset=UTF-8")))


# ---- chunked bodies (step 6: counted as they arrive; over the cap 413 at the end and close)

def chunked_request(ctx, body, size, ext=b"", close=True):
    head = http_request(b"", mcp_headers(ctx, extra=[b"Transfer-Encoding: chunked"]), content_length=False,
                        connection_close=close)
    return head + chunked(body, size, ext)


row("chunked_in_1_byte_chunks", OK)(lambda c: exchange(c.gw.port, chunked_request(c, rpc_body(), 1)))
row("chunked_with_chunk_extensions", OK)(
    lambda c: exchange(c.gw.port, chunked_request(c, rpc_body(), 64, ext=b";ext=1;q=\"a b\"")))
row("chunked_just_under_the_cap", OK)(
    lambda c: exchange(c.gw.port, chunked_request(c, (lambda b: b[:-1] + b', "pad": "' + b"z" * (MiB - len(b) - 11) + b'"}')(rpc_body()), 65536)))
row("chunked_over_the_cap", TOO_LARGE)(
    lambda c: exchange(c.gw.port, chunked_request(c, list_with(c, b'"' + b"z" * (MiB + MiB // 2) + b'"'), 65536, close=False),
                       probe_close=5))
row("chunked_far_over_the_cap_is_cut_off", Expect(no_response=True))(
    lambda c: exchange(c.gw.port, (lambda head: [head] + [b"%x\r\n%s\r\n" % (MiB, b"w" * MiB)] * 12 + [b"0\r\n\r\n"])(
        http_request(b"", mcp_headers(c, extra=[b"Transfer-Encoding: chunked"]), content_length=False))))
row("chunked_with_a_bad_size", Expect(status=400, http_only=True))(
    lambda c: exchange(c.gw.port, http_request(b"", mcp_headers(c, extra=[b"Transfer-Encoding: chunked"]),
                                               content_length=False) + b"zz\r\nabc\r\n0\r\n\r\n"))
row("content_length_negative", Expect(status=400, http_only=True))(
    lambda c: exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c, extra=[b"Content-Length: -1"]), content_length=False)))
row("content_length_twice_differing", None)(
    lambda c: refused(exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c, extra=[b"Content-Length: 5"]))), (400,)))


def cl_and_chunked(c):
    r = exchange(c.gw.port, http_request(b"", mcp_headers(c, extra=[b"Content-Length: 5", b"Transfer-Encoding: chunked"]),
                                         content_length=False, connection_close=False) + chunked(rpc_body(), 50),
                 timeout=10, probe_close=2)
    assert r.status in (200, 400) and r.closed, f"answered and closed? {r}"


row("content_length_and_chunked_closes", None)(cl_and_chunked)
row("transfer_encoding_gzip_chunked", None)(
    lambda c: refused(exchange(c.gw.port, http_request(b"", mcp_headers(c, extra=[b"Transfer-Encoding: gzip, chunked"]),
                                                       content_length=False, connection_close=False) + chunked(rpc_body(), 50),
                               timeout=2, probe_close=1), (400, 501), closed=True))


# ---- ambiguous framing (RFC 9112 sections 2.2, 3.2, 5.1, 5.2, 6): 400 and the connection closed,
# before anything of the body is read.  libmicrohttpd 0.9.75 appends an obs-fold continuation
# line to the header's NAME ("Content-Length: 34" + " 0" is seen as "Content-Length0: 34"), so a
# folded framing header vanishes: the body would then be read as the next request on the
# connection.  The raw bytes below are what a front end that unfolds (or ignores the fold) and
# this gateway would read differently.


def framing(ctx, header_lines, body=None, tail=b"", version=b"HTTP/1.1", timeout=5):
    """A POST /mcp whose framing headers are `header_lines` (no Content-Length is added), followed
    by `body` (default: a valid tools/list) and `tail`.  One response is expected, and then the
    close: a second response (the body read as another request) shows as closed=False."""
    body = rpc_body() if body is None else body
    head = http_request(b"", mcp_headers(ctx) + list(header_lines), content_length=False, connection_close=False)
    head = head.replace(b" HTTP/1.1\r\n", b" " + version + b"\r\n", 1)
    return exchange(ctx.gw.port, head + body + tail, timeout=timeout, probe_close=2)


def smuggled(ctx):
    """A whole second request: what the body of a folded-Content-Length request would become."""
    return http_request(rpc_body(id=2), mcp_headers(ctx), connection_close=False)


row("content_length_obs_fold_smuggles_the_body", FRAMING)(
    lambda c: (lambda second: framing(c, [b"Content-Length: %d" % (len(second) // 10), b" %d" % (len(second) % 10)],
                                      body=second))(smuggled(c)))
row("content_length_obs_fold_with_tab", FRAMING)(
    lambda c: framing(c, [b"Content-Length: %d" % (len(rpc_body()) // 10), b"\t%d" % (len(rpc_body()) % 10)]))
row("transfer_encoding_obs_fold", FRAMING)(
    lambda c: framing(c, [b"Transfer-Encoding:", b" chunked"], body=chunked(rpc_body(), 50)))
row("content_type_obs_fold", FRAMING)(
    lambda c: send(c, rpc_body(), mcp_headers(c, drop=(b"content-type",),
                                              extra=[b"Content-Type: application/json", b"  ;charset=utf-8"]),
                   probe_close=2))
row("transfer_encoding_identity_then_chunked", FRAMING)(
    lambda c: framing(c, [b"Transfer-Encoding: identity", b"Transfer-Encoding: chunked"], body=chunked(rpc_body(), 50)))
row("transfer_encoding_chunked_twice", FRAMING)(
    lambda c: framing(c, [b"Transfer-Encoding: chunked", b"Transfer-Encoding: chunked"], body=chunked(rpc_body(), 50)))
row("whitespace_before_colon_in_content_length", FRAMING)(
    lambda c: (lambda second: framing(c, [b"Content-Length : %d" % len(second)], body=second))(smuggled(c)))
row("tab_before_colon_in_transfer_encoding", FRAMING)(
    lambda c: framing(c, [b"Transfer-Encoding\t: chunked"], body=chunked(rpc_body(), 50)))
row("host_twice", FRAMING)(
    lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"Host: attacker.example"]), probe_close=2))
row("transfer_encoding_in_http_1_0", FRAMING)(
    lambda c: framing(c, [b"Transfer-Encoding: chunked"], body=chunked(rpc_body(), 50), version=b"HTTP/1.0"))
# what is not ambiguous is served: one Content-Length repeated with the same value (RFC 9110
# section 8.6), leading zeros (1*DIGIT), trailers of a chunked body (never read as headers)
row("content_length_twice_same_value", OK)(
    lambda c: send(c, rpc_body(), mcp_headers(c, extra=[b"Content-Length: %d" % len(rpc_body())])))
row("content_length_with_leading_zeros", OK)(
    lambda c: exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c, extra=[b"Content-Length: 000%d" % len(rpc_body())]),
                                               content_length=False)))
row("content_length_with_plus_sign", Expect(status=400, http_only=True))(
    lambda c: exchange(c.gw.port, http_request(rpc_body(), mcp_headers(c, extra=[b"Content-Length: +%d" % len(rpc_body())]),
                                               content_length=False)))
row("chunked_trailers_do_not_replace_headers", OK)(
    lambda c: exchange(c.gw.port, chunked_request(c, rpc_body(), 64)[:-2] +
                       b"Mcp-Method: tools/call\r\nContent-Length: 5\r\nAuthorization: Bearer x\r\n\r\n"))


# ---- requestState: a real state from a real step 1, answered with "accept"

def answer(ctx, state, id=1, title=None, responses=None, token=..., gw=None):
    body = rpc_body("tools/call", call_params(ctx, title=title, state=state,
                                              responses=accept(ctx.note) if responses is None else responses),
                    id=id, caps=ELICIT)
    return send(ctx, body, mcp_headers(ctx, "tools/call", name="notes_delete", token=token), gw=gw)


def sweep(ctx, label, states):
    """Answer each state on one keep-alive connection; every one must be the
    -32602 whose reason the model predicts."""
    sock = socket.create_connection(("127.0.0.1", ctx.gw.port), timeout=30)
    wrong = []
    try:
        for i, s in enumerate(states):
            body = rpc_body("tools/call", call_params(ctx, state=s, responses=accept(ctx.note)), id=i, caps=ELICIT)
            sock.sendall(http_request(body, mcp_headers(ctx, "tools/call", name="notes_delete"), connection_close=False))
            r = Reply(read_response(sock, time.monotonic() + 30), None)
            want = predicted_reason(s, ctx.state, ctx.key_ids)
            got = r.json() if r.body else {}
            reason = ((got.get("error") or {}).get("data") or {}).get("reason")
            if (r.status, (got.get("error") or {}).get("code"), reason, got.get("id")) != (200, -32602, want, i):
                wrong.append((s, want, r))
    finally:
        sock.close()
    assert not wrong, f"{label}: {len(wrong)} of {len(states)} wrong, first: {wrong[:3]}"
    return len(states)


def flip_payload_bit(c):
    v, k, p, m = c.state.split(".")
    return ".".join([v, k, flip_bytes(p, lambda b: b.__setitem__(len(b) // 2, b[len(b) // 2] ^ 0x01)), m])


def flip_mac_bit(c):
    v, k, p, m = c.state.split(".")
    return ".".join([v, k, p, flip_bytes(m, lambda b: b.__setitem__(0, b[0] ^ 0x80))])


def forged_claims(c):
    """The payload rewritten to name a note the form did not offer, MAC kept."""
    v, k, p, m = c.state.split(".")
    payload = json.loads(b64url_canonical(p))
    payload["claims"]["candidates"].append(c.other_note)
    enc = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
    return ".".join([v, k, enc, m])


row("state_payload_bit_flip", state_error("state_bad_signature"))(lambda c: answer(c, flip_payload_bit(c)))
row("state_mac_bit_flip", state_error("state_bad_signature"))(lambda c: answer(c, flip_mac_bit(c)))
row("state_forged_candidates_with_old_mac", state_error("state_bad_signature"))(lambda c: answer(c, forged_claims(c)))
row("state_payload_of_another_state", state_error("state_bad_signature"))(
    lambda c: answer(c, ".".join(c.state.split(".")[:2] + c.state2.split(".")[2:3] + c.state.split(".")[3:])))
row("state_every_bit0_flip")(
    lambda c: sweep(c, "bit 0", [c.state[:i] + chr(ord(ch) ^ 0x01) + c.state[i + 1:] for i, ch in enumerate(c.state)]))
row("state_every_bit5_flip")(
    lambda c: sweep(c, "bit 5", [c.state[:i] + chr(ord(ch) ^ 0x20) + c.state[i + 1:] for i, ch in enumerate(c.state)]))
row("state_every_truncation")(lambda c: sweep(c, "truncation", [c.state[:i] for i in range(len(c.state))]))
row("state_one_character_appended")(lambda c: sweep(c, "append", [c.state + ch for ch in "A-_.=0é\t"]))
row("state_unknown_key_id", state_error("state_unknown_key"))(
    lambda c: answer(c, "v1.%d." % (max(c.key_ids) + 7) + c.state.split(".", 2)[2]))
row("state_key_id_with_leading_zero", state_error("state_malformed"))(
    lambda c: answer(c, c.state.replace("v1.", "v1.0", 1)))
row("state_version_v2", state_error("state_malformed"))(lambda c: answer(c, "v2" + c.state[2:]))
row("state_padding_added", state_error("state_malformed"))(lambda c: answer(c, c.state + "="))
row("state_empty_string", state_error("state_malformed"))(lambda c: answer(c, ""))
row("state_over_16_kib", state_error("state_malformed"))(lambda c: answer(c, c.state + "A" * 16_400))
row("state_a_number", state_error("state_malformed"))(lambda c: answer(c, 12))
row("state_null", state_error("state_malformed"))(lambda c: answer(c, None))
row("state_an_object", state_error("state_malformed"))(lambda c: answer(c, {"v": 1}))
row("state_with_changed_title", state_error("state_arguments_changed"))(
    lambda c: answer(c, c.state, title=c.title + " 2"))
row("state_of_another_principal", state_error("state_wrong_principal"))(lambda c: answer(c, c.state, token=c.bob_token))
row("input_responses_1000_keys_without_an_answer_asks_again", Expect(status=200, result="input_required", id=1))(
    lambda c: c.same_state(answer(c, c.state, responses={f"key{i}": {"action": "accept"} for i in range(1000)})))
row("input_responses_1000_keys_and_a_null_answer", state_error("invalid_input_response"))(
    lambda c: answer(c, c.state, responses=dict({f"key{i}": i for i in range(1000)}, delete_choice=None)))
row("input_responses_1000_keys_and_a_tampered_state", state_error("state_bad_signature"))(
    lambda c: answer(c, flip_mac_bit(c), responses=dict({f"key{i}": None for i in range(1000)}, **accept(c.note))))
row("input_responses_1000_keys_at_step_1", Expect(status=200, result="input_required", id=1))(
    lambda c: send(c, *tool_call(c, responses={f"key{i}": {"action": "accept"} for i in range(1000)})))
row("input_responses_an_array", state_error("invalid_input_responses"))(lambda c: answer(c, c.state, responses=[accept(c.note)]))
row("accept_without_confirm", state_error("not_confirmed"))(
    lambda c: answer(c, c.state, responses=accept(c.note, confirm="true")))
row("accept_of_a_note_not_offered", state_error("foreign_note"))(
    lambda c: answer(c, c.state, responses=accept(c.other_note)))


# ---- X-Forwarded-For (docs/gateway.md, Client address): believed only from a
# --trusted-proxies peer, and only a plain address as the last hop; anything
# else is logged as the TCP peer, never as text the client chose.  The third
# gateway trusts 127.0.0.1, the first trusts nobody.

def forwarded(c, header_lines, want_peer, gw=None):
    """GET a unique 404 path with these header lines; the request line must
    name want_peer (and the proxy when it came from the header)."""
    gw = gw or c.gw_proxied
    path = "/xff-%d-%s" % (len(header_lines), os.urandom(5).hex())
    reply = exchange(gw.port, http_request(b"", list(header_lines), target=path.encode(), method=b"GET",
                                           content_length=False))
    c.assertEqual(reply.status, 404, reply)
    lines = []
    wait_until(lambda: lines.extend(l for l in gw.log_lines() if l.get("event") == "request"
                                    and l.get("path") == path) or lines, 5)
    c.assertEqual(len(lines), 1, gw.log()[-1500:])
    proxy = "127.0.0.1" if want_peer != "127.0.0.1" else None
    c.assertEqual((lines[0].get("peer"), lines[0].get("proxy")), (want_peer, proxy), lines[0])


for label, value in [
        ("empty", b""), ("comma_only", b","), ("spaces_only", b"   "), ("trailing_comma", b"192.0.2.1,"),
        ("a_word", b"unknown"), ("obfuscated_identifier", b"_hidden"), ("two_addresses_no_comma", b"192.0.2.1 192.0.2.2"),
        ("ipv4_with_port", b"192.0.2.1:8080"), ("ipv6_in_brackets", b"[2001:db8::1]"),
        ("ipv6_in_brackets_with_port", b"[2001:db8::1]:443"), ("ipv6_with_zone", b"fe80::1%eth0"),
        ("octet_over_255", b"192.0.2.256"), ("three_octets", b"192.0.2"), ("leading_zero_octet", b"192.0.02.1"),
        ("hex_ipv4", b"0xc0.0.2.1"), ("cidr", b"192.0.2.0/24"), ("rfc7239_syntax", b"for=192.0.2.1"),
        ("quoted", b'"192.0.2.1"'), ("json_injection", b'1.2.3.4","level":"error'),
        ("latin1_bytes", b"192.0.2.1\xe9"), ("arabic_digits", "\u0661.\u0662.\u0663.\u0664".encode()),
        ("address_then_60_digits", b"192.0.2.1" + b"1" * 60), ("4000_hops_last_garbage", b"192.0.2.1, " * 400 + b"x")]:
    row(f"xff_malformed_{label}")(lambda c, v=value: forwarded(c, [b"X-Forwarded-For: " + v], "127.0.0.1"))
row("xff_malformed_last_of_two_lines")(
    lambda c: forwarded(c, [b"X-Forwarded-For: 192.0.2.1", b"X-Forwarded-For: nonsense"], "127.0.0.1"))
row("xff_valid_last_of_many_hops")(lambda c: forwarded(c, [b"X-Forwarded-For: " + b"x, " * 400 + b"192.0.2.9"], "192.0.2.9"))
row("xff_from_an_untrusted_peer_ignored")(
    lambda c: forwarded(c, [b"X-Forwarded-For: 192.0.2.10"], "127.0.0.1", gw=c.gw))
row("xff_over_the_header_limit", Expect(status=431, http_only=True))(
    lambda c: exchange(c.gw_proxied.port, http_request(b"", [b"X-Forwarded-For: " + b"192.0.2.1," * 2000],
                                                       target=b"/xff-big", method=b"GET", content_length=False)))


# ---------------------------------------------------------------- the test class

class HostileRequestsTest(GatewayTestCase):
    """One test per row (generated below), then the checks after the table."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.gw = cls.start_class_gateway()
        cls.gw_big = cls.start_class_gateway("--max-body", str(RAISED_CAP))
        cls.gw_proxied = cls.start_class_gateway("--trusted-proxies", "127.0.0.1")
        cls.bob_token = cls.db.issue_token("bob")
        cls.title = unique_title("Hostile target")
        cls.note = cls.db.add_note(f"{WORKSPACE}/hostile-{cls.title[-12:]}.md", cls.title, "keep me")
        cls.other_note = cls.db.add_note(f"{WORKSPACE}/other-{cls.title[-12:]}.md", "Other note " + cls.title[-12:])
        cls.key_ids = {int(k) for k in cls.db.sql("SELECT key_id FROM mcp_notes.state_keys").split()}
        cls.notes_before = cls.db.sql("SELECT count(*) FROM mcp_notes.notes")
        cls.state, ids = cls.step1()
        cls.state2, _ = cls.step1()
        assert ids == [cls.note], ids
        assert cls.state != cls.state2

    @classmethod
    def step1(cls):
        r = cls.gw.call_delete(cls.token, WORKSPACE, cls.title, id="step1")
        if r.status != 200 or (r.result or {}).get("resultType") != "input_required":
            raise RuntimeError(f"step 1 failed: {r}")
        return form_of(r)

    def same_state(self, reply):
        """The re-asked form must carry the state that was sent, unchanged."""
        self.assertEqual(reply.json()["result"].get("requestState"), self.state, reply)
        return reply

    def check(self, reply, e):
        if e.no_response:
            self.assertEqual(reply.raw, b"", f"expected no response, got {reply}")
            return
        self.assertEqual(reply.status, e.status, reply)
        if e.closed is not None:
            self.assertEqual(reply.closed, e.closed, f"connection closed after the answer? {reply}")
        if e.http_only:
            self.assertFalse(reply.body.startswith(b"{"), f"expected an HTTP-level refusal, got {reply}")
            return
        self.assertEqual(reply.header("cache-control"), "no-store", reply)
        if e.status == 202:
            self.assertEqual(reply.body, b"", reply)
            return
        self.assertEqual((reply.header("content-type") or "").split(";")[0], "application/json", reply)
        doc = reply.json()
        if e.oauth_error is not None:
            self.assertEqual(doc, {"error": e.oauth_error, "error_description": doc.get("error_description")}, reply)
            self.assertIsInstance(doc["error_description"], str, reply)
            self.assertTrue((reply.header("www-authenticate") or "").startswith("Bearer "), reply)
            return
        self.assertEqual(doc.get("jsonrpc"), "2.0", reply)
        if e.id is None:
            # an id that could not be read is omitted: the 2026-07-28 schema has no null id
            self.assertNotIn("id", doc, reply)
        else:
            self.assertIn("id", doc, reply)
        if e.id is not ... and e.id is not None:
            self.assertEqual(doc["id"], e.id, reply)
            self.assertIs(type(doc["id"]), type(e.id), reply)
        if e.code is not None:
            self.assertNotIn("result", doc, reply)
            self.assertEqual(doc["error"]["code"], e.code, reply)
            self.assertIsInstance(doc["error"]["message"], str, reply)
            if e.reason is not ...:
                self.assertEqual((doc["error"].get("data") or {}).get("reason"), e.reason, reply)
            if e.status == 401:
                self.assertTrue((reply.header("www-authenticate") or "").startswith("Bearer "), reply)
        else:
            self.assertNotIn("error", doc, reply)
            self.assertEqual(doc["result"]["resultType"], e.result, reply)
            self.assertEqual(doc["result"]["_meta"][META_SERVER]["name"], "mcp-notes", reply)

    # ---- after the table

    def test_999_nothing_was_deleted(self):
        self.assertTrue(self.db.note_exists(self.note), "the note used for state tampering is gone")
        self.assertTrue(self.db.note_exists(self.other_note))
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.notes"), self.notes_before)
        outcomes = [a["outcome"] for a in self.db.audit()]
        self.assertNotIn("accept", outcomes, outcomes)
        self.assertEqual(self.db.sql("SELECT count(*) FROM mcp_notes.spent_states"), "0")
        # the original state is unspent and still answers with the form
        r = answer(self, self.state, responses={})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["result"]["resultType"], "input_required", r)
        self.assertEqual(r.json()["result"]["requestState"], self.state, r)

    def test_999_gateways_alive_and_serving(self):
        for gw in (self.gw, self.gw_big, self.gw_proxied):
            self.assertIsNone(gw.proc.poll(), f"gateway exited: {gw.log()[-2000:]}")
            self.assertEqual(gw.get("/healthz").status, 200)
            r = gw.rpc("tools/list", id="after", token=self.token)
            self.assertResult(r, id="after")

    def test_999_logs_are_valid_json_lines(self):
        for gw in (self.gw, self.gw_big, self.gw_proxied):
            with open(gw.log_file.name, "rb") as f:
                data = f.read()
            for n, line in enumerate(data.splitlines(), 1):
                try:
                    json.loads(line.decode("utf-8"))
                except ValueError as e:
                    self.fail(f"log line {n} is not UTF-8 JSON ({e}): {line[:300]!r}")
                for secret in (self.token.encode(), self.state.encode(), b"keep me"):
                    self.assertNotIn(secret, line, f"log line {n} leaks a secret")


def make_test(fn, expect):
    def test(self):
        reply = fn(self)
        if expect is not None:
            self.check(reply, expect)
    return test


for number, (name, fn, expect, known_bug) in enumerate(ROWS, 1):
    t = make_test(fn, expect)
    t.__doc__ = None
    if known_bug and not os.environ.get("HOSTILE_KNOWN_BUGS_FAIL"):
        t = unittest.expectedFailure(t)
        t.known_bug = known_bug
    setattr(HostileRequestsTest, f"test_{number:03d}_{name}", t)


if __name__ == "__main__":
    unittest.main()
