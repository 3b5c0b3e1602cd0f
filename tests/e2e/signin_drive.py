"""Driving ``auth login <provider>`` of pi or of the real Pi on a pseudo-terminal, as a user would.

A :class:`Script` says what the user does for one sign-in: follow the authorization URL in a
"browser" (the test fetches the page through the stand-in and then the loopback callback it
redirects to), paste the redirected URL or a code instead, answer the GitHub Enterprise question,
or just wait while a device code is approved. :func:`sign_in` runs it against either program with
the same stand-in and returns what the terminal showed and the exit status; the stand-in keeps
what each program sent.

Sign-ins use fixed loopback ports (1455, 1456, 53692): :func:`fixed_ports` serializes the tests
that use them across pytest workers.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from pi_runtime.testing.signin_servers import authorization_answer, follow_callback
from pi_runtime.testing.standin import ProviderStandIn

_ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x1b\][^\x07]*\x07")


@contextlib.contextmanager
def fixed_ports() -> Iterator[None]:
    """Hold the lock of the fixed callback ports for the duration."""
    with open(Path(tempfile.gettempdir()) / "pi-signin-fixed-ports.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Pty:
    """A program on a pseudo-terminal; ``text`` is what it printed, escape sequences removed."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execve(argv[0], argv, {**env, "TERM": "xterm-256color", "COLUMNS": "400", "LINES": "40"})
        self.output = b""
        self.status: int | None = None

    @property
    def text(self) -> str:
        return _ANSI.sub(b"", self.output).decode("utf-8", "replace").replace("\r", "")

    def read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                self.output += os.read(self.fd, 65536)
            except OSError:
                self._reap(timeout)

    def _reap(self, timeout: float) -> None:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
            else:
                time.sleep(min(timeout, 0.05))

    def wait_for(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        """The first match of ``pattern`` in the output (waits for it)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.search(pattern, self.text)
            if found:
                return found
            self.read(0.05)
            if self.status is not None:
                break
        raise AssertionError(f"{pattern!r} never appeared; the terminal shows:\n{self.text}")

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait_exit(self, timeout: float = 60) -> int:
        end = time.monotonic() + timeout
        while self.status is None and time.monotonic() < end:
            self.read(0.05)
            self._reap(0.05)
        if self.status is None:
            raise AssertionError(f"still running after {timeout}s; the terminal shows:\n{self.text}")
        return self.status

    def close(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        os.close(self.fd)


@dataclass
class Script:
    """One sign-in as the user does it."""

    provider: str
    flags: tuple[str, ...] = ()
    url_pattern: str = r"(https://\S+)"
    """The authorization URL on the terminal (None of it for device codes)."""
    action: str = "browse"
    """``browse`` (follow the URL), ``paste_redirect``, ``paste_code`` (the page shows it), ``device`` (wait)."""
    answers: dict[str, str] = field(default_factory=dict)
    """Prompt text -> what to type (the GitHub Enterprise question)."""
    paste_prompt: str = r"paste|Paste"


@dataclass
class Outcome:
    status: int
    text: str
    urls: list[str]


def sign_in(program: list[str], script: Script, env: dict[str, str], cwd: str, standin: ProviderStandIn,
            *, timeout: float = 60) -> Outcome:
    """Run ``<program> auth login <provider>`` through ``script``."""
    term = Pty([*program, "auth", "login", script.provider, *script.flags], env, cwd)
    urls: list[str] = []
    try:
        for prompt, answer in script.answers.items():
            term.wait_for(re.escape(prompt), timeout)
            term.type(answer + "\n")
        if script.action != "device":
            url = term.wait_for(r"Open this URL to sign in:\s*\n\s*(https://\S+)", timeout).group(1)
            urls.append(url)
            answer = authorization_answer(url, standin)
            if script.action == "browse":
                follow_callback(answer)
            else:
                term.wait_for(script.paste_prompt, timeout)
                term.wait_for(r": $|\): $|:\s*$", timeout)
                pasted = answer
                if script.action == "paste_code":
                    import json

                    pasted = json.loads(answer)["code"]
                term.type(pasted + "\n")
        status = term.wait_exit(timeout)
        return Outcome(status, term.text, urls)
    finally:
        term.close()


def program_env(base: dict[str, str], standin: ProviderStandIn, agent: Path, home: Path) -> dict[str, str]:
    """The environment for either program: its own agent dir and home, HTTPS through the stand-in."""
    env = {k: v for k, v in base.items()
           if not k.endswith("_API_KEY") and not k.startswith("PI_") and "PROXY" not in k.upper()
           and k not in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(standin.env())
    env.update({"PI_CODING_AGENT_DIR": str(agent), "HOME": str(home)})
    return env


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


Check = Callable[[Outcome], None]
