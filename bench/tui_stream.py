"""Benchmark: a long markdown answer streamed into the app, against Textual's MarkdownStream.

A real HTTP server on 127.0.0.1 (``LoopbackServer`` in a child process) streams a ~20,000-word
answer (paragraphs, code fences, lists, headings) as OpenAI-style SSE chunks, with a small
delay between chunks, so the server keeps its own pace whatever the client does. (In the
benched process itself the server thread would wait for the GIL whenever the UI works, and
the UI's CPU time would slow the server down instead of showing up as lag.) Figures,
for pi's app and for a plain Textual app that writes every delta to ``Markdown.get_stream()``:

- send time: how long the server takes to send it (a bare client with no UI reads it);
- on-screen time: request start to the moment the last word is written to the screen
  (headless Textual, 120x40; every screen update is also serialised to terminal bytes, as
  the real driver does, and searched for the last word);
- ratio on-screen / send (goal <= 1.10);
- key echo: a key posted to the (emptied) editor mid-stream until a screen update carries
  the character it typed (p50/max);
- worst frame gap: the longest pause between screen updates while the answer streams;
- process CPU seconds.

Run: ``.venv/bin/python bench/tui_stream.py [--words 20000] [--chunk 16] [--delay 0.0004] [--burst 3] [--tree-pane]``
(the defaults send ~2,000 chunks/s, the rate the issue asks for).
Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PI_CODING_AGENT_DIR", tempfile.mkdtemp(prefix="pi-bench-"))

from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

import pi_tui  # noqa: F401  (first, as in the app: it sets Textual's frame rate before Textual loads)
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.stream import stream
from pi_runtime.ai.types import Context, Model, UserMessage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session import SessionManager
from pi_runtime.settings import SettingsManager
from pi_runtime.testing.loopback import LoopbackServer, Reply

LAST_WORD = "zyxwvutsend"


def long_answer(words: int) -> str:
    vocab = ["the", "agent", "reads", "files", "edits", "code", "runs", "tests", "and", "reports", "what", "changed", "in", "each", "step"]
    parts: list[str] = []
    count = 0
    section = 0
    while count < words:
        section += 1
        parts.append(f"## Section {section}\n")
        para = " ".join(vocab[(section + i) % len(vocab)] for i in range(60))
        parts.append(para + "\n")
        parts.append("- first point about the code\n- second point with `inline code`\n- third point\n")
        parts.append(f"```python\ndef step_{section}(x):\n    return x + {section}\n```\n")
        parts.append(" ".join(vocab[(section * 3 + i) % len(vocab)] for i in range(40)) + "\n")
        count += 60 + 14 + 8 + 40 + 2
    parts.append(f"Final words {LAST_WORD}\n")
    return "\n".join(parts)


def sse_reply(answer: str, chunk: int, delay: float, burst: int) -> Reply:
    """One SSE event per ``chunk`` characters, with a ``delay`` pause after every ``burst`` events
    (an asyncio sleep costs ~1 ms here whatever it asks for, so the rate is set by grouping)."""
    events: list[object] = []
    for i in range(0, len(answer), chunk):
        events.append({"id": "b", "object": "chat.completion.chunk", "model": "bench",
                       "choices": [{"index": 0, "delta": {"content": answer[i:i + chunk]}, "finish_reason": None}]})
    events.append({"id": "b", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events.append("[DONE]")
    reply = Reply.sse(events)
    paced: list[object] = []
    for i, piece in enumerate(reply.pieces):
        if i and i % burst == 0:
            paced.append(delay)
        paced.append(piece)
    reply.pieces = paced
    return reply


class RemoteServer:
    """A ``LoopbackServer`` in a forked child process; ``push`` sends it replies over a pipe."""

    def __enter__(self) -> RemoteServer:
        self._conn, child = multiprocessing.get_context("fork").Pipe()
        self._process = multiprocessing.get_context("fork").Process(target=self._serve, args=(child,), daemon=True)
        self._process.start()
        self.url = self._conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._conn.send(None)
        self._process.join(5)

    def push(self, reply: Reply) -> None:
        self._conn.send(reply)
        self._conn.recv()

    @staticmethod
    def _serve(conn) -> None:
        with LoopbackServer() as server:
            conn.send(server.url)
            while (reply := conn.recv()) is not None:
                server.push(reply)
                conn.send("ok")


def bench_model(url: str) -> Model:
    return Model(id="bench", api="openai-completions", provider="bench-local", base_url=url + "/v1")


def make_session(url: str):
    session = create_agent_session(cwd=os.getcwd(), model=bench_model(url), session_manager=SessionManager.in_memory(),
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}), no_tools=True)
    session.model_registry.set_runtime_api_key("bench-local", "local")
    return session


async def bare_send_time(server: RemoteServer, reply: Reply) -> tuple[float, int]:
    """The server's own pace: a client that only reads."""
    server.push(reply)
    t0 = time.perf_counter()
    s = stream(bench_model(server.url), Context(messages=[UserMessage(content="go")]),
               StreamOptions(api_key="local"))
    count = 0
    async for event in s:
        count += event.type == "text_delta"
    await s.result()
    return time.perf_counter() - t0, count


class Timeline:
    def __init__(self, session) -> None:
        self.first = self.last = 0.0
        self.chunks = 0
        session.subscribe(self.on_event)

    def on_event(self, event) -> None:
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            now = time.perf_counter()
            if not self.first:
                self.first = now
            self.last = now
            self.chunks += 1


class ScreenWatch:
    """Serialises every screen update to terminal bytes, as the real driver would, and notes
    when ``marker`` is first among them (headless Textual composes frames but skips this step)."""

    def __init__(self, app, marker: str) -> None:
        self.marker = marker
        self.frames: list[float] = []
        """When each screen update was written."""
        self.seen = 0.0
        """When the marker was first written to the screen."""
        self.echo_seen = 0.0
        """When the typed ``ECHO`` character was first written to the screen (reset per probe)."""
        self._display = app._display
        self._console = app.console
        app._display = self.display

    def display(self, screen, renderable) -> None:
        self._display(screen, renderable)
        if renderable is None:
            return
        render = getattr(renderable, "render_segments", None)
        text = render(self._console) if render else ""
        now = time.perf_counter()
        self.frames.append(now)
        if not self.seen and self.marker in text:
            self.seen = now
        if not self.echo_seen and ECHO in text:
            self.echo_seen = now

    def worst_gap(self, start: float, end: float) -> float:
        times = [t for t in self.frames if start <= t <= end]
        return max((b - a for a, b in zip(times, times[1:])), default=0.0)


ECHO = "\u00a4"
"""The character typed mid-stream (the answer never contains it)."""


async def measure_echo(app, watch: ScreenWatch, samples: list[float]) -> None:
    """A key posted to the app (as the terminal driver does; the app hands it to the focused
    editor) until a screen update carries the character it typed."""
    app.editor.clear()
    await asyncio.sleep(0.05)
    watch.echo_seen = 0.0
    start = time.perf_counter()
    app.post_message(events.Key("x", ECHO))
    while not watch.echo_seen and time.perf_counter() - start < 5:
        await asyncio.sleep(0.0005)
    samples.append((watch.echo_seen or time.perf_counter()) - start)


async def run_pi(server: RemoteServer, reply: Reply, tree_pane: bool = False) -> dict:
    from pi_tui.launch import create_app

    session = make_session(server.url)
    server.push(reply)
    timeline = Timeline(session)
    app = create_app(session, static=True)
    echo: list[float] = []
    async with app.run_test(size=(120, 40)):
        watch = ScreenWatch(app, LAST_WORD)
        if tree_pane:  # the session tree docked beside the transcript, the editor focused
            await app.tree_pane.open()
            app.set_focus(app.editor)
        gc.freeze()
        await asyncio.sleep(0.2)
        t0 = time.perf_counter()
        await session.prompt("go", wait=False)
        next_echo = time.perf_counter() + 0.3
        while not watch.seen:
            await asyncio.sleep(0.002)
            if time.perf_counter() > next_echo and session.is_streaming:
                await measure_echo(app, watch, echo)
                next_echo = time.perf_counter() + 0.3
        await session.wait_for_idle()
        gc.unfreeze()
    return {"screen": watch.seen - t0, "chunks": timeline.chunks, "echo": echo, "last_delta": timeline.last - t0,
            "gap": watch.worst_gap(t0 + 0.3, timeline.last)}


class Baseline(App):
    def __init__(self, session) -> None:
        super().__init__()
        self.session = session
        self.stream = None

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            self.md = Markdown()
            yield self.md
        scroll.anchor()

    async def on_mount(self) -> None:
        self.stream = Markdown.get_stream(self.md)
        self.session.subscribe(self.forward)

    async def forward(self, event) -> None:
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            await self.stream.write(event.assistant_message_event.delta)


async def run_baseline(server: RemoteServer, reply: Reply) -> dict:
    session = make_session(server.url)
    server.push(reply)
    timeline = Timeline(session)
    app = Baseline(session)
    async with app.run_test(size=(120, 40)):
        watch = ScreenWatch(app, LAST_WORD)
        gc.freeze()
        await asyncio.sleep(0.2)
        t0 = time.perf_counter()
        await session.prompt("go", wait=False)
        while not watch.seen:
            await asyncio.sleep(0.005)
        await session.wait_for_idle()
        gc.unfreeze()
    return {"screen": watch.seen - t0, "chunks": timeline.chunks, "echo": [], "last_delta": timeline.last - t0,
            "gap": watch.worst_gap(t0 + 0.3, timeline.last)}


def report(name: str, r: dict, send: float, cpu: float) -> None:
    ratio = r["screen"] / send if send else float("nan")
    line = (f"{name:<22} deltas {r['chunks']:>6}  last delta {r['last_delta']:6.2f}s  on-screen {r['screen']:6.2f}s  ratio {ratio:5.2f}x  cpu {cpu:6.2f}s"
            f"  worst frame gap {r['gap'] * 1000:.0f}ms")
    if r["echo"]:
        ms = [e * 1000 for e in r["echo"]]
        line += f"  key echo p50 {statistics.median(ms):.1f}ms max {max(ms):.1f}ms (n={len(ms)})"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.0004)
    parser.add_argument("--burst", type=int, default=3, help="events sent between two pauses")
    parser.add_argument("--only", choices=("pi", "baseline"))
    parser.add_argument("--tree-pane", action="store_true", help="pi's app with the tree pane open (/pane tree)")
    args = parser.parse_args()
    answer = long_answer(args.words)
    reply = sse_reply(answer, args.chunk, args.delay, args.burst)
    print(f"answer: {len(answer.split()):,} words, {len(answer):,} chars, {len(answer) // args.chunk:,} chunks")
    with RemoteServer() as server:
        send, count = asyncio.run(bare_send_time(server, reply))
        print(f"server send time (bare client): {send:.2f}s, {count} deltas, {count / send:.0f} chunks/s")
        for name, runner in (("pi app", run_pi), ("textual MarkdownStream", run_baseline)):
            if args.only and not name.startswith(args.only[:4]):
                continue
            cpu0 = time.process_time()
            result = asyncio.run(runner(server, reply, args.tree_pane) if runner is run_pi and args.tree_pane
                                 else runner(server, reply))
            report(name, result, send, time.process_time() - cpu0)


if __name__ == "__main__":
    main()
