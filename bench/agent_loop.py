"""Agent-loop overhead: a 200-turn scripted session with one bash call per turn.

Prints the wall time, the time spent inside the bash tool, and the loop's own overhead per
turn (wall minus tool time, divided by turns). The scripted provider streams instantly, so
what remains is the loop: events, validation, tool dispatch, context building.

    .venv/bin/python bench/agent_loop.py [turns]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time

from pi_runtime.agent.agent import Agent
from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text, scripted_tool_call
from pi_runtime.tools import create_coding_tools


async def run(turns: int) -> None:
    provider = ScriptedProvider("bench-loop")
    for i in range(turns):
        provider.push(scripted_tool_call("bash", {"command": f"echo turn {i}"}, text=f"Step {i}: running a command."))
    provider.push(scripted_text("All done."))
    cwd = tempfile.mkdtemp()
    agent = Agent(provider.model(), tools=create_coding_tools(cwd))
    tool_time = 0.0
    starts: dict[str, float] = {}
    events = 0

    def listener(event) -> None:
        nonlocal tool_time, events
        events += 1
        if event.type == "tool_execution_start":
            starts[event.tool_call_id] = time.perf_counter()
        elif event.type == "tool_execution_end":
            tool_time += time.perf_counter() - starts.pop(event.tool_call_id)

    agent.subscribe(listener)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await agent.prompt("Run the commands.")
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    assert len([m for m in agent.state.messages if m.role == "toolResult"]) == turns
    overhead = (wall - tool_time) / turns * 1000
    print(f"turns                 {turns}")
    print(f"events                {events}")
    print(f"wall                  {wall:.3f} s")
    print(f"process CPU           {cpu:.3f} s (bash children not included)")
    print(f"inside bash tool      {tool_time:.3f} s")
    print(f"loop overhead / turn  {overhead:.2f} ms (target < 2 ms)")


if __name__ == "__main__":
    asyncio.run(run(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
