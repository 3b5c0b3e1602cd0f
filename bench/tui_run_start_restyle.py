"""Benchmark: what a run's start or end costs the transcript (its scrollbar hides while a run is followed).

Opens the app (120x40, static) on an in-memory session holding N question/answer pairs, then
switches the transcript between "a run is streaming" and "idle" 20 times, each followed by the
frame it causes, and prints the median CPU time (``time.thread_time``: the app runs on this
thread) of one switch with its frame, for N = 0, 20 and 200 (the transcript mounts a window of
the latest blocks, so the node count levels off). Compare two trees by running each one's copy.

Run: ``.venv/bin/python bench/tui_run_start_restyle.py``. Asserts nothing.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SWITCHES = 20


async def one_size(pairs: int) -> str:
    from pi_runtime.ai.providers.scripted import ScriptedProvider
    from pi_runtime.ai.types import AssistantMessage, TextContent, UserMessage
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session import SessionManager
    from pi_runtime.settings import SettingsManager
    from pi_tui.launch import create_app

    provider = ScriptedProvider("bench")
    manager = SessionManager.in_memory()
    for i in range(pairs):
        manager.append_message(UserMessage(content=f"question {i}"))
        text = f"answer **{i}** with `code` and some words " * 5
        manager.append_message(AssistantMessage(content=[TextContent(text=text)], provider="bench", model="bench",
                                                api="scripted", stop_reason="stop"))
    session = create_agent_session(cwd=tempfile.mkdtemp(), model=provider.model(), session_manager=manager,
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
    app = create_app(session, static=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(20):  # the start-up's workers and frames
            await pilot.pause()
        transcript = app.transcript
        nodes = len(list(transcript.walk_children()))
        costs = []
        for k in range(SWITCHES):
            start = time.thread_time()
            transcript.set_streaming(k % 2 == 0)
            await pilot.pause()
            costs.append(time.thread_time() - start)
    await session.dispose()
    return f"{pairs:4d} pairs ({nodes:3d} nodes below the transcript): {1000 * statistics.median(costs):6.2f} ms CPU"


def main() -> None:
    os.environ["PI_CODING_AGENT_DIR"] = tempfile.mkdtemp(prefix="pi-bench-agent-")
    print(f"a run's start or end with its frame, median of {SWITCHES} (pi_tui from {ROOT}):")
    for pairs in (0, 20, 200):
        print(" ", asyncio.run(one_size(pairs)))


if __name__ == "__main__":
    main()
