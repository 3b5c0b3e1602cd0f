"""Provider hooks against a real HTTP server, provider (un)registration, refresh_models and StreamWriter."""

from __future__ import annotations

import pytest

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.testing.loopback import LoopbackServer, Reply

from .conftest import errors, module_of


def chunk(content=None, finish=None):
    return {"id": "c1", "choices": [{"index": 0, "delta": {"content": content} if content else {},
                                     "finish_reason": finish}]}


def answer(text: str) -> Reply:
    return Reply.sse([chunk(text), chunk(finish="stop"), "[DONE]"])


@pytest.fixture
def server():
    with LoopbackServer() as srv:
        yield srv


HOOKS = """
    seen = {{"payloads": [], "responses": [], "events": [], "headers": []}}

    def extension(pi):
        pi.register_provider("hooked", api="openai-completions", base_url="{url}/v1", api_key="k",
                             models=[{{"id": "m1"}}])

        def headers(event, ctx):
            seen["headers"].append(dict(event.headers))
            event.headers["x-session-id"] = "abc"
            event.headers["authorization"] = None  # removed
            event.headers["authorization"] = "Bearer replaced"

        def first(event, ctx):
            seen["payloads"].append(event.payload)
            return {{**event.payload, "temperature": 0}}

        def second(event, ctx):
            assert event.payload["temperature"] == 0  # chained
            event.payload["metadata"] = {{"by": "second"}}  # in place counts too

        def broken(event, ctx):
            raise ValueError("payload hook broke")

        pi.on("before_provider_headers", headers)
        pi.on("before_provider_request", first)
        pi.on("before_provider_request", broken)
        pi.on("before_provider_request", second)
        pi.on("after_provider_response", lambda e, ctx: seen["responses"].append((e.status, e.headers.get("content-type"))))
        pi.on("provider_stream_event", lambda e, ctx: seen["events"].append((e.provider, e.model, e.data)))
"""


async def test_provider_hooks_see_and_change_the_request(make_session, write_ext, server):
    path = write_ext("hooks", HOOKS.format(url=server.url))
    session = make_session(extensions=[path])
    await session.set_model(session.model_registry.find("hooked", "m1"))
    server.push(answer("hello"), Reply.json(429, {"error": {"message": "slow down"}}))
    await session.prompt("hi")
    assert session.get_last_assistant_text() == "hello"
    sent = server.requests[0]
    body = sent.json()
    assert body["temperature"] == 0 and body["metadata"] == {"by": "second"}
    assert sent.headers["x-session-id"] == "abc" and sent.headers["authorization"] == "Bearer replaced"
    seen = module_of(path).seen
    assert seen["payloads"][0]["model"] == "m1" and "temperature" not in seen["payloads"][0]
    assert seen["responses"] == [(200, "text/event-stream")]
    datas = [data for _, _, data in seen["events"]]
    assert datas[0]["data"]["choices"][0]["delta"]["content"] == "hello" and datas[-1]["data"] == "[DONE]"
    assert {(p, m) for p, m, _ in seen["events"]} == {("hooked", "m1")}
    assert [e["event"] for e in errors(session)] == ["before_provider_request"]
    await session.prompt("again")
    assert seen["responses"][-1][0] == 429


async def test_unregister_provider_restores_what_it_replaced(make_session, write_ext, server):
    path = write_ext("proxy", f"""
        def extension(pi):
            pi.register_provider("anthropic", base_url="{server.url}")  # re-point a built-in provider
            pi.register_provider("my-proxy", api="openai-completions", base_url="{server.url}/v1",
                                 models=[{{"id": "p1"}}])
            async def teardown(args, ctx):
                pi.unregister_provider("my-proxy")
                pi.unregister_provider("anthropic")
                pi.unregister_provider("never-registered")
            pi.register_command("teardown", teardown)
    """)
    session = make_session(extensions=[path])
    registry = session.model_registry
    sonnet = next(m for m in registry.all() if m.provider == "anthropic")
    assert sonnet.base_url == server.url and registry.find("my-proxy", "p1") is not None
    await session.prompt("/teardown")
    assert registry.find("my-proxy", "p1") is None
    assert registry.find("anthropic", sonnet.id).base_url == "https://api.anthropic.com"


async def test_refresh_models_publishes_and_keeps_models_when_it_fails(make_session, write_ext):
    path = write_ext("dynamic", """
        from pi_runtime.extensions import text_stream
        state = {"ids": ["a1"], "fail": False}
        def extension(pi):
            async def discover(context):
                if state["fail"]:
                    raise ConnectionError("catalogue unreachable")
                return [{"id": i} for i in state["ids"]]
            pi.register_provider("dyn", stream=text_stream(lambda m, c, o: m.id), refresh_models=discover)
            async def refresh(args, ctx):
                await pi.refresh_models("dyn")
            pi.register_command("refresh", refresh)
    """)
    session = make_session(extensions=[path])
    await session.extension_runner.start()  # start-up refresh
    registry = session.model_registry
    assert [m.id for m in registry.all() if m.provider == "dyn"] == ["a1"]
    module_of(path).state["ids"] = ["b1", "b2"]
    await session.prompt("/refresh")
    assert [m.id for m in registry.all() if m.provider == "dyn"] == ["b1", "b2"]
    module_of(path).state["fail"] = True
    await session.prompt("/refresh")
    assert [m.id for m in registry.all() if m.provider == "dyn"] == ["b1", "b2"]
    assert [e["event"] for e in errors(session)] == ["refresh_models"]


async def test_stream_writer_builds_text_thinking_and_tool_calls(make_session, write_ext, workdir):
    (workdir / "notes.txt").write_text("remember the milk")
    path = write_ext("writer", """
        from pi_runtime.extensions import StreamWriter

        async def stream(model, context, options):
            out = StreamWriter(model)
            if context.messages[-1].role == "toolResult":
                for event in out.text("The file says: ") + out.text(context.messages[-1].content[0].text):
                    yield event
                out.usage(input=10, output=5)
                for event in out.done():
                    yield event
                return
            for event in out.thinking("I should read it") + out.text("Reading.") + \\
                    out.tool_call("t1", "read", {"path": "notes.txt"}) + out.done():
                yield event

        def extension(pi):
            pi.register_provider("writer", models=[{"id": "w1"}], stream=stream)
    """)
    session = make_session(extensions=[path], tools="read")
    await session.set_model(session.model_registry.find("writer", "w1"))
    await session.prompt("read my notes")
    assert session.get_last_assistant_text() == "The file says: remember the milk"
    first = [m for m in session.messages if m.role == "assistant"][0]
    assert [b.type for b in first.content] == ["thinking", "text", "toolCall"] and first.stop_reason == "toolUse"
    assert session.messages[-1].usage.input == 10


async def test_scripted_provider_has_no_http_stages(make_session, write_ext):
    # Provider hooks run only where the transport has them (as Pi): an in-process provider never calls them.
    path = write_ext("nohttp", """
        calls = []
        def extension(pi):
            pi.on("before_provider_request", lambda e, ctx: calls.append(e))
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("ok"))
    await session.prompt("hi")
    assert module_of(path).calls == [] and errors(session) == []
