"""Benchmark: the auto-compaction threshold check before the first prompt of a resumed session.

Writes sessions of 0, 2,000 and 20,000 messages (question/answer pairs, every answer with its
usage), opens each as a resume does (the stored messages stay wire dicts until something needs
them as objects) and times, in CPU on this thread, the check the kernel runs before each prompt
(``kernel.compactor._tokens_after_answer``, the figure Pi's ``_checkCompaction`` reads). In the
app it runs on the event loop, between Enter and the request. Compare two trees by running
each one's copy.

Run: ``.venv/bin/python bench/threshold_check_resumed.py``. Asserts nothing.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def answer(i: int) -> dict[str, Any]:
    usage = {"input": 5, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    return {"role": "assistant", "content": [{"type": "text", "text": f"answer {i} " * 20}], "api": "openai-completions",
            "provider": "lab", "model": "m1", "usage": usage, "stopReason": "stop", "timestamp": i}


def one_size(messages: int, agent_dir: str) -> str:
    from pi_runtime.ai.types import Model
    from pi_runtime.kernel.compactor import _tokens_after_answer
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    folder = tempfile.mkdtemp(prefix="pi-bench-threshold-")
    manager = SessionManager.create(folder, folder + "/sessions")
    for i in range(messages // 2):
        manager.append_message({"role": "user", "content": f"question {i}", "timestamp": i})
        manager.append_message(answer(i))
    path = manager.session_file
    manager.close()
    model = Model.model_validate({"id": "m1", "api": "openai-completions", "provider": "lab",
                                  "baseUrl": "http://127.0.0.1:9/v1"})
    opened = SessionManager.open(path) if path else SessionManager.in_memory()
    session = create_agent_session(cwd=folder, agent_dir=agent_dir, model=model, session_manager=opened,
                                   no_extensions=True, settings=SettingsManager.in_memory({}))
    start = time.thread_time()
    _tokens_after_answer(session.agent.state.messages, session.session_manager, include_aborted=True)
    spent = time.thread_time() - start
    session.session_manager.close()
    return f"{messages:6d} stored messages: {1000 * spent:8.2f} ms CPU"


def main() -> None:
    agent_dir = tempfile.mkdtemp(prefix="pi-bench-agent-")
    os.environ["PI_CODING_AGENT_DIR"] = agent_dir
    print(f"threshold check before a resumed session's first prompt (pi_runtime from {ROOT}):")
    for messages in (0, 2_000, 20_000):
        print(" ", one_size(messages, agent_dir))


if __name__ == "__main__":
    main()
