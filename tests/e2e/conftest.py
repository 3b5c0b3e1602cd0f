"""Fixtures for the end-to-end tests; the helpers live in e2e_support (a unique module name,
so imports do not collide with other folders' conftest modules)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import *  # noqa: F403
from e2e_support import LoopbackServer


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


@pytest.fixture
def loopback(server: LoopbackServer) -> LoopbackServer:
    """The module's server with no leftover replies or recorded requests."""
    with server._lock:
        server.replies.clear()
    server.requests.clear()
    server.responder = None
    return server


@pytest.fixture
def env(tmp_path: Path, loopback: LoopbackServer) -> dict[str, str]:
    """Environment for a pi subprocess: temp agent dir and home, no real API keys."""
    agent = tmp_path / "agent"
    agent.mkdir()
    models = {"providers": {"loop": {
        "baseUrl": loopback.url + "/v1", "api": "openai-completions", "apiKey": "loop-key",
        "models": [
            {"id": "loop-model", "name": "Loop Model", "input": ["text", "image"],
             "contextWindow": 128000, "maxTokens": 4096},
            {"id": "loop-reasoner", "name": "Loop Reasoner", "reasoning": True,
             "contextWindow": 128000, "maxTokens": 4096},
        ],
    }}}
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    settings = {"retry": {"baseDelayMs": 20, "maxDelayMs": 200, "maxRetries": 2},
                "defaultProvider": "loop", "defaultModel": "loop-model"}
    (agent / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    from pi_runtime.ai.env_keys import ENV_KEYS

    credentials = {name for names in ENV_KEYS.values() for name in names}
    out = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("PI_") and k not in credentials}
    out.update({"PI_CODING_AGENT_DIR": str(agent), "HOME": str(home), "PI_TEST_PROJECT": str(project),
                "PYTHONDONTWRITEBYTECODE": "1"})
    return out


@pytest.fixture
def terminal(env: dict[str, str]) -> Iterator[Any]:
    """``terminal(*args)`` starts the installed pi on a pseudo-terminal (``test_interactive_pty.Terminal``);
    every one started is closed after the test."""
    from test_interactive_pty import Terminal

    opened: list[Terminal] = []

    def start(*args: str) -> Terminal:
        term = Terminal(list(args), env)
        opened.append(term)
        return term

    yield start
    for term in opened:
        term.close()
