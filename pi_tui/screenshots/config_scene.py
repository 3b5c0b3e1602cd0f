"""``pi config`` scenes for snapshot tests and ``screenshots/``: a personal package with an
extension, a skill, a prompt and a theme, and the built-ins, in global and in project scope.

Run ``python -m pi_tui.screenshots.config_scene [--out screenshots]``; the folders are fixed
(under the temp folder), so the pictures are the same at every run.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .scenes import Scene, render_scenes

ROOT = Path(tempfile.gettempdir()) / "pi-screens" / "config"


def make_folders(root: Path = ROOT) -> tuple[Path, Path]:
    """A fresh agent dir and project under ``root``: the package ``../tools`` declared in the
    personal settings with its ``lint.py`` extension off and ``mcp`` off; returns both folders."""
    shutil.rmtree(root, ignore_errors=True)
    agent, project, package = root / "agent", root / "project", root / "tools"
    for folder in (agent, project, package / "extensions", package / "skills" / "review", package / "prompts",
                   package / "themes"):
        folder.mkdir(parents=True)
    (package / "extensions" / "format.py").write_text("def setup(pi):\n    pass\n", encoding="utf-8")
    (package / "extensions" / "lint.py").write_text("def setup(pi):\n    pass\n", encoding="utf-8")
    (package / "skills" / "review" / "SKILL.md").write_text(
        "---\nname: review\ndescription: Review a change\n---\nRead the diff.\n", encoding="utf-8")
    (package / "prompts" / "fix.md").write_text("Fix the failing test.\n", encoding="utf-8")
    (package / "themes" / "dusk.json").write_text("{}\n", encoding="utf-8")
    settings = {"packages": [{"source": "../tools", "extensions": ["-extensions/lint.py"]}],
                "extensions": ["-builtin:mcp"], "theme": "dark"}
    (agent / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return agent, project


def make_app(scene: Scene, root: Path = ROOT) -> Any:
    """The ``pi config`` app over fresh folders, in the scene's scope."""
    from pi_runtime.frontend.app_support import ResourceConfig, WriteScope

    from ..config.config_app import ConfigApp

    agent, project = make_folders(root)
    scope: WriteScope = "project" if scene.name == "config_project" else "global"
    # A home of its own: the pictures do not list skills the machine's ~/.agents happens to hold.
    config = ResourceConfig(agent, project, project_available=True, home=root / "home")
    return ConfigApp(config, scope, theme_name=scene.theme)


async def _global(pilot: Any) -> None:
    await pilot.pause()


async def _project(pilot: Any) -> None:
    """In project scope: lint.py loaded and the skill unloaded for this project, mcp loaded again."""
    app = pilot.app
    await pilot.press("down", "space", "down", "space", "down", "down", "down", "down", "down", "space")
    await pilot.pause()
    assert app.list.selected is not None and app.list.selected.name == "mcp"


SCENES = [
    Scene("config", (100, 26), _global),
    Scene("config_project", (100, 26), _project),
]


async def capture(scene: Scene) -> str:
    """Run ``scene`` headless and return its SVG."""
    app = make_app(scene)
    async with app.run_test(size=scene.size) as pilot:
        await pilot.pause()
        await scene.prepare(pilot)
        return app.export_screenshot(title=f"pi — {scene.name}")


def main(argv: list[str] | None = None) -> int:
    """Write the ``pi config`` screenshots."""
    render_scenes(argv, SCENES, capture, __doc__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
