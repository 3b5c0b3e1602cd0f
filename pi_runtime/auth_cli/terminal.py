"""The terminal ``pi auth login`` talks through: lines out, answers in, nothing drawn.

:class:`Terminal` reads a line (or a key without echo) from standard input on the event loop, so a
question can be taken back when the browser's callback answers first. End of input (Ctrl+D) in a
question or Ctrl+C cancels the sign-in. :class:`TerminalLoginUI` is the sign-in flows' ``LoginUI``:
it prints the URL or device code, opens the browser unless ``--no-browser``, and picks the sign-in
method the way Pi's ``auth login`` does (the browser method with a browser; otherwise the other
method, asking only when there are several).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import TextIO

from ..ai.oauth import OAuthPrompt, OAuthSelectOption
from ..auth_methods import open_in_browser


class Cancelled(Exception):
    """The user ended the input (Ctrl+D) or pressed Ctrl+C."""


class Terminal:
    """Standard input and output as a line terminal."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None,
                 on_interrupt: Callable[[], None] | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.on_interrupt = on_interrupt

    @property
    def interactive(self) -> bool:
        try:
            return self.stdin.isatty() and self.stdout.isatty()
        except (AttributeError, ValueError):
            return False

    def write(self, line: str) -> None:
        self.stdout.write(line + "\n")
        self.stdout.flush()

    def error(self, line: str) -> None:
        self.stderr.write(line + "\n")
        self.stderr.flush()

    async def question(self, message: str) -> str:
        """Print ``message`` and read one line (without its newline).

        Raises:
            Cancelled: End of input.
        """
        self.stdout.write(message)
        self.stdout.flush()
        try:
            return await self._read_line()
        except asyncio.CancelledError:
            self.stdout.write("\n")  # the question was taken back: what follows starts on a new line
            self.stdout.flush()
            raise

    async def secret(self, message: str) -> str:
        """Like :meth:`question`, without echoing what is typed."""
        import termios

        fd = self.stdin.fileno()
        before = termios.tcgetattr(fd)
        quiet = list(before)
        quiet[3] &= ~termios.ECHO
        # Echo off before the question shows: a key typed the moment it appears is not echoed.
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        self.stdout.write(message)
        self.stdout.flush()
        try:
            return await self._read_line()
        finally:
            termios.tcsetattr(fd, termios.TCSANOW, before)
            self.stdout.write("\n")
            self.stdout.flush()

    async def _read_line(self) -> str:
        loop = asyncio.get_running_loop()
        fd = self.stdin.fileno()
        waiter: asyncio.Future[bytes] = loop.create_future()
        data = bytearray()

        def readable() -> None:
            try:
                chunk = os.read(fd, 4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                chunk = b""
            if not chunk:
                if not waiter.done():
                    waiter.set_exception(Cancelled())
                return
            data.extend(chunk)
            if b"\n" in data and not waiter.done():
                waiter.set_result(bytes(data))

        loop.add_reader(fd, readable)
        try:
            line = await waiter
        finally:
            loop.remove_reader(fd)
        return line.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", "replace")


class TerminalLoginUI:
    """A sign-in flow's ``LoginUI`` on a :class:`Terminal`.

    Args:
        terminal: Where to talk.
        provider: The provider id (for the ``--no-browser`` hint).
        browser: Open URLs in a browser and prefer the browser method (False: ``--no-browser``).
        ask_every_choice: Ask each selection (API-key set-up) instead of picking the method.
    """

    def __init__(self, terminal: Terminal, provider: str, *, browser: bool = True, ask_every_choice: bool = False,
                 opener: Callable[[str], None] = open_in_browser) -> None:
        self.terminal = terminal
        self.provider = provider
        self.browser = browser
        self.ask_every_choice = ask_every_choice
        self.opener = opener
        self.skipped: list[str] = []
        """Labels of the methods passed over for the browser (named in a hint)."""

    def show_auth(self, url: str, instructions: str | None) -> None:
        from ..text_safety import terminal_safe

        write = self.terminal.write
        write(f"Open this URL to sign in:\n  {terminal_safe(url)}")
        if instructions:
            write(instructions)
        if self.browser:
            self.opener(url)
        rerun = f'"pi auth login {self.provider} --no-browser"'
        if len(self.skipped) == 1:
            write(f'To use "{self.skipped[0]}" instead, run {rerun}')
        elif self.skipped:
            labels = ", ".join(f'"{label}"' for label in self.skipped)
            write(f"Other sign-in methods: {labels}. Run {rerun} to choose one.")

    def show_device_code(self, user_code: str, verification_uri: str) -> None:
        from ..text_safety import terminal_safe

        self.terminal.write(f"Open {terminal_safe(verification_uri)} and enter code: {terminal_safe(user_code)}")
        if self.browser:
            self.opener(verification_uri)
        self.terminal.write("Waiting for authentication...")

    def show_progress(self, message: str) -> None:
        self.terminal.write(message)

    async def prompt(self, prompt: OAuthPrompt) -> str | None:
        shown = f" ({prompt.placeholder})" if prompt.placeholder else ""
        try:
            return await self.terminal.question(f"{prompt.message}{shown}: ")
        except Cancelled:
            return None

    async def select(self, message: str, options: list[OAuthSelectOption]) -> str | None:
        if not options:
            return None
        first, *others = options
        try:
            if self.ask_every_choice:
                return await self._ask(message, options)
            if self.browser:
                self.skipped = [o.label for o in others]
                return first.id
            if not others:
                return first.id  # the browser method is the only one: used without opening a browser
            if len(others) > 1:
                return await self._ask(message, others)
            self.terminal.write(f"{message} {others[0].label}")
            return others[0].id
        except Cancelled:
            return None

    async def _ask(self, message: str, options: list[OAuthSelectOption]) -> str:
        self.terminal.write(message)
        for number, option in enumerate(options, 1):
            self.terminal.write(f"  {number}. {option.label}")
        while True:
            answer = (await self.terminal.question(f"Select 1-{len(options)}: ")).strip()
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1].id
            self.terminal.write(f"Enter a number from 1 to {len(options)}.")


def interrupt_cancels(signal_fire: Callable[[], None]) -> Callable[[], None]:
    """Make Ctrl+C call ``signal_fire`` while a sign-in runs; returns the undo."""
    import signal

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, signal_fire)
    except (NotImplementedError, RuntimeError, ValueError):
        return lambda: None
    def undo() -> None:
        loop.remove_signal_handler(signal.SIGINT)

    return undo

