"""A kernel built the SDK way, on the scripted provider, in temp folders."""

from __future__ import annotations

import itertools

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
def make_session(agent_dir, workdir, tmp_path):
    created = []

    def make(*, settings=None, persist=True, provider=None, model=None, **kwargs):
        provider = provider or ScriptedProvider(f"kernel-{next(_names)}")
        base = {"retry": {"baseDelayMs": 20, "maxDelayMs": 200}, "compaction": {"enabled": False}}
        for key, value in (settings or {}).items():
            base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) else value
        manager = (
            SessionManager.create(str(workdir), tmp_path / "sessions") if persist else SessionManager.in_memory(str(workdir))
        )
        session = create_agent_session(
            cwd=str(workdir),
            agent_dir=str(agent_dir),
            model=model or provider.model(),
            session_manager=manager,
            settings=SettingsManager.in_memory(base),
            **kwargs,
        )
        session.provider = provider  # test convenience: the script behind this session
        created.append(session)
        return session

    yield make
    for session in created:
        session.session_manager.close()


def record(session):
    events = []
    session.subscribe(lambda e: events.append(e))
    return events


def types(events):
    out = []
    for e in events:
        if e.type == "message_update" and out and out[-1] == "message_update":
            continue
        label = e.type
        if e.type in ("message_start", "message_end"):
            label += ":" + e.message.role
        out.append(label)
    return out


def chat(session):
    """The transcript without the leading system message (Pi 1.6 records one per session)."""
    return [m for m in session.messages if m.role != "system"]
