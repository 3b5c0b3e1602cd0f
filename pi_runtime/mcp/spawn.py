"""Starting a stdio server: anyio only (a few milliseconds to import), no SDK.

Kept apart from :mod:`.stdio` so the server process can boot while the SDK (about half a second)
is still being imported in a worker thread: most servers are themselves interpreters that take as
long to start.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any


async def spawn(command: str, args: list[str], env: dict[str, str], cwd: str, stderr: Any) -> Any:
    """Start ``command`` in a new session (its own process group) with piped stdin and stdout.

    Raises:
        OSError: The command cannot be started.
    """
    import anyio

    return await anyio.open_process([command, *args], env=env, cwd=cwd, stderr=stderr, start_new_session=True)


def kill_group(process: Any) -> None:
    """SIGKILL a started server's process group at once (it never got a transport)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
