"""Benchmark: typing while a 20,000-word answer streams, and that answer's end (pi and Pi 1.6 in one run).

A loopback server in a child process streams a ~20,000-word markdown answer as OpenAI SSE chunks
at ~2,000 chunks a second (``side_by_side.sse_reply``: 16 characters a chunk, a pause after every
3). Each program runs on a 120x40 pseudo-terminal that answers its start-up queries; the bench
types ``go`` and Enter, then, while the answer streams, types a key every ``--gap`` seconds (each
a different character the answer never contains) and times until the program has written that
character to the terminal: the key's echo in the editor. Figures:

- send time: the server's own pace (a bare socket reading the same reply: first byte to last);
- end: Enter until the answer's last word has been written to the terminal, and over the send time;
- echo: median and max over the keys typed while the answer streamed;
- the program's CPU seconds over the whole answer.

Run: ``.venv/bin/python bench/tui_stream_echo.py [--runs 1] [--words 20000] [--only pi|Pi] [--gap 0.3]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from side_by_side import (
    LAST_WORD,
    PtyTerminal,
    RemoteServer,
    compile_bytecode,
    load,
    long_answer,
    loop_home,
    programs,
    sse_reply,
)

PROBES = "ЖЩЮЯФЦЧШЭЪБГДЛПИЙ"
"""Typed one at a time while the answer streams (the answer is ASCII)."""


def send_time(url: str) -> float:
    """How long the server takes to send the reply: first byte to the last, read by a bare socket
    (no HTTP client, no SSE parsing: the server's own pace)."""
    import socket
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


def one_run(program, server: RemoteServer, reply, gap: float) -> dict:
    root = loop_home(server.url)
    term = PtyTerminal(program, root)
    try:
        if term.wait_for(program.version_mark, 30) is None or term.wait_for(b"m1", 30) is None:
            return {"problem": "never started"}
        term.settle(0.5)
        server.push(reply)
        mark = len(term.output)
        sent = term.type(b"go\r")
        if term.wait_for(b"Section", 30, since=mark) is None:  # the answer has started
            return {"problem": "the answer never started"}
        cpu0 = term.cpu_seconds()
        echoes: list[float] = []
        end = None
        next_probe = time.perf_counter() + gap
        probes = iter(PROBES)
        while end is None and time.perf_counter() - sent < 120 and not term.closed:
            if term.output.find(LAST_WORD.encode(), mark) >= 0:
                end = time.perf_counter()
                break
            if time.perf_counter() >= next_probe:
                probe = next(probes, None)
                if probe is not None:
                    since = len(term.output)
                    typed = term.type(probe.encode())
                    seen = term.wait_for(probe.encode(), 5, since=since)
                    if term.output.find(LAST_WORD.encode(), mark) < 0 and seen is not None:
                        echoes.append(seen - typed)  # only keys whose echo came while the answer streamed
                next_probe = time.perf_counter() + gap
            term.pump(0.002)
        if end is None:
            return {"problem": "the answer's end never appeared"}
        return {"end": end - sent, "echo": echoes, "cpu": term.cpu_seconds() - cpu0}
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--words", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.0004)
    parser.add_argument("--burst", type=int, default=3)
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between typed keys")
    parser.add_argument("--only", choices=("pi", "Pi"))
    parser.add_argument("--reference", help="the real Pi's pi executable")
    args = parser.parse_args()
    compile_bytecode()
    answer = long_answer(args.words)
    reply = sse_reply(answer, args.chunk, args.delay, args.burst)
    print(f"answer: {len(answer.split()):,} words, {len(answer) // args.chunk:,} chunks; {load()}")
    with RemoteServer() as server:
        server.push(reply)
        send = send_time(server.url)
        print(f"server send time (a bare socket reading): {send:.2f}s, "
              f"{len(answer) / args.chunk / send:,.0f} chunks/s")
        for program in programs(args.reference, args.only):
            for _ in range(args.runs):
                r = one_run(program, server, reply, args.gap)
                if "problem" in r:
                    print(f"{program.name:<7} {r['problem']}")
                    continue
                ms = [e * 1000 for e in r["echo"]]
                echo = (f"echo median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms (n={len(ms)})"
                        if ms else "no key echoed while it streamed")
                print(f"{program.name:<7} end {r['end']:.2f}s = {r['end'] / send:.2f}x the send time;  {echo};  "
                      f"CPU {r['cpu']:.2f}s")
    print(load())


if __name__ == "__main__":
    main()
