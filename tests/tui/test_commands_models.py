"""/model, Ctrl+L, /scoped-models + Ctrl+P, /thinking, /settings: driven through the real app,
checked on the kernel, settings.json and the session file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app

from .conftest import screen_text, settle, wait_for, workers_done


def file_session(provider, workdir: Path, agent_dir: Path, **kwargs):
    """A session whose settings and session file are real files in temp folders."""
    settings_path = agent_dir / "settings.json"
    if not settings_path.exists():
        settings_path.write_text(json.dumps({"compaction": {"enabled": False}}), encoding="utf-8")
    return create_agent_session(
        cwd=str(workdir), agent_dir=str(agent_dir), model=provider.model(),
        session_manager=SessionManager.create(str(workdir), str(agent_dir / "sessions")),
        settings=SettingsManager.create(str(workdir), str(agent_dir)), **kwargs,
    )


def entries(session) -> list[dict]:
    return [json.loads(line) for line in Path(session.session_file).read_text().splitlines() if line.strip()]


async def type_command(pilot, text: str) -> None:
    pilot.app.editor.set_text(text)
    await pilot.pause()
    pilot.app.menu.hide()  # the slash menu would take the first Enter
    await pilot.press("enter")
    await pilot.pause()


@pytest.fixture
def two_models(provider, workdir, agent_dir):
    other = ScriptedProvider("other-scripted")
    session = file_session(provider, workdir, agent_dir)
    second = other.model("other-model", name="Other Model", context_window=1_000_000)
    session.model_registry.add_model(second)
    return session, second


async def test_model_picker_lists_models_by_provider_and_persists_choice(two_models, agent_dir, provider):
    session, second = two_models
    provider.push(scripted_text("hello"))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await type_command(pilot, "hi")
        await settle(pilot, session)
        await pilot.press("ctrl+l")
        await pilot.pause()
        text = screen_text(app)
        assert "Select a model" in text
        assert "other-scripted" in text and "1M ctx" in text and "$3/$15" in text
        for ch in "othr":  # fuzzy: letters spread over "other"
            await pilot.press(ch)
        await pilot.pause()
        # The picker's rows (the header behind the dialog shows the current model).
        assert [item.value.ref for item in app.screen.shown if item is not None] == [second.ref]
        await pilot.press("enter")
        await workers_done(pilot)
        assert session.model.ref == second.ref
        # Enter switches this session only; as in Pi, only Ctrl+S in the picker saves a default.
        assert "defaultModel" not in _settings(agent_dir)
        await pilot.press("ctrl+l")
        await pilot.pause()
        for ch in "othr":
            await pilot.press(ch)
        await pilot.press("ctrl+s")
        await workers_done(pilot)
    saved = _settings(agent_dir)
    assert (saved["defaultProvider"], saved["defaultModel"]) == ("other-scripted", "other-model")
    changes = [e for e in entries(session) if e["type"] == "model_change"]
    assert changes[-1]["provider"] == "other-scripted" and changes[-1]["modelId"] == "other-model"


async def test_keys_typed_right_after_a_command_go_to_what_it_opens(two_models, agent_dir, provider):
    # "/model", Enter, "othr", Enter in one go (one read from the terminal): the picker is pushed
    # by a worker, after the editor had taken "othr" and Enter, so pi sent "othr" to the model
    # and left the picker open. As in Pi, the keys reach the picker.
    from textual import events

    session, second = two_models
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        app.editor.set_text("/model")
        await pilot.pause()
        app.menu.hide()
        for key in ["enter", *"othr", "enter"]:  # posted as the driver posts one read's keys
            app.post_message(events.Key(key, "\r" if key == "enter" else key))
        assert await wait_for(pilot, lambda: session.model.ref == second.ref and len(app.screen_stack) == 1)
        assert provider.requests == [] and app.editor.text == ""


async def test_model_command_with_argument_and_unknown_model(two_models, agent_dir):
    session, second = two_models
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/model no-such-model-xyz")
        assert "Unknown model 'no-such-model-xyz'" in screen_text(app)
        await type_command(pilot, f"/model {second.ref}")
        await workers_done(pilot)
        assert session.model.ref == second.ref
    assert "defaultModel" not in _settings(agent_dir)  # the session's model, not a new default


async def test_scoped_models_saved_and_ctrl_p_cycles_them(two_models, agent_dir, provider):
    session, second = two_models
    third = ScriptedProvider("third-scripted").model("third-model")
    session.model_registry.add_model(third)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await type_command(pilot, "/scoped-models")
        assert "Models for Ctrl+P cycling" in screen_text(app)
        await pilot.press("ctrl+x")  # every model starts ticked (Pi): clear them first
        # Enable the current model and the third one (filter, enter toggles), then save.
        for text in (provider.name, "third"):
            app.screen.query_one("#picker-filter").value = text
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
        await pilot.press("ctrl+s", "escape")  # Ctrl+S saves and the selector stays (Pi); Esc closes it
        await pilot.pause()
        assert [m.ref for m, _ in session.scoped_models] == [provider.model().ref, third.ref]
        await pilot.press("ctrl+p")
        await workers_done(pilot)
        assert session.model.ref == third.ref
        await pilot.press("ctrl+p")
        await workers_done(pilot)
        assert session.model.ref == provider.model().ref  # the second provider is not in the set
    saved = json.loads((agent_dir / "settings.json").read_text())
    assert saved["enabledModels"] == [provider.model().ref, third.ref]


async def test_the_editor_starts_with_the_off_border_that_a_session_at_off_keeps(session, agent_dir):
    from pi_tui.app import PiApp

    app = PiApp(None, static=True, agent_dir=str(agent_dir))  # no session yet, as while pi starts
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.editor.has_class("thinking-off")
        before = app.editor.styles.border_top
        assert await session.set_thinking_level("off") == "off"
        await app.attach_session(session)
        await pilot.pause()
        assert app.editor.has_class("thinking-off") and app.editor.styles.border_top == before


async def test_thinking_picker_sets_level_and_editor_border_follows(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "/thinking")
        assert "Thinking level" in screen_text(app) and "xhigh" not in screen_text(app)
        while app.screen.highlighted_item.text.plain.split()[-3] != "high":
            await pilot.press("down")
        await pilot.press("enter")
        await workers_done(pilot)
        assert session.thinking_level == "high"
        assert app.editor.has_class("thinking-high")
        high = app.editor.styles.border_top[1]
        await pilot.press("shift+tab")  # high -> off (xhigh unsupported)
        await workers_done(pilot)
        assert session.thinking_level == "off" and app.editor.has_class("thinking-off")
        assert app.editor.styles.border_top[1] != high
        default = session.settings.settings.default_thinking_level
        await type_command(pilot, "/thinking")
        while app.screen.highlighted_item.text.plain.split()[-3] != "low":
            await pilot.press("down")
        await pilot.press("ctrl+s")  # app.thinking.save: this level, and saved as the default
        await workers_done(pilot)
        assert session.thinking_level == "low" and default != "low"
        assert session.settings.settings.default_thinking_level == "low"


async def test_settings_screen_changes_land_in_settings_json_and_apply(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await type_command(pilot, "/settings")
        text = screen_text(app)
        assert "Settings" in text and "Model and thinking" in text and "Thinking level" in text
        assert len(app.screen.rows) >= 33  # every setting of Pi's that makes sense live
        titles = [line for line in app.screen.lines if isinstance(line, str)]
        assert titles[:3] == ["Model and thinking", "Interaction", "Context and sessions"]
        listing = app.screen.query_one("#settings-list")

        async def change(label: str, presses: int = 1) -> None:
            index = next(i for i, r in enumerate(app.screen.lines) if not isinstance(r, str) and r.label == label)
            listing.highlighted = index
            for _ in range(presses):
                await pilot.press("enter")
            await pilot.pause()

        before_theme = app.theme
        await change("Theme")
        assert app.theme != before_theme  # live preview
        await change("Steering mode")
        await change("Auto-compaction")
        await change("Hide thinking")
        await change("Double Esc")
        await change("Editor padding")  # 0 -> 1: applied to the editor at once
        assert app.editor.styles.padding.left == 2
        await change("This model's level", 2)  # default -> off -> the next level
        assert session.agent.steering_mode == "all"
        assert session.auto_compaction_enabled is True
        assert app.transcript.thinking_collapsed is True
        await pilot.press("escape")
        await pilot.pause()
        assert "Steering mode" not in screen_text(app)
    saved = json.loads((agent_dir / "settings.json").read_text())
    assert saved["theme"] == app.theme
    assert saved["steeringMode"] == "all"
    assert saved["compaction"]["enabled"] is True
    assert saved["hideThinkingBlock"] is True
    assert saved["doubleEscapeAction"] == "fork"
    assert saved["editorPaddingX"] == 1
    levels = session.available_thinking_levels()
    assert saved["modelThinkingLevels"] == {session.model.ref: levels[1]}


async def test_typing_in_the_settings_screen_searches_the_labels(provider, workdir, agent_dir):
    session = file_session(provider, workdir, agent_dir)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await type_command(pilot, "/settings")
        await pilot.press(*"retr")
        assert await wait_for(pilot, lambda: "Settings  > retr" in screen_text(app))
        labels = [line.label for line in app.screen.lines if not isinstance(line, str)]
        assert labels and labels[0] == "Auto-retry"
        assert all(not isinstance(line, str) for line in app.screen.lines)  # no group titles while searching
        assert "Theme" not in screen_text(app)
        await pilot.press("space")  # space changes the value, as in Pi; it is not typed
        assert await wait_for(pilot, lambda: _settings(agent_dir).get("retry", {}).get("enabled") is False)
        await pilot.press(*"zzq")
        assert await wait_for(pilot, lambda: "No setting matches." in screen_text(app))
        await pilot.press(*["backspace"] * 7)
        assert await wait_for(pilot, lambda: "Model and thinking" in screen_text(app) and "> " not in screen_text(app))
        assert app.screen.lines == app.screen.grouped


def _settings(agent_dir) -> dict:
    path = agent_dir / "settings.json"
    return json.loads(path.read_text()) if path.exists() else {}


async def test_the_model_picker_opens_again_as_new(two_models, agent_dir):
    # The picker is kept for the app's life (a new one made every open cost a full repaint of the
    # screen beneath it); opened again it must look as a new one would: search cleared, every
    # model listed, the cursor on the current model, the search focused.
    from textual.widgets import Input

    session, second = two_models
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.press("ctrl+l")
        assert await wait_for(pilot, lambda: "Select a model" in screen_text(app))
        first = app.screen
        for ch in "othr":
            await pilot.press(ch)
        assert await wait_for(pilot, lambda: len([i for i in first.shown if i is not None]) == 1)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        session.model_registry.add_model(ScriptedProvider("third-scripted").model("third-model"))
        await pilot.press("ctrl+l")
        assert await wait_for(pilot, lambda: app.screen is first and "Select a model" in screen_text(app))
        refs = [item.value.ref for item in first.shown if item is not None]
        assert second.ref in refs and "third-scripted/third-model" in refs and session.model.ref in refs
        assert first.query_one(Input).value == "" and first.query_one(Input).has_focus
        assert first.highlighted_item is not None and first.highlighted_item.value.ref == session.model.ref
        await pilot.press("down", "enter")  # the row below the current one: the picker still picks
        assert await wait_for(pilot, lambda: len(app.screen_stack) == 1)
        await workers_done(pilot)
        assert session.model.ref != first.current
