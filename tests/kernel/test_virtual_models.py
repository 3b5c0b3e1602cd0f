"""Virtual models in the kernel: routing each request, recording selection and dispatch, limits, cost.

Two scripted providers stand for the physical models (``cheap/small``, a small window, and
``strong/big``), so what each one was asked is on its own ``requests``. The routers are inline
extensions registered the way ``pi.register_virtual_model`` registers them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_runtime.ai.models import ModelRegistry
from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_error, scripted_text, scripted_tool_call
from pi_runtime.ai.types import ModelCost
from pi_runtime.extensions import ExtensionRunner
from pi_runtime.kernel.events import CompactionEndEvent, CompactionStartEvent
from pi_runtime.sdk import create_agent_session
from pi_runtime.session.manager import SessionManager
from pi_runtime.settings import SettingsManager
from pi_runtime.testing.waiting import eventually

STATE = "pi.virtual-model-state"


class World:
    """Two physical models on two scripted providers, a registry and a place for sessions."""

    def __init__(self, tmp_path: Any, name: str) -> None:
        self.tmp = tmp_path
        self.cheap = ScriptedProvider(f"cheap-{name}")
        self.strong = ScriptedProvider(f"strong-{name}")
        self.small = self.cheap.model("small", context_window=8_000, max_tokens=1_000,
                                      cost=ModelCost(input=1.0, output=2.0))
        self.big = self.strong.model("big", context_window=200_000, max_tokens=4_000,
                                     cost=ModelCost(input=3.0, output=15.0))
        self.registry = ModelRegistry(read_models_json=False)
        self.registry.add_model(self.small)
        self.registry.add_model(self.big)
        self.seen: list[Any] = []
        """Every request a router was asked, in order."""
        self.runner: ExtensionRunner | None = None

    def router(self, route: Any, **fields: Any) -> ExtensionRunner:
        """An extension registering ``router/auto`` with ``route`` (and ``fields``)."""
        runner = ExtensionRunner(cwd=str(self.tmp), model_registry=self.registry)

        def seen(request: Any, ctx: Any) -> Any:
            self.seen.append(request)
            return route(request, ctx)

        def extension(pi: Any) -> None:
            pi.register_virtual_model(provider="router", id="auto", name="Auto", route=seen,
                                      **{"thinking_levels": ["low", "high"], **fields})

        runner.add_extension(extension, "<router>")
        self.runner = runner
        return runner

    def session(self, *, model: Any = None, thinking: str | None = "high", settings: dict[str, Any] | None = None,
                manager: Any = None, runner: Any = None) -> Any:
        base = {"retry": {"enabled": False}, "compaction": {"enabled": False}}
        base.update(settings or {})
        manager = manager or SessionManager.create(str(self.tmp), self.tmp / "sessions")
        return create_agent_session(
            cwd=str(self.tmp), agent_dir=str(self.tmp), model=model or self.registry.find("router", "auto"),
            thinking_level=thinking, model_registry=self.registry, session_manager=manager,
            settings=SettingsManager.in_memory(base), extension_runner=runner or self.runner,
        )


def by_level(world: World) -> Any:
    """Pi's documented example: follow-ups and retries stick, ``high`` goes big, else small."""
    def route(request: Any, ctx: Any) -> Any:
        sticky = request.failed or request.previous
        if request.reason != "user" and sticky is not None:
            return {"model": sticky.model, "thinking_level": sticky.thinking_level or "medium"}
        target = world.big if request.thinking_level == "high" else world.small
        turns = (request.state or {}).get("turns", 0) + 1
        return {"model": target, "thinking_level": "medium", "state": {"turns": turns}}
    return route


@pytest.fixture
def world(tmp_path, request):
    return World(tmp_path, request.node.name)


def entries(session: Any) -> list[dict[str, Any]]:
    return [e for e in session.session_manager.raw_entries() if (e.get("message") or {}).get("role") != "system"]


def dispatch(session: Any) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for entry in entries(session):
        message = entry.get("message") or {}
        if entry["type"] == "model_change":
            out.append(("model_change", entry["provider"], entry["modelId"]))
        elif entry["type"] == "custom":
            out.append(("state", json.dumps(entry["data"]["state"])))
        elif message.get("role") == "assistant":
            out.append((message["provider"], message["model"], message["api"], message.get("thinkingLevel"),
                        message["stopReason"]))
    return out


async def test_each_request_is_routed_and_recorded_as_pi(world):
    world.router(by_level(world))
    session = world.session()
    world.strong.push(scripted_tool_call("bash", {"command": "echo hi"}), scripted_text("done"))
    await session.prompt("run it")
    assert [r.reason for r in world.seen] == ["user", "continuation"]
    assert world.seen[0].previous is None and world.seen[1].previous.model.ref == world.big.ref
    assert world.seen[0].thinking_level == "high" and world.seen[0].state is None
    assert world.seen[1].state == {"turns": 1}
    roles = [getattr(m, "role", None) for m in world.seen[0].messages]
    assert roles == ["system", "user"]  # the conversation for the request, system message included
    # The provider only ever saw the physical model, with the routed level.
    assert [options.reasoning for _, options in world.strong.requests] == ["medium", "medium"]
    assert world.cheap.requests == []
    big = world.big
    assert dispatch(session) == [
        ("model_change", "router", "auto"),
        ("state", '{"turns": 1}'),  # stored before the request was sent
        (big.provider, "big", "scripted", "medium", "toolUse"),
        (big.provider, "big", "scripted", "medium", "stop"),
    ]
    # The selection is still the virtual model; the footer's routed model is the one that answered.
    assert session.model.ref == "router/auto" and session.thinking_level == "high"
    assert session.routed_model.model.ref == big.ref and session.routed_model.thinking_level == "medium"

    await session.set_thinking_level("low")
    world.cheap.push(scripted_text("small answer"))
    await session.prompt("quick one")
    assert world.seen[-1].reason == "user" and world.seen[-1].state == {"turns": 1}
    assert dispatch(session)[-2:] == [("state", '{"turns": 2}'),
                                      (world.small.provider, "small", "scripted", "medium", "stop")]
    assert session.routed_model.model.ref == world.small.ref


async def test_state_is_stored_when_a_new_object_comes_back_and_follows_the_tree(world):
    def route(request: Any, ctx: Any) -> Any:
        if request.reason == "user" and request.state is None:
            return {"model": world.big, "thinking_level": "low", "state": {"phase": "plan"}}
        return {"model": world.big, "thinking_level": "low", "state": request.state}  # kept: nothing stored

    world.router(route)
    session = world.session()
    world.strong.push(scripted_text("one"), scripted_text("two"))
    await session.prompt("first")
    first_user = next(e["id"] for e in entries(session) if (e.get("message") or {}).get("role") == "user")
    await session.prompt("second")
    assert [d for d in dispatch(session) if d[0] == "state"] == [("state", '{"phase": "plan"}')]
    assert world.seen[-1].state == {"phase": "plan"}
    # Back before the state entry (a fork of the first prompt): the router starts without state.
    await session.navigate_tree(first_user)
    world.strong.push(scripted_text("again"))
    await session.prompt("first, differently")
    assert world.seen[-1].state is None


async def test_a_retry_is_routed_with_the_failed_request(world):
    def route(request: Any, ctx: Any) -> Any:
        if request.reason == "retry":
            # The overloaded model failed: switch.
            assert request.failed.model.ref == world.big.ref and "503" in request.failed.message.error_message
            return {"model": world.small, "thinking_level": "low"}
        return {"model": world.big, "thinking_level": "high"}

    world.router(route)
    session = world.session(settings={"retry": {"enabled": True, "baseDelayMs": 1, "maxRetries": 2}})
    world.strong.push(scripted_error("503 service unavailable: overloaded"))
    world.cheap.push(scripted_text("recovered"))
    await session.prompt("go")
    assert [r.reason for r in world.seen] == ["user", "retry"]
    assert dispatch(session)[-2:] == [(world.big.provider, "big", "scripted", "high", "error"),
                                      (world.small.provider, "small", "scripted", "low", "stop")]
    assert session.get_last_assistant_text() == "recovered"


@pytest.mark.parametrize("answer,error", [
    (RuntimeError("router exploded"), "router exploded"),
    ({"model": "cheap/nope", "thinking_level": "low"},
     "Virtual model router/auto routed to cheap/nope, which is not a physical model."),
    ({"model": None}, "Virtual model router/auto returned no model."),
    ({"model": "router/auto"}, "Virtual model router/auto routed to router/auto, which is not a physical model."),
    ({"model": "anthropic/claude-sonnet-4-5", "thinking_level": "low"},
     "Virtual model router/auto routed to anthropic/claude-sonnet-4-5, which has no credentials."),
])
async def test_a_failing_router_ends_the_request_with_one_line_and_loses_nothing(world, monkeypatch, answer, error):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    registry = ModelRegistry(auth=None, env={})  # the built-in catalogue, no credentials at all
    registry.add_model(world.small)
    registry.add_model(world.big)
    world.registry = registry
    broken = [True]

    def route(request: Any, ctx: Any) -> Any:
        if not broken[0]:
            return {"model": world.small, "thinking_level": "low"}
        if isinstance(answer, Exception):
            raise answer
        return answer

    world.router(route)
    session = world.session()
    await session.prompt("hello")
    last = session.messages[-1]
    assert (last.role, last.stop_reason, last.error_message) == ("assistant", "error", error)
    assert (last.api, last.provider, last.model) == ("pi-virtual", "router", "auto")
    assert [c.to_wire() for c in last.content] == [{"type": "text", "text": ""}]
    assert world.cheap.requests == world.strong.requests == []
    # Nothing lost: the prompt is in the file, and the session goes on once the router works.
    assert [e["message"]["role"] for e in entries(session) if e["type"] == "message"] == ["user", "assistant"]
    broken[0] = False
    world.cheap.push(scripted_text("fine now"))
    await session.prompt("again")
    assert session.get_last_assistant_text() == "fine now"


async def test_unregistering_the_selected_virtual_model_keeps_the_selection_and_says_so(world):
    world.router(by_level(world))
    session = world.session()
    world.strong.push(scripted_text("routed"))
    await session.prompt("one")
    api = session.extension_runner.extensions[0]
    assert api.path == "<router>"
    world.runner.providers.virtual.unregister("router", "auto")
    assert world.registry.find("router", "auto") is None
    assert session.model.ref == "router/auto"  # as Pi: the selection stays
    await session.prompt("two")
    last = session.messages[-1]
    assert (last.stop_reason, last.error_message) == ("error", "Virtual model router/auto is not registered.")
    assert session.messages[-2].role == "user"


async def test_context_use_is_measured_against_the_model_that_answered(world):
    world.router(by_level(world), context_window=50_000, max_tokens=2_000)
    session = world.session(thinking="low")
    usage = session.context_usage()
    assert usage is not None and usage.context_window == 50_000  # declared, before any response
    world.cheap.push(scripted_text("small answer"))
    await session.prompt("hello")
    assert session.context_usage().context_window == 8_000
    await session.set_thinking_level("high")
    assert session.context_usage().context_window == 8_000  # still the latest response's model
    world.strong.push(scripted_text("big answer"))
    await session.prompt("think hard")
    assert session.context_usage().context_window == 200_000
    assert session.get_session_stats().context_usage.context_window == 200_000


async def test_context_use_of_a_virtual_model_without_limits_is_unknown_until_it_answers(world):
    world.router(by_level(world))
    session = world.session()
    assert session.context_usage() is None
    world.strong.push(scripted_text("big answer"))
    await session.prompt("hello")
    assert session.context_usage().context_window == 200_000


async def test_switching_to_a_virtual_model_keeps_the_limits_of_the_last_physical_answer(world):
    world.router(by_level(world), context_window=50_000)
    session = world.session(model=world.big, thinking="low")
    world.strong.push(scripted_text("physical answer"))
    await session.prompt("hello")
    await session.set_model(world.registry.find("router", "auto"))
    assert session.context_usage().context_window == 200_000
    assert session.routed_model.model.ref == world.big.ref  # what the footer shows after the arrow


async def test_a_request_routed_to_a_small_window_is_compacted_first_and_the_route_stands(world):
    levels = by_level(world)
    world.router(lambda request, ctx: {"model": world.small, "thinking_level": "low"} if request.reason == "direct"
                 else levels(request, ctx))
    session = world.session(settings={"compaction": {"enabled": True, "reserveTokens": 1_000,
                                                     "keepRecentTokens": 500}})
    events: list[Any] = []
    session.subscribe(events.append)
    long_text = "word " * 6_000  # ~7,500 tokens: over small's threshold, far under big's
    world.strong.push(scripted_text(long_text), scripted_text(long_text), scripted_text("short"))
    await session.prompt("write a lot")
    await session.prompt("more")
    await session.prompt("and a short one")
    assert not any(isinstance(e, CompactionStartEvent) for e in events)
    await session.set_thinking_level("low")  # the router now sends the next request to small
    world.cheap.responder = lambda context, options: scripted_text("small answer")  # summaries too
    await session.prompt("short question")
    assert [(type(e).__name__, e.reason) for e in events if isinstance(e, (CompactionStartEvent, CompactionEndEvent))
            ] == [("CompactionStartEvent", "threshold"), ("CompactionEndEvent", "threshold")]
    assert [r.reason for r in world.seen[-2:]] == ["user", "direct"]  # the summary was routed too
    kinds = [e["type"] for e in entries(session)]
    assert kinds.index("compaction") < len(kinds) - 1 and entries(session)[-1]["message"]["model"] == "small"
    # The answer's request came after the compaction: its context starts with the summary.
    answer_context = world.cheap.requests[-1][0]
    assert [getattr(m, "role", None) for m in answer_context.messages][0] == "user"
    assert "summary" in str(answer_context.messages[0].content[0].text).lower()
    assert session.get_last_assistant_text() == "small answer"


async def test_cost_is_listed_per_physical_model(world):
    world.router(by_level(world))
    session = world.session()
    world.strong.push(scripted_text("big answer"))
    await session.prompt("expensive")
    await session.set_thinking_level("low")
    world.cheap.push(scripted_text("small answer"))
    await session.prompt("cheap")
    stats = session.get_session_stats()
    spends = {spend.key: spend for spend in stats.cost_by_model}
    assert set(spends) == {world.big.ref, world.small.ref}
    assert spends[world.big.ref].cost > spends[world.small.ref].cost > 0
    assert abs(sum(s.cost for s in spends.values()) - stats.usage.cost) < 1e-12
    assert [s.key for s in stats.cost_by_model] == [world.big.ref, world.small.ref]  # dearest first
    wire = stats.to_wire()["costByModel"]
    assert [item["key"] for item in wire] == [world.big.ref, world.small.ref]


async def test_a_resumed_session_restores_the_virtual_selection_or_falls_back(world):
    world.router(by_level(world))
    session = world.session()
    world.strong.push(scripted_text("routed"))
    await session.prompt("hello")
    path = session.session_file
    session.session_manager.close()
    resumed = world.session(model=None, thinking=None, manager=SessionManager.open(path))
    assert resumed.model.ref == "router/auto" and resumed.thinking_level == "high"
    resumed.session_manager.close()
    # Without the router, the physical model that answered last is the selection (as Pi).
    world.registry.unregister_virtual_model("router", "auto")
    bare = create_agent_session(cwd=str(world.tmp), agent_dir=str(world.tmp), model_registry=world.registry,
                                session_manager=SessionManager.open(path),
                                settings=SettingsManager.in_memory({}))
    assert bare.model.ref == world.big.ref
    bare.session_manager.close()


async def test_a_virtual_selection_the_branch_does_not_record_is_recorded_at_the_next_prompt(world):
    world.router(by_level(world))
    session = world.session(model=world.big, thinking="low")
    world.strong.push(scripted_text("physical"))
    await session.prompt("hello")
    # Chosen without /model (as --model does on a resumed session): the branch names big.
    session.agent.state.model = world.registry.find("router", "auto")
    world.cheap.push(scripted_text("routed"))
    await session.prompt("again")
    assert [d for d in dispatch(session) if d[0] == "model_change"] == [
        ("model_change", world.big.provider, "big"), ("model_change", "router", "auto")]


async def test_a_physical_selection_after_a_virtual_one_is_recorded_while_the_router_is_registered(world):
    assert not world.registry.has_virtual_models  # (then a prompt asks nothing of the branch)
    world.router(by_level(world))
    assert world.registry.has_virtual_models
    session = world.session(thinking="low")
    world.cheap.push(scripted_text("routed"))
    await session.prompt("hello")
    # Chosen without /model (as --model does on a resumed session): the branch records router/auto.
    session.agent.state.model = world.big
    world.strong.push(scripted_text("physical"))
    await session.prompt("again")
    assert [d for d in dispatch(session) if d[0] == "model_change"] == [
        ("model_change", "router", "auto"), ("model_change", world.big.provider, "big")]
    world.registry.unregister_virtual_model("router", "auto")
    assert not world.registry.has_virtual_models


async def test_the_routed_level_is_clamped_to_the_physical_model(world):
    plain = world.cheap.model("plain", reasoning=False)
    world.registry.add_model(plain)
    world.router(lambda request, ctx: {"model": plain, "thinking_level": "xhigh"})
    session = world.session()
    world.cheap.push(scripted_text("ok"))
    await session.prompt("hello")
    assert session.messages[-1].thinking_level == "off" and world.cheap.requests[-1][1].reasoning is None


async def test_registration_rules(world, tmp_path):
    runner = ExtensionRunner(cwd=str(tmp_path), model_registry=world.registry)
    made: dict[str, Any] = {}

    def extension(pi: Any) -> None:
        route = lambda request, ctx: {"model": world.small}
        made["clash"] = pi.register_virtual_model(provider=world.cheap.name, id="small", name="x", route=route)
        made["beside"] = pi.register_virtual_model(provider=world.cheap.name, id="auto", name="Beside", route=route)
        made["odd"] = pi.register_virtual_model(provider="router", id="odd", name="Odd", route=route, colour="red")
        made["first"] = pi.register_virtual_model(provider="router", id="auto", name="First", route=route)
        made["second"] = pi.register_virtual_model(provider="router", id="auto", name="Second", route=route,
                                                   thinking_levels=["off", "high"])
        pi.register_provider("router", models=[{"id": "phys", "api": "scripted", "baseUrl": "http://x.localhost"}])
        pi.unregister_provider("router")

    runner.add_extension(extension, "<rules>")
    assert runner.failures == []  # refused registrations do not cost the extension
    assert made["clash"] is None and made["odd"] is None
    world.session(model=world.big, runner=runner)
    await runner.start()  # reports what went wrong while loading, as extension_error events
    assert await eventually(lambda: len(runner.errors) == 2)
    assert [(path, event, error) for path, event, error in runner.errors] == [
        ("<rules>", "register_virtual_model",
         f"Virtual model {world.cheap.name}/small conflicts with a physical model."),
        ("<rules>", "register_virtual_model", "register_virtual_model: unknown field(s) colour"),
    ]
    # Re-registering replaced it; unregister_provider left it.
    model = world.registry.find("router", "auto")
    assert model.name == "Second" and model.reasoning and model.api == "pi-virtual"
    assert model.thinking_level_map["high"] == "high" and model.thinking_level_map["low"] is None
    # Listed beside the provider's physical models; scripted providers need no credentials.
    assert [m.id for m in world.registry.models_of(world.cheap.name)] == ["small", "auto"]
    available = {m.ref for m in world.registry.available()}
    assert {"router/auto", f"{world.cheap.name}/auto"} <= available
    assert world.registry.lookup("router/auto") is model


async def test_a_virtual_model_under_a_provider_without_credentials_is_not_offered(world):
    registry = ModelRegistry(read_models_json=False, env={})
    runner = ExtensionRunner(cwd=str(world.tmp), model_registry=registry)
    runner.add_extension(lambda pi: pi.register_virtual_model(
        provider="openai-codex", id="auto", name="Codex auto", route=lambda r, c: None), "<codex>")
    model = registry.find("openai-codex", "auto")
    assert model is not None and not registry.has_credentials(model)
    assert "openai-codex/auto" not in {m.ref for m in registry.available()}
    registry.set_runtime_api_key("openai-codex", "token")
    assert "openai-codex/auto" in {m.ref for m in registry.available()}


async def test_a_model_call_of_an_extension_with_a_virtual_model_is_routed_direct(world):
    world.router(lambda request, ctx: {"model": world.small, "thinking_level": "high"})
    session = world.session()
    registry = session.extension_runner.context(None).model_registry
    world.cheap.push(scripted_text("direct answer"))
    message = await registry.complete(session.model, {"messages": [{"role": "user", "content": "hi",
                                                                    "timestamp": 1}]}, {"maxTokens": 50_000})
    assert message.model == "small" and message.text() == "direct answer"
    assert world.seen[-1].reason == "direct"
    options = world.cheap.requests[-1][1]
    assert options.max_tokens == 1_000 and options.reasoning == "high"  # capped to the routed model


async def test_commands_see_the_selection_in_pis_variables(world):
    world.router(by_level(world))
    session = world.session()
    world.strong.push(scripted_tool_call("bash", {"command": 'echo "$PI_PROVIDER/$PI_MODEL $PI_REASONING_LEVEL"'}),
                      scripted_text("done"))
    await session.prompt("which model?")
    result = next(m for m in session.messages if getattr(m, "role", None) == "toolResult")
    assert result.content[0].text.strip() == "router/auto high"  # the selection, as Pi sets them
