"""Scenes of the command screens for snapshot tests and ``screenshots/``.

Run ``python -m pi_tui.screenshots.command_scenes [--out screenshots] [names...]`` to write each scene
as SVG and, when ``rsvg-convert`` is installed, PNG. Like ``scenes.py``: scripted
provider, fixed usage, static app. The model registry reads no environment and a fixed
auth.json (Anthropic and OpenAI keys), so the model list is the same on every machine.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from .scenes import SCENE_PROVIDERS, Scene, _project, pin_own_docs, render_scenes

SUMMARY = """## Goal
Make `src/steps.py` faster without changing results.

## Progress
- Read every `step_N`; all are pure and linear.
- Replaced the loop with a closed form in `run()`.

## Next steps
- Add a benchmark and a property test comparing both versions."""


def make_app(scene: Scene, agent_dir: str | None = None) -> tuple[Any, Any]:
    """A fresh session + app for ``scene`` with a deterministic model registry."""
    from pi_runtime.frontend import (
        AuthStorage,
        ModelRegistry,
        ScriptedProvider,
        SessionManager,
        SettingsManager,
        create_agent_session,
    )

    from ..launch import create_app

    if agent_dir is None:
        # A fixed folder per scene: the /mcp screen shows the path of its mcp.json.
        fixed = Path(tempfile.gettempdir()) / f"pi-screens-{scene.name}"
        shutil.rmtree(fixed, ignore_errors=True)
        fixed.mkdir()
        agent_dir = str(fixed)
    auth = Path(agent_dir) / "auth.json"
    auth.write_text(json.dumps({"anthropic": {"type": "api_key", "key": "sk-a"},
                                "openai": {"type": "api_key", "key": "sk-o"}}), encoding="utf-8")
    auth.chmod(0o600)  # as /login writes it (an exposed auth.json is reported in the transcript)
    registry = ModelRegistry(Path(agent_dir) / "models.json", AuthStorage(auth), env={})
    provider = ScriptedProvider(f"screens-{scene.name}")
    with_mcp = scene.name == "cmd_mcp"
    if with_mcp:
        _write_mcp_config(Path(agent_dir))
    extensions = [_write_extension(Path(agent_dir))] if scene.name == "cmd_extensions" else []
    if scene.name == "cmd_virtual_model":
        registry.add_model(provider.model("claude-haiku-4-5", name="Claude Haiku 4.5"))
        extensions = [_write_router(Path(agent_dir), provider.name)]
    session = create_agent_session(
        cwd=str(_project()), agent_dir=agent_dir, model=provider.model("claude-sonnet-4-5", name="Claude Sonnet 4.5"),
        session_manager=SessionManager.in_memory(), model_registry=registry,
        settings=SettingsManager.in_memory({"compaction": {"enabled": False, "keepRecentTokens": 50}}),
        mcp=with_mcp, extensions=extensions,
    )
    pin_own_docs(session)
    app = create_app(session, static=True, agent_dir=agent_dir)
    SCENE_PROVIDERS[app] = provider
    return app, provider


def _write_mcp_config(agent_dir: Path) -> None:
    """Three servers for the /mcp scene: a real one (PyPI's mcp-server-time), a broken one, an off one."""
    beside = Path(sys.executable).parent / "mcp-server-time"
    time_server = str(beside) if beside.exists() else shutil.which("mcp-server-time") or "mcp-server-time"
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": time_server, "args": ["--local-timezone", "UTC"]},
        "tickets": {"command": "/opt/tickets/bin/mcp-tickets"},
        "browser": {"command": "npx", "args": ["-y", "browser-mcp"], "enabled": False},
    }}), encoding="utf-8")


EXTENSION = """
def extension(pi):
    async def deploy(args, ctx):
        ctx.ui.set_widget("checks", [ctx.ui.theme.fg("success", "✓ tests 412 passed"),
                                     ctx.ui.theme.fg("warning", "! 2 migrations pending")])
        ctx.ui.set_status("env", ctx.ui.theme.fg("accent", "env: staging"))
        ctx.ui.set_status("ci", "ci: green")
        where = await ctx.ui.select("Deploy where?", ["staging", "production", "cancel"])
        pi.send_message({"customType": "deploy", "content": f"Deploying to {where}", "display": True})
    pi.register_command("deploy", deploy, description="Deploy the current branch")
"""


def _write_extension(agent_dir: Path) -> str:
    """The extensions scene's extension: a dialog, then a widget above the editor, two statuses
    (the last line, under the footer) and a custom message in the transcript."""
    path = agent_dir / "deploy.py"
    path.write_text(EXTENSION, encoding="utf-8")
    return str(path)


ROUTER = """
def extension(pi):
    def route(request, ctx):
        sticky = request.failed or request.previous
        if request.reason != "user" and sticky is not None:
            return {{"model": sticky.model, "thinking_level": sticky.thinking_level or "medium"}}
        model_id = "claude-sonnet-4-5" if request.thinking_level == "high" else "claude-haiku-4-5"
        return {{"model": ctx.model_registry.find("{provider}", model_id), "thinking_level": "medium"}}
    pi.register_virtual_model(provider="router", id="auto", name="Auto", thinking_levels=["low", "high"],
                              route=route)
"""


def _write_router(agent_dir: Path, provider: str) -> str:
    """The virtual model scene's router: ``high`` goes to Sonnet, anything else to Haiku."""
    path = agent_dir / "router.py"
    path.write_text(ROUTER.format(provider=provider), encoding="utf-8")
    return str(path)


async def virtual_model(pilot: Any) -> None:
    """``router/auto`` answers twice, from two models: the footer shows where the last answer went."""
    session = pilot.app.session
    await command(pilot, "/model router/auto")
    await session.set_thinking_level("high")
    await _talk(pilot, CONVERSATION[:1])
    await session.set_thinking_level("low")
    await _talk(pilot, CONVERSATION[1:2])


async def extension_ui(pilot: Any) -> None:
    await command(pilot, "/deploy", 0.4)
    await pilot.press("enter")  # staging
    await pilot.pause(0.4)


async def command(pilot: Any, text: str, wait: float = 0.2) -> None:
    """Type a slash command into the editor and send it."""
    pilot.app.editor.set_text(text)
    await pilot.pause()
    pilot.app.menu.hide()
    await pilot.press("enter")
    await pilot.pause(wait)


def _usage() -> Any:
    from pi_runtime.frontend import Usage

    return Usage(input=1200, output=300)


async def _talk(pilot: Any, prompts: list[tuple[str, str]]) -> None:
    from pi_runtime.frontend import scripted_text

    app = pilot.app
    for prompt, answer in prompts:
        SCENE_PROVIDERS[app].push(scripted_text(answer, usage=_usage()))
        await command(pilot, prompt, 0)
        await app.session.wait_for_idle()
        await pilot.pause(0.1)


CONVERSATION = [
    ("Read src/steps.py and tell me what it does", "Each `step_N` adds **N** to its input; the pipeline is linear."),
    ("Can the loop be replaced?", "Yes: `run(x)` equals `x + 66`, so the loop can go."),
    ("Do it, and keep the old version for a test", "Done. `run()` now returns `x + 66`; `run_slow()` keeps the loop."),
]


async def model_picker(pilot: Any) -> None:
    await pilot.press("ctrl+l")
    await pilot.pause(0.2)
    await pilot.press(*"sonnet")
    await pilot.pause(0.2)


async def settings(pilot: Any) -> None:
    await command(pilot, "/settings")
    await pilot.press("down", "down")
    await pilot.pause(0.1)


async def hotkeys(pilot: Any) -> None:
    await command(pilot, "/hotkeys")


async def compaction(pilot: Any) -> None:
    from pi_runtime.frontend import scripted_text

    await _talk(pilot, CONVERSATION)
    SCENE_PROVIDERS[pilot.app].push(scripted_text(SUMMARY, usage=_usage()))
    await command(pilot, "/compact keep the benchmark plan", 0)
    await pilot.app.session.wait_for_idle()
    await pilot.pause(0.3)


async def fork_picker(pilot: Any) -> None:
    await _talk(pilot, CONVERSATION)
    await command(pilot, "/fork")


async def login(pilot: Any) -> None:
    await command(pilot, "/login")
    await pilot.press("enter")  # "Sign in with an account": Pi's list of account sign-ins
    await pilot.pause(0.1)


async def login_api_key(pilot: Any) -> None:
    await command(pilot, "/login anthropic")
    await pilot.press("down", "enter")  # "Sign in with an API key"
    await pilot.pause(0.1)
    await pilot.press(*"sk-ant-not-a-real-key")
    await pilot.pause(0.1)


async def scoped_models(pilot: Any) -> None:
    await command(pilot, "/scoped-models")
    await pilot.press("enter", "down", "down", "enter")
    await pilot.pause(0.1)


async def search(pilot: Any) -> None:
    await _talk(pilot, CONVERSATION)
    await pilot.press("alt+s")
    await pilot.press(*"run")
    await pilot.pause(0.2)


async def mcp(pilot: Any) -> None:
    await command(pilot, "/mcp")
    app = pilot.app
    for _ in range(100):  # the real server takes a moment to start and list its tools
        if "time: connected" in html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " "):
            break
        await pilot.pause(0.1)
    await pilot.press("down")
    await pilot.pause(0.2)


async def thinking(pilot: Any) -> None:
    await command(pilot, "/thinking")


SCENES = [
    Scene("cmd_model_picker", (120, 36), model_picker),
    Scene("cmd_settings", (120, 36), settings),
    Scene("cmd_hotkeys", (120, 48), hotkeys),
    Scene("cmd_compaction", (120, 36), compaction),
    Scene("cmd_fork_picker", (120, 36), fork_picker),
    Scene("cmd_login", (120, 30), login),
    Scene("cmd_login_api_key", (120, 30), login_api_key),
    Scene("cmd_scoped_models", (120, 36), scoped_models),
    Scene("cmd_search", (120, 36), search),
    Scene("cmd_thinking", (100, 30), thinking),
    Scene("cmd_mcp", (110, 30), mcp),
    Scene("cmd_extensions", (100, 26), extension_ui),
    Scene("cmd_virtual_model", (120, 30), virtual_model),
]


async def capture(scene: Scene) -> str:
    """Run ``scene`` headless and return its SVG."""
    app, _ = make_app(scene)
    async with app.run_test(size=scene.size) as pilot:
        await pilot.pause()
        await scene.prepare(pilot)
        svg = app.export_screenshot(title=f"pi — {scene.name}")
    return svg


def main(argv: list[str] | None = None) -> int:
    render_scenes(argv, SCENES, capture, __doc__)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    raise SystemExit(main())
