"""Codemode speed: what a script adds over the tool call it makes, and 100 parallel reads beside Pi.

1. Warm overhead: ``return await tools.read({path})`` through ``execute_codemode`` (worker already
   started) against the same ``read`` called directly; median of the runs, milliseconds.
2. 100 parallel ``tools.read`` calls in one script, run by the installed ``pi`` and, when
   ``PI_REFERENCE`` names Pi's ``pi``, by Pi 1.6 on the same loopback model: the codemode call's
   ``durationMs`` from each session file (first run and median of the rest).

    .venv/bin/python bench/codemode.py [runs]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pi_runtime.agent.tool import ToolResult
from pi_runtime.codemode.pool import shared_pool
from pi_runtime.codemode.run import execute_codemode
from pi_runtime.tools.read import ReadParams, ReadTool

HERE = Path(__file__).resolve().parent
PARALLEL = 'const names = Array.from({ length: 100 }, (_, i) => "f" + i + ".txt");\n' \
           "const texts = await Promise.all(names.map((path) => tools.read({ path })));\n" \
           "return texts.join('').length;"


async def warm_overhead(runs: int) -> tuple[float, float]:
    folder = tempfile.mkdtemp()
    Path(folder, "a.txt").write_text("alpha\n" * 50)
    read = ReadTool(folder)

    async def execute_tool(name: str, args: dict, signal=None):
        from pi_runtime.extensions.nested import NestedToolResult

        result: ToolResult = await read.execute("c", ReadParams.model_validate(args), signal, None)
        return NestedToolResult(result.content, result.details, result.is_error, result.structured_content)

    async def script() -> None:
        result = await execute_codemode("c1", 'return await tools.read({ path: "a.txt" })', signal=None,
                                        on_update=None, callable_=[read], guidelines=lambda _n: (),
                                        execute_tool=execute_tool, branch=[], append_store=lambda _d: None)
        assert not result.is_error, result.content

    await script()  # starts the worker
    direct, scripted = [], []
    for _ in range(runs):
        started = time.perf_counter()
        await read.execute("c", ReadParams(path="a.txt"), None, None)
        direct.append(time.perf_counter() - started)
        started = time.perf_counter()
        await script()
        scripted.append(time.perf_counter() - started)
    await shared_pool().close()
    return statistics.median(direct) * 1000, statistics.median(scripted) * 1000


def parallel_reads(binary: str, runs: int) -> list[int]:
    sys.path.insert(0, str(HERE.parent / "tests" / "e2e"))
    import pi_side_by_side as sbs

    files = {f"f{i}.txt": f"file {i}\n" * 20 for i in range(100)}
    durations = []
    for _ in range(runs):
        scene = sbs.Scenario("parallel", sbs.tool_then_answer("codemode", {"code": PARALLEL}), files=files,
                             extra_args=("--tools", "+codemode"))
        run = sbs.run(binary, scene, Path(tempfile.mkdtemp()))
        result = next(e["message"] for e in run.entries
                      if e.get("type") == "message" and e["message"].get("role") == "toolResult")
        assert not result.get("isError"), result["content"]
        durations.append(int(result["durationMs"]))
    return durations


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    direct, scripted = asyncio.run(warm_overhead(runs))
    print(f"warm script with one tools.read: {scripted:.2f} ms; the read itself: {direct:.2f} ms; "
          f"added: {scripted - direct:.2f} ms (median of {runs})")
    binaries = [("pi", str(Path(sys.executable).parent / "pi"))]
    reference = os.environ.get("PI_REFERENCE")
    if reference:
        os.environ["PATH"] = f"{Path(reference).parent.parent / 'node' / 'bin'}:{os.environ['PATH']}"
        binaries.append(("Pi 1.6", reference))
    for label, binary in binaries:
        durations = parallel_reads(binary, max(3, runs // 6))
        print(f"100 parallel tools.read, {label}: first {durations[0]} ms, then median "
              f"{statistics.median(durations[1:]):.0f} ms (codemode call durationMs, {len(durations)} runs)")


if __name__ == "__main__":
    main()
