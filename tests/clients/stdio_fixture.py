"""The conformance fixture's progress and sampling tools over --stdio, in both
eras, for tests/suites/clients (the conformance suite itself speaks HTTP only).

- `stdio-fixture.legacy-progress`: a 2025-11-25 `tools/call` of
  `test_tool_with_progress` with `_meta.progressToken` gets three
  `notifications/progress` lines (0, 50, 100, the client's token) before its
  response;
- `stdio-fixture.modern-progress`: the same in the 2026-07-28 era (the
  gateway answers it as an SSE stream over HTTP; on stdio, one line each);
- `stdio-fixture.legacy-sampling`: `test_sampling` writes a
  `sampling/createMessage` request on stdout, its answer on stdin completes
  the call with the model's text;
- `stdio-fixture.modern-elicitation`: `test_elicitation` in the 2026-07-28
  era is -32021 without the elicitation capability, an `input_required`
  result with it, and completes when retried with the answer.
"""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e.harness import Database, meta  # noqa: E402
from tests.e2e.test_stdio import StdioGateway  # noqa: E402

FIXTURE = ROOT / "share" / "conformance-fixture.sql"
PREFIX = "stdio-fixture"
LEGACY = "2025-11-25"


def read_until_response(gw, rpc_id, limit=10):
    """The messages up to and including the response to rpc_id."""
    seen = []
    for _ in range(limit):
        msg = gw.read()
        if msg is None:
            break
        seen.append(msg)
        if msg.get("id") == rpc_id and "method" not in msg:
            break
    return seen


def progress_problem(seen, token, rpc_id):
    """None when seen is three increasing progress notifications for token, then the result."""
    progress = [m["params"] for m in seen if m.get("method") == "notifications/progress"]
    if [p.get("progressToken") for p in progress] != [token] * 3 or \
            [p.get("progress") for p in progress] != [0, 50, 100]:
        return f"expected progress 0, 50, 100 for {token!r}, got {seen}"
    if not seen or seen[-1].get("id") != rpc_id or "result" not in seen[-1]:
        return f"the response did not come last: {seen}"
    return None


def legacy_checks(gw, report, wanted):
    gw.call({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {"sampling": {}, "elicitation": {}},
        "clientInfo": {"name": "clients-stdio-fixture", "version": "1"}}})
    gw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if wanted(f"{PREFIX}.legacy-progress"):
        gw.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "legacy-1"}}})
        report(f"{PREFIX}.legacy-progress", progress_problem(read_until_response(gw, 1), "legacy-1", 1))
    if wanted(f"{PREFIX}.legacy-sampling"):
        ask = gw.call({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "test_sampling", "arguments": {"prompt": "Say hello"}}})
        problem = None
        if ask.get("method") != "sampling/createMessage" or \
                ask["params"]["messages"][0]["content"]["text"] != "Say hello":
            problem = f"expected a sampling/createMessage request for the prompt, got {ask}"
        else:
            final = gw.call({"jsonrpc": "2.0", "id": ask["id"], "result": {
                "role": "assistant", "content": {"type": "text", "text": "Hello there"},
                "model": "test-model", "stopReason": "endTurn"}})
            text = final.get("result", {}).get("content", [{}])[0].get("text")
            if final.get("id") != 2 or text != "LLM response: Hello there":
                problem = f"expected the model's text in the result, got {final}"
        report(f"{PREFIX}.legacy-sampling", problem)


def modern_elicitation_problem(gw):
    params = {"name": "test_elicitation", "arguments": {"message": "Who are you?"}, "_meta": meta()}
    r = gw.call({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": params})
    if r.get("error", {}).get("code") != -32021:
        return f"without the elicitation capability: expected -32021, got {r}"
    params["_meta"] = meta({"elicitation": {}})
    r = gw.call({"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": params})
    ask = r.get("result", {}).get("inputRequests", {}).get("user_info", {})
    if r["result"].get("resultType") != "input_required" or ask.get("method") != "elicitation/create" or \
            ask["params"]["message"] != "Who are you?":
        return f"expected an elicitation/create input request with the message, got {r}"
    params["inputResponses"] = {"user_info": {"action": "accept", "content": {"username": "u", "email": "e@x"}}}
    r = gw.call({"jsonrpc": "2.0", "id": 22, "method": "tools/call", "params": params})
    text = r.get("result", {}).get("content", [{}])[0].get("text", "")
    if not text.startswith("User response: action=accept, content=") or '"username": "u"' not in text:
        return f"expected the answer in the result, got {r}"
    return None


def run_stdio_fixture(report, wanted):
    names = [f"{PREFIX}.{n}" for n in ("legacy-progress", "modern-progress", "legacy-sampling", "modern-elicitation")]
    if not any(wanted(n) for n in names):
        return
    db = Database("clientsstdio")
    gw = None
    try:
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db.name, "-f", str(FIXTURE)],
                       check=True, capture_output=True, text=True, timeout=120)
        gw = StdioGateway(db, db.issue_token())
        if wanted(f"{PREFIX}.modern-progress"):
            gw.send({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
                "name": "test_tool_with_progress", "arguments": {},
                "_meta": dict(meta(), progressToken="modern-1")}})
            report(f"{PREFIX}.modern-progress", progress_problem(read_until_response(gw, 10), "modern-1", 10))
        if wanted(f"{PREFIX}.modern-elicitation"):
            report(f"{PREFIX}.modern-elicitation", modern_elicitation_problem(gw))
        legacy_checks(gw, report, wanted)
        if gw.close() != 0:
            report(f"{PREFIX}.exit", f"the gateway did not exit 0 at end of input: {gw.log()[-500:]}")
    finally:
        if gw:
            gw.kill()
        db.drop()
