"""Virtual models side by side: Pi with its TypeScript routers, pi with their Python twins, one loopback server.

Two routers run in both: the test router (``tests/fixtures/virtual/router.ts`` and ``router.py``,
routing to a models.json provider ``loop`` that speaks openai-completions) and Pi's own example
``jev-router.ts`` beside pi's port ``docs/examples/extensions/jev_router.py`` (routing to the
built-in ``openai-codex`` provider, whose base URL models.json points at the loopback server).
A run gives the session file, what stdout carried and the requests the server got; the tests
compare the requests (which model, which reasoning effort) and the session entries' shapes
(``pi_side_by_side.shape``: field names, types and the values that carry meaning).

Used by ``test_virtual_models.py`` (pi alone) and ``test_virtual_pi_side_by_side.py`` (with Pi,
when ``PI_REFERENCE`` names it).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "virtual"
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions"


def routers(binary: str, ours: bool) -> dict[str, str]:
    """The router extensions for ``binary``: ``test`` and ``jev``, TypeScript for Pi, Python for pi."""
    if ours:
        return {"test": str(FIXTURES / "router.py"), "jev": str(EXAMPLES / "jev_router.py")}
    return {"test": str(FIXTURES / "router.ts"), "jev": str(pi_example(binary, "jev-router.ts"))}


def pi_example(binary: str, name: str) -> Path:
    """Pi's example extension ``name``, found beside the package the ``pi`` binary belongs to."""
    for start in (Path(binary).resolve(), Path(binary).absolute()):
        for folder in start.parents:
            for candidate in (folder / "examples" / "extensions" / name,
                              folder / "node_modules" / "@earendil-works" / "pi-coding-agent" / "examples"
                              / "extensions" / name):
                if candidate.exists():
                    return candidate
    raise FileNotFoundError(f"Pi's example {name} is not beside {binary}")


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


CODEX_TOKEN = (_b64({"alg": "RS256", "typ": "JWT"}) + "." +
               _b64({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_virtual"}, "exp": 9999999999})
               + ".sig")
"""A ChatGPT access token as the Codex endpoint takes it (its account id is read from it)."""

# ----------------------------------------------------------------------------- the loopback server


def _chunk(model: str, delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-v", "object": "chat.completion.chunk", "model": f"{model}-served",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def _completions(request: RecordedRequest) -> Reply:
    """openai-completions: a bash call when the prompt asks for a tool, else a text naming the model."""
    body = request.json() or {}
    messages = body.get("messages") or [{}]
    last = messages[-1]
    usage = {"id": "chatcmpl-v", "choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                                                           "total_tokens": 1100}}
    text = json.dumps(last.get("content"))
    model = str(body.get("model"))
    if last.get("role") == "user" and "tool" in text:
        call = {"index": 0, "id": "call_v", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": "echo routed"})}}
        return Reply.sse([_chunk(model, {"role": "assistant", "tool_calls": [call]}),
                          _chunk(model, finish="tool_calls"), usage, "[DONE]"])
    answer = f"answer from {model}"
    return Reply.sse([_chunk(model, {"role": "assistant", "content": answer}), _chunk(model, finish="stop"),
                      usage, "[DONE]"])


def _responses_events(request: RecordedRequest) -> list[dict[str, Any]]:
    items = (request.json() or {}).get("input") or []
    usage = {"input_tokens": 2000, "output_tokens": 50, "total_tokens": 2050}
    if any(i.get("type") == "function_call_output" for i in items):
        item = {"type": "message", "id": "msg_v", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        return [{"type": "response.created", "response": {"id": "resp_2", "status": "in_progress"}},
                {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
                {"type": "response.output_text.delta", "item_id": "msg_v", "output_index": 0, "content_index": 0,
                 "delta": "done"},
                {"type": "response.output_item.done", "output_index": 0, "item": item},
                {"type": "response.completed", "response": {"id": "resp_2", "status": "completed", "usage": usage}}]
    call = {"type": "function_call", "id": "fc_v", "call_id": "call_v", "name": "write",
            "arguments": json.dumps({"path": "plan.txt", "content": "step one\n"}), "status": "completed"}
    return [{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
            {"type": "response.output_item.added", "output_index": 0, "item": {**call, "arguments": ""}},
            {"type": "response.function_call_arguments.delta", "item_id": "fc_v", "output_index": 0,
             "delta": call["arguments"]},
            {"type": "response.output_item.done", "output_index": 0, "item": call},
            {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": usage}}]


def responder(request: RecordedRequest) -> Reply:
    """One server for both routers: Codex requests (a ``write`` call, then ``done``) and completions."""
    if "/codex/" in request.path:
        if request.method == "GET":
            return Reply.upgrade()
        events = _responses_events(request)
        if request.method == "WS":
            return Reply.ws(events)
        return Reply.sse(events, event_names=[e["type"] for e in events])
    return _completions(request)


# ----------------------------------------------------------------------------- running


@dataclass
class Run:
    entries: list[dict[str, Any]]
    """The session file(s), header first, in the order they were written."""
    stdout: str
    stderr: str
    returncode: int
    requests: list[dict[str, Any]]
    """The bodies the server got for model calls (WebSocket handshakes left out)."""


def write_config(agent: Path, url: str) -> None:
    """models.json (the ``loop`` provider; ``openai-codex`` pointed at the server) and settings."""
    cost = {"cacheRead": 0, "cacheWrite": 0}
    (agent / "models.json").write_text(json.dumps({"providers": {
        "loop": {"baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "k", "models": [
            {"id": "small", "reasoning": True, "contextWindow": 8000, "maxTokens": 1000,
             "cost": {"input": 1, "output": 2, **cost}},
            {"id": "big", "reasoning": True, "contextWindow": 200000, "maxTokens": 4000,
             "cost": {"input": 3, "output": 15, **cost}}]},
        "openai-codex": {"baseUrl": url, "apiKey": CODEX_TOKEN}}}))
    settings = agent / "settings.json"
    if not settings.exists():  # a test's own settings stay
        settings.write_text(json.dumps({"retry": {"enabled": False}, "transport": "sse"}))


def env_for(agent: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and "proxy" not in k.lower()}
    env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(home))
    # Anything but the loopback server (a classifier call, a catalogue refresh) goes to a closed port
    # on this machine: nothing leaves it.
    closed = "http://127.0.0.1:9"
    env.update(HTTPS_PROXY=closed, HTTP_PROXY=closed, https_proxy=closed, http_proxy=closed,
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    return env


def folders(tmp: Path) -> tuple[Path, Path, Path]:
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True, exist_ok=True)
    return agent, project, home


def session_entries(agent: Path) -> list[dict[str, Any]]:
    files = sorted((agent / "sessions").rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    return [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]


def run_print(binary: str, extension: str | None, tmp: Path, *args: str, server: LoopbackServer | None = None,
              timeout: float = 90) -> Run:
    """``binary -e extension [args]`` in ``tmp`` (a shared ``server`` keeps the session folder too;
    no ``extension``: the routers are not registered)."""
    agent, project, home = folders(tmp)
    own = server is None
    server = server or LoopbackServer(responder)
    if own:
        server.__enter__()
    try:
        write_config(agent, server.url)
        seen = len(server.requests)
        load = ["-e", extension] if extension else ["-ne"]
        proc = subprocess.run([binary, *load, "-nc", "-ns", *args], cwd=project,
                              env=env_for(agent, home), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        requests = [r.json() for r in server.requests[seen:] if r.method != "GET" and r.body]
    finally:
        if own:
            server.__exit__(None, None, None)
    return Run(session_entries(agent), proc.stdout, proc.stderr, proc.returncode, requests)


def run_rpc(binary: str, extension: str, tmp: Path, script: Callable[[Any], None], *args: str,
            timeout: float = 90) -> tuple[Run, Any]:
    """``binary -e extension --mode rpc [args]`` driven by ``script(rpc)`` (an ``RpcSession``)."""
    from pi_side_by_side import RpcSession

    agent, project, home = folders(tmp)
    with LoopbackServer(responder) as server:
        write_config(agent, server.url)
        rpc = RpcSession([binary, "-e", extension, "-nc", "-ns", *args], env_for(agent, home), project, timeout)
        try:
            script(rpc)
        finally:
            stdout, code = rpc.close()
        requests = [r.json() for r in server.requests if r.method != "GET" and r.body]
    return Run(session_entries(agent), stdout, "", code, requests), rpc


def routed_requests(run: Run) -> list[tuple[str, Any]]:
    """(model, reasoning effort) of each model call, the way each wire API names them."""
    out = []
    for body in run.requests:
        effort = body.get("reasoning_effort")
        if isinstance(body.get("reasoning"), dict):
            effort = body["reasoning"].get("effort")
        out.append((body.get("model"), effort))
    return out


def dispatch_records(entries: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a session records of selection and dispatch: model changes, router state, and for each
    assistant message its provider, api, model, thinking level and stop reason (error text too)."""
    out: list[tuple[Any, ...]] = []
    for entry in entries:
        kind = entry.get("type")
        message = entry.get("message") or {}
        if kind == "model_change":
            out.append(("model_change", entry["provider"], entry["modelId"]))
        elif kind == "thinking_level_change":
            out.append(("thinking_level_change", entry["thinkingLevel"]))
        elif kind == "custom":
            out.append(("custom", entry["customType"], json.dumps(entry.get("data"), sort_keys=True)))
        elif message.get("role") == "assistant":
            out.append(("assistant", message.get("provider"), message.get("api"), message.get("model"),
                        message.get("thinkingLevel"), message.get("stopReason"), message.get("errorMessage")))
    return out
