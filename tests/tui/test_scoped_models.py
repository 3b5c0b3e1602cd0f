"""``/scoped-models`` works as Pi's selector (issue #37): every model ticked at first, Enter
unticks, each change applies to the session at once, Esc keeps it, Ctrl+S saves it to
settings.json; keys typed in one burst act in order; the saved scope applies at the next start."""

from __future__ import annotations

import json

from textual import events

from pi_runtime.ai.providers.scripted import ScriptedProvider
from pi_tui.dialogs.scoped_models import ScopedModels
from pi_tui.launch import create_app

from .conftest import screen_text, wait_for
from .test_commands_models import file_session, type_command


def three_models(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    second = ScriptedProvider("second-scripted").model("second-model")
    third = ScriptedProvider("third-scripted").model("third-model")
    for model in (second, third):
        session.model_registry.add_model(model)
    return session, [provider.model().ref, second.ref, third.ref]


async def open_selector(pilot) -> ScopedModels:
    await type_command(pilot, "/scoped-models")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ScopedModels))
    return pilot.app.screen


async def test_all_ticked_enter_unticks_applies_at_once_and_esc_keeps_it(provider, workdir, agent_dir):
    session, refs = three_models(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        selector = await open_selector(pilot)
        assert selector.enabled is None and "all enabled" in screen_text(app)
        app.screen.query_one("#picker-filter").value = "second"
        assert await wait_for(pilot, lambda: selector.filtered_for == "second")
        await pilot.press("enter")  # unticks the second model: the session cycles the other two now
        assert [m.ref for m, _ in session.scoped_models] == [refs[0], refs[2]]
        assert "(unsaved)" in screen_text(app)
        await pilot.press("escape")  # closes, keeping the session's choice (nothing saved)
        assert await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        assert [m.ref for m, _ in session.scoped_models] == [refs[0], refs[2]]
        assert "enabledModels" not in json.loads((agent_dir / "settings.json").read_text())
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: session.model.ref == refs[2])


async def test_ctrl_s_saves_and_the_dialog_stays(provider, workdir, agent_dir):
    session, refs = three_models(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        selector = await open_selector(pilot)
        await pilot.press("ctrl+x")  # none ticked
        await pilot.press("enter", "ctrl+s")
        assert await wait_for(pilot, lambda: "enabledModels" in json.loads((agent_dir / "settings.json").read_text()))
        assert json.loads((agent_dir / "settings.json").read_text())["enabledModels"] == [refs[0]]
        assert app.screen is selector and "(unsaved)" not in screen_text(app)


async def test_keys_typed_in_one_burst_act_in_order(provider, workdir, agent_dir):
    session, refs = three_models(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        selector = await open_selector(pilot)
        await pilot.press("ctrl+x")
        # As a terminal delivers a fast typist's keys: all queued before any is handled.
        for key in ("enter", "down", "enter", "down", "enter"):
            app.post_message(events.Key(key, None))
        assert await wait_for(pilot, lambda: selector.enabled is None or len(selector.enabled) == 3)
        assert selector.enabled is None  # all three ticked again, one by one
