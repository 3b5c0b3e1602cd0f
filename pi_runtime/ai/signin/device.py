"""Polling a device-code sign-in (RFC 8628) until the user has approved it on another device.

The timing follows the RFC as Pi applies it: the server's ``interval`` (5 s when it gives none,
never under 1 s), ``slow_down`` raising the interval to what the server now asks or by 5 s, and
the code's ``expires_in`` as the deadline. Nothing polls past the deadline or after the user
cancelled.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from ...records import record
from ..abort import AbortSignal, sleep_or_abort
from ..oauth import OAuthLoginCancelled
from .web import SignInError

MINIMUM_INTERVAL = 1.0
DEFAULT_INTERVAL = 5.0
SLOW_DOWN_STEP = 5.0
TIMED_OUT = "Device flow timed out"
TIMED_OUT_AFTER_SLOW_DOWN = (
    "Device flow timed out after one or more slow_down responses. This is often caused by clock drift "
    "in WSL or VM environments. Please sync or restart the VM clock and try again."
)


@record(frozen=True)
class Poll:
    """One poll's outcome."""

    status: Literal["complete", "pending", "slow_down", "failed"]
    value: Any = None
    interval: float | None = None
    """With ``slow_down``: the interval the server now asks for (seconds), if it said."""
    message: str = ""
    """With ``failed``: why."""


PENDING = Poll("pending")


def positive(value: object) -> float | None:
    """``value`` when it is a positive finite number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 < value < float("inf") else None


async def poll_device_code(poll: Callable[[], Awaitable[Poll]], *, signal: AbortSignal,
                           interval: float | None, expires_in: float | None,
                           wait_first: bool = False) -> Any:
    """Call ``poll`` every interval until it completes, fails, or the code expires.

    Args:
        poll: One request to the token endpoint.
        signal: The login's cancel signal.
        interval: Seconds between polls as the server said (None: 5).
        expires_in: Seconds the code lives (None: no limit).
        wait_first: Wait one interval before the first poll (GitHub, xAI, Kimi and Meta ask for it).

    Raises:
        OAuthLoginCancelled: The user cancelled.
        SignInError: The sign-in was refused, failed or timed out.
    """
    deadline = time.monotonic() + expires_in if expires_in is not None else float("inf")
    step = max(MINIMUM_INTERVAL, interval if interval is not None else DEFAULT_INTERVAL)
    slowed = False

    async def pause() -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if await sleep_or_abort(min(step, remaining), signal):
            raise OAuthLoginCancelled("Login cancelled")
        return True

    if wait_first:
        await pause()
    while time.monotonic() < deadline:
        if signal.aborted:
            raise OAuthLoginCancelled("Login cancelled")
        outcome = await poll()
        if outcome.status == "complete":
            return outcome.value
        if outcome.status == "failed":
            raise SignInError(outcome.message)
        if outcome.status == "slow_down":
            slowed = True
            asked = positive(outcome.interval)
            step = max(MINIMUM_INTERVAL, asked if asked is not None else step + SLOW_DOWN_STEP)
        if not await pause():
            break
    raise SignInError(TIMED_OUT_AFTER_SLOW_DOWN if slowed else TIMED_OUT)
