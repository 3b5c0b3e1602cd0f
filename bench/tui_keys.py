"""Benchmark: 3,007 characters arriving as separate keys (pi and Pi 1.6 in one run).

A paste from a terminal without bracketed paste, a key macro, or ``tmux send-keys -l``: the
program gets thousands of plain keys in a burst. Each program runs alone in a 120x40 tmux pane
on the same loopback model; once its start-up has settled, ``tmux send-keys -l`` types 3,007
characters (words, ending in a marker), and the bench polls the pane until the marker is on
screen: when the last key has reached the editor. Then Enter sends the text and the request at
the server must hold every character, in order ("text intact").

Figures: seconds from ``send-keys`` to the marker on screen, median/min/max over ``--runs``.

Run: ``.venv/bin/python bench/tui_keys.py [--runs 3] [--only pi|Pi] [--chars 3007]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from side_by_side import TmuxPane, compile_bytecode, load, loop_home, programs

from pi_runtime.testing.loopback import LoopbackServer, RecordedRequest, Reply

MARKER = "QZXEND"


def typed_text(chars: int) -> str:
    words = ["the", "agent", "reads", "files", "edits", "code", "runs", "tests", "and", "reports", "what", "changed", "in", "each", "step"]
    text, i = "", 0
    while len(text) < chars - len(MARKER) - 1:
        text += words[i % len(words)] + " "
        i += 1
    return text[:chars - len(MARKER) - 1] + " " + MARKER


def reply(_request: RecordedRequest) -> Reply:
    chunk = {"id": "k", "object": "chat.completion.chunk", "model": "m1",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
    return Reply.sse([chunk, "[DONE]"])


def sent_text(request: RecordedRequest) -> str:
    users = [m for m in (request.json() or {}).get("messages", []) if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def one_run(program, server: LoopbackServer, text: str) -> tuple[float | None, bool]:
    root = loop_home(server.url)
    pane = TmuxPane(program, root)
    try:
        if pane.wait_for("(auto)", timeout=30) is None:  # the footer's context figure: started
            return None, False
        time.sleep(1.5)  # let start-up work (extensions, warm-ups, terminal checks) finish
        sent = pane.type_literal(text)
        shown = pane.wait_for(MARKER, timeout=60)
        took = shown - sent if shown is not None else None
        before = len(server.requests)
        pane.press("Enter")
        deadline = time.perf_counter() + 15
        while len(server.requests) == before and time.perf_counter() < deadline:
            time.sleep(0.02)
        intact = len(server.requests) > before and sent_text(server.requests[-1]) == text
        return took, intact
    finally:
        pane.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chars", type=int, default=3007)
    parser.add_argument("--only", choices=("pi", "Pi"))
    parser.add_argument("--reference", help="the real Pi's pi executable")
    args = parser.parse_args()
    compile_bytecode()
    text = typed_text(args.chars)
    print(f"{len(text):,} characters typed with tmux send-keys -l; {load()}")
    with LoopbackServer(reply) as server:
        for program in programs(args.reference, args.only):
            results = [one_run(program, server, text) for _ in range(args.runs)]
            times = [t for t, _ in results if t is not None]
            intact = sum(ok for _, ok in results)
            if times:
                print(f"{program.name:<7} all keys in the editor: median {statistics.median(times):.3f}s  "
                      f"min {min(times):.3f}s  max {max(times):.3f}s  (text intact in {intact}/{len(results)} runs)")
            else:
                print(f"{program.name:<7} the last key never reached the screen")
    print(load())


if __name__ == "__main__":
    main()
