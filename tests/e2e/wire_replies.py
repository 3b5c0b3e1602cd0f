"""Scripted provider replies for every wire API: a ``bash`` tool call first, then a text answer.

Each responder answers the request that opens a turn with one ``bash`` call (``COMMAND``) and the
request that carries the tool's result with the text ``done``, in the API's own streaming format
(SSE for most, AWS event-stream frames for Bedrock, WebSocket frames for Codex). ``REPLIES`` maps
a wire API to its responder; ``answer`` picks the responder from what the request looks like, so
one stand-in can play every provider at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pi_runtime.testing.loopback import RecordedRequest, Reply, bedrock_event

COMMAND = "echo shared"
ANSWER = "done"
_ARGUMENTS = json.dumps({"command": COMMAND})


def _sse_events(reply: Reply) -> list[dict[str, Any]]:
    out = []
    for piece in reply.pieces:
        if isinstance(piece, bytes) and b"data: " in piece:
            data = piece[piece.index(b"data: ") + 6:].strip()
            if data != b"[DONE]":
                out.append(json.loads(data))
    return out


def _mentions_result(value: Any, *markers: str) -> bool:
    """Whether ``value`` (a request body) holds a tool result in any of the ``markers`` shapes."""
    text = json.dumps(value)
    return any(marker in text for marker in markers)


def responses(request: RecordedRequest) -> Reply:
    """OpenAI Responses (and Azure's, and Codex's SSE): ``response.*`` events."""
    items = (request.json() or {}).get("input") or []
    if any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items):
        item = {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}
        events = [{"type": "response.created", "response": {"id": "resp_2", "status": "in_progress"}},
                  {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
                  {"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 0, "content_index": 0,
                   "delta": ANSWER},
                  {"type": "response.output_item.done", "output_index": 0, "item": item},
                  {"type": "response.completed", "response": {"id": "resp_2", "status": "completed", "usage": {
                      "input_tokens": 30, "output_tokens": 2, "total_tokens": 32}}}]
    else:
        call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
                "arguments": _ARGUMENTS, "status": "completed"}
        events = [{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
                  {"type": "response.output_item.added", "output_index": 0, "item": {**call, "arguments": ""}},
                  {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
                   "delta": call["arguments"]},
                  {"type": "response.output_item.done", "output_index": 0, "item": call},
                  {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "usage": {
                      "input_tokens": 20, "output_tokens": 5, "total_tokens": 25}}}]
    return Reply.sse(events, event_names=[e["type"] for e in events])


def codex(request: RecordedRequest) -> Reply:
    """The ChatGPT account's Codex endpoint: a WebSocket when asked (``GET`` upgrade), else SSE."""
    if request.method == "GET":
        return Reply.upgrade()
    if request.method == "WS":
        return Reply.ws(_sse_events(responses(request)))
    return responses(request)


def _completion_chunk(delta: dict[str, Any], finish: str | None = None, model: str = "m1") -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def completions(request: RecordedRequest) -> Reply:
    """OpenAI Chat Completions (and every compatible provider): ``chat.completion.chunk`` events."""
    body = request.json() or {}
    last = (body.get("messages") or [{}])[-1]
    model = body.get("model") or "m1"
    usage = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model, "choices": [],
             "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}}
    if last.get("role") == "tool":
        chunks = [_completion_chunk({"role": "assistant", "content": ANSWER}, model=model),
                  _completion_chunk({}, "stop", model)]
    else:
        call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "bash", "arguments": _ARGUMENTS}}
        chunks = [_completion_chunk({"role": "assistant", "tool_calls": [call]}, model=model),
                  _completion_chunk({}, "tool_calls", model)]
    return Reply.sse([*chunks, usage, "[DONE]"])


def mistral(request: RecordedRequest) -> Reply:
    """Mistral's chat completions stream (tool call ids of nine letters and digits)."""
    last = ((request.json() or {}).get("messages") or [{}])[-1]
    usage = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    if last.get("role") == "tool":
        chunks = [{"id": "m2", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ANSWER},
                                            "finish_reason": None}]},
                  {"id": "m2", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}],
                   "usage": usage}]
    else:
        call = {"id": "AbC123xyz", "function": {"name": "bash", "arguments": _ARGUMENTS}, "index": 0}
        chunks = [{"id": "m1", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]},
                                            "finish_reason": None}]},
                  {"id": "m1", "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "tool_calls"}],
                   "usage": usage}]
    return Reply.sse([*chunks, "[DONE]"])


def anthropic(request: RecordedRequest) -> Reply:
    """Anthropic Messages: ``message_start`` … ``message_stop`` with named events."""
    # The last message of the conversation: Pi may follow it with system messages (effort markers).
    turns = [m for m in (request.json() or {}).get("messages") or [] if m.get("role") != "system"] or [{}]
    answered = _mentions_result(turns[-1], '"tool_result"')
    # The model that was asked for answers (another one would be a fallback, which Pi treats apart).
    model = (request.json() or {}).get("model") or "m1"
    start = {"type": "message_start", "message": {
        "id": f"msg_{2 if answered else 1}", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "usage": {"input_tokens": 20, "output_tokens": 1}}}
    if answered:
        blocks = [{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                  {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": ANSWER}}]
        stop = "end_turn"
    else:
        blocks = [{"type": "content_block_start", "index": 0, "content_block": {
                      "type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}},
                  {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta",
                                                                        "partial_json": _ARGUMENTS}}]
        stop = "tool_use"
    events = [start, *blocks, {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}},
              {"type": "message_stop"}]
    return Reply.sse(events, event_names=[e["type"] for e in events])


def _gemini_chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "m1", "responseId": "resp-1",
            "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 5, "totalTokenCount": 25}}


def google(request: RecordedRequest) -> Reply:
    """Gemini's ``streamGenerateContent?alt=sse`` (Google AI Studio and Vertex AI alike)."""
    contents = (request.json() or {}).get("contents") or []
    if _mentions_result(contents[-1:], '"functionResponse"'):
        return Reply.sse([_gemini_chunk([{"text": ANSWER}]), _gemini_chunk([], "STOP")])
    call = {"functionCall": {"name": "bash", "args": {"command": COMMAND}, "id": "call_1"},
            "thoughtSignature": "c2lnbmF0dXJl"}
    return Reply.sse([_gemini_chunk([call], "STOP")])


def bedrock(request: RecordedRequest) -> Reply:
    """Bedrock ConverseStream: AWS event-stream frames."""
    messages = (request.json() or {}).get("messages") or [{}]
    frames = [bedrock_event("messageStart", {"role": "assistant"})]
    if _mentions_result(messages[-1], '"toolResult"'):
        frames += [bedrock_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": ANSWER}}),
                   bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
                   bedrock_event("messageStop", {"stopReason": "end_turn"})]
    else:
        frames += [bedrock_event("contentBlockStart", {"contentBlockIndex": 0, "start": {
                       "toolUse": {"toolUseId": "tooluse_1", "name": "bash"}}}),
                   bedrock_event("contentBlockDelta", {"contentBlockIndex": 0,
                                                       "delta": {"toolUse": {"input": _ARGUMENTS}}}),
                   bedrock_event("contentBlockStop", {"contentBlockIndex": 0}),
                   bedrock_event("messageStop", {"stopReason": "tool_use"})]
    frames.append(bedrock_event("metadata", {"usage": {"inputTokens": 20, "outputTokens": 5, "totalTokens": 25}}))
    return Reply.event_stream(frames)


def pi_messages(request: RecordedRequest) -> Reply:
    """Pi's own API (Radius): the stream events of Pi's AI layer as SSE."""
    messages = ((request.json() or {}).get("context") or {}).get("messages") or [{}]
    usage = {"input": 20, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 25,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    if messages[-1].get("role") == "toolResult":
        events = [{"type": "start"}, {"type": "text_start", "contentIndex": 0},
                  {"type": "text_delta", "contentIndex": 0, "delta": ANSWER},
                  {"type": "text_end", "contentIndex": 0, "content": ANSWER},
                  {"type": "done", "reason": "stop", "usage": usage, "responseId": "r2"}]
    else:
        call = {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": COMMAND}}
        events = [{"type": "start"}, {"type": "toolcall_start", "contentIndex": 0, "id": "call_1", "toolName": "bash"},
                  {"type": "toolcall_delta", "contentIndex": 0, "delta": _ARGUMENTS},
                  {"type": "toolcall_end", "contentIndex": 0, "toolCall": call},
                  {"type": "done", "reason": "toolUse", "usage": usage, "responseId": "r1"}]
    return Reply.sse(events)


REPLIES: dict[str, Callable[[RecordedRequest], Reply]] = {
    "openai-completions": completions,
    "openai-responses": responses,
    "azure-openai-responses": responses,
    "openai-codex-responses": codex,
    "anthropic-messages": anthropic,
    "google-generative-ai": google,
    "google-vertex": google,
    "bedrock-converse-stream": bedrock,
    "mistral-conversations": mistral,
    "pi-messages": pi_messages,
}
"""Wire API -> its scripted responder."""


def answer(request: RecordedRequest) -> Reply:
    """Any provider's request, answered in its API's format (chosen by host, path and body)."""
    path = request.path.split("?")[0]
    body = request.json() if request.body else None
    if path == "/v1/oauth/token" and request.host == "api.anthropic.com":  # workload identity's exchange
        return Reply.json(200, {"access_token": "sk-ant-federated-token", "token_type": "Bearer", "expires_in": 3600})
    if request.host.startswith("bedrock-runtime.") or path.endswith("/converse-stream"):
        return bedrock(request)
    if ":streamGenerateContent" in path:
        return google(request)
    if request.method in ("GET", "WS") and "/codex/" in path:
        return codex(request)
    if isinstance(body, dict) and "context" in body and "model" in body:
        return pi_messages(request)
    if request.host == "api.mistral.ai":
        return mistral(request)
    if path.endswith("/responses"):
        return responses(request)
    if path.endswith("/messages"):
        return anthropic(request)
    if path.endswith("/chat/completions"):
        return completions(request)
    return Reply.json(404, {"error": {"message": f"nothing plays {request.method} {request.host}{path}"}})
