"""Virtual models in the app: the routed model in the footer (Pi's ``auto • high → big • medium``),
the virtual model in /model and Ctrl+P like any other, and /session's cost per physical model."""

from __future__ import annotations

from typing import Any

import pytest

from pi_runtime.ai.models import ModelRegistry
from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text
from pi_runtime.ai.types import ModelCost
from pi_runtime.extensions import ExtensionRunner
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.dialogs.model_picker import ModelPicker
from pi_tui.launch import create_app

from .conftest import screen_text, settle, started, wait_for
from .test_commands_models import type_command


@pytest.fixture
def routed(workdir, agent_dir, request):
    """A session whose models are ``strong/big`` and ``cheap/small``, with ``router/auto`` registered
    (``high`` goes big, anything else small) and selected at ``high``."""
    name = request.node.name
    strong, cheap = ScriptedProvider(f"strong-{name}"), ScriptedProvider(f"cheap-{name}")
    big = strong.model("big", cost=ModelCost(input=3.0, output=15.0))
    small = cheap.model("small", context_window=8_000, cost=ModelCost(input=1.0, output=2.0))
    registry = ModelRegistry(read_models_json=False, env={})
    registry.add_model(big)
    registry.add_model(small)
    runner = ExtensionRunner(cwd=str(workdir), model_registry=registry)

    def route(request: Any, ctx: Any) -> Any:
        return {"model": big if request.thinking_level == "high" else small, "thinking_level": "medium"}

    runner.add_extension(lambda pi: pi.register_virtual_model(
        provider="router", id="auto", name="Auto", thinking_levels=["low", "high"], route=route), "<router>")
    session = create_agent_session(
        cwd=str(workdir), agent_dir=str(agent_dir), model=registry.find("router", "auto"), thinking_level="high",
        model_registry=registry, session_manager=SessionManager.in_memory(str(workdir)),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}}), extension_runner=runner)
    return session, strong, cheap


def footer(app: Any) -> str:
    return str(app.footer_bar.render())


async def test_the_footer_shows_where_the_latest_response_went(routed, agent_dir):
    session, strong, cheap = routed
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        assert "auto • high" in footer(app) and "→" not in footer(app)  # nothing routed yet
        strong.push(scripted_text("from big"))
        await type_command(pilot, "hello")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "auto • high → big • medium" in footer(app))
        await session.set_thinking_level("low")
        cheap.push(scripted_text("from small"))
        await type_command(pilot, "again")
        await settle(pilot, session)
        assert await wait_for(pilot, lambda: "auto • low → small • medium" in footer(app))
        # The context figure is against the window of the model that answered.
        assert "/8.0k" in footer(app)
        await type_command(pilot, "/session")
        await settle(pilot, session)
        text = screen_text(app)
        assert f"{strong.name}/big: $" in text and f"{cheap.name}/small: $" in text


async def test_model_picker_and_ctrl_p_offer_the_virtual_model(routed, agent_dir):
    session, strong, _cheap = routed
    big = session.model_registry.find(strong.name, "big")
    await session.set_model(big)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 30)) as pilot:
        await started(pilot)
        await pilot.press("ctrl+l")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        await pilot.press(*"router")
        await pilot.pause()
        picker = app.screen
        assert [item.value.ref for item in picker.shown if item is not None] == ["router/auto"]
        row = " ".join(screen_text(app).split())
        assert "auto ? ctx routed thinking Auto" in row  # no limits or price of its own
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: session.model.ref == "router/auto")
        assert await wait_for(pilot, lambda: "auto • " in footer(app))
        await pilot.press("ctrl+p")  # cycles through every model with credentials, the virtual one too
        assert await wait_for(pilot, lambda: session.model.ref != "router/auto")
        refs = {session.model.ref}
        for _ in range(3):
            await pilot.press("ctrl+p")
            await pilot.pause()
            refs.add(session.model.ref)
        assert "router/auto" in refs
