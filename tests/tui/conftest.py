"""Fixtures: a real ``AgentSession`` on the scripted provider, and the app built by the
same factory as the CLI (``pi_tui.launch.create_app``)."""

from __future__ import annotations

import itertools
import os
import time
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
    """Poll ``check`` while the app runs; True once it holds (a deadline, not a fixed sleep).

    Each round lets the app handle what is pending (``pilot.pause()`` with no delay: the screen's
    messages, then a moment of CPU idle), so the check runs as soon as the app has moved on.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        await pilot.pause()
    return bool(check())


async def workers_done(pilot, timeout: float = 20.0) -> None:
    """Harlequin's ``wait_for_workers``: let pending messages run, wait for every worker the app has
    then (start-up's extensions, a command, a completion fetch), and let what they posted run."""
    import asyncio

    deadline = time.monotonic() + timeout
    while True:
        await pilot.pause()
        running = [w for w in pilot.app.workers if not w.is_finished]
        if not running:
            break
        try:  # then again: a worker may have started another (start-up's Markdown warm-up)
            await asyncio.wait_for(pilot.app.workers.wait_for_complete(running), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            names = [w.name for w in running if not w.is_finished]
            raise AssertionError(f"workers still running after {timeout} s: {names}") from None
    await caught_up(pilot)  # and the kernel events they caused


started = workers_done
"""Right after ``run_test`` starts: the session is attached and its extensions have started."""


async def caught_up(pilot) -> None:
    """Wait until the app has taken every kernel event of every open session, and handled them."""
    app = pilot.app
    bridges = [entry.bridge for entry in app.workspace.sessions] or [app.bridge]
    assert await wait_for(pilot, lambda: all(b is None or b.idle for b in bridges)), "kernel events never handled"
    await pilot.pause()


async def settle(pilot, session) -> None:
    """Wait until the kernel is idle and the app has handled (and drawn) everything it sent."""
    await session.wait_for_idle()
    await caught_up(pilot)


os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
