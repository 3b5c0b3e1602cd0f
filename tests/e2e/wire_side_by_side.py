"""What Pi and pi send for each wire API, side by side: the same prompt, tool round trip and server.

Each API has a scripted loopback server that answers the first request with a ``bash`` tool call
and the second (which carries the tool's result) with text. ``run`` gives the requests one
``pi`` executable (Pi's or ours) sent; ``comparable`` reduces a request to what must match:
method, path, headers and the JSON body with its key order, less what is volatile or owned by
another part of the agent (``KEPT`` names every such difference and why).

Used by ``test_wire_apis_with_pi.py`` (when ``PI_REFERENCE`` names Pi) and as a script:
``PI_REFERENCE=... python tests/e2e/wire_side_by_side.py [api ...]`` prints both sides.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply
from pi_runtime.testing.standin import ProviderStandIn


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


CODEX_TOKEN = (_b64({"alg": "RS256", "typ": "JWT"}) + "." +
               _b64({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_side"}, "exp": 9999999999}) + ".sig")
KEY = "sk-side-by-side-0123456789"
PROMPT = "run echo"
COMMAND = "echo shared"

# ----------------------------------------------------------------------------- scripted servers


def _sse_events(reply: Reply) -> list[dict[str, Any]]:
    out = []
    for piece in reply.pieces:
        if isinstance(piece, bytes) and b"data: " in piece:
            data = piece[piece.index(b"data: ") + 6:].strip()
            if data != b"[DONE]":
                out.append(json.loads(data))
    return out


def _responses(request: RecordedRequest) -> Reply:
    items = (request.json() or {}).get("input") or []
    if any(i.get("type") == "function_call_output" for i in items):
        item = {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        events = [{"type": "response.created", "response": {"id": "resp_2", "status": "in_progress"}},
                  {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
                  {"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 0, "content_index": 0,
                   "delta": "done"},
                  {"type": "response.output_item.done", "output_index": 0, "item": item},
                  {"type": "response.completed", "response": {"id": "resp_2", "status": "completed", "usage": {
                      "input_tokens": 30, "output_tokens": 2, "total_tokens": 32}}}]
    else:
        call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
                "arguments": json.dumps({"command": COMMAND}), "status": "completed"}
        events = [{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
                  {"type": "response.output_item.added", "output_index": 0, "item": {**call, "arguments": ""}},
                  {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
                   "delta": call["arguments"]},
                  {"type": "response.output_item.done", "output_index": 0, "item": call},
                  {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": {
                      "input_tokens": 20, "output_tokens": 5, "total_tokens": 25}}}]
    return Reply.sse(events, event_names=[e["type"] for e in events])


def _codex(request: RecordedRequest) -> Reply:
    if request.method == "GET":
        return Reply.upgrade()
    if request.method == "WS":
        return Reply.ws(_sse_events(_responses(request)))
    return _responses(request)


def _mistral(request: RecordedRequest) -> Reply:
    last = ((request.json() or {}).get("messages") or [{}])[-1]
    usage = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    if last.get("role") == "tool":
        chunks = [{"id": "m2", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "done"},
                                            "finish_reason": None}]},
                  {"id": "m2", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}],
                   "usage": usage}]
    else:
        call = {"id": "AbC123xyz", "function": {"name": "bash", "arguments": json.dumps({"command": COMMAND})},
                "index": 0}
        chunks = [{"id": "m1", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]},
                                            "finish_reason": None}]},
                  {"id": "m1", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "tool_calls"}],
                   "usage": usage}]
    return Reply.sse([*chunks, "[DONE]"])


def _pi_messages(request: RecordedRequest) -> Reply:
    messages = ((request.json() or {}).get("context") or {}).get("messages") or [{}]
    usage = {"input": 20, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 25,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    if messages[-1].get("role") == "toolResult":
        events = [{"type": "start"}, {"type": "text_start", "contentIndex": 0},
                  {"type": "text_delta", "contentIndex": 0, "delta": "done"},
                  {"type": "text_end", "contentIndex": 0, "content": "done"},
                  {"type": "done", "reason": "stop", "usage": usage, "responseId": "r2"}]
    else:
        call = {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": COMMAND}}
        events = [{"type": "start"}, {"type": "toolcall_start", "contentIndex": 0, "id": "call_1", "toolName": "bash"},
                  {"type": "toolcall_delta", "contentIndex": 0, "delta": json.dumps({"command": COMMAND})},
                  {"type": "toolcall_end", "contentIndex": 0, "toolCall": call},
                  {"type": "done", "reason": "toolUse", "usage": usage, "responseId": "r1"}]
    return Reply.sse(events)


REAL_HOSTS: dict[str, tuple[str, dict[str, str]]] = {
    # api: (models.json baseUrl, environment) when the request goes to the provider's real host
    "mistral-conversations": ("https://api.mistral.ai", {}),
    # The resource name wins over the model's baseUrl: https://pi-side.openai.azure.com/openai/v1.
    "azure-openai-responses": ("https://unused.example.com", {"AZURE_OPENAI_RESOURCE_NAME": "pi-side"}),
    "openai-codex-responses": ("https://chatgpt.com/backend-api", {}),
    "pi-messages": ("https://radius.pi.dev/v1", {}),
}
"""Where each API's requests go with ``real_hosts``: through the stand-in (TLS, a test CA, CONNECT)."""

SERVERS: dict[str, tuple[Callable[[RecordedRequest], Reply], str, str]] = {
    # api: (server, base URL suffix, key)
    "mistral-conversations": (_mistral, "", KEY),
    "azure-openai-responses": (_responses, "/openai/v1", KEY),
    "openai-codex-responses": (_codex, "", CODEX_TOKEN),
    "pi-messages": (_pi_messages, "", KEY),
}

# ----------------------------------------------------------------------------- what may differ

KEPT: dict[str, str] = {
    "header user-agent": "each names itself: Pi 'pi/1.6.0 (linux; node/...; x64)', pi 'pi/0.1.0 (linux; python/...; x64)'",
    "header accept-encoding, accept-language, sec-fetch-mode, connection, pragma, cache-control": (
        "the HTTP client's own (undici's fetch and WebSocket; httpx2 and websockets); Pi's accept-encoding "
        "is 'gzip, deflate' direct but 'br, gzip, deflate, zstd' through a proxy"),
    "header sec-websocket-key, sec-websocket-extensions": "the WebSocket client's handshake (random key; both offer "
                                                          "permessage-deflate, worded by each library)",
    "header x-stainless-*": "telemetry of the OpenAI JS SDK Pi's Azure API goes through; pi uses no SDK",
    "header content-length, host": "transport",
    "body: system prompt text and prompt sections": (
        "the prompt is the agent's, not the wire API's: pi's adds a <date> section to a custom prompt"),
    "body: tool descriptions and parameter schemas": (
        "the tools are the agent's: pi's bash tool has its own schema and wording"),
    "body: session id, timestamps, durationMs, cwd": "volatile",
}
_TRANSPORT_HEADERS = {"user-agent", "accept-encoding", "accept-language", "sec-fetch-mode", "connection", "pragma",
                      "cache-control", "sec-websocket-key", "sec-websocket-extensions", "content-length", "host"}
_VOLATILE_KEYS = {"timestamp", "durationMs"}


def _scrub_tool(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return tool
    out = dict(tool)
    if "function" in out:
        out["function"] = _scrub_tool(out["function"])
    for key in ("description", "parameters"):
        if key in out:
            out[key] = f"<tool {key}>"
    return out


def _scrub(value: Any, session: str, cwd: str) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _VOLATILE_KEYS:
                out[key] = "<volatile>"
            elif key == "sections" and isinstance(item, dict):
                out[key] = "<prompt sections>"
            elif key in ("tools", "toolsAdded") and isinstance(item, list):
                out[key] = [_scrub_tool(t) for t in item]
            elif key == "content" and value.get("role") in ("system", "developer") and isinstance(item, str):
                out[key] = "<system prompt>" if item else ""
            else:
                out[key] = _scrub(item, session, cwd)
        return out
    if isinstance(value, list):
        return [_scrub(v, session, cwd) for v in value]
    if isinstance(value, str):
        return value.replace(session, "<session>").replace(cwd, "<cwd>") if session else value.replace(cwd, "<cwd>")
    return value


def comparable(request: RecordedRequest, cwd: str) -> dict[str, Any]:
    """The parts of ``request`` that must match between Pi and pi."""
    headers = {k: v for k, v in request.headers.items()
               if k not in _TRANSPORT_HEADERS and not k.startswith("x-stainless-")}
    session = headers.get("session-id") or headers.get("x-affinity") or ""
    body_bytes = request.decoded_body()
    body: Any = None
    if body_bytes:
        body = json.loads(body_bytes)
        session = session or str(((body.get("options") or {}).get("sessionId")) or body.get("prompt_cache_key") or "")
    scrubbed_headers = {k: (v.replace(session, "<session>") if session else v) for k, v in sorted(headers.items())}
    return {"method": request.method, "path": request.path, "headers": scrubbed_headers,
            "body": json.dumps(_scrub(body, session, cwd), separators=(",", ":"), ensure_ascii=False)
            if body is not None else None,
            "compact": body_bytes == json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
            if body is not None else True}


# ----------------------------------------------------------------------------- running


def _env(agent: Path, home: Path, binary: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("AZURE_OPENAI")}
    env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(home))
    return env


CODEX_CATALOG_MODEL: dict[str, Any] = {
    "reasoning": True, "thinkingLevelMap": {"xhigh": "xhigh", "max": "max", "minimal": "low"},
    "compat": {"supportsOpenAIGrammarTools": True, "supportsAdditionalTools": True, "supportsToolSearch": True,
               "supportsMidConvoSystemMessages": True, "supportsMidConvoEffort": True},
}
"""What Pi 1.6's catalog says of its Codex models (gpt-5.6-*): tools and efforts declared in place."""


def run(binary: str, api: str, tmp: Path, timeout: float = 90, thinking: str | None = None,
        model: dict[str, Any] | None = None, real_hosts: bool = False) -> tuple[list[RecordedRequest], str, str]:
    """Run a prompt that needs one bash call through ``api`` with the ``pi`` at ``binary``;
    ``thinking``: a reasoning model at that level; ``model``: more of the model's models.json entry;
    ``real_hosts``: to the provider's real host name, played by the stand-in (``REAL_HOSTS``).

    Returns:
        The requests the server received, the project folder (the prompt's cwd) and stdout.
    """
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True)
    responder, suffix, key = SERVERS[api]
    server: LoopbackServer = ProviderStandIn(responder) if real_hosts else LoopbackServer(responder)
    with server:
        env = _env(agent, home, binary)
        base_url = server.url + suffix
        if real_hosts:
            base_url, extra = REAL_HOSTS[api]
            env.update(server.env(), **extra)  # type: ignore[attr-defined]
        (agent / "models.json").write_text(json.dumps({"providers": {"side": {
            "baseUrl": base_url, "api": api, "apiKey": key,
            "models": [{"id": "m1", "contextWindow": 100000, "maxTokens": 4000, "reasoning": bool(thinking),
                        **(model or {})}]}}}))
        (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}, "transport": "auto"}))
        args = [binary, "--model", "side/m1", "--system-prompt", "You are terse.", "--tools", "bash",
                "-nc", "-ne", "-ns", "-np", *(["--thinking", thinking] if thinking else []), "-p", PROMPT]
        proc = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise AssertionError(f"{binary} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return list(server.requests), str(project), proc.stdout


if __name__ == "__main__":
    import tempfile

    reference = os.environ["PI_REFERENCE"]
    ours = str(Path(sys.executable).parent / "pi")
    level = os.environ.get("THINKING") or None
    for api in sys.argv[1:] or list(SERVERS):
        for name, binary in (("Pi", reference), ("pi", ours)):
            requests, cwd, _ = run(binary, api, Path(tempfile.mkdtemp()), thinking=level,
                                   model=CODEX_CATALOG_MODEL if os.environ.get("CATALOG") else None,
                                   real_hosts=bool(os.environ.get("REAL_HOSTS")))
            print("hosts:", sorted({r.host for r in requests}))
            print(f"== {api} / {name}")
            for request in requests:
                print(json.dumps(comparable(request, cwd), indent=1))
