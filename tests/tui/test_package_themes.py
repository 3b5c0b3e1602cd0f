"""Themes from pi packages and from extensions' ``resources_discover`` ``themePaths``: listed by
``ctx.ui.get_all_themes()`` and set by ``ctx.ui.set_theme`` and ``/settings theme``, as in Pi (issue 27, item 12)."""

from __future__ import annotations

import json
import textwrap

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app
from pi_tui.theme.theme import BUILTIN_DIR

from .conftest import wait_for
from .test_commands_models import type_command

SETTER = textwrap.dedent(
    """
    def extension(pi):
        async def use(args, ctx):
            names = [t["name"] for t in ctx.ui.get_all_themes()]
            outcome = ctx.ui.set_theme(args)
            ctx.ui.notify(f"listed={args in names} set={outcome['success']}")

        pi.register_command("use-theme", use, description="Set a theme by name")
        pi.on("resources_discover", lambda event, ctx: {"themePaths": ["discovered"]})
    """
)


def write_theme(path, name: str, accent: str) -> None:
    data = json.loads((BUILTIN_DIR / "dark.json").read_text(encoding="utf-8"))
    data["name"] = name
    data["colors"]["accent"] = accent
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


async def test_a_package_theme_and_a_discovered_theme_can_be_set(workdir, agent_dir, tmp_path):
    package = tmp_path / "pkg"
    write_theme(package / "themes" / "pkgtheme.json", "pkgtheme", "#123456")
    (package / "extensions").mkdir()
    (package / "extensions" / "setter.py").write_text(SETTER)
    write_theme(workdir / "discovered" / "found.json", "found", "#654321")
    provider = ScriptedProvider("package-themes")
    session = create_agent_session(
        cwd=str(workdir), agent_dir=str(agent_dir), model=provider.model(), session_manager=SessionManager.in_memory(),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}, "packages": [str(package)]}),
    )
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: session.extension_runner is not None
                              and session.extension_runner.get_commands())
        await type_command(pilot, "/use-theme pkgtheme")
        assert await wait_for(pilot, lambda: app.theme == "pkgtheme")
        assert app.theme_variables["pi-accent"] == "#123456"
        # A folder an extension named in resources_discover (relative to the cwd), through /settings theme.
        await type_command(pilot, "/settings theme found")
        assert await wait_for(pilot, lambda: app.theme == "found")
        notes = [str(n.message) for n in app._notifications]
    assert "listed=True set=True" in notes


@pytest.mark.parametrize("trusted", [False, True])
async def test_a_project_theme_loads_only_when_the_project_is_trusted(workdir, agent_dir, trusted):
    # A stranger's clone does not get its .pi/themes files read (issue #34); a trusted one does.
    write_theme(workdir / ".pi" / "themes" / "clone.json", "clone-theme", "#ff0000")
    settings = SettingsManager.create(workdir, agent_dir, project_trusted=trusted)
    session = create_agent_session(
        cwd=str(workdir), agent_dir=str(agent_dir), model=ScriptedProvider("project-theme").model(),
        session_manager=SessionManager.in_memory(), settings=settings,
    )
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.session is session and app.bridge is not None)
        assert ("clone-theme" in app.themes.themes) is trusted
