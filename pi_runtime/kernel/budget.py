"""An optional per-prompt budget (beyond Pi): max turns, tokens or cost.

Checked at each ``turn_end``; when a limit is reached the run stops at that turn boundary
(the turn's tool calls have finished, nothing is cut mid-stream), a ``budget_exceeded``
event says which limit and why, and the session settles normally.
"""

from __future__ import annotations

from typing import Any

from ..records import record


@record
class Budget:
    max_turns: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.max_turns, self.max_tokens, self.max_cost))


class BudgetMeter:
    """What one prompt has used so far."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.turns = 0
        self.tokens = 0
        self.cost = 0.0

    def add_turn(self, message: Any) -> tuple[str, str] | None:
        """Count one finished turn; returns ``(limit, message)`` once a limit is reached."""
        self.turns += 1
        usage = getattr(message, "usage", None)
        if usage is not None:
            self.tokens += usage.input + usage.output + usage.cache_read + usage.cache_write
            self.cost += usage.cost.total
        b = self.budget
        if b.max_turns is not None and self.turns >= b.max_turns:
            return "turns", f"Stopped: the turn budget of {b.max_turns} was reached for this prompt."
        if b.max_tokens is not None and self.tokens >= b.max_tokens:
            return "tokens", (
                f"Stopped: this prompt used {self.tokens:,} tokens, over its budget of {b.max_tokens:,}."
            )
        if b.max_cost is not None and self.cost >= b.max_cost:
            return "cost", f"Stopped: this prompt cost ${self.cost:.4f}, over its budget of ${b.max_cost:.4f}."
        return None
