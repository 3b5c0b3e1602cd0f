"""Auto-retry policy: exponential backoff from the base delay, capped, with jitter.

Jitter (beyond Pi) spreads retries from many clients hitting the same overloaded provider:
each delay is drawn uniformly from [50 %, 100 %] of the exponential step, capped at
``retry.maxAgentDelayMs``. A server's ``retry-after`` (beyond Pi, whose agent-level retry
ignores it) wins when it asks for longer, up to ``retry.provider.maxRetryDelayMs``: a server
that asks for more than that is not retried at all, as Pi fails such a request ("Server
requested 3600s retry delay (max: 60s)"), instead of waiting an hour.

``request_limits`` reads the per-request network limits from the same settings.
"""

from __future__ import annotations

import random
from typing import Any

from ..ai.options import RequestLimits
from ..records import record


@record
class RetryPolicy:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60_000
    """Cap on one backoff step (``retry.maxAgentDelayMs``)."""
    max_server_delay_ms: int = 60_000
    """Longest server-requested delay honoured (``retry.provider.maxRetryDelayMs``); 0: no limit."""
    jitter: bool = True

    def server_delay_too_long(self, retry_after_s: float | None) -> bool:
        """Whether the server asked to wait longer than this policy honours (then: no retry)."""
        cap = self.max_server_delay_ms
        return retry_after_s is not None and cap > 0 and retry_after_s * 1000 > cap

    def delay_ms(self, attempt: int, retry_after_s: float | None = None, rng: random.Random | None = None) -> int:
        """Delay before retry number ``attempt`` (1-based); never above the server-delay cap."""
        step = min(self.max_delay_ms, self.base_delay_ms * (2 ** (attempt - 1)))
        if self.jitter:
            step = int(step * (0.5 + 0.5 * (rng or random).random()))
        if retry_after_s is not None:
            step = max(step, int(retry_after_s * 1000))
            if self.max_server_delay_ms > 0:
                step = min(step, max(self.max_server_delay_ms, self.max_delay_ms))
        return step

    @classmethod
    def from_settings(cls, settings: Any) -> RetryPolicy:
        """The policy of a typed ``Settings``."""
        retry = settings.retry
        return cls(
            enabled=retry.enabled,
            max_retries=int(retry.max_retries),
            base_delay_ms=int(retry.base_delay_ms),
            max_delay_ms=int(retry.max_agent_delay_ms),
            max_server_delay_ms=int(retry.provider.max_retry_delay_ms),
        )


def request_limits(settings: Any) -> RequestLimits:
    """Timeouts, the server-delay cap and the transport for each request, from a typed ``Settings``."""
    provider = settings.retry.provider
    return RequestLimits.from_ms(settings.http_idle_timeout_ms, provider.timeout_ms, provider.max_retry_delay_ms,
                                 settings.transport)
