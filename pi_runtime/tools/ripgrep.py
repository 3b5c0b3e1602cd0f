"""Run ripgrep as an abortable subprocess and hand its output over line by line.

``--no-config`` keeps a user's ``RIPGREP_CONFIG_PATH`` from changing what the tools ask
for; ``--no-require-git`` makes ``.gitignore`` count outside git repositories too, so the
tools and their Python fallback agree.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence

from ..agent.tool import ToolError
from ..ai.abort import AbortSignal

BASE_ARGS = ("--no-config", "--no-require-git", "--hidden", "--color=never", "--glob", "!.git")
_LINE_LIMIT = 32 * 1024 * 1024


class RipgrepRun:
    """One ``rg`` process; iterate :meth:`lines`, then read :attr:`returncode`/:attr:`stderr`."""

    def __init__(self, rg: str, args: Sequence[str], cwd: str, signal: AbortSignal | None) -> None:
        self.rg = rg
        self.args = list(args)
        self.cwd = cwd
        self.signal = signal
        self.proc: asyncio.subprocess.Process | None = None
        self.stderr = ""
        self.returncode: int | None = None
        self.aborted = False
        self.stopped = False
        self._remove_listener: Callable[[], None] | None = None

    async def lines(self) -> AsyncGenerator[bytes, None]:
        """Yield stdout lines (without the newline); stops early after :meth:`stop`."""
        try:
            self.proc = await asyncio.create_subprocess_exec(
                self.rg, *self.args, cwd=self.cwd, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=_LINE_LIMIT,
            )
        except OSError as exc:
            raise ToolError(f"Failed to run ripgrep: {exc.strerror or exc}") from exc
        if self.signal is not None:
            self._remove_listener = self.signal.add_listener(self._on_abort)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        err_task = asyncio.ensure_future(self.proc.stderr.read())
        eof = False
        try:
            while not self.stopped:
                try:
                    line = await self.proc.stdout.readline()
                except ValueError:
                    continue  # one absurdly long line (the reader dropped it); keep going
                if not line:
                    eof = True
                    break
                yield line.rstrip(b"\n")
        finally:
            if self._remove_listener is not None:
                self._remove_listener()
            # Stopped early, aborted or the consumer went away: rg may be blocked on a
            # full pipe, so end it rather than wait.
            if not eof and self.proc.returncode is None:
                self.proc.kill()
            try:
                self.returncode = await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                self.returncode = await self.proc.wait()
            self.stderr = (await err_task).decode("utf-8", errors="replace").strip()

    def stop(self) -> None:
        """Stop reading (limit reached); the process is killed."""
        self.stopped = True

    def _on_abort(self) -> None:
        self.aborted = True
        self.stopped = True
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
