"""Auto-retry policy: exponential backoff from the base delay, capped, with jitter.

Jitter (beyond Pi) spreads retries from many clients hitting the same overloaded provider:
each delay is drawn uniformly from [50 %, 100 %] of the exponential step. A server's
``retry-after`` wins when it asks for longer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class RetryPolicy:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60_000
    jitter: bool = True

    def delay_ms(self, attempt: int, retry_after_s: float | None = None, rng: random.Random | None = None) -> int:
        """Delay before retry number ``attempt`` (1-based)."""
        step = min(self.max_delay_ms, self.base_delay_ms * (2 ** (attempt - 1)))
        if self.jitter:
            step = int(step * (0.5 + 0.5 * (rng or random).random()))
        if retry_after_s is not None:
            step = max(step, int(retry_after_s * 1000))
        return min(step, max(self.max_delay_ms, int((retry_after_s or 0) * 1000)))
