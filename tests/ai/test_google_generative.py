"""The google-generative-ai provider against a real HTTP server speaking Gemini's SSE stream."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_runtime.testing.loopback import LoopbackServer, Reply, sse_bytes

KEY = "AIza-test-secret-0123456789"


def make_model(server: LoopbackServer, **kwargs: Any) -> Model:
    fields: dict[str, Any] = dict(
        id="gemini-test",
        api="google-generative-ai",
        provider="google",
        base_url=f"{server.url}/v1beta",
        reasoning=True,
        input=["text", "image"],
        cost=ModelCost(input=1.25, output=10.0, cache_read=0.31, cache_write=0.0),
        max_tokens=65536,
    )
    fields.update(kwargs)
    return Model(**fields)


def ctx(text: str = "hi", **kwargs: Any) -> Context:
    return Context(messages=[UserMessage(content=text)], **kwargs)


def chunk(*parts: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-test-001", "responseId": "resp-42"}
    if usage:
        out["usageMetadata"] = usage
    return out


def done_chunk(finish: str = "STOP", **usage: int) -> dict[str, Any]:
    return chunk(finish=finish, usage={"promptTokenCount": 10, "candidatesTokenCount": 5, **usage})


async def run(model: Model, context: Context, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    s = stream(model, context, StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


# --------------------------------------------------------------------------- streaming


async def test_text_in_many_small_chunks_split_across_network_reads(loopback: LoopbackServer) -> None:
    pieces = ["Gr", "üß", "e, ", "wor", "ld", "! ", "日本", "語"]
    events = [chunk({"text": p}) for p in pieces] + [done_chunk()]
    raw = b"".join(sse_bytes(e).replace(b"\n", b"\r\n") for e in events)  # Gemini frames with CRLF
    loopback.push(Reply(pieces=[raw[i:i + 7] for i in range(0, len(raw), 7)]))

    got, msg = await run(make_model(loopback), ctx())

    assert types(got) == ["start", "text_start"] + ["text_delta"] * len(pieces) + ["text_end", "done"]
    assert [e.delta for e in got if e.type == "text_delta"] == pieces
    assert got[-2].content == "Grüße, world! 日本語"
    assert got[-1].reason == "stop"
    assert msg.content == [TextContent(text="Grüße, world! 日本語")]
    assert msg.stop_reason == "stop"
    assert msg.error_message is None
    assert msg.response_id == "resp-42"
    assert msg.response_model == "gemini-test-001"
    assert (msg.api, msg.provider, msg.model) == ("google-generative-ai", "google", "gemini-test")


async def test_thought_parts_become_thinking_with_signature(loopback: LoopbackServer) -> None:
    events = [
        chunk({"text": "Consider ", "thought": True}),
        chunk({"text": "the options.", "thought": True, "thoughtSignature": "c2lnLTE="}),
        chunk({"text": "Option "}, {"text": "B."}),
        done_chunk(),
    ]
    loopback.push(Reply.sse(events))

    got, msg = await run(make_model(loopback), ctx(), reasoning="medium")

    assert types(got) == [
        "start",
        "thinking_start", "thinking_delta", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_delta", "text_end",
        "done",
    ]
    assert got[4].content == "Consider the options."
    assert [e.content_index for e in got[5:9]] == [1, 1, 1, 1]
    assert msg.content == [
        ThinkingContent(thinking="Consider the options.", thinking_signature="c2lnLTE="),
        TextContent(text="Option B."),
    ]
    assert msg.stop_reason == "stop"


async def test_two_function_calls_get_distinct_ids_and_signature(loopback: LoopbackServer) -> None:
    events = [
        chunk({"text": "Checking."}),
        chunk(
            {"functionCall": {"name": "read", "args": {"path": "/tmp/a.txt", "limit": 10}}, "thoughtSignature": "U0lH"},
            {"functionCall": {"name": "read", "args": {"path": "/tmp/b.txt"}}},
        ),
        done_chunk(),
    ]
    loopback.push(Reply.sse(events))

    got, msg = await run(make_model(loopback), ctx())

    assert types(got) == [
        "start", "text_start", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_end",
        "toolcall_start", "toolcall_delta", "toolcall_end",
        "done",
    ]
    calls = msg.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [
        ("read", {"path": "/tmp/a.txt", "limit": 10}),
        ("read", {"path": "/tmp/b.txt"}),
    ]
    assert calls[0].id and calls[1].id and calls[0].id != calls[1].id
    assert calls[0].id.startswith("read_")
    assert (calls[0].thought_signature, calls[1].thought_signature) == ("U0lH", None)
    ends = [e for e in got if e.type == "toolcall_end"]
    assert [e.tool_call for e in ends] == calls
    assert json.loads([e for e in got if e.type == "toolcall_delta"][0].delta) == {"path": "/tmp/a.txt", "limit": 10}
    assert msg.stop_reason == "toolUse"
    assert got[-1].reason == "toolUse"


async def test_function_call_id_from_the_server_is_kept_unless_repeated(loopback: LoopbackServer) -> None:
    calls = [{"functionCall": {"id": "fc-7", "name": "ls", "args": {}}},
             {"functionCall": {"id": "fc-7", "name": "ls", "args": {"path": "src"}}}]
    loopback.push(Reply.sse([chunk(*calls), done_chunk()]))
    _, msg = await run(make_model(loopback), ctx())
    first, second = msg.tool_calls()
    assert first == ToolCall(id="fc-7", name="ls", arguments={})
    # Results are matched to calls by id, so a repeated id must not be reused.
    assert second.id != "fc-7" and second.id.startswith("ls_")
    assert second.arguments == {"path": "src"}


async def test_usage_with_cached_tokens_thoughts_and_cost(loopback: LoopbackServer) -> None:
    events = [
        chunk({"text": "a"}, usage={"promptTokenCount": 1200, "cachedContentTokenCount": 1000}),
        chunk({"text": "b"}, finish="STOP", usage={
            "promptTokenCount": 1200, "cachedContentTokenCount": 1000,
            "candidatesTokenCount": 30, "thoughtsTokenCount": 12, "totalTokenCount": 1242,
        }),
    ]
    loopback.push(Reply.sse(events))

    _, msg = await run(make_model(loopback), ctx())

    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.cache_write) == (200, 42, 1000, 0)
    assert u.total_tokens == 1242
    assert u.cost.input == pytest.approx(200 * 1.25 / 1e6)
    assert u.cost.output == pytest.approx(42 * 10.0 / 1e6)
    assert u.cost.cache_read == pytest.approx(1000 * 0.31 / 1e6)
    assert u.cost.total == pytest.approx(0.00025 + 0.00042 + 0.00031)


@pytest.mark.parametrize(
    ("finish", "stop_reason", "error"),
    [
        ("MAX_TOKENS", "length", None),
        ("SAFETY", "error", "Google stopped the response (SAFETY)"),
        ("MALFORMED_FUNCTION_CALL", "error", "Google stopped the response (MALFORMED_FUNCTION_CALL)"),
    ],
)
async def test_finish_reasons(loopback: LoopbackServer, finish: str, stop_reason: str, error: str | None) -> None:
    loopback.push(Reply.sse([chunk({"text": "Some"}), done_chunk(finish)]))
    got, msg = await run(make_model(loopback), ctx())
    assert msg.stop_reason == stop_reason
    assert msg.error_message == error
    assert got[-1].type == ("done" if error is None else "error")
    assert msg.text() == "Some"


async def test_blocked_prompt_is_an_error(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
                              "usageMetadata": {"promptTokenCount": 8}}]))
    _, msg = await run(make_model(loopback), ctx())
    assert msg.stop_reason == "error"
    assert msg.error_message == "Google stopped the response (PROHIBITED_CONTENT): the prompt was blocked"
    assert msg.usage.input == 8


# --------------------------------------------------------------------------- failures


def google_error(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


@pytest.mark.parametrize(
    ("status", "body", "headers", "expected"),
    [
        (400, google_error(400, "INVALID_ARGUMENT", "Invalid JSON payload"), {}, "400 Invalid JSON payload"),
        (401, [google_error(401, "UNAUTHENTICATED", f"API key {KEY} not valid")], {},
         "401 API key [redacted] not valid"),
        (429, google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded"), {"retry-after": "12"},
         "429 Quota exceeded (retry after 12s)"),
        (500, google_error(500, "INTERNAL", "Internal error"), {}, "500 Internal error"),
    ],
)
async def test_http_errors(
    loopback: LoopbackServer, status: int, body: Any, headers: dict[str, str], expected: str
) -> None:
    loopback.push(Reply.json(status, body, headers))
    got, msg = await run(make_model(loopback), ctx())
    assert types(got) == ["error"]  # no start: the server refused the request (as Pi)
    assert got[-1].reason == "error"
    assert msg.stop_reason == "error"
    assert msg.error_message == expected
    assert KEY not in json.dumps(msg.to_wire())
    assert msg.content == []


async def test_in_stream_error_keeps_partial_content(loopback: LoopbackServer) -> None:
    events = [chunk({"text": "Partial"}), google_error(503, "UNAVAILABLE", "The model is overloaded.")]
    loopback.push(Reply.sse(events))
    got, msg = await run(make_model(loopback), ctx())
    assert types(got) == ["start", "text_start", "text_delta", "text_end", "error"]
    assert msg.stop_reason == "error"
    assert msg.error_message == "UNAVAILABLE: The model is overloaded."
    assert msg.content == [TextContent(text="Partial")]


async def test_connection_dropped_mid_stream_keeps_partial(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "Half an ans"})], drop=True))
    got, msg = await run(make_model(loopback), ctx())
    assert got[-1].type == "error" and got[-1].reason == "error"
    assert "text_end" in types(got)
    assert msg.stop_reason == "error"
    assert msg.error_message
    assert msg.content == [TextContent(text="Half an ans")]


async def test_stream_that_ends_without_finish_reason_is_an_error(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "cut"})]))
    _, msg = await run(make_model(loopback), ctx())
    assert msg.stop_reason == "error"
    assert "finish reason" in msg.error_message
    assert msg.text() == "cut"


async def test_malformed_data_line_is_a_clear_error(loopback: LoopbackServer) -> None:
    pieces = [sse_bytes(chunk({"text": "So far"})), b'data: {"candidates": [{"cont\n\n', sse_bytes(done_chunk())]
    loopback.push(Reply(pieces=pieces))
    got, msg = await run(make_model(loopback), ctx())
    assert got[-1].type == "error"
    assert msg.stop_reason == "error"
    assert msg.error_message.startswith("Malformed JSON in the Google stream")
    assert msg.text() == "So far"


async def test_stalled_server_then_abort_ends_quickly(loopback: LoopbackServer) -> None:
    loopback.push(Reply.sse([chunk({"text": "Before the stall"})], stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), ctx(), StreamOptions(api_key=KEY, signal=controller.signal))
    got = []
    started = None
    async for event in s:
        got.append(event)
        if event.type == "text_delta":
            asyncio.get_running_loop().call_later(0.05, controller.abort)
            started = time.monotonic()
    elapsed = time.monotonic() - started
    msg = await s.result()
    assert elapsed < 60  # a stalled server would otherwise hold the request for the 600 s timeout (room for load)
    assert got[-1].type == "error" and got[-1].reason == "aborted"
    assert msg.stop_reason == "aborted"
    assert msg.content == [TextContent(text="Before the stall")]


async def test_missing_api_key_names_the_env_var(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    got, msg = await run(make_model(loopback), ctx(), api_key=None)
    assert got[-1].type == "error"
    assert msg.stop_reason == "error"
    assert "GEMINI_API_KEY" in msg.error_message
    assert loopback.requests == []


# --------------------------------------------------------------------------- request


async def test_request_body_field_by_field(loopback: LoopbackServer) -> None:
    model = make_model(loopback, id="gemini-2.5-flash", headers={"x-model-header": "m"})
    earlier = AssistantMessage(
        api="google-generative-ai", provider="google", model="gemini-2.5-flash",
        content=[
            ThinkingContent(thinking="Plan.", thinking_signature="VEhPVUdIVA=="),
            TextContent(text="Looking."),
            ToolCall(id="read_1", name="read", arguments={"path": "a.py"}, thought_signature="RkM="),
            ToolCall(id="bash_2", name="bash", arguments={"command": "ls"}),
        ],
        stop_reason="toolUse",
    )
    context = Context(
        system_prompt="You are terse.",
        messages=[
            UserMessage(content=[TextContent(text="Look"), ImageContent(data="iVBORw0=", mime_type="image/png")]),
            earlier,
            ToolResultMessage(tool_call_id="read_1", tool_name="read",
                              content=[TextContent(text="print(1)"), ImageContent(data="R0lG", mime_type="image/gif")]),
            ToolResultMessage(tool_call_id="bash_2", tool_name="bash", content=[TextContent(text="boom")], is_error=True),
            UserMessage(content="Thanks, continue"),
        ],
        tools=[Tool(name="read", description="Read a file",
                    parameters={"type": "object", "properties": {"path": {"type": "string"}},
                                "required": ["path"], "additionalProperties": False})],
    )
    loopback.push(Reply.sse([chunk({"text": "ok"}), done_chunk()]))

    _, msg = await run(model, context, reasoning="high", temperature=0.3, headers={"x-extra": "1"})
    assert msg.stop_reason == "stop"

    req = loopback.requests[0]
    assert (req.method, req.path) == ("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    assert req.headers["x-goog-api-key"] == KEY
    assert req.headers["content-type"] == "application/json"
    assert req.headers["x-model-header"] == "m"
    assert req.headers["x-extra"] == "1"
    assert KEY not in req.path

    body = req.json()
    assert set(body) == {"contents", "generationConfig", "systemInstruction", "tools"}
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}], "role": "user"}
    assert body["generationConfig"] == {
        "maxOutputTokens": 65536,
        "temperature": 0.3,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 24576},
    }
    assert body["tools"] == [{"functionDeclarations": [{
        "name": "read", "description": "Read a file",
        "parametersJsonSchema": {"type": "object", "properties": {"path": {"type": "string"}},
                                 "required": ["path"], "additionalProperties": False},
    }]}]
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Look"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0="}}]},
        {"role": "model", "parts": [
            {"thought": True, "text": "Plan.", "thoughtSignature": "VEhPVUdIVA=="},
            {"text": "Looking."},
            {"functionCall": {"name": "read", "args": {"path": "a.py"}}, "thoughtSignature": "RkM="},
            {"functionCall": {"name": "bash", "args": {"command": "ls"}}},
        ]},
        # Gemini 2.5: a tool result's images follow in a user turn of their own (Pi's layout).
        {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "print(1)"}}}]},
        {"role": "user", "parts": [{"text": "Tool result image:"}, {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "bash", "response": {"error": "boom"}}}]},
        {"role": "user", "parts": [{"text": "Thanks, continue"}]},
    ]


_GEMINI_3_LEVELS = {"off": None, "minimal": "minimal", "low": "low", "medium": "medium", "high": "high",
                    "xhigh": None, "max": None}
"""Pi's catalogue entry for Gemini 3 Flash: it cannot stop thinking, and has no xhigh."""


@pytest.mark.parametrize(
    ("model_id", "levels", "reasoning", "expected"),
    [
        # Thinking off (or not asked for) is said explicitly, as Pi does.
        ("gemini-2.5-flash", None, None, {"thinkingBudget": 0}),
        ("gemini-2.5-flash", None, "off", {"thinkingBudget": 0}),
        ("gemini-2.5-flash", None, "minimal", {"includeThoughts": True, "thinkingBudget": 128}),
        ("gemini-2.5-flash", None, "high", {"includeThoughts": True, "thinkingBudget": 24576}),
        ("gemini-2.5-pro", None, "high", {"includeThoughts": True, "thinkingBudget": 32768}),
        # Budget models outside the 2.5 families let the model choose.
        ("gemini-test", None, "low", {"includeThoughts": True, "thinkingBudget": -1}),
        # xhigh is only offered when mapped: clamped to high.
        ("gemini-2.5-pro", None, "xhigh", {"includeThoughts": True, "thinkingBudget": 32768}),
        ("gemini-3-pro-preview", None, "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        ("gemini-3-flash-preview", _GEMINI_3_LEVELS, "off", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3-flash-preview", _GEMINI_3_LEVELS, "xhigh", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
        ("gemini-4-argon", {"minimal": "low"}, "minimal", {"includeThoughts": True, "thinkingLevel": "LOW"}),
    ],
)
async def test_thinking_config_per_level(
    loopback: LoopbackServer, model_id: str, levels: dict[str, Any] | None, reasoning: str | None,
    expected: dict[str, Any] | None,
) -> None:
    loopback.push(Reply.sse([chunk({"text": "ok"}), done_chunk()]))
    extra = {"thinkingLevelMap": levels} if levels else {}
    await run(make_model(loopback, id=model_id, **extra), ctx(), reasoning=reasoning, max_tokens=1000)
    req = loopback.requests[0]
    assert req.path == f"/v1beta/models/{model_id}:streamGenerateContent?alt=sse"
    config = req.json()["generationConfig"]
    assert config.get("thinkingConfig") == expected
    assert config["maxOutputTokens"] == 1000
    assert "temperature" not in config


async def test_non_reasoning_model_and_history_from_another_model(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-from-env-9876")
    other = AssistantMessage(
        api="anthropic-messages", provider="anthropic", model="claude-x",
        content=[ThinkingContent(thinking="Hidden", thinking_signature="sig"), TextContent(text="Hi!"),
                 ToolCall(id="toolu_9", name="ls", arguments={}, thought_signature="foreign")],
        stop_reason="toolUse",
    )
    context = Context(messages=[
        UserMessage(content=[TextContent(text="see"), ImageContent(data="AAAA", mime_type="image/png")]),
        other,
        ToolResultMessage(tool_call_id="toolu_9", tool_name="ls", content=[]),
    ])
    loopback.push(Reply.sse([chunk({"text": "ok"}), done_chunk()]))
    await run(make_model(loopback, reasoning=False, input=["text"]), context, api_key=None, reasoning="high")
    req = loopback.requests[0]
    assert req.headers["x-goog-api-key"] == "AIza-from-env-9876"
    body = req.json()
    assert "thinkingConfig" not in body["generationConfig"]
    contents = body["contents"]
    assert contents[0]["parts"][1] == {"text": "(image omitted: this model does not accept images)"}
    model_parts = contents[1]["parts"]
    assert all(not p.get("thought") and "thoughtSignature" not in p for p in model_parts)
    assert model_parts[-1] == {"functionCall": {"name": "ls", "args": {}}}
    assert contents[2] == {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": ""}}}]}


async def test_key_from_the_environment_never_appears_in_errors(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-env-secret-5555")  # Pi's one variable for Gemini
    loopback.push(Reply.json(400, google_error(400, "INVALID_ARGUMENT", "key AIza-env-secret-5555 expired")))
    _, msg = await run(make_model(loopback), ctx(), api_key=None)
    assert loopback.requests[0].headers["x-goog-api-key"] == "AIza-env-secret-5555"
    assert msg.error_message == "400 key [redacted] expired"


def test_history_for_gemini_3_carries_call_ids_and_only_valid_own_signatures() -> None:
    from pi_runtime.ai.providers.google_generative import convert_messages

    model = Model(id="gemini-3-pro-preview", api="google-generative-ai", provider="google", input=["text", "image"])
    own = AssistantMessage(api="google-generative-ai", provider="google", model="gemini-3-pro-preview",
                           stop_reason="toolUse", content=[
                               TextContent(text="", text_signature="c2ln"),
                               ToolCall(id="fc-1", name="ls", arguments={}, thought_signature="not base64!")])
    other = AssistantMessage(api="openai-responses", provider="openai", model="gpt-5", stop_reason="toolUse",
                             content=[ToolCall(id="call_1|fc_9", name="read", arguments={"path": "a"},
                                               thought_signature="c2ln")])
    image = ImageContent(data="iVBORw0=", mime_type="image/png")
    contents = convert_messages([
        UserMessage(content="go"), own,
        ToolResultMessage(tool_call_id="fc-1", tool_name="ls", content=[image]),
        other,
        ToolResultMessage(tool_call_id="call_1|fc_9", tool_name="read", content=[TextContent(text="x")]),
    ], model)
    assert contents[1] == {"role": "model", "parts": [
        {"text": "", "thoughtSignature": "c2ln"},  # an empty part kept for its signature
        {"functionCall": {"name": "ls", "args": {}, "id": "fc-1"}}]}  # an invalid signature is dropped
    assert contents[2] == {"role": "user", "parts": [{"functionResponse": {
        "name": "ls", "response": {"output": "(see attached image)"}, "id": "fc-1",
        "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0="}}]}}]}
    # Another model's call: its id made safe, its signature not replayed; the result follows the id.
    assert contents[3] == {"role": "model", "parts": [
        {"functionCall": {"name": "read", "args": {"path": "a"}, "id": "call_1_fc_9"}}]}
    assert contents[4]["parts"][0]["functionResponse"]["id"] == "call_1_fc_9"
