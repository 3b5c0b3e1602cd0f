"""Cost of extension handlers on the hottest event: ``message_update`` for every streamed delta.

Streams one long scripted answer (``deltas`` deltas of 8 characters) through a real session three
times: without extensions, with a sync ``message_update`` handler, with an async one. Prints the
wall time per delta of each and what a handler adds per delta.

    .venv/bin/python bench/extension_dispatch.py [deltas]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text
from pi_runtime.sdk import create_agent_session
from pi_runtime.session.manager import SessionManager
from pi_runtime.settings import SettingsManager

HANDLERS = {
    "none": None,
    "sync handler": "def extension(pi):\n    n = [0]\n    pi.on('message_update', lambda e, ctx: n.append(1))\n",
    "async handler": textwrap.dedent("""
        def extension(pi):
            n = [0]
            async def on_update(event, ctx):
                n.append(1)
            pi.on("message_update", on_update)
    """),
}


async def run(deltas: int) -> None:
    folder = Path(tempfile.mkdtemp())
    results: dict[str, float] = {}
    for label, source in HANDLERS.items():
        paths = []
        if source is not None:
            path = folder / f"ext_{len(results)}.py"
            path.write_text(source)
            paths.append(str(path))
        provider = ScriptedProvider(f"bench-{len(results)}")
        provider.push(scripted_text("x" * (8 * deltas)))
        session = create_agent_session(
            cwd=str(folder), agent_dir=str(folder), model=provider.model(), extensions=paths,
            session_manager=SessionManager.in_memory(str(folder)),
            settings=SettingsManager.in_memory({"compaction": {"enabled": False}}),
        )
        if session.extension_runner is not None:
            await session.extension_runner.start()
        started = time.perf_counter()
        await session.prompt("go")
        results[label] = (time.perf_counter() - started) / deltas * 1e6
        session.session_manager.close()
    base = results["none"]
    print(f"deltas                    {deltas}")
    for label, per in results.items():
        extra = "" if label == "none" else f"  (+{per - base:.1f} µs per delta)"
        print(f"{label:<25} {per:7.1f} µs per delta{extra}")


if __name__ == "__main__":
    asyncio.run(run(int(sys.argv[1]) if len(sys.argv) > 1 else 20000))
