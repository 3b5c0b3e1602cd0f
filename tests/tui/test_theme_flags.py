"""Pi's theme and start-up flags and settings do what they say (issue #37: ``--theme``,
``--use-theme``, ``--no-themes`` and ``--verbose`` were accepted and did nothing; the ``system``
theme and ``light/dark`` pairs were ignored; ``tuiMode: regular`` was ignored silently)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_runtime.cli_args import parse_args
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app
from pi_tui.theme.theme import BUILTIN_DIR
from pi_tui.transcript.notice import Notice
from pi_tui.transcript.start_hints import StartHints

from .conftest import wait_for


def theme_file(folder: Path, name: str) -> Path:
    data = json.loads((BUILTIN_DIR / "dark.json").read_text())
    data["name"] = name
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def session_with(provider, workdir, agent_dir, settings: dict):
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    return create_agent_session(cwd=str(workdir), agent_dir=str(agent_dir), model=provider.model(),
                                session_manager=SessionManager.in_memory(),
                                settings=SettingsManager.create(str(workdir), str(agent_dir)))


async def run_with(provider, workdir, agent_dir, settings: dict, argv: list[str], check):
    session = session_with(provider, workdir, agent_dir, settings)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    app.command_line = parse_args(argv)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: check(app)), app.theme
    return session


async def test_theme_and_use_theme_for_this_run(provider, workdir, agent_dir, tmp_path):
    extra = tmp_path / "more-themes"
    extra.mkdir()
    theme_file(extra, "from-flag")
    session = await run_with(provider, workdir, agent_dir, {"theme": "light"},
                             ["--theme", str(extra), "--use-theme", "from-flag"],
                             lambda app: app.theme == "from-flag")
    assert session.settings.get("theme") == "light"  # for this run only: the setting stays


async def test_no_themes_leaves_out_the_users_themes(provider, workdir, agent_dir):
    (agent_dir / "themes").mkdir()
    theme_file(agent_dir / "themes", "mine")
    await run_with(provider, workdir, agent_dir, {"theme": "mine"}, ["--no-themes"],
                   lambda app: app.theme == "dark" and not app.themes.knows("mine"))
    await run_with(provider, workdir, agent_dir, {"theme": "mine"}, [], lambda app: app.theme == "mine")


async def test_system_and_light_dark_pairs_follow_the_terminal(provider, workdir, agent_dir, monkeypatch):
    monkeypatch.setenv("COLORFGBG", "0;15")  # a light background
    await run_with(provider, workdir, agent_dir, {"theme": "system"}, [], lambda app: app.theme == "light")
    await run_with(provider, workdir, agent_dir, {"theme": "frost/ember"}, [], lambda app: app.theme == "frost")
    monkeypatch.setenv("COLORFGBG", "15;0")  # a dark one
    await run_with(provider, workdir, agent_dir, {"theme": "frost/ember"}, [], lambda app: app.theme == "ember")
    await run_with(provider, workdir, agent_dir, {}, [], lambda app: app.theme == "dark")  # Pi's default: system


async def test_verbose_shows_the_whole_start_up_help(provider, workdir, agent_dir):
    def hints(app) -> list[StartHints]:
        return list(app.transcript.query(StartHints))

    await run_with(provider, workdir, agent_dir, {"quietStartup": True}, ["--verbose"],
                   lambda app: bool(hints(app)) and hints(app)[0].expanded)


async def test_regular_tui_mode_is_said_once(provider, workdir, agent_dir):
    def said(app) -> list[str]:
        return [str(n.render()) for n in app.transcript.query(Notice) if "full-screen" in str(n.render())]

    await run_with(provider, workdir, agent_dir, {"tuiMode": "regular"}, [], lambda app: len(said(app)) == 1)
    await run_with(provider, workdir, agent_dir, {}, ["--tui-mode", "regular"], lambda app: len(said(app)) == 1)


async def test_a_theme_the_settings_turn_off_is_not_offered(provider, workdir, agent_dir):
    # Pi applies the themes list's "-themes/<file>" and "!pattern" entries (what pi config writes)
    # to the agent folder's themes; pi offered them all.
    (agent_dir / "themes").mkdir()
    for name in ("kept", "dropped", "noisy-one"):
        theme_file(agent_dir / "themes", name)
    settings = {"themes": ["-themes/dropped.json", "!noisy-*"]}
    await run_with(provider, workdir, agent_dir, settings, [],
                   lambda app: "kept" in app.themes.themes and "dropped" not in app.themes.themes
                   and "noisy-one" not in app.themes.themes and "dark" in app.themes.themes)
