"""``pi config`` in the real app (Pilot): toggles written as Pi writes them, scope switching, the
saved state shown again when it is opened again, a corrupt settings file refused, and the snapshot."""

from __future__ import annotations

import json

import pytest

from pi_runtime.packages.resource_config import ResourceConfig
from pi_tui.config.config_app import ConfigApp
from pi_tui.screenshots.config_scene import SCENES, make_folders
from pi_tui.screenshots.config_scene import make_app as make_scene_app

from .conftest import screen_text, wait_for


def _app(root, *, scope="global", trusted=True):
    agent, project = make_folders(root)
    return ConfigApp(ResourceConfig(agent, project, project_available=trusted), scope), agent, project


def _settings(folder):
    return json.loads((folder / "settings.json").read_text(encoding="utf-8"))


async def _select(pilot, name):
    """Type ``name`` into the search so the cursor is on its item."""
    for char in name:
        await pilot.press(char)
    assert await wait_for(pilot, lambda: pilot.app.list.selected is not None and pilot.app.list.selected.name == name)


async def test_a_toggle_writes_pi_filters_and_keeps_the_rest_of_the_file(tmp_path):
    app, agent, _ = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.list.selected.name == "format.py"
        await pilot.press("space")  # format.py off
        assert await wait_for(pilot, lambda: "-extensions/format.py" in json.dumps(_settings(agent)))
        await pilot.press("down", "enter")  # lint.py (off) on again: Enter toggles too
        assert await wait_for(pilot, lambda: "+extensions/lint.py" in json.dumps(_settings(agent)))
        await _select(pilot, "review")
        await pilot.press("space")
        await pilot.press(*["backspace"] * 6)
        await _select(pilot, "mcp")
        await pilot.press("space")  # mcp was off: on
        assert await wait_for(pilot, lambda: "+builtin:mcp" in _settings(agent)["extensions"])
        await pilot.press("escape")
    data = _settings(agent)
    assert data["theme"] == "dark"  # not ours: kept
    assert data["extensions"] == ["+builtin:mcp"]  # the earlier -builtin:mcp replaced, not piled up
    assert data["packages"] == [{"source": "../tools", "extensions": ["-extensions/format.py", "+extensions/lint.py"],
                                 "skills": ["-skills/review/SKILL.md"]}]
    # Opened again: the list shows what was saved.
    again = ConfigApp(ResourceConfig(agent, tmp_path / "project", project_available=True))
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        shown = {item.name: item.enabled for item in again.list.items}
        assert shown == {"format.py": False, "lint.py": True, "review": False, "fix.md": True, "dusk.json": True,
                         "codemode": True, "mcp": True, "tool-search": True}
        text = screen_text(again).replace(" ", "")  # the SVG export drops spaces between styled runs
        assert "[]format.py" in text and "[x]mcp" in text


async def test_tab_switches_to_project_overrides_that_cycle_inherit_unload_load(tmp_path):
    app, agent, project = _app(tmp_path)
    before = (agent / "settings.json").read_text(encoding="utf-8")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("tab")
        assert await wait_for(pilot, lambda: "Project Local Resources" in screen_text(app))
        assert "inherited global" in screen_text(app)
        await _select(pilot, "codemode")
        await pilot.press("space")  # on globally: unload for this project
        assert await wait_for(pilot, lambda: (project / ".pi" / "settings.json").exists())
        assert _settings(project / ".pi")["extensions"] == ["-builtin:codemode"]
        await pilot.press("space")
        assert await wait_for(pilot, lambda: _settings(project / ".pi")["extensions"] == ["+builtin:codemode"])
        await pilot.press("space")  # back to inherit: no entry
        assert await wait_for(pilot, lambda: _settings(project / ".pi")["extensions"] == [])
        await pilot.press(*["backspace"] * 8)
        await _select(pilot, "format.py")
        await pilot.press("space")
        assert await wait_for(pilot, lambda: _settings(project / ".pi").get("packages") == [
            {"source": "../../tools", "autoload": False, "extensions": ["-extensions/format.py"]}])
        assert "project unload" in screen_text(app)
        await pilot.press("tab")
        assert await wait_for(pilot, lambda: "Global Resources" in screen_text(app))
        # Global scope ignores the project's overrides.
        assert next(i for i in app.list.items if i.name == "format.py").enabled
        await pilot.press("space")
        await pilot.press("ctrl+c")
    assert (agent / "settings.json").read_text(encoding="utf-8") != before  # the global toggle was written
    assert app.return_code == 0


async def test_without_a_trusted_project_tab_stays_global(tmp_path):
    app, _, project = _app(tmp_path, scope="project", trusted=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Global Resources" in text and "tab switch mode" not in text
        await pilot.press("tab", "space")
        await pilot.pause()
        assert "Global Resources" in screen_text(app)
    assert not (project / ".pi").exists()


async def test_an_open_trust_question_is_asked_first_and_the_answer_saved(tmp_path):
    agent, project = make_folders(tmp_path)
    config = ResourceConfig(agent, project, project_available=False)
    app = ConfigApp(config, "project", ask_trust=str(project))
    async with app.run_test(size=(120, 30)) as pilot:
        assert await wait_for(pilot, lambda: "Trust project folder?" in screen_text(app))
        await pilot.press("enter")  # Trust
        assert await wait_for(pilot, lambda: "Project Local Resources" in screen_text(app))
        assert config.project_available
    assert json.loads((agent / "trust.json").read_text(encoding="utf-8")) == {str(project.resolve()): True}


async def test_answering_no_when_project_scope_was_asked_for_ends_with_status_1(tmp_path):
    agent, project = make_folders(tmp_path)
    config = ResourceConfig(agent, project, project_available=False)
    app = ConfigApp(config, "project", ask_trust=str(project))
    async with app.run_test(size=(120, 30)) as pilot:
        assert await wait_for(pilot, lambda: "Trust project folder?" in screen_text(app))
        await pilot.press("escape")  # not trusted, this run only
        assert await wait_for(pilot, lambda: app.return_code == 1)
    assert not config.project_available and not (agent / "trust.json").exists()


async def test_a_corrupt_settings_file_is_reported_and_left_as_it_is(tmp_path):
    app, agent, _ = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        (agent / "settings.json").write_text('{"theme": "dark", ', encoding="utf-8")
        await pilot.press("space")
        assert await wait_for(pilot, lambda: "not changed" in screen_text(app))
    assert (agent / "settings.json").read_text(encoding="utf-8") == '{"theme": "dark", '


async def test_what_cannot_be_read_is_said_on_screen(tmp_path):
    agent, project = make_folders(tmp_path)
    (agent / "settings.json").write_text("{nope", encoding="utf-8")
    app = ConfigApp(ResourceConfig(agent, project, project_available=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        # The problem, under the file line ("<path>: <reason>", however it wraps).
        assert "settings.json:" in "".join(text.split())
        assert "codemode" in text and "format.py" not in text


async def test_search_narrows_the_list_and_says_when_nothing_matches(tmp_path):
    app, _, _ = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await _select(pilot, "fix.md")
        text = screen_text(app)
        assert "Prompts" in text and "format.py" not in text and "Built-in" not in text
        await pilot.press("z", "z", "z")
        assert await wait_for(pilot, lambda: "No resources found" in screen_text(app))


@pytest.mark.parametrize("scene", SCENES, ids=[s.name for s in SCENES])
def test_config_snapshot(scene, snap_compare):
    app = make_scene_app(scene)

    async def run_before(pilot):
        await pilot.pause()
        await scene.prepare(pilot)

    assert snap_compare(app, terminal_size=scene.size, run_before=run_before)
