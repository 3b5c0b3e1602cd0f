"""Benchmark: the cost of declaring tool/prompt changes at each turn of a run on a long session.

Pi 1.6 checks before every model request whether the executable tools or the prompt sections
differ from what the transcript declared, and records a system message when they do. This
resumes a 20,000-message session (the file ``bench/session_open.py`` writes), then runs one
prompt of ``--turns`` tool-call turns on the scripted provider (instant replies, the ``ls`` tool
on an empty folder), twice: the first run also validates the stored messages, the second shows
the steady state. Halfway through the second run a tool is added (what an extension's
``register_tool`` does), so one declaration is actually written. Prints the wall time per turn
of each run, the time each declaration check took, what one full replay of the transcript costs
(what every check would cost without the running record) and how many system messages the
transcript holds at the end.

Usage: python bench/turn_declarations.py [--messages N] [--turns T]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


async def main(messages: int, turns: int) -> None:
    from session_open import generate

    from pi_runtime.agent.tool import FunctionTool, ToolParams, ToolResult
    from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text, scripted_tool_call
    from pi_runtime.kernel.tool_declarations import DeclaredLoadout
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    tmp = Path(tempfile.mkdtemp(prefix="pi-bench-decl-"))
    (tmp / "agent").mkdir()
    (tmp / "project").mkdir()
    path = tmp / "long.jsonl"
    generate(path, messages)
    provider = ScriptedProvider("bench-declarations")
    session = create_agent_session(
        cwd=str(tmp / "project"), agent_dir=str(tmp / "agent"), model=provider.model(),
        session_manager=SessionManager.open(path),
        settings=SettingsManager.in_memory({"compaction": {"enabled": False}}),
    )

    async def late(call_id, params, signal, on_update):
        return ToolResult.text("late")

    registered = False

    def register_halfway(event) -> None:
        # What an extension's register_tool does to the session: one more tool, a rebuilt prompt.
        nonlocal registered
        if event.type == "turn_end" and not registered and len(provider.requests) >= turns + 1 + turns // 2:
            registered = True
            tools = session.agent.state.tools
            session.agent.state.tools = [*tools, FunctionTool("late", "Registered mid-run", ToolParams, late)]
            session.refresh_system_prompt()

    declare = getattr(session.agent, "declare_loadout", None)  # None before the per-request check existed
    spent = [0.0, 0]
    each: list[float] = []

    def timed_declare(pending: list) -> list:
        started = time.perf_counter()
        try:
            return declare(pending) if declare is not None else pending
        finally:
            each.append(time.perf_counter() - started)
            spent[0] += each[-1]
            spent[1] += 1

    session.agent.declare_loadout = timed_declare
    for run, label in ((1, "first run (validates the stored part)"), (2, "second run (steady state)")):
        for _ in range(turns):
            provider.push(scripted_tool_call("ls", {"path": "."}))
        provider.push(scripted_text("done"))
        if run == 2:
            session.subscribe(register_halfway)
        started = time.perf_counter()
        await session.prompt(f"run {run}")
        await session.wait_for_idle()
        wall = time.perf_counter() - started
        print(f"{label:40s} {wall * 1000 / (turns + 1):7.2f} ms/turn over {turns + 1} turns")
    each.sort()
    if each:
        print(f"declaration checks                       {spent[1]}: median {each[len(each) // 2] * 1e6:.0f} µs,"
              f" max {each[-1] * 1000:.2f} ms, total {spent[0] * 1000:.1f} ms")
    else:
        print("declaration checks                       none (this tree declares only at a run's start)")
    replay = DeclaredLoadout()
    started = time.perf_counter()
    replay.read(session.agent.state.messages)
    print(f"one full replay of the transcript        {(time.perf_counter() - started) * 1000:.2f} ms"
          f" ({len(session.agent.state.messages)} messages; what each check would cost without the record)")
    systems = sum(1 for m in session.agent.state.messages if getattr(m, "role", None) == "system")
    print(f"system messages in the transcript        {systems}")
    session.session_manager.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(main(args.messages, args.turns))
