"""A session resumed from a file, its model (``lab/m1``, openai-completions) answered once with
"fine" by a loopback server: what the resume tests send and check."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pi_runtime.ai.types import Model


@contextmanager
def resumed_on_loopback(tmp_path: Path, session_file: Path | str, settings: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    """``(server, session)``: ``session_file`` opened with ``settings``; the session is closed after."""
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager
    from pi_runtime.testing.loopback import LoopbackServer, Reply

    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m1",
             "choices": [{"index": 0, "delta": {"content": "fine"}, "finish_reason": "stop"}]}
    with LoopbackServer() as server:
        server.push(Reply.sse([chunk, "[DONE]"]))
        target = Model.model_validate({"id": "m1", "api": "openai-completions", "provider": "lab",
                                       "baseUrl": server.url + "/v1", "input": ["text", "image"]})
        session = create_agent_session(
            cwd=str(tmp_path), agent_dir=str(tmp_path / "agent"), model=target,
            session_manager=SessionManager.open(session_file), no_extensions=True,
            settings=SettingsManager.in_memory(settings))
        try:
            yield server, session
        finally:
            session.session_manager.close()
