"""Benchmark: resume a 10,000-message session in the app, then scroll it end to end.

Writes a linear Pi-format session (the generator of ``bench/session_open.py``: user request,
assistant tool call, tool result, assistant answer, repeated) and opens it with
``pi --session FILE`` in a 120x40 pseudo-terminal. Figures:

- paint: process start until the last message's text is on screen (the app shows the end of
  the file's branch before the session is built), and until the session is attached;
- the same for Textual's stock ``Markdown`` widgets: a plain app that mounts one per
  message for the same text (the baseline the issue asks for; it mounts everything);
- PageUp from the end, many times (older messages are mounted as the view nears the top of
  what is mounted, newer ones unmounted): time per press until the screen stops changing;
- Ctrl+Home to the very first message, PageDown from there, Ctrl+End back to the last;
- memory: the process's resident set after each step (it should stay flat).

Run: ``.venv/bin/python bench/tui_resume.py [--messages 10000]``. Prints figures only.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from session_open import generate  # noqa: E402
from side_by_side import compile_bytecode  # noqa: E402

CTRL_HOME = b"\x1b[1;5H"
CTRL_END = b"\x1b[1;5F"
PAGE_UP = b"\x1b[5~"
PAGE_DOWN = b"\x1b[6~"
TYPED = b"qz"
"""Typed once the last message is on screen: the text the editor must echo."""
QUIET = 0.12
"""A key's effect is over when the screen has not changed for this long."""

BASELINE = r"""
import json, sys
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Markdown

def texts(path):
    for line in open(path, encoding="utf-8"):
        entry = json.loads(line)
        if entry.get("type") != "message":
            continue
        content = entry["message"]["content"]
        if isinstance(content, str):
            yield content
        else:
            yield "\n\n".join(c.get("text", "") for c in content if c.get("type") == "text")

class Plain(App):
    def compose(self):
        with VerticalScroll() as view:
            for text in texts(sys.argv[1]):
                yield Markdown(text)
        view.anchor()

Plain().run()
"""


class Terminal:
    """A child process on a pseudo-terminal, with its screen output read as bytes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.start = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.seen = b""

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.fd, 1 << 20)
        except OSError:
            return b""

    def wait_for(self, marker: bytes, timeout: float = 60.0) -> float | None:
        """Seconds since start until ``marker`` appears in the output."""
        window = b""
        while time.perf_counter() - self.start < timeout:
            chunk = self.read(0.05)
            window = (window + chunk)[-200_000:]
            if marker in window:
                return time.perf_counter() - self.start
        return None

    def press(self, key: bytes) -> tuple[float, bytes]:
        """Send ``key``; seconds until the last screen update it caused, and that output."""
        sent = time.perf_counter()
        os.write(self.fd, key)
        last = sent
        out = self.read(2.0)  # the first update may take a while (older messages are mounted first)
        if out:
            last = time.perf_counter()
        while out:
            chunk = self.read(QUIET)
            if not chunk:
                break
            out += chunk
            last = time.perf_counter()
        return last - sent, out

    def drain(self, quiet: float = 0.4) -> None:
        """Wait until the screen has been still for ``quiet`` seconds."""
        while self.read(quiet):
            pass

    def press_until(self, key: bytes, marker: bytes, timeout: float = 10.0) -> float | None:
        """Send ``key``; seconds until ``marker`` is on screen (None if it never is)."""
        self.drain()
        sent = time.perf_counter()
        os.write(self.fd, key)
        window = b""
        while time.perf_counter() - sent < timeout:
            window = (window + self.read(0.05))[-200_000:]
            if marker in window:
                return time.perf_counter() - sent
        return None

    def type_after_paint(self, timeout: float = 10.0) -> float | None:
        """Type a marker now; seconds from the start until the editor shows it: when a user who
        starts typing as soon as the conversation appears sees the keys land."""
        os.write(self.fd, TYPED)
        window = b""
        while time.perf_counter() - self.start < timeout:
            window = (window + self.read(0.01))[-200_000:]
            if TYPED in window:
                return time.perf_counter() - self.start
        return None

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process so far (steadier than wall time on a busy machine)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.perf_counter() + 3.0
        try:
            while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                if time.perf_counter() > deadline:  # Pi's node process may not end on SIGTERM
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
                    break
                self.read(0.05)  # keep its output drained: a full pty would block its exit
        except ChildProcessError:
            pass
        os.close(self.fd)


def _took(seconds: float | None) -> str:
    if seconds is None:
        return "never (marker not seen)"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f}s"


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(len(ordered) * 0.95) - 1] if len(ordered) > 1 else ordered[0]
    return (f"p50 {statistics.median(values) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms,"
            f" max {max(values) * 1000:.0f} ms")


def resume_in_pi(reference: Path, session_file: Path, work: Path, last: int) -> None:
    """The same session opened by the real Pi: until its last message is on screen.

    It runs offline with no model configured (its footer says so); a key typed as the last
    message appears is timed as for pi.
    """
    node = reference.parent.parent / "node" / "bin"  # npm's node package beside Pi, when installed so
    path = f"{node}{os.pathsep}{os.environ.get('PATH', '')}" if node.is_dir() else os.environ.get("PATH", "")
    env = dict(os.environ, TERM="xterm-256color", PATH=path, PI_CODING_AGENT_DIR=str(work / "pi-agent"),
               PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1")
    term = Terminal([str(reference), "--session", str(session_file)], env, work)
    try:
        paint = term.wait_for(f"Done {last}.".encode())
        cpu = term.cpu_seconds()
        typed = term.type_after_paint() if paint is not None else None
        time.sleep(1.0)
        while term.read(0.2):
            pass
        print(f"Pi 1.6: last message on screen after {_took(paint)} ({cpu:.2f} s CPU); a key typed then is in"
              f" the editor at {_took(typed)}; RSS {term.rss_mb():.0f} MB")
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--pages", type=int, default=300, help="PageUp/PageDown presses per direction")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--reference", default=os.environ.get("PI_REFERENCE", "/work/ref/node_modules/.bin/pi"),
                        help="the real Pi's pi executable (its side is skipped when missing)")
    args = parser.parse_args()
    compile_bytecode()  # as an installed pi has it
    work = Path(tempfile.mkdtemp(prefix="pi-resume-"))
    session_file = work / "session.jsonl"
    generate(session_file, args.messages)
    last = args.messages - 1
    while last % 4 != 3:
        last -= 1
    env = dict(os.environ, TERM="xterm-256color", PI_CODING_AGENT_DIR=str(work / "agent"))
    print(f"session: {args.messages:,} messages, {session_file.stat().st_size / 1e6:.1f} MB")

    term = Terminal([sys.executable, "-m", "pi_runtime.cli", "--session", str(session_file)], env, work)
    try:
        paint = term.wait_for(f"Done {last}.".encode())
        if paint is None:
            print("pi: the last message never appeared")
            return
        typed = term.type_after_paint()
        ready = term.wait_for(b"anthropic/claude-sonnet-4-5")  # the header's model: the session is attached
        ready_cpu = term.cpu_seconds()
        time.sleep(1.0)  # let the window finish mounting and settle
        while term.read(0.2):
            pass
        rss_painted = term.rss_mb()
        print(f"pi: last message on screen after {paint:.2f}s (read from the end of the file); a key typed"
              f" then is in the editor at {_took(typed)}; session built and attached after {_took(ready)}"
              f" ({ready_cpu:.2f} s CPU); RSS {rss_painted:.0f} MB")

        term.drain()
        ups = [term.press(PAGE_UP)[0] for _ in range(args.pages)]
        print(f"pi: {args.pages} x PageUp from the end (older messages mount as the view nears the top of"
              f" the window): {ms(ups)}; RSS {term.rss_mb():.0f} MB")
        took = term.press_until(CTRL_HOME, b"Request 0:")
        print(f"pi: Ctrl+Home to the first message: {_took(took)}; RSS {term.rss_mb():.0f} MB")
        term.drain()
        downs = [term.press(PAGE_DOWN)[0] for _ in range(args.pages)]
        print(f"pi: {args.pages} x PageDown from the top: {ms(downs)}; RSS {term.rss_mb():.0f} MB")
        took = term.press_until(CTRL_END, f"Done {last}.".encode())
        print(f"pi: Ctrl+End back to the last message: {_took(took)}; RSS {term.rss_mb():.0f} MB")
    finally:
        term.close()

    reference = Path(args.reference)
    if reference.exists():
        resume_in_pi(reference, session_file, work, last)
    else:
        print(f"reference Pi not found at {reference}: pi only")
    if args.skip_baseline:
        return
    script = work / "plain_markdown.py"
    script.write_text(BASELINE)
    base = Terminal([sys.executable, str(script), str(session_file)], env, work)
    try:
        paint = base.wait_for(f"Done {last}.".encode(), timeout=300)
        if paint is None:
            print("plain Markdown widgets: the last message never appeared within 300 s")
        else:
            print(f"plain Markdown widgets: last message on screen after {paint:.2f}s, RSS {base.rss_mb():.0f} MB")
    finally:
        base.close()


if __name__ == "__main__":
    main()
