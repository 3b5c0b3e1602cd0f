"""A provider with its own streaming code (Pi's ``custom-provider-anthropic/``, in Python).

Registers ``custom-anthropic`` with two models on a protocol of its own
(``custom-anthropic-api``): the stream function below talks to Anthropic's Messages API with
pi's own HTTP client (``post_sse``: the user's timeouts, proxies and abort apply, secrets are kept
out of error messages) and turns its server-sent events into pi's stream events with ``StreamWriter``.

    CUSTOM_ANTHROPIC_API_KEY=sk-ant-... pi -e docs/examples/extensions/custom_provider_anthropic \\
        --model custom-anthropic/claude-sonnet-4-5

Pi's example also logs in with OAuth (``/login custom-anthropic``); pi has no login flow for
extension providers yet, so only the key form is ported. A key that is an OAuth token
(``sk-ant-oat...``) is still sent the way Claude Code sends it.
"""

from __future__ import annotations

import json
from typing import Any

from pi_runtime.extensions import ExtensionAPI, StreamWriter, post_sse

CLAUDE_CODE_TOOLS = ["Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "TodoWrite", "WebFetch",
                     "WebSearch"]
_BY_LOWER = {name.lower(): name for name in CLAUDE_CODE_TOOLS}
BETA_FEATURES = ["fine-grained-tool-streaming-2025-05-14", "interleaved-thinking-2025-05-14"]
THINKING_BUDGETS = {"minimal": 1024, "low": 4096, "medium": 10240, "high": 20480}
STOP_REASONS = {"end_turn": "stop", "pause_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                "tool_use": "toolUse"}


def is_oauth_token(api_key: str) -> bool:
    return "sk-ant-oat" in api_key


def to_claude_code_name(name: str) -> str:
    return _BY_LOWER.get(name.lower(), name)


def from_claude_code_name(name: str, tools: list[Any]) -> str:
    return next((t.name for t in tools if t.name.lower() == name.lower()), name)


def sanitize(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _blocks(content: Any) -> Any:
    if isinstance(content, str):
        return sanitize(content)
    if not any(b.type == "image" for b in content):
        return sanitize("\n".join(b.text for b in content if b.type == "text"))
    out = [{"type": "text", "text": sanitize(b.text)} if b.type == "text" else
           {"type": "image", "source": {"type": "base64", "media_type": b.mime_type, "data": b.data}} for b in content]
    if not any(b["type"] == "text" for b in out):
        out.insert(0, {"type": "text", "text": "(see attached image)"})
    return out


def convert_messages(messages: list[Any], oauth: bool) -> list[dict[str, Any]]:
    """pi's messages as Anthropic ``messages`` (tool results of one turn go in one user message)."""
    params: list[dict[str, Any]] = []
    pending_results: list[dict[str, Any]] = []

    def flush_results() -> None:
        if pending_results:
            params.append({"role": "user", "content": list(pending_results)})
            pending_results.clear()

    for message in messages:
        role = message.role
        if role != "toolResult":
            flush_results()
        if role == "user":
            if isinstance(message.content, str):
                if message.content.strip():
                    params.append({"role": "user", "content": sanitize(message.content)})
            elif message.content:
                params.append({"role": "user", "content": [
                    {"type": "text", "text": sanitize(b.text)} if b.type == "text" else
                    {"type": "image", "source": {"type": "base64", "media_type": b.mime_type, "data": b.data}}
                    for b in message.content]})
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            for block in message.content:
                if block.type == "text" and block.text.strip():
                    blocks.append({"type": "text", "text": sanitize(block.text)})
                elif block.type == "thinking" and block.thinking.strip():
                    if block.thinking_signature:
                        blocks.append({"type": "thinking", "thinking": sanitize(block.thinking),
                                       "signature": block.thinking_signature})
                    else:
                        blocks.append({"type": "text", "text": sanitize(block.thinking)})
                elif block.type == "toolCall":
                    blocks.append({"type": "tool_use", "id": block.id,
                                   "name": to_claude_code_name(block.name) if oauth else block.name,
                                   "input": block.arguments})
            if blocks:
                params.append({"role": "assistant", "content": blocks})
        elif role == "toolResult":
            pending_results.append({"type": "tool_result", "tool_use_id": message.tool_call_id,
                                    "content": _blocks(message.content), "is_error": message.is_error})
    flush_results()
    if params and params[-1]["role"] == "user" and isinstance(params[-1]["content"], list) and params[-1]["content"]:
        params[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return params


def convert_tools(tools: list[Any], oauth: bool) -> list[dict[str, Any]]:
    return [{"name": to_claude_code_name(t.name) if oauth else t.name, "description": t.description,
             "input_schema": {"type": "object", "properties": t.parameters.get("properties", {}),
                              "required": t.parameters.get("required", [])}} for t in tools]


def build_request(model: Any, context: Any, options: Any) -> tuple[dict[str, str], dict[str, Any]]:
    api_key = options.api_key or ""
    oauth = is_oauth_token(api_key)
    tools = context.tools or []
    headers = {"content-type": "application/json", "accept": "application/json",
               "anthropic-version": "2023-06-01", "anthropic-dangerous-direct-browser-access": "true"}
    if oauth:
        headers.update({"authorization": f"Bearer {api_key}", "x-app": "cli",
                        "anthropic-beta": ",".join(["claude-code-20250219", "oauth-2025-04-20", *BETA_FEATURES]),
                        "user-agent": "claude-cli/2.1.2 (external, cli)"})
    else:
        headers.update({"x-api-key": api_key, "anthropic-beta": ",".join(BETA_FEATURES)})
    body: dict[str, Any] = {
        "model": model.id, "stream": True,
        "messages": convert_messages([m for m in context.messages if m.role != "system"], oauth),
        "max_tokens": options.max_tokens or model.max_tokens // 3,
    }
    system = []
    if oauth:
        system.append({"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.",
                       "cache_control": {"type": "ephemeral"}})
    if context.system_prompt:
        system.append({"type": "text", "text": sanitize(context.system_prompt), "cache_control": {"type": "ephemeral"}})
    if system:
        body["system"] = system
    if tools:
        body["tools"] = convert_tools(tools, oauth)
    if options.reasoning and options.reasoning != "off" and model.reasoning:
        body["thinking"] = {"type": "enabled", "budget_tokens": THINKING_BUDGETS.get(options.reasoning, 10240)}
    return headers, body


async def stream_custom_anthropic(model: Any, context: Any, options: Any):
    out = StreamWriter(model)
    tools = context.tools or []
    oauth = is_oauth_token(options.api_key or "")
    open_blocks: dict[int, str] = {}
    stop_reason = None
    try:
        headers, body = build_request(model, context, options)
        started = False
        async for kind, data in post_sse(model.base_url.rstrip("/") + "/v1/messages", headers, body, options):
            if not started:  # the server answered: an HTTP error raised before this point
                started = True
                for event in out.start():
                    yield event
            if options.signal is not None and options.signal.aborted:
                raise RuntimeError("Request was aborted")
            payload = json.loads(data) if data and data != "[DONE]" else {}
            kind = kind or payload.get("type")
            if kind == "message_start":
                usage = payload["message"].get("usage", {})
                out.usage(input=usage.get("input_tokens", 0), output=usage.get("output_tokens", 0),
                          cache_read=usage.get("cache_read_input_tokens", 0),
                          cache_write=usage.get("cache_creation_input_tokens", 0))
            elif kind == "content_block_start":
                block = payload["content_block"]
                open_blocks[payload["index"]] = block["type"]
                if block["type"] == "tool_use":
                    name = from_claude_code_name(block["name"], tools) if oauth else block["name"]
                    for event in out.start_tool_call(block["id"], name):
                        yield event
            elif kind == "content_block_delta":
                delta = payload["delta"]
                if delta["type"] == "text_delta":
                    events = out.text(delta["text"])
                elif delta["type"] == "thinking_delta":
                    events = out.thinking(delta["thinking"])
                elif delta["type"] == "signature_delta":
                    events = out.thinking("", signature=delta["signature"])
                elif delta["type"] == "input_json_delta":
                    events = out.tool_call_delta(delta["partial_json"])
                else:
                    events = []
                for event in events:
                    yield event
            elif kind == "content_block_stop":
                if open_blocks.pop(payload["index"], None) is not None:
                    for event in out.end_block():
                        yield event
            elif kind == "message_delta":
                stop_reason = STOP_REASONS.get(payload.get("delta", {}).get("stop_reason") or "", stop_reason)
                usage = payload.get("usage", {})
                message_usage = out.message.usage
                out.usage(input=usage.get("input_tokens", message_usage.input),
                          output=usage.get("output_tokens", 0),
                          cache_read=usage.get("cache_read_input_tokens", message_usage.cache_read),
                          cache_write=usage.get("cache_creation_input_tokens", message_usage.cache_write))
        if stop_reason is None:
            raise RuntimeError("Anthropic stream ended without a stop reason")
        for event in out.done(stop_reason):
            yield event
    except Exception as exc:  # noqa: BLE001 - a provider ends with an error event, never raises
        aborted = options.signal is not None and options.signal.aborted
        for event in out.error(str(exc) or type(exc).__name__, aborted=aborted):
            yield event


def extension(pi: ExtensionAPI) -> None:
    pi.register_provider(
        "custom-anthropic",
        base_url="https://api.anthropic.com",
        api_key="$CUSTOM_ANTHROPIC_API_KEY",
        api="custom-anthropic-api",
        models=[
            {"id": "claude-opus-4-5", "name": "Claude Opus 4.5 (Custom)", "reasoning": True,
             "input": ["text", "image"], "cost": {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6.25},
             "contextWindow": 200000, "maxTokens": 64000},
            {"id": "claude-sonnet-4-5", "name": "Claude Sonnet 4.5 (Custom)", "reasoning": True,
             "input": ["text", "image"], "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
             "contextWindow": 200000, "maxTokens": 64000},
        ],
        stream=stream_custom_anthropic,
    )
