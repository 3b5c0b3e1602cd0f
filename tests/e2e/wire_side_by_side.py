"""What Pi and pi send, side by side: the same prompt, tool round trip and played provider host.

The prompt needs one ``bash`` call: the played server answers the first request with the call and
the second (which carries the tool's result) with text (``wire_replies``). ``run`` sends it
through one wire API to a models.json provider; ``run_provider`` through a catalogue provider's
default model, signed in as ``provider_cases`` says, to the provider's real host name, played by
the stand-in. Either gives the requests one ``pi`` executable (Pi's or ours) sent;
``comparable`` reduces a request to what must match: method, host, path with its query, headers
and the JSON body with its key order, less what is volatile or owned by another part of the agent
(``KEPT`` names every such difference and why).

Used by ``test_wire_apis_with_pi.py`` and ``test_every_provider_with_pi.py`` (when
``PI_REFERENCE`` names Pi) and as a script that prints both sides:
``PI_REFERENCE=... python tests/e2e/wire_side_by_side.py [api ... | provider-case ...]``; with
``--record [case ...]`` it saves Pi's requests for the provider cases (``RECORDING``), which the
provider test compares pi with when Pi is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import wire_replies as replies
from provider_cases import CODEX_TOKEN, KEY, ProviderCase, provider_cases

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply
from pi_runtime.testing.standin import ProviderStandIn

PROMPT = "run echo"
COMMAND = replies.COMMAND

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
    "mistral-conversations": (replies.mistral, "", KEY),
    "azure-openai-responses": (replies.responses, "/openai/v1", KEY),
    "openai-codex-responses": (replies.codex, "", CODEX_TOKEN),
    "pi-messages": (replies.pi_messages, "", KEY),
}

# ----------------------------------------------------------------------------- what may differ

KEPT: dict[str, str] = {
    "header user-agent": "each names itself: Pi 'pi/1.6.0 (linux; node/...; x64)', pi 'pi/0.1.0 (linux; python/...; x64)'",
    "header accept-encoding, accept-language, sec-fetch-mode, connection, pragma, cache-control": (
        "the HTTP client's own (undici's fetch and WebSocket; httpx2 and websockets); Pi's accept-encoding "
        "is 'gzip, deflate' direct but 'br, gzip, deflate, zstd' through a proxy"),
    "header sec-websocket-key, sec-websocket-extensions": "the WebSocket client's handshake (random key; both offer "
                                                          "permessage-deflate, worded by each library)",
    "header x-stainless-*": "telemetry of the OpenAI and Anthropic JS SDKs Pi's requests go through; pi uses no SDK",
    "header x-goog-api-client": "telemetry of Google's JS SDK (google-genai-sdk/... gl-node/...)",
    "header amz-sdk-invocation-id, amz-sdk-request, x-amz-user-agent": (
        "telemetry of the AWS JS SDK (pi identifies itself as pi and makes one attempt per request)"),
    "header accept: */*": "the HTTP client's default when a wire API asks for nothing in particular (httpx2; Pi "
                          "sends none to Bedrock)",
    "header content-length, host": "transport",
    "body: system prompt text and prompt sections": (
        "the prompt is the agent's, not the wire API's: pi's own words"),
    "body: tool descriptions and parameter schemas": (
        "the tools are the agent's: pi's bash tool has its own schema and wording (whether a schema was made "
        "strict is still compared: '<tool parameters, strict>')"),
    "body: session id, timestamps, durationMs, cwd": "volatile",
}
_TRANSPORT_HEADERS = {"user-agent", "accept-encoding", "accept-language", "sec-fetch-mode", "connection", "pragma",
                      "cache-control", "sec-websocket-key", "sec-websocket-extensions", "content-length", "host"}
_VOLATILE_KEYS = {"timestamp", "durationMs"}
_SESSION_HEADERS = ("session-id", "session_id", "x-session-id", "x-session-affinity", "x-client-request-id",
                    "x-opencode-session",
                    "x-affinity")
"""Headers that carry the run's session id (each program has its own), masked as ``<session>``."""


SYSTEM_PROMPT = "You are terse."
_SCHEMA_KEYS = {"parameters", "input_schema", "inputSchema", "parametersJsonSchema", "parameters_json_schema"}


def _schema_marker(schema: Any) -> str:
    """A tool schema reduced to whether it was made strict (every property required, no others allowed)."""
    node = schema.get("json", schema) if isinstance(schema, dict) else schema
    if not isinstance(node, dict):
        return "<tool parameters>"
    strict = node.get("additionalProperties") is False and sorted(node.get("required") or []) == sorted(
        node.get("properties") or {})
    return "<tool parameters, strict>" if strict else "<tool parameters>"


def _scrub(value: Any, session: str, cwd: str) -> Any:
    """``value`` with the agent's own texts (system prompt, tool wording and schemas) and volatile values masked,
    whatever the wire API's shape: a tool is any object named ``bash``, the prompt any text opening with
    ``SYSTEM_PROMPT``."""
    if isinstance(value, dict):
        out = {}
        name = value.get("name")
        is_tool = isinstance(name, str) and name.lower() == "bash" and any(
            k in value for k in ("description", *_SCHEMA_KEYS))
        for key, item in value.items():
            if key in _VOLATILE_KEYS:
                out[key] = "<volatile>"
            elif key == "sections" and isinstance(item, dict):
                out[key] = "<prompt sections>"
            elif is_tool and key == "description":
                out[key] = "<tool description>"
            elif is_tool and key in _SCHEMA_KEYS:
                out[key] = _schema_marker(item)
            else:
                out[key] = _scrub(item, session, cwd)
        return out
    if isinstance(value, list):
        return [_scrub(v, session, cwd) for v in value]
    if isinstance(value, str):
        if value.startswith(SYSTEM_PROMPT):
            return "<system prompt>"
        return value.replace(session, "<session>").replace(cwd, "<cwd>") if session else value.replace(cwd, "<cwd>")
    return value


_SDK_HEADERS = ("x-stainless-", "amz-sdk-")


def comparable(request: RecordedRequest, cwd: str) -> dict[str, Any]:
    """The parts of ``request`` that must match between Pi and pi."""
    headers = {k: v for k, v in request.headers.items()
               if k not in _TRANSPORT_HEADERS and not k.startswith(_SDK_HEADERS)
               and k not in ("x-amz-user-agent", "x-goog-api-client") and not (k == "accept" and v == "*/*")}
    session = next((headers[h] for h in _SESSION_HEADERS if headers.get(h)), "")
    body_bytes = request.decoded_body()
    body: Any = None
    if body_bytes:
        body = json.loads(body_bytes)
        session = session or str(((body.get("options") or {}).get("sessionId")) or body.get("prompt_cache_key") or "")
    scrubbed_headers = {k: (v.replace(session, "<session>") if session else v) for k, v in sorted(headers.items())}
    return {"method": request.method, "host": request.host, "path": request.path, "headers": scrubbed_headers,
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
        args = [binary, "--model", "side/m1", "--system-prompt", SYSTEM_PROMPT, "--tools", "bash",
                "-nc", "-ne", "-ns", "-np", *(["--thinking", thinking] if thinking else []), "-p", PROMPT]
        proc = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise AssertionError(f"{binary} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return list(server.requests), str(project), proc.stdout


_CREDENTIAL_VARS = ("AWS_", "GOOGLE_", "GCLOUD_", "AZURE_", "CLOUDFLARE_", "ANTHROPIC_", "PI_", "COPILOT_", "HF_TOKEN")


def run_provider(binary: str, case: ProviderCase, tmp: Path, timeout: float = 120
                 ) -> tuple[list[RecordedRequest], str, subprocess.CompletedProcess[str]]:
    """Run the prompt with the ``pi`` at ``binary`` on ``case``'s catalogue model, its provider's real
    host played by the stand-in, signed in with ``case``'s placeholder credential.

    Returns:
        The requests the stand-in received, the project folder (the prompt's cwd) and the run.
    """
    agent, project, home = tmp / "agent", tmp / "project", tmp / "home"
    for folder in (agent, project, home):
        folder.mkdir(parents=True)
    (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
    if case.auth:
        (agent / "auth.json").write_text(json.dumps(case.auth))
        (agent / "auth.json").chmod(0o600)
    for name, text in case.home_files.items():
        (home / name).write_text(text)
    with ProviderStandIn(replies.answer, directory=tmp / "ca") as standin:
        env = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and not k.startswith(_CREDENTIAL_VARS) and "PROXY" not in k.upper()}
        env.update(standin.env(), PI_CODING_AGENT_DIR=str(agent), HOME=str(home),
                   **{k: v.replace("@HOME@", str(home)) for k, v in case.env.items()})
        args = [binary, "--model", f"{case.provider}/{case.model}", "--system-prompt", SYSTEM_PROMPT,
                "--tools", "bash", "-nc", "-ne", "-ns", "-np", *(["--thinking", case.thinking] if case.thinking else []),
                "-p", PROMPT]
        try:
            done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as stuck:  # what it sent until then is what a test must see
            done = subprocess.CompletedProcess(args, -9, _text(stuck.stdout), f"timed out: {_text(stuck.stderr)}")
        return list(standin.requests), str(project), done


def _text(output: bytes | str | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


RECORDING = Path(__file__).parent.parent / "fixtures" / "provider_requests.json"
"""Pi 1.6's requests for every provider case (``comparable``, ``normalized``), for runs without Pi."""
_LIMIT_FIELDS = (("max_tokens",), ("max_completion_tokens",), ("max_output_tokens",), ("inferenceConfig", "maxTokens"),
                 ("generationConfig", "maxOutputTokens"))
FITTED = "<fitted to the context window>"


def _model_max_tokens(case: ProviderCase) -> int:
    from pi_runtime.ai.catalog import builtin_catalog

    return int(next(m for m in builtin_catalog().rows(case.provider) if m["id"] == case.model)["maxTokens"])


def normalized(case: ProviderCase, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``requests`` (``comparable``) with the first body's output limit shown as ``FITTED`` when it was
    fitted into the context window (below the model's limit): its value counts the agent's own prompt."""
    out = [dict(r) for r in requests]
    first = next((r for r in out if r.get("body")), None)
    if first is None:
        return out
    body = json.loads(first["body"])
    limit = _model_max_tokens(case)
    for path in _LIMIT_FIELDS:
        holder = body
        for key in path[:-1]:
            holder = holder.get(key) if isinstance(holder, dict) else None
        value = holder.get(path[-1]) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and isinstance(value, int) and not isinstance(value, bool) and value < limit:
            holder[path[-1]] = FITTED
    first["body"] = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return out


def recorded_requests() -> dict[str, list[dict[str, Any]]]:
    """The recording of Pi's requests, by case id (empty when there is none)."""
    if not RECORDING.exists():
        return {}
    recorded: dict[str, list[dict[str, Any]]] = json.loads(RECORDING.read_text())["cases"]
    return recorded


def record(reference: str, ids: list[str]) -> None:
    """Run Pi on each case (all when ``ids`` is empty) and save its requests into ``RECORDING``."""
    import tempfile

    cases = [c for c in provider_cases() if not ids or c.id in ids]
    saved = recorded_requests()
    for case in cases:
        requests, cwd, done = run_provider(reference, case, Path(tempfile.mkdtemp(prefix="pi-record-")))
        if done.returncode != 0:
            raise SystemExit(f"Pi failed on {case.id}: {done.stderr[-1000:]}")
        saved[case.id] = normalized(case, [comparable(r, cwd) for r in requests])
        print(f"recorded {case.id}: {len(requests)} requests", flush=True)
    from pi_runtime.ai.catalog import builtin_catalog

    source = builtin_catalog().source
    RECORDING.write_text(json.dumps({"pi": f"{source.package} {source.version}", "cases": dict(sorted(saved.items()))},
                                    indent=1, ensure_ascii=False) + "\n")


def _print_case(name: str, reference: str, ours: str) -> None:
    import tempfile

    cases = {c.id: c for c in provider_cases()}
    for who, binary in (("Pi", reference), ("pi", ours)):
        if name in cases:
            requests, cwd, done = run_provider(binary, cases[name], Path(tempfile.mkdtemp()))
            if done.returncode:
                print(f"{who} failed ({done.returncode}): {done.stderr[-1500:]}")
        else:
            requests, cwd, _ = run(binary, name, Path(tempfile.mkdtemp()), thinking=os.environ.get("THINKING") or None,
                                   model=CODEX_CATALOG_MODEL if os.environ.get("CATALOG") else None,
                                   real_hosts=bool(os.environ.get("REAL_HOSTS")))
        print(f"== {name} / {who}")
        for request in requests:
            print(json.dumps(comparable(request, cwd), indent=1))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--record"]:
        record(os.environ["PI_REFERENCE"], sys.argv[2:])
        raise SystemExit(0)
    for argument in sys.argv[1:] or list(SERVERS):
        _print_case(argument, os.environ["PI_REFERENCE"], str(Path(sys.executable).parent / "pi"))
