"""Sessions built with create_agent_session + the scripted provider, extensions loaded from temp files."""

from __future__ import annotations

import itertools
import textwrap

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider
from pi_runtime.sdk import create_agent_session
from pi_runtime.session.manager import SessionManager
from pi_runtime.settings import SettingsManager

_names = itertools.count()


@pytest.fixture
def agent_dir(tmp_path, monkeypatch):
    path = tmp_path / "agent"
    path.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(path))
    return path


@pytest.fixture
def workdir(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def write_ext(tmp_path):
    """Write an extension module (source dedented) and return its path."""
    folder = tmp_path / "exts"
    folder.mkdir()

    def write(name: str, source: str) -> str:
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        return str(path)

    return write


@pytest.fixture
def make_session(agent_dir, workdir, tmp_path):
    created = []

    def make(*, extensions=(), settings=None, persist=False, provider=None, **kwargs):
        provider = provider or ScriptedProvider(f"ext-{next(_names)}")
        base = {"retry": {"enabled": False}, "compaction": {"enabled": False}}
        base.update(settings or {})
        manager = kwargs.pop("session_manager", None) or (
            SessionManager.create(str(workdir), tmp_path / "sessions") if persist
            else SessionManager.in_memory(str(workdir))
        )
        session = create_agent_session(
            cwd=str(workdir), agent_dir=str(agent_dir), model=provider.model(), session_manager=manager,
            settings=SettingsManager.in_memory(base), extensions=list(extensions), **kwargs,
        )
        session.provider = provider
        session.events = []
        session.subscribe(session.events.append)
        created.append(session)
        return session

    yield make
    for session in created:
        session.session_manager.close()


class AnsweringUI:
    """A front end that answers every dialog from a script and records what it was asked."""

    has_ui = True

    def __init__(self, confirm=True, select=None, text=None):
        self.answer_confirm = confirm
        self.answer_select = select
        self.answer_text = text
        self.asked: list[tuple[str, str]] = []
        self.notifications: list[tuple[str, str]] = []
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, list[str]] = {}

    def notify(self, message, level="info"):
        self.notifications.append((level, message))

    async def select(self, title, options, *, timeout=None):
        self.asked.append(("select", title))
        return self.answer_select

    async def confirm(self, title, message="", *, timeout=None):
        self.asked.append(("confirm", f"{title}: {message}"))
        return self.answer_confirm

    async def input(self, title, placeholder=None, *, timeout=None):
        self.asked.append(("input", title))
        return self.answer_text

    async def editor(self, title, prefill=None):
        self.asked.append(("editor", title))
        return self.answer_text

    def set_status(self, key, text):
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text

    def set_widget(self, key, lines, *, placement="aboveEditor"):
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = list(lines)


def errors(session):
    """The extension_error events a session emitted, as wire dicts."""
    return [e.to_wire() for e in session.events if e.type == "extension_error"]


def module_of(path):
    """The module object a loaded extension file runs in (to read what it recorded)."""
    import sys

    return next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == path)
