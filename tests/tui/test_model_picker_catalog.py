"""/model (Ctrl+L) over the whole built-in catalogue, and ``enabledModels`` scoping Ctrl+P.

Every provider variable holds a placeholder, so the picker offers Pi's 1,688 chat models of
41 providers (plus the session's own scripted one): the rows are drawn only where they are on
screen, typing filters, the cursor skips provider headers, Enter switches the session.
"""

from __future__ import annotations

import pytest

from pi_runtime.ai.env_keys import ENV_KEYS
from pi_runtime.ai.providers.scripted import ScriptedProvider
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.dialogs.model_picker import ModelPicker
from pi_tui.dialogs.pick_rows import PickRows
from pi_tui.launch import create_app

from .conftest import screen_text, wait_for


@pytest.fixture
def every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for names in ENV_KEYS.values():
        for name in names:
            monkeypatch.setenv(name, "placeholder")


def session_with(agent_dir, workdir, settings: dict | None = None):
    return create_agent_session(
        cwd=str(workdir), agent_dir=str(agent_dir), model=ScriptedProvider("picker-own").model(),
        session_manager=SessionManager.in_memory(str(workdir)),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}, **(settings or {})}),
    )


async def test_the_picker_offers_the_whole_catalogue_and_filters_it(every_key, agent_dir, workdir) -> None:
    session = session_with(agent_dir, workdir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+l")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        picker = app.screen
        assert len(picker.items) == 1688 + 1
        rows = picker.query_one(PickRows)
        drawn = sum(1 for item in picker.items if item._made is not None)
        assert drawn <= 2 * rows.size.height  # labels are made for rows on screen, not for 1,689
        await pilot.press(*"opus 4.6")
        await pilot.pause()
        shown = [item.value.ref for item in picker.shown if item is not None]
        assert "anthropic/claude-opus-4-6" in shown and len(shown) < 200
        assert picker.shown[0] is None  # a provider header first; the cursor is on an item
        assert picker.highlighted == 1
        first = picker.highlighted_item.value
        await pilot.press("down")
        assert picker.highlighted_item is not None and picker.highlighted_item.value is not first
        await pilot.press("up", "up")  # up from the first item stays on it: headers are skipped
        assert picker.highlighted_item.value is first
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: session.model is first)
        assert first.id in screen_text(app)  # the footer names the new model


async def test_enabled_models_scope_the_start_and_ctrl_p(every_key, agent_dir, workdir) -> None:
    settings = {"enabledModels": ["anthropic/claude-opus-4-6", "openai/gpt-5*:high", "no-such-model"],
                "defaultProvider": "openai", "defaultModel": "gpt-5-mini"}
    session = create_agent_session(
        cwd=str(workdir), agent_dir=str(agent_dir), session_manager=SessionManager.in_memory(str(workdir)),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}, **settings}),
    )
    scoped = [m.ref for m, _ in session.scoped_models]
    assert scoped[0] == "anthropic/claude-opus-4-6" and "openai/gpt-5-mini" in scoped
    # A glob matches provider/id or the id alone, as in Pi: OpenRouter's "openai/gpt-5..." ids too.
    assert all(ref == "anthropic/claude-opus-4-6" or "openai/gpt-5" in ref for ref in scoped)
    assert "openrouter/openai/gpt-5" in scoped
    assert session.model.ref == "openai/gpt-5-mini"  # the saved default, since it is in the scope
    assert session.thinking_level == "high"  # its pattern's level
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        seen = [session.model.ref]
        for _ in range(4):
            before = session.model.ref
            await pilot.press("ctrl+p")
            assert await wait_for(pilot, lambda before=before: session.model.ref != before)
            seen.append(session.model.ref)
        assert seen == scoped[scoped.index("openai/gpt-5-mini"):][:5]  # the scope, in its order
