"""Benchmark: one ``edit`` near the end of a 10 MB file (exact match, and a forgiving match).

Run: ``.venv/bin/python bench/edit_10mb.py``. Prints wall and CPU time per case; no
assertions — speed is measured here, not in tests.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pi_runtime.tools import EditTool

LINES = 250_000  # ~10 MB with the padding below


def make_file(path: str, crlf: bool) -> int:
    ending = "\r\n" if crlf else "\n"
    body = ending.join(f"line {i:06d} " + "lorem ipsum dolor sit amet " for i in range(LINES)) + ending
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(body)
    return os.path.getsize(path)


async def one_edit(tool: EditTool, old: str, new: str) -> tuple[float, float, str]:
    params = tool.Params.model_validate({"path": "big.txt", "edits": [{"oldText": old, "newText": new}]})
    wall, cpu = time.perf_counter(), time.process_time()
    result = await tool.execute("bench", params, None, None)
    return time.perf_counter() - wall, time.process_time() - cpu, result.content[0].text


async def main() -> None:
    target = LINES - 10
    cases = [
        ("exact, LF", False, f"line {target:06d} lorem", f"LINE {target:06d} lorem"),
        ("exact, CRLF", True, f"line {target:06d} lorem ipsum dolor sit amet \nline {target + 1:06d}",
         f"edited {target:06d}\nline {target + 1:06d}"),
        ("fuzzy (smart quotes), LF", False, f"line {target:06d} lorem \u2018ipsum\u2019", "replaced"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        tool = EditTool(tmp)
        path = os.path.join(tmp, "big.txt")
        for label, crlf, old, new in cases:
            size = make_file(path, crlf)
            if "fuzzy" in label:
                # Make the file contain ASCII quotes so only the forgiving match finds it.
                with open(path, encoding="utf-8", newline="") as fh:
                    data = fh.read().replace(f"line {target:06d} lorem ipsum", f"line {target:06d} lorem 'ipsum'")
                with open(path, "w", encoding="utf-8", newline="") as fh:
                    fh.write(data)
            wall, cpu, text = await one_edit(tool, old, new)
            print(f"{label:28s} file {size / 1e6:5.1f} MB  wall {wall * 1000:7.1f} ms  cpu {cpu * 1000:7.1f} ms  -> {text}")


if __name__ == "__main__":
    asyncio.run(main())
