"""Waiting on a condition instead of sleeping a fixed time, for tests and benchmarks.

A fixed sleep is either too short on a loaded machine (the test flakes) or too long on an idle one
(the suite crawls); polling with a deadline is as fast as the condition and as patient as needed.

Example:
    assert wait_until(lambda: pid_file.exists(), timeout=5), "the job never started"
    assert await eventually(lambda: session.is_idle), "the run never settled"
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


def wait_until(check: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Poll ``check()`` until it is true or ``timeout`` seconds passed; returns whether it came true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(interval)
    return bool(check())


async def eventually(check: Callable[[], Any], timeout: float = 10.0, interval: float = 0.005) -> bool:
    """:func:`wait_until` for a test on the event loop: other tasks run while it waits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(interval)
    return bool(check())
