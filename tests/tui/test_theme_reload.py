"""Live theme reload: editing the chosen theme's file re-applies it while the app runs."""

from __future__ import annotations

import json
import os

from pi_tui.launch import create_app
from pi_tui.theme.theme import BUILTIN_DIR

from .conftest import started, wait_for


def _write_theme(path, name: str, **colors: str) -> None:
    data = json.loads((BUILTIN_DIR / "dark.json").read_text(encoding="utf-8"))
    data["name"] = name
    data["colors"].update(colors)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)  # like an editor's atomic save


async def test_editing_the_active_theme_file_reloads_it_live(session, agent_dir):
    themes = agent_dir / "themes"
    themes.mkdir()
    theme_file = themes / "mine.json"
    _write_theme(theme_file, "mine", accent="#112233", mdHeading="#445566")
    app = create_app(session, static=True, agent_dir=str(agent_dir), watch_themes=True)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.themes.apply("mine")
        await pilot.pause()
        assert app.theme_variables["pi-accent"] == "#112233"
        assert await wait_for(pilot, lambda: app.themes.watcher is not None and app.themes.watcher.active)
        generation = app.themes.generation

        _write_theme(theme_file, "mine", accent="#aa0000", mdHeading="#00bb00")
        assert await wait_for(pilot, lambda: app.theme_variables.get("pi-accent") == "#aa0000")
        assert app.theme == "mine"
        assert app.theme_variables["pi-md-heading"] == "#00bb00"
        assert app.themes.generation > generation  # cached markdown knows to render again

        # A broken save falls back to dark and says what is wrong...
        theme_file.write_text('{"name": "mine", "colors": {', encoding="utf-8")
        assert await wait_for(pilot, lambda: app.theme == "dark")
        await pilot.pause()  # notifications arrive as messages
        messages = [str(n.message) for n in app._notifications]
        assert any("mine.json" in m and "invalid JSON" in m for m in messages), messages

        # ...and fixing the file brings the chosen theme back.
        _write_theme(theme_file, "mine", accent="#0000cc")
        # (Watch events may come in several batches as the file is written: wait for the last.)
        assert await wait_for(pilot, lambda: app.theme == "mine" and app.theme_variables["pi-accent"] == "#0000cc")
    assert not app.themes.watcher.active or app.themes.watcher._stop.is_set()


async def test_no_watcher_without_theme_folders_or_when_static(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir), watch_themes=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert app.themes.watcher is None  # neither <agent>/themes nor .pi/themes exists
    (agent_dir / "themes").mkdir()
    static_app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with static_app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert static_app.themes.watcher is None


async def test_attach_reads_the_theme_files_again_only_when_they_changed(session, agent_dir):
    themes = agent_dir / "themes"
    themes.mkdir()
    _write_theme(themes / "mine.json", "mine", accent="#112233")
    app = create_app(session, static=True, agent_dir=str(agent_dir), watch_themes=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        loaded = app.themes.themes
        app.themes.load_if_changed()  # the same files, unchanged: what was loaded stands
        assert app.themes.themes is loaded
        _write_theme(themes / "other.json", "other", accent="#445566")
        app.themes.load_if_changed()  # a file came: all are read again
        assert app.themes.themes is not loaded and {"mine", "other"} <= set(app.themes.themes)
        loaded = app.themes.themes
        _write_theme(themes / "mine.json", "mine", accent="#778899")
        os.utime(themes / "mine.json", ns=(1, 1))  # a changed modification time, whatever the clock's step
        app.themes.load_if_changed()
        assert app.themes.themes is not loaded
        assert app.themes.themes["mine"].to_textual().variables["pi-accent"] == "#778899"
