"""Run a shell command on this machine without leaving processes behind.

The shell starts in a new session, so it and everything it spawns share one process
group. Abort, timeout or cancellation of the calling task terminate the whole group:
SIGTERM first, SIGKILL for whatever is still alive after a grace period.

stdout and stderr are merged into one pipe that this module owns (not an asyncio
transport), read in chunks as they arrive. The command is finished when the shell exits:
output that descendants write after that is still collected while it keeps coming (each
chunk re-arms a short grace, as Pi does), but a background job that keeps the pipe open
and quiet (``sleep 60 &``, ``setsid server &``) does not hold up the result. Such a job
is left running; its end of the pipe is drained and discarded until it closes, so its
later writes never fail with a broken pipe.
"""

from __future__ import annotations

import asyncio
import os
import signal as signal_mod
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..agent.tool import ToolError
from ..ai.abort import AbortSignal
from .operations import ShellExit

_CHUNK = 64 * 1024
EXIT_OUTPUT_GRACE = 0.1
"""Seconds of quiet on the output pipe, after the shell exited, before the command counts as done (Pi: 100 ms)."""
_POSIX_SHELLS = {"bash", "zsh", "sh", "dash", "ksh"}


def default_shell() -> str:
    """``$SHELL`` when it is a POSIX-compatible shell, else ``/bin/bash``, else ``/bin/sh``.

    Returns:
        Path of the shell executable.
    """
    env_shell = os.environ.get("SHELL", "")
    # fish/nu/xonsh would misread bash syntax the model writes.
    if env_shell and os.path.basename(env_shell) in _POSIX_SHELLS and os.access(env_shell, os.X_OK):
        return env_shell
    return "/bin/bash" if os.access("/bin/bash", os.X_OK) else "/bin/sh"


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in process group ``pgid``.

    Args:
        pgid: The process group id.

    Returns:
        True while a live member exists.
    """
    if sys.platform.startswith("linux") and os.path.isdir("/proc"):
        # Zombies still count for killpg(pgid, 0) but are harmless; PID 1 in a container
        # may never reap them, so look at /proc states instead.
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    raw = fh.read()
            except OSError:
                continue
            # The command name is parenthesised and may contain spaces.
            rest = raw[raw.rfind(b")") + 2 :].split()
            if len(rest) > 2 and int(rest[2]) == pgid and rest[0] not in (b"Z", b"X"):
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def kill_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, then SIGKILL it if anything survives ``grace`` seconds.

    Args:
        pgid: The process group id (the shell's pid).
        grace: Seconds to wait between the two signals.
    """
    try:
        os.killpg(pgid, signal_mod.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        if not group_alive(pgid):
            return
    try:
        os.killpg(pgid, signal_mod.SIGKILL)
    except ProcessLookupError:
        return
    for _ in range(100):
        if not group_alive(pgid):
            return
        await asyncio.sleep(0.01)


def _exit_code(returncode: int | None) -> int | None:
    if returncode is None:
        return None
    return 128 - returncode if returncode < 0 else returncode


class _PipeReader:
    """The read end of the command's output pipe, watched by the event loop.

    ``on_data`` gets every chunk; ``eof`` is set when every writer has closed the pipe;
    ``activity`` is set on each chunk (the drain after the shell exits waits on it).
    """

    def __init__(self, fd: int, on_data: Callable[[bytes], None]) -> None:
        self.fd = fd
        self.on_data = on_data
        self.eof = asyncio.Event()
        self.activity = asyncio.Event()
        self.error: OSError | None = None
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        try:
            chunk = os.read(self.fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            self.error = exc
            chunk = b""
        if not chunk:
            self._loop.remove_reader(self.fd)
            self.eof.set()
            return
        self.activity.set()
        self.on_data(chunk)

    def close(self) -> None:
        """Stop reading. A writer that is still alive gets a drain instead of a broken pipe."""
        if self.eof.is_set():
            os.close(self.fd)
            return
        self._loop.remove_reader(self.fd)
        _drain_until_closed(self.fd)


def _drain_until_closed(fd: int) -> None:
    # Read and discard in a thread of its own (not tied to any event loop, which may close
    # first), so a job left running, say a dev server logging each request, is not killed
    # by SIGPIPE at its next write. The fd closes at EOF, or with pi.
    def drain() -> None:
        try:
            while os.read(fd, _CHUNK):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)

    os.set_blocking(fd, True)
    threading.Thread(target=drain, name="pi-bash-drain", daemon=True).start()


class LocalShellOperations:
    """Runs commands with the local shell (see :func:`default_shell`)."""

    def __init__(self, shell: str | None = None, kill_grace: float = 3.0, exit_grace: float = EXIT_OUTPUT_GRACE) -> None:
        """Args:
        shell: Shell executable (``shellPath`` setting); ``~`` is expanded.
        kill_grace: Seconds between SIGTERM and SIGKILL.
        exit_grace: Seconds of silence on the output pipe, after the shell exited, that end the command.
        """
        self.shell = os.path.expanduser(shell) if shell else None
        self.kill_grace = kill_grace
        self.exit_grace = exit_grace

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None,
        timeout: float | None,
        env: Mapping[str, str],
    ) -> ShellExit:
        if not os.path.isdir(cwd):
            raise ToolError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
        shell = self.shell or default_shell()
        if signal is not None and signal.aborted:
            return ShellExit(None, aborted=True)
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                shell, "-c", command, cwd=cwd, env=dict(env),
                stdin=asyncio.subprocess.DEVNULL, stdout=write_fd, stderr=write_fd, start_new_session=True,
            )
        except OSError as exc:
            os.close(read_fd)
            raise ToolError(f"Failed to start shell {shell}: {exc.strerror or exc}") from exc
        finally:
            os.close(write_fd)  # the shell has its own copy; EOF comes when the last writer closes
        reader = _PipeReader(read_fd, on_data)
        try:
            return await self._wait(proc, reader, signal, timeout)
        except BaseException:
            # Cancelled by the caller (or anything unexpected): never leave the tree running.
            await asyncio.shield(kill_group(proc.pid, self.kill_grace))
            raise
        finally:
            reader.close()

    async def _wait(
        self, proc: asyncio.subprocess.Process, reader: _PipeReader, signal: AbortSignal | None, timeout: float | None,
    ) -> ShellExit:
        started = time.monotonic()
        deadline = started + timeout if timeout is not None else None
        exit_wait = asyncio.ensure_future(proc.wait())
        eof_wait = asyncio.ensure_future(reader.eof.wait())
        abort_wait = asyncio.ensure_future(signal.wait()) if signal is not None else None
        shell_exited_at: float | None = None
        timed_out = aborted = False
        try:
            while True:
                now = time.monotonic()
                exited = exit_wait.done()
                if exited and shell_exited_at is None:
                    shell_exited_at = now
                if exited and reader.eof.is_set():
                    break
                if abort_wait is not None and abort_wait.done():
                    aborted = True
                    break
                if deadline is not None and now >= deadline:
                    timed_out = True
                    break
                waits: set[asyncio.Future[Any]] = set() if abort_wait is None else {abort_wait}
                limit = deadline - now if deadline is not None else None
                activity: asyncio.Future[Any] | None = None
                if not exited:
                    waits.add(exit_wait)
                    if not reader.eof.is_set():
                        waits.add(eof_wait)
                else:
                    # The shell is gone: keep reading while output comes, stop once it pauses.
                    reader.activity.clear()
                    activity = asyncio.ensure_future(reader.activity.wait())
                    waits |= {eof_wait, activity}
                    limit = self.exit_grace if limit is None else min(limit, self.exit_grace)
                done, _ = await asyncio.wait(waits, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
                if activity is not None:
                    activity.cancel()
                    if not done and (deadline is None or time.monotonic() < deadline):
                        break  # quiet since the shell exited: the command is done
            if timed_out or aborted:
                await kill_group(proc.pid, self.kill_grace)
                # The pipe closes once the group is gone; a process that escaped into its
                # own session could keep it open, so do not wait on it forever.
                await asyncio.wait({eof_wait, exit_wait}, timeout=2.0)
        finally:
            for fut in (exit_wait, eof_wait, abort_wait):
                if fut is not None and not fut.done():
                    fut.cancel()
        if reader.error is not None:
            raise ToolError(f"Failed to read command output: {reader.error}")
        # Only worth reporting when the shell had finished before the timeout fired.
        exited_after = shell_exited_at - started if timed_out and shell_exited_at is not None else None
        return ShellExit(_exit_code(proc.returncode), timed_out=timed_out, aborted=aborted,
                         exited_after=exited_after)
