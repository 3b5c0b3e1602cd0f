"""Fixtures: a real ``AgentSession`` on the scripted provider, and the app built by the
same factory as the CLI (``pi_tui.launch.create_app``)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider
from pi_runtime.ai.types import Usage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager

_names = itertools.count()
FIXED_USAGE = Usage(input=1200, output=300, cache_read=0, cache_write=0)


@pytest.fixture
def agent_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "agent"
    folder.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder))
    return folder


@pytest.fixture
def workdir(tmp_path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider(f"tui-test-{next(_names)}")


def make_session(provider: ScriptedProvider, cwd: Path, **kwargs):
    return create_agent_session(
        cwd=str(cwd),
        model=provider.model(),
        session_manager=SessionManager.in_memory(),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}}),
        **kwargs,
    )


@pytest.fixture
def session(provider, workdir, agent_dir):
    return make_session(provider, workdir)


def keyless_session(workdir: Path, agent_dir: Path, monkeypatch):
    """A session on the default model with no API key anywhere (the first-run guide shows)."""
    from pi_runtime.ai.env_keys import ENV_KEYS

    for names in ENV_KEYS.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)
    return create_agent_session(cwd=str(workdir), agent_dir=str(agent_dir), session_manager=SessionManager.in_memory(),
                                settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))


def screen_text(app) -> str:
    """Everything visible on the current screen, as plain text (from Textual's SVG export)."""
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def wait_for(pilot, check, timeout: float = 20.0) -> bool:
    """Poll ``check`` while the app runs; True once it holds (a deadline, not a fixed sleep)."""
    for _ in range(int(timeout / 0.1)):
        if check():
            return True
        await pilot.pause(0.1)
    return check()


async def settle(pilot, session, extra: float = 0.15) -> None:
    """Wait until the kernel is idle and the UI has drawn its frames."""
    await session.wait_for_idle()
    await pilot.pause(extra)
    await pilot.pause()


os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
