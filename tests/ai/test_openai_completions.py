"""openai-completions provider against a real HTTP server on 127.0.0.1 (LoopbackServer)."""

from __future__ import annotations

import asyncio
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
from pi_runtime.testing.loopback import Reply

KEY = "sk-test-secret-0123456789"


def make_model(server, **overrides: Any) -> Model:
    values: dict[str, Any] = dict(
        id="gpt-test", api="openai-completions", provider="openai", base_url=server.url + "/v1",
        cost=ModelCost(input=2.0, output=8.0, cache_read=0.5, cache_write=2.5), max_tokens=4096,
    )
    values.update(overrides)
    return Model.model_validate(values)


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test",
                            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    body.update(extra)
    return body


def text_chunks(text: str, size: int = 3) -> list[dict[str, Any]]:
    return [chunk({"content": text[i:i + size]}) for i in range(0, len(text), size)]


def usage_chunk(prompt: int = 10, completion: int = 5, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion,
                             "prompt_tokens_details": {"cached_tokens": cached}}
    if reasoning:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return {"id": "chatcmpl-1", "choices": [], "usage": usage}


async def run(model: Model, context: Context | None = None, **options: Any) -> tuple[list[Any], AssistantMessage]:
    options.setdefault("api_key", KEY)
    ctx = context or Context(messages=[UserMessage(content="hi")])
    s = stream(model, ctx, StreamOptions(**options))
    events = [e async for e in s]
    return events, await s.result()


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


# --------------------------------------------------------------------------- streaming


async def test_text_in_many_small_chunks(loopback):
    text = "The quick brown fox jumps over the lazy dog. " * 4
    loopback.push(Reply.sse([*text_chunks(text), chunk(finish="stop"), usage_chunk(), "[DONE]"]))
    model = make_model(loopback)
    events, message = await run(model)

    n = len(text_chunks(text))
    assert types(events) == ["start", "text_start", *["text_delta"] * n, "text_end", "done"]
    assert "".join(e.delta for e in events if e.type == "text_delta") == text
    assert events[-2].content == text
    assert message.content == [TextContent(text=text)]
    assert message.stop_reason == "stop"
    assert message.error_message is None
    assert (message.api, message.provider, message.model) == ("openai-completions", "openai", "gpt-test")
    assert message.response_id == "chatcmpl-1"
    request = loopback.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning", "reasoning_text"])
async def test_reasoning_deltas_become_thinking(loopback, field):
    loopback.push(Reply.sse([
        chunk({"role": "assistant", field: "Let me "}), chunk({field: "think."}),
        chunk({"content": "Answer"}), chunk({"content": " 42"}), chunk(finish="stop"), "[DONE]",
    ]))
    events, message = await run(make_model(loopback, reasoning=True), reasoning="medium")

    # As Pi 1.6 streams it: every block stays open until the end, then ends in content order.
    assert types(events) == ["start", "thinking_start", "thinking_delta", "thinking_delta", "text_start",
                             "text_delta", "text_delta", "thinking_end", "text_end", "done"]
    assert events[7].content == "Let me think."
    assert [e.content_index for e in events[1:9]] == [0, 0, 0, 1, 1, 1, 0, 1]
    assert message.content[0] == ThinkingContent(thinking="Let me think.", thinking_signature=field)
    assert message.content[1] == TextContent(text="Answer 42")
    assert loopback.requests[0].json()["reasoning_effort"] == "medium"


async def test_two_tool_calls_with_arguments_split_mid_token(loopback):
    def call(index: int, args: str, call_id: str | None = None, name: str | None = None) -> dict:
        tc: dict[str, Any] = {"index": index, "function": {"arguments": args}}
        if call_id:
            tc.update(id=call_id, type="function")
            tc["function"]["name"] = name
        return chunk({"tool_calls": [tc]})

    loopback.push(Reply.sse([
        chunk({"content": "Reading both."}),
        call(0, "", "call_a", "read"), call(0, '{"pa'), call(0, 'th": "src/ma'), call(0, 'in.py", "lim'),
        call(0, 'it": 2'), call(0, "0}"),
        call(1, '{"comm', "call_b", "bash"), call(1, 'and": "ls -'), call(1, 'la"}'),
        chunk(finish="tool_calls"), "[DONE]",
    ]))
    seen_partials: list[dict] = []
    model = make_model(loopback)
    s = stream(model, Context(messages=[UserMessage(content="go")]), StreamOptions(api_key=KEY))
    events = []
    async for event in s:
        events.append(event)
        if event.type == "toolcall_delta":
            seen_partials.append(dict(event.partial.content[event.content_index].arguments))
    message = await s.result()

    assert types(events) == [  # Pi 1.6's order: the text stays open past the calls; each chunk is a delta
        "start", "text_start", "text_delta",
        "toolcall_start", *["toolcall_delta"] * 6, "toolcall_start", *["toolcall_delta"] * 3,
        "text_end", "toolcall_end", "toolcall_end", "done",
    ]
    assert message.stop_reason == "toolUse"
    assert message.content[1] == ToolCall(id="call_a", name="read", arguments={"path": "src/main.py", "limit": 20})
    assert message.content[2] == ToolCall(id="call_b", name="bash", arguments={"command": "ls -la"})
    assert events[-3].tool_call.arguments == {"path": "src/main.py", "limit": 20}
    assert events[-2].tool_call.arguments == {"command": "ls -la"}
    # Partial arguments grow while the JSON is still arriving.
    assert seen_partials[2] == {"path": "src/ma"}
    assert seen_partials[-1] == {"command": "ls -la"}
    assert "".join(e.delta for e in events if e.type == "toolcall_delta" and e.content_index == 1) == \
        '{"path": "src/main.py", "limit": 20}'


async def test_arguments_sent_as_an_object_are_the_arguments(loopback):
    # Some local servers send function.arguments as a JSON object, not a string; Pi fails the call
    # ("[object Object]" is not valid JSON); pi takes the object as what the model meant.
    loopback.push(Reply.sse([
        chunk({"tool_calls": [{"index": 0, "id": "x1", "type": "function",
                               "function": {"name": "read", "arguments": {"path": "a.txt", "limit": 2}}}]}),
        chunk(finish="tool_calls"), "[DONE]",
    ]))
    _events, message = await run(make_model(loopback))
    assert message.content == [ToolCall(id="x1", name="read", arguments={"path": "a.txt", "limit": 2})]


async def test_text_after_a_tool_call_and_reasoning_after_text_grow_the_first_blocks_as_in_pi(loopback):
    loopback.push(Reply.sse([
        chunk({"reasoning_content": "Plan."}), chunk({"content": "Reading."}),
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                               "function": {"name": "read", "arguments": '{"path": "a"}'}}]}),
        chunk({"content": " Then more."}), chunk({"reasoning": " And more thought."}),
        chunk(finish="tool_calls"), "[DONE]",
    ]))
    events, message = await run(make_model(loopback, reasoning=True), reasoning="medium")

    assert message.content == [ThinkingContent(thinking="Plan. And more thought.", thinking_signature="reasoning_content"),
                               TextContent(text="Reading. Then more."),
                               ToolCall(id="call_a", name="read", arguments={"path": "a"})]
    assert [(e.type, e.content_index) for e in events if e.type.endswith(("_start", "_end"))] == [
        ("thinking_start", 0), ("text_start", 1), ("toolcall_start", 2),
        ("thinking_end", 0), ("text_end", 1), ("toolcall_end", 2)]


async def test_usage_with_cached_tokens_and_cost(loopback):
    loopback.push(Reply.sse([chunk({"content": "ok"}), chunk(finish="stop"),
                             usage_chunk(prompt=1000, completion=300, cached=400, reasoning=120), "[DONE]"]))
    model = make_model(loopback)
    _, message = await run(model)

    usage = message.usage
    assert (usage.input, usage.cache_read, usage.output, usage.cache_write) == (600, 400, 300, 0)
    assert usage.total_tokens == 1300
    assert usage.to_wire()["reasoning"] == 120
    assert usage.cost.input == pytest.approx(600 * 2.0 / 1e6)
    assert usage.cost.cache_read == pytest.approx(400 * 0.5 / 1e6)
    assert usage.cost.output == pytest.approx(300 * 8.0 / 1e6)
    assert usage.cost.total == pytest.approx((600 * 2.0 + 400 * 0.5 + 300 * 8.0) / 1e6)
    assert loopback.requests[0].json()["stream_options"] == {"include_usage": True}


async def test_cache_write_tokens_leave_input(loopback):
    usage = usage_chunk(prompt=1000, completion=10, cached=100)
    usage["usage"]["prompt_tokens_details"]["cache_write_tokens"] = 300
    loopback.push(Reply.sse([chunk({"content": "ok"}, finish="stop"), usage, "[DONE]"]))
    _, message = await run(make_model(loopback))
    assert (message.usage.input, message.usage.cache_read, message.usage.cache_write) == (600, 100, 300)
    assert message.usage.cost.cache_write == pytest.approx(300 * 2.5 / 1e6)


@pytest.mark.parametrize(("finish", "stop", "error"), [
    ("length", "length", None),
    ("content_filter", "error", "content filter"),
    ("weird_reason", "error", "weird_reason"),
])
async def test_finish_reason_mapping(loopback, finish, stop, error):
    loopback.push(Reply.sse([chunk({"content": "partial"}), chunk(finish=finish), "[DONE]"]))
    events, message = await run(make_model(loopback))
    assert message.stop_reason == stop
    assert message.text() == "partial"
    if error:
        assert error in message.error_message
        assert events[-1].type == "error"
    else:
        assert events[-1].type == "done" and events[-1].reason == "length"


async def test_stream_without_finish_reason_or_done_is_an_error(loopback):
    loopback.push(Reply.sse([chunk({"content": "cut"})]))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert "finish reason" in message.error_message
    assert message.text() == "cut"


async def test_finish_inferred_when_server_sends_no_finish_reason(loopback):
    loopback.push(Reply.sse([chunk({"content": "fine"})]))
    model = make_model(loopback, compat={"supportsFinishReason": False})
    _, message = await run(model)
    assert (message.stop_reason, message.text()) == ("stop", "fine")


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize(("status", "detail"), [
    (400, "Invalid value for messages"), (401, "Incorrect API key provided"), (500, "upstream exploded"),
])
async def test_http_error_statuses(loopback, status, detail):
    loopback.push(Reply.json(status, {"error": {"message": f"{detail} (key {KEY})", "type": "x"}}))
    events, message = await run(make_model(loopback))
    assert types(events) == ["error"]  # no start: nothing was accepted (as Pi)
    assert events[-1].reason == "error"
    assert message.stop_reason == "error"
    assert message.error_message.startswith(str(status))
    assert detail in message.error_message
    assert KEY not in message.error_message
    assert message.content == []


async def test_429_surfaces_retry_after(loopback):
    loopback.push(Reply.json(429, {"error": {"message": "Rate limit reached"}}, headers={"retry-after": "7"}))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert "429" in message.error_message and "Rate limit reached" in message.error_message
    assert "retry after 7s" in message.error_message


async def test_connection_dropped_mid_stream_keeps_partial_text(loopback):
    loopback.push(Reply.sse([chunk({"content": "Hello "}), chunk({"content": "wor"})], drop=True))
    events, message = await run(make_model(loopback))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "error"]
    assert message.stop_reason == "error"
    assert message.text() == "Hello wor"
    assert "connection" in message.error_message.lower()


async def test_malformed_data_line(loopback):
    loopback.push(Reply.sse([chunk({"content": "kept"}), '{"choices": [', chunk({"content": " lost"}),
                             chunk(finish="stop"), "[DONE]"]))
    events, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert "Malformed" in message.error_message and '{"choices": [' in message.error_message
    assert message.text() == "kept"
    assert events[-1].type == "error"


async def test_error_object_inside_stream(loopback):
    loopback.push(Reply.sse([chunk({"content": "half"}),
                             {"error": {"message": "model overloaded", "code": 503}}]))
    _, message = await run(make_model(loopback))
    assert message.stop_reason == "error"
    assert "model overloaded" in message.error_message
    assert message.text() == "half"


async def test_abort_on_stalled_server(loopback):
    loopback.push(Reply.sse([chunk({"content": "waiting"})], stall=True))
    controller = AbortController()
    s = stream(make_model(loopback), Context(messages=[UserMessage(content="hi")]),
               StreamOptions(api_key=KEY, signal=controller.signal))

    async def consume() -> list[Any]:
        seen = []
        async for event in s:
            seen.append(event)
            if event.type == "text_delta":
                controller.abort()
        return seen

    events = await asyncio.wait_for(consume(), timeout=5)  # a guard against hanging, not a timing test
    message = await s.result()
    assert events[-1].type == "error" and events[-1].reason == "aborted"
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.text() == "waiting"


async def test_missing_key_names_env_var(monkeypatch, loopback):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = make_model(loopback, base_url="https://api.openai.com/v1")
    s = stream(model, Context(messages=[UserMessage(content="hi")]), StreamOptions())
    events = [e async for e in s]
    message = await s.result()
    assert types(events) == ["error"]  # no start: nothing was accepted (as Pi)
    assert "OPENAI_API_KEY" in message.error_message
    assert loopback.requests == []


async def test_env_key_is_used(monkeypatch, loopback):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-xyz")
    loopback.push(Reply.sse([chunk({"content": "k"}, finish="stop"), "[DONE]"]))
    model = make_model(loopback)
    s = stream(model, Context(messages=[UserMessage(content="hi")]), StreamOptions())
    message = await s.result()
    assert message.stop_reason == "stop"
    assert loopback.requests[0].headers["authorization"] == "Bearer sk-from-env-xyz"


async def test_local_server_needs_no_key(monkeypatch, loopback):
    loopback.push(Reply.sse([chunk({"content": "local"}, finish="stop"), "[DONE]"]))
    model = make_model(loopback, provider="ollama")
    s = stream(model, Context(messages=[UserMessage(content="hi")]), StreamOptions())
    message = await s.result()
    assert (message.stop_reason, message.text()) == ("stop", "local")
    assert "authorization" not in loopback.requests[0].headers


# --------------------------------------------------------------------------- request body

PNG = "iVBORw0KGgo="
READ_TOOL = Tool(name="read", description="Read a file",
                 parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def history(model: Model) -> Context:
    """A conversation with thinking, a tool call, a tool result with an image, and a follow-up."""
    assistant = AssistantMessage(
        api=model.api, provider=model.provider, model=model.id, stop_reason="toolUse",
        content=[ThinkingContent(thinking="Need the file.", thinking_signature="reasoning_content"),
                 TextContent(text="Let me look."),
                 ToolCall(id="call_1", name="read", arguments={"path": "a.png"})],
    )
    return Context(
        system_prompt="You are terse.",
        tools=[READ_TOOL],
        messages=[
            UserMessage(content=[TextContent(text="What is in a.png?"), ImageContent(data=PNG, mime_type="image/png")]),
            assistant,
            ToolResultMessage(tool_call_id="call_1", tool_name="read",
                              content=[TextContent(text="Read image"), ImageContent(data=PNG, mime_type="image/png")]),
            UserMessage(content="And?"),
        ],
    )


async def body_for(loopback, model: Model, context: Context | None = None, **options: Any) -> dict[str, Any]:
    loopback.push(Reply.sse([chunk({"content": "ok"}, finish="stop"), "[DONE]"]))
    _, message = await run(model, context, **options)
    assert message.stop_reason == "stop", message.error_message
    return loopback.requests[-1].json()


async def test_request_body_field_by_field(loopback):
    model = make_model(loopback, reasoning=True, input=["text", "image"], base_url=loopback.url + "/v1")
    body = await body_for(loopback, model, history(model), reasoning="high", max_tokens=1234, temperature=0.2)

    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    assert body["model"] == "gpt-test"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 1234
    assert "max_tokens" not in body
    assert body["temperature"] == 0.2
    assert body["reasoning_effort"] == "high"
    assert body["store"] is False  # Pi: every server but the ones it knows to refuse it
    assert body["tools"] == [{"type": "function", "function": {
        "name": "read", "description": "Read a file", "parameters": READ_TOOL.parameters}}]
    assert body["messages"] == [
        {"role": "developer", "content": "You are terse."},  # provider openai: OpenAI's developer role
        {"role": "user", "content": [{"type": "text", "text": "What is in a.png?"}, image]},
        {"role": "assistant", "content": "Let me look.", "reasoning_content": "Need the file.",
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "read", "arguments": '{"path":"a.png"}'}}]},
        {"role": "tool", "content": "Read image", "tool_call_id": "call_1"},
        {"role": "user", "content": [{"type": "text", "text": "Attached image(s) from tool result:"}, image]},
        {"role": "user", "content": "And?"},
    ]


async def test_openai_defaults_and_session_cache_key(loopback, monkeypatch):
    # api.openai.com behaviour, pointed at the loopback server through a models.json-style compat.
    model = make_model(loopback, reasoning=True, compat={
        "supportsDeveloperRole": True, "supportsStore": True, "promptCacheKeyMode": "enabled"})
    body = await body_for(loopback, model, Context(system_prompt="S", messages=[UserMessage(content="q")]),
                          session_id="sess-1")
    assert body["messages"][0] == {"role": "developer", "content": "S"}
    assert body["store"] is False
    assert body["prompt_cache_key"] == "sess-1"
    assert "reasoning_effort" not in body  # thinking off: nothing sent in the openai format


async def test_compat_switches_shape_messages(loopback):
    model = make_model(loopback, reasoning=True, input=["text"], compat={
        "supportsDeveloperRole": False, "maxTokensField": "max_tokens", "requiresToolResultName": True,
        "requiresAssistantAfterToolResult": True, "requiresThinkingAsText": True,
        "supportsUsageInStreaming": False, "requiresNonNullAssistantContent": True,
    })
    context = history(model)
    context.messages[1].content = [c for c in context.messages[1].content if not isinstance(c, TextContent)]
    body = await body_for(loopback, model, context, max_tokens=99)

    assert body["max_tokens"] == 99 and "max_completion_tokens" not in body
    assert "stream_options" not in body
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        # no image input: Pi's placeholder stands in for it
        {"role": "user", "content": [{"type": "text", "text": "What is in a.png?"},
                                     {"type": "text", "text": "(image omitted: model does not support images)"}]},
        # thinking as plain text (no tags, so the model does not learn to write them), then the answer's text
        {"role": "assistant", "content": [{"type": "text", "text": "Need the file."}],
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "read", "arguments": '{"path":"a.png"}'}}]},
        {"role": "tool", "content": "Read image\n(tool image omitted: model does not support images)",
         "tool_call_id": "call_1", "name": "read"},
        {"role": "assistant", "content": "I have processed the tool results."},
        {"role": "user", "content": "And?"},
    ]


async def test_tool_call_only_assistant_content_is_null_by_default(loopback):
    model = make_model(loopback)
    context = Context(messages=[
        UserMessage(content="go"),
        AssistantMessage(api=model.api, provider=model.provider, model=model.id, stop_reason="toolUse",
                         content=[ToolCall(id="c1", name="read", arguments={"path": "x"})]),
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="data")]),
    ])
    body = await body_for(loopback, model, context)
    assert body["messages"][1]["content"] is None
    assert "tools" not in body
    body = await body_for(loopback, make_model(loopback, compat={"requiresToolsWithToolHistory": True}), context)
    assert body["tools"] == []


async def test_history_from_another_model_drops_replay_fields(loopback):
    model = make_model(loopback, reasoning=True)
    other = AssistantMessage(api="anthropic-messages", provider="anthropic", model="claude", stop_reason="stop",
                             content=[ThinkingContent(thinking="hmm", thinking_signature="sig"),
                                      TextContent(text="hello")])
    body = await body_for(loopback, model, Context(messages=[UserMessage(content="a"), other,
                                                             UserMessage(content="b")]))
    assistant = body["messages"][1]
    assert assistant["role"] == "assistant"
    assert "reasoning_content" not in assistant
    assert "hello" in assistant["content"]


@pytest.mark.parametrize(("fmt", "level", "expected"), [
    ("openrouter", "low", {"reasoning": {"effort": "low"}}),
    ("openrouter", "off", {"reasoning": {"effort": "none"}}),
    ("deepseek", "high", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
    ("zai", "off", {"thinking": {"type": "disabled"}}),
    ("together", "medium", {"reasoning": {"enabled": True}, "reasoning_effort": "medium"}),
    ("qwen", "low", {"enable_thinking": True, "reasoning_effort": "low"}),
    ("qwen", "off", {"enable_thinking": False}),
    ("qwen-chat-template", "high", {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}}),
    ("string-thinking", "minimal", {"thinking": "minimal"}),
    ("ant-ling", "off", {}),
])
async def test_thinking_formats(loopback, fmt, level, expected):
    model = make_model(loopback, reasoning=True, compat={"thinkingFormat": fmt})
    body = await body_for(loopback, model, reasoning=level)
    keys = {"reasoning", "reasoning_effort", "thinking", "enable_thinking", "chat_template_kwargs"}
    assert {k: v for k, v in body.items() if k in keys} == expected


async def test_chat_template_kwargs_vars_and_budget_field(loopback):
    model = make_model(loopback, reasoning=True, compat={
        "thinkingFormat": "chat-template", "thinkingTokenBudgetField": "thinking_budget_tokens",
        "chatTemplateKwargs": {"thinking": {"$var": "thinking.enabled"}, "effort": {"$var": "thinking.effort"},
                               "budget": {"$var": "thinking.budget", "omitWhenOff": True}, "fixed": 1}})
    body = await body_for(loopback, model, reasoning="medium")
    # The budget leaves 1,024 tokens of the 4,096 output limit for the answer.
    assert body["chat_template_kwargs"] == {"thinking": True, "effort": "medium", "budget": 3072, "fixed": 1}
    assert body["thinking_budget_tokens"] == 3072
    body = await body_for(loopback, model, reasoning="off")
    assert body["chat_template_kwargs"] == {"thinking": False, "fixed": 1}
    assert "thinking_budget_tokens" not in body


async def test_level_clamping_and_sampling_params(loopback):
    model = make_model(loopback, reasoning=True, thinkingLevelMap={"high": None, "minimal": "low"},
                       samplingParams={"top_p": 0.9, "temperature": 1.0},
                       samplingParamsByThinkingLevel={"medium": {"top_k": 20}})
    body = await body_for(loopback, model, reasoning="xhigh")
    assert body["reasoning_effort"] == "medium"  # xhigh unsupported by default, high mapped to null
    assert (body["top_p"], body["temperature"], body["top_k"]) == (0.9, 1.0, 20)
    body = await body_for(loopback, model, reasoning="minimal")
    assert body["reasoning_effort"] == "low"
    assert "top_k" not in body
    plain = await body_for(loopback, make_model(loopback), reasoning="high")
    assert "reasoning_effort" not in plain  # a model without reasoning gets no reasoning params


async def test_headers_and_session_affinity(loopback):
    model = make_model(loopback, headers={"x-model": "m", "x-both": "model"},
                       compat={"sendSessionAffinityHeaders": True, "sessionAffinityFormat": "openrouter"})
    await body_for(loopback, model, session_id="s-9", headers={"x-both": "request"})
    headers = loopback.requests[-1].headers
    assert (headers["x-model"], headers["x-both"], headers["x-session-id"]) == ("m", "request", "s-9")
