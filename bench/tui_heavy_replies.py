"""Benchmark: three heavy moments side by side (pi and Pi 1.6 in one run).

- ``tools``: the model answers with 200 ``read`` tool calls at once, then (given their results) a
  line of text: Enter until that line is on screen (the 200 calls drawn, run and answered);
- ``fence``: the model streams a 20,000-line code fence as fast as the server sends it: Enter
  until its last line is on screen, beside the server's own send time (a bare socket reading it);
- ``paste``: a 2,000-line bracketed paste: until the editor shows its placeholder
  (``[paste #1 +2000 lines]`` in both).

Each program runs on a 120x40 pseudo-terminal answering its start-up queries, on a loopback
model in a child process (``side_by_side``). Medians over ``--runs``.

Run: ``.venv/bin/python bench/tui_heavy_replies.py [--runs 3] [--only pi|Pi] [--case tools|fence|paste]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from side_by_side import Program, PtyTerminal, RemoteServer, compile_bytecode, load, loop_home, programs

from pi_runtime.testing.loopback import Reply

TOOL_CALLS = 200
FENCE_LINES = 20_000
PASTE_LINES = 2_000
DONE = "ALLDONEMARK"


def _chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "h", "object": "chat.completion.chunk", "model": "m1",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def tool_calls_reply() -> Reply:
    calls = [_chunk({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                     "function": {"name": "read", "arguments": '{"path": "notes.txt"}'}}]})
             for i in range(TOOL_CALLS)]
    return Reply.sse([_chunk({"role": "assistant", "content": ""}), *calls, _chunk({}, "tool_calls"), "[DONE]"])


def text_reply(text: str, piece: int = 400) -> Reply:
    pieces = [_chunk({"content": text[i:i + piece]}) for i in range(0, len(text), piece)]
    return Reply.sse([_chunk({"role": "assistant", "content": ""}), *pieces, _chunk({}, "stop"), "[DONE]"])


def fence_text() -> str:
    body = "".join(f"def step_{i}(x):  # line {i}\n" for i in range(FENCE_LINES - 1))
    return f"```python\n{body}last_line = {FENCE_LINES}\n```\n\n{DONE}"


def send_time(url: str) -> float:
    """The server's own pace for the reply pushed last: first byte to the last, on a bare socket."""
    import socket
    import time
    from urllib.parse import urlsplit

    where = urlsplit(url)
    body = b'{"model":"m1","stream":true,"messages":[{"role":"user","content":"go"}]}'
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    with socket.create_connection((where.hostname, where.port)) as sock:
        sock.sendall(head + body)
        first = None
        while chunk := sock.recv(1 << 16):
            first = first or time.perf_counter()
            if b"[DONE]" in chunk:
                break
        return time.perf_counter() - (first or time.perf_counter())


def started(program: Program, server: RemoteServer) -> PtyTerminal | None:
    root = loop_home(server.url)
    (root / "project" / "notes.txt").write_text("a short file\n" * 5, encoding="utf-8")
    term = PtyTerminal(program, root)
    if term.wait_for(program.version_mark, 30) is None or term.wait_for(b"m1", 30) is None:
        term.close()
        return None
    term.settle(0.5)
    return term


def run_case(case: str, program: Program, server: RemoteServer) -> float | None:
    term = started(program, server)
    if term is None:
        return None
    try:
        if case == "paste":
            text = "".join(f"pasted line {i}\n" for i in range(PASTE_LINES - 1)) + "last pasted line"
            mark = b"+2000 lines]"
            since = len(term.output)
            sent = term.type(b"\x1b[200~" + text.encode() + b"\x1b[201~")
            seen = term.wait_for(mark, 30, since=since)
            return seen - sent if seen is not None else None
        if case == "tools":
            server.push(tool_calls_reply())
            server.push(text_reply(f"Read them all. {DONE}"))
        else:
            server.push(text_reply(fence_text()))
        since = len(term.output)
        sent = term.type(b"go\r")
        seen = term.wait_for(DONE.encode(), 120, since=since)
        return seen - sent if seen is not None else None
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=("pi", "Pi"))
    parser.add_argument("--case", choices=("tools", "fence", "paste"), action="append")
    parser.add_argument("--reference", help="the real Pi's pi executable")
    args = parser.parse_args()
    compile_bytecode()
    print(load())
    cases = args.case or ["tools", "fence", "paste"]
    with RemoteServer() as server:
        if "fence" in cases:
            server.push(text_reply(fence_text()))
            print(f"fence: the server sends {FENCE_LINES:,} lines in {send_time(server.url):.2f}s (bare socket)")
        for case in cases:
            for program in programs(args.reference, args.only):
                times = [t for t in (run_case(case, program, server) for _ in range(args.runs)) if t is not None]
                label = {"tools": f"{TOOL_CALLS} tool calls, run and answered", "fence": f"{FENCE_LINES:,}-line fence's end",
                         "paste": f"{PASTE_LINES:,}-line paste's placeholder"}[case]
                if times:
                    print(f"{program.name:<7} {label}: median {statistics.median(times):.3f}s  min {min(times):.3f}s"
                          f"  max {max(times):.3f}s  (n={len(times)})")
                else:
                    print(f"{program.name:<7} {label}: never seen")
    print(load())


if __name__ == "__main__":
    main()
