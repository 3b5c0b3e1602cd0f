"""What the side-by-side benches share: pi and the real Pi 1.6, started the same way on the same
loopback model, in a pseudo-terminal or a tmux pane. Not a bench itself.

- ``programs()``: pi (this checkout's interpreter, ``-m pi_runtime.cli``) and Pi 1.6
  (``$PI_REFERENCE``, else /work/ref/node_modules/.bin/pi, with the Node beside it first on PATH).
- ``compile_bytecode()``: pi's own bytecode, written once before any run. An installed pi has it;
  with ``PYTHONDONTWRITEBYTECODE`` set (as on the shared machine) every run would otherwise compile
  all of pi_runtime and pi_tui again, a third of the instructions to a first answer.
- ``loop_home(url)``: a fresh home with an agent dir whose models.json points a custom provider
  (``loop``, openai-completions, model ``m1``) at a loopback server, and a project folder.
- ``PtyTerminal``: a program on a 120x40 pseudo-terminal that answers the queries both programs
  send at start-up as an xterm would (without answers Pi waits for its time-outs and drops keys).
- ``TmuxPane``: the same in a private tmux server (``send-keys -l`` types keys as a terminal does).
- ``long_answer``/``sse_reply``/``RemoteServer``: a paced SSE answer from a server in a child process
  (in the bench's own process the server would wait for the GIL whenever the bench works).
"""

from __future__ import annotations

import compileall
import fcntl
import json
import multiprocessing
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = os.environ.get("PI_REFERENCE", "/work/ref/node_modules/.bin/pi")
SIZE = (120, 40)


@dataclass
class Program:
    """One of the two programs compared."""

    name: str
    argv: list[str]
    path_prefix: str = ""
    """Prepended to PATH (the Node beside Pi)."""
    version_mark: bytes = b""
    """What its first frame shows (the header's version)."""


def programs(reference: str | None = None, only: str | None = None) -> list[Program]:
    """pi, then Pi 1.6 when installed; ``only`` ("pi" or "Pi") keeps one."""
    import sys

    from pi_runtime import __version__

    found = [Program("pi", [sys.executable, "-m", "pi_runtime.cli"], "", f"v{__version__}".encode())]
    ref = Path(reference or DEFAULT_REFERENCE)
    if ref.exists():
        node = ref.parent.parent / "node" / "bin"  # npm's node package beside Pi, when installed so
        found.append(Program("Pi 1.6", [str(ref)], f"{node}{os.pathsep}" if node.is_dir() else "", b"v1.6"))
    else:
        print(f"(the real Pi is not at {ref}: pi only)")
    if only:
        found = [p for p in found if p.name.split()[0] == only]
    return found


def compile_bytecode() -> None:
    """pi's bytecode, as an installed pi has it (see the module docstring)."""
    for package in ("pi_runtime", "pi_tui"):
        compileall.compile_dir(str(ROOT / package), quiet=1)


def loop_home(url: str, settings: dict[str, Any] | None = None, model: dict[str, Any] | None = None) -> Path:
    """A fresh home: ``agent/`` (models.json: provider ``loop`` at ``url``, model ``m1``), ``project/``."""
    root = Path(tempfile.mkdtemp(prefix="pi-side-"))
    agent = root / "agent"
    agent.mkdir()
    (root / "project").mkdir()
    entry = {"id": "m1", "name": "Loop", "contextWindow": 128000, "maxTokens": 4096, **(model or {})}
    models = {"providers": {"loop": {"baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "loop-key",
                                     "models": [entry]}}}
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    config = {"defaultProvider": "loop", "defaultModel": "m1", **(settings or {})}
    (agent / "settings.json").write_text(json.dumps(config), encoding="utf-8")
    return root


def program_env(program: Program, root: Path) -> dict[str, str]:
    """The environment both programs run in: their own home and agent dir, offline, no API keys."""
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith(("PI_", "TMUX"))}
    env.update(TERM="xterm-256color", HOME=str(root), PI_CODING_AGENT_DIR=str(root / "agent"), PI_OFFLINE="1",
               PI_SKIP_VERSION_CHECK="1", PATH=program.path_prefix + env.get("PATH", "/usr/bin:/bin"))
    return env


# What a terminal emulator (xterm-like, no kitty keyboard protocol) answers to the queries
# both programs send at start-up.
ANSWERS: tuple[tuple[re.Pattern[bytes], Callable[[re.Match[bytes]], bytes]], ...] = (
    (re.compile(rb"\x1b\[0?c"), lambda m: b"\x1b[?62;22c"),                     # primary device attributes
    (re.compile(rb"\x1b\[5n"), lambda m: b"\x1b[0n"),                            # status report
    (re.compile(rb"\x1b\[6n"), lambda m: b"\x1b[1;1R"),                          # cursor position
    (re.compile(rb"\x1b\[\?(\d+)\$p"), lambda m: b"\x1b[?" + m.group(1) + b";2$y"),  # DECRQM: known, reset
    (re.compile(rb"\x1b\](1[01]);\?(\x07|\x1b\\)"),                               # foreground/background colour
     lambda m: b"\x1b]" + m.group(1) + (b";rgb:d8d8/dbdb/e2e2" if m.group(1) == b"10" else b";rgb:1616/1818/1d1d")
     + b"\x1b\\"),
)


def answers(output: bytes) -> bytes:
    """The terminal's replies to the queries in ``output``."""
    return b"".join(reply(m) for pattern, reply in ANSWERS for m in pattern.finditer(output))


def stop_group(pid: int) -> None:
    """End a program and its children (its process group: pty.fork made it a session leader)."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass
        deadline = time.perf_counter() + wait
        while time.perf_counter() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG) != (0, 0):
                    return
            except ChildProcessError:
                return
            time.sleep(0.02)


class PtyTerminal:
    """A program on a pseudo-terminal; ``output`` is everything it wrote (queries answered)."""

    def __init__(self, program: Program, root: Path, args: list[str] | None = None) -> None:
        env = program_env(program, root)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(root / "project")
            os.execvpe(program.argv[0], [*program.argv, *(args or [])], env)
        self.start = time.perf_counter()
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        self.output = bytearray()
        self.closed = False

    def pump(self, timeout: float) -> bytes:
        """Read what the program wrote within ``timeout`` (answering its queries); b"" when nothing."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            chunk = os.read(self.fd, 1 << 20)
        except OSError:
            self.closed = True
            return b""
        if not chunk:
            self.closed = True
        reply = answers(chunk)
        if reply:
            os.write(self.fd, reply)
        self.output += chunk
        return chunk

    def wait_for(self, marker: bytes, timeout: float, since: int = 0) -> float | None:
        """``time.perf_counter()`` when ``marker`` is in the output written after byte ``since``; None on time-out."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline and not self.closed:
            if self.output.find(marker, max(0, since - len(marker))) >= 0:
                return time.perf_counter()
            self.pump(0.005)
        return time.perf_counter() if self.output.find(marker, max(0, since - len(marker))) >= 0 else None

    def in_raw_mode(self) -> bool:
        return not termios.tcgetattr(self.fd)[3] & termios.ICANON

    def type(self, data: bytes) -> float:
        os.write(self.fd, data)
        return time.perf_counter()

    def settle(self, quiet: float = 0.5, limit: float = 10.0) -> None:
        """Until the program has written nothing for ``quiet`` seconds."""
        deadline = time.perf_counter() + limit
        while time.perf_counter() < deadline and self.pump(quiet):
            pass

    def cpu_seconds(self) -> float:
        """User + system CPU time of the program so far."""
        return _cpu_seconds(self.pid)

    def close(self) -> None:
        stop_group(self.pid)
        os.close(self.fd)


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TmuxPane:
    """A program alone in a private tmux server's 120x40 pane."""

    def __init__(self, program: Program, root: Path, args: list[str] | None = None) -> None:
        if shutil.which("tmux") is None:
            raise SystemExit("tmux is not installed")
        self.socket = f"pi-bench-{os.getpid()}-{time.monotonic_ns()}"
        env = program_env(program, root)
        variables = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
        self._tmux("-f", "/dev/null", "new-session", "-d", "-x", str(SIZE[0]), "-y", str(SIZE[1]),
                   "-c", str(root / "project"), *variables, *program.argv, *(args or []), env=env)
        self.start = time.perf_counter()
        self.pid = int(self._tmux("display", "-p", "#{pane_pid}").strip())

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], env=env, capture_output=True, text=True,
                              check=True).stdout

    def text(self) -> str:
        """What the pane shows now."""
        return self._tmux("capture-pane", "-p")

    def wait_for(self, needle: str, timeout: float, poll: float = 0.005) -> float | None:
        """``time.perf_counter()`` when ``needle`` is on the pane; None on time-out."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if needle in self.text():
                return time.perf_counter()
            time.sleep(poll)
        return None

    def type_literal(self, text: str) -> float:
        """Send ``text`` as typed keys (``send-keys -l``); returns when tmux was told."""
        sent = time.perf_counter()
        self._tmux("send-keys", "-l", text)
        return sent

    def press(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.pid)

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


# ---------------------------------------------------------------------- a long streamed answer

LAST_WORD = "zyxwvutsend"


def long_answer(words: int) -> str:
    """About ``words`` words of markdown (headings, paragraphs, lists, code fences), ending in ``LAST_WORD``."""
    vocab = ["the", "agent", "reads", "files", "edits", "code", "runs", "tests", "and", "reports", "what", "changed",
             "in", "each", "step"]
    parts: list[str] = []
    count = 0
    section = 0
    while count < words:
        section += 1
        parts.append(f"## Section {section}\n")
        parts.append(" ".join(vocab[(section + i) % len(vocab)] for i in range(60)) + "\n")
        parts.append("- first point about the code\n- second point with `inline code`\n- third point\n")
        parts.append(f"```python\ndef step_{section}(x):\n    return x + {section}\n```\n")
        parts.append(" ".join(vocab[(section * 3 + i) % len(vocab)] for i in range(40)) + "\n")
        count += 60 + 14 + 8 + 40 + 2
    parts.append(f"Final words {LAST_WORD}\n")
    return "\n".join(parts)


def sse_reply(answer: str, chunk: int, delay: float, burst: int) -> Any:
    """One OpenAI chat-completions SSE event per ``chunk`` characters, a ``delay`` pause after every
    ``burst`` events (an asyncio sleep costs ~1 ms here whatever it asks for: the rate is set by grouping)."""
    from pi_runtime.testing.loopback import Reply

    events: list[object] = []
    for i in range(0, len(answer), chunk):
        events.append({"id": "b", "object": "chat.completion.chunk", "model": "bench",
                       "choices": [{"index": 0, "delta": {"content": answer[i:i + chunk]}, "finish_reason": None}]})
    events.append({"id": "b", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events.append({"id": "b", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 100,
                                                        "total_tokens": 110}})
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
    """A ``LoopbackServer`` in a forked child process; ``push`` queues a reply there."""

    def __enter__(self) -> RemoteServer:
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=self._serve, args=(child,), daemon=True)
        self._process.start()
        self.url = self._conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._conn.send(None)
        self._process.join(5)

    def push(self, reply: Any) -> None:
        self._conn.send(reply)
        self._conn.recv()

    @staticmethod
    def _serve(conn: Any) -> None:
        from pi_runtime.testing.loopback import LoopbackServer

        with LoopbackServer() as server:
            conn.send(server.url)
            while (reply := conn.recv()) is not None:
                server.push(reply)
                conn.send("ok")


def load() -> str:
    """The machine's load averages, for the report (the benches compare two programs in one run)."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"
