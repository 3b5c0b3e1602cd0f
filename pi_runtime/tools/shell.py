"""Run a shell command on this machine without leaving processes behind.

The shell starts in a new session, so it and everything it spawns share one process
group. Abort, timeout or cancellation of the calling task terminate the whole group:
SIGTERM first, SIGKILL for whatever is still alive after a grace period. stdout and stderr
are merged into one pipe and read in chunks; output that descendants write after the
shell exits is still collected until the pipe closes.
"""

from __future__ import annotations

import asyncio
import os
import signal as signal_mod
import sys
import time
from collections.abc import Callable, Mapping

from ..agent.tool import ToolError
from ..ai.abort import AbortSignal
from .operations import ShellExit

_CHUNK = 64 * 1024
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


class LocalShellOperations:
    """Runs commands with the local shell (see :func:`default_shell`)."""

    def __init__(self, shell: str | None = None, kill_grace: float = 3.0) -> None:
        """Args:
        shell: Shell executable (``shellPath`` setting); ``~`` is expanded.
        kill_grace: Seconds between SIGTERM and SIGKILL.
        """
        self.shell = os.path.expanduser(shell) if shell else None
        self.kill_grace = kill_grace

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
        try:
            proc = await asyncio.create_subprocess_exec(
                shell, "-c", command, cwd=cwd, env=dict(env),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True,
            )
        except OSError as exc:
            raise ToolError(f"Failed to start shell {shell}: {exc.strerror or exc}") from exc
        started = time.monotonic()
        assert proc.stdout is not None
        stdout = proc.stdout
        shell_exited_at: list[float] = []

        async def pump() -> None:
            while True:
                chunk = await stdout.read(_CHUNK)
                if not chunk:
                    return
                on_data(chunk)

        async def wait_shell() -> None:
            await proc.wait()
            shell_exited_at.append(time.monotonic())

        reader = asyncio.ensure_future(pump())
        waiter = asyncio.ensure_future(wait_shell())
        finished = asyncio.ensure_future(asyncio.wait({reader, waiter}))
        watchers: set[asyncio.Future] = {finished}
        abort_wait = asyncio.ensure_future(signal.wait()) if signal is not None else None
        if abort_wait is not None:
            watchers.add(abort_wait)
        timed_out = aborted = False
        fired_at = float("inf")
        try:
            done, _ = await asyncio.wait(watchers, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if finished not in done:
                aborted = abort_wait is not None and abort_wait in done
                timed_out = not aborted
                fired_at = time.monotonic()
                await kill_group(proc.pid, self.kill_grace)
                # The pipe closes once the group is gone; a process that escaped into its
                # own session could keep it open, so do not wait on it forever.
                await asyncio.wait({reader, waiter}, timeout=2.0)
        except BaseException:
            # Cancelled by the caller (or anything unexpected): never leave the tree running.
            await asyncio.shield(kill_group(proc.pid, self.kill_grace))
            raise
        finally:
            for fut in (finished, abort_wait, reader, waiter):
                if fut is not None and not fut.done():
                    fut.cancel()
        if reader.done() and not reader.cancelled() and reader.exception() is not None:
            raise ToolError(f"Failed to read command output: {reader.exception()}")
        # Only worth reporting when the shell had finished before the timeout fired.
        early_exit = timed_out and shell_exited_at and shell_exited_at[0] <= fired_at
        exited_after = shell_exited_at[0] - started if early_exit else None
        return ShellExit(_exit_code(proc.returncode), timed_out=timed_out, aborted=aborted,
                         exited_after=exited_after)
