"""How the footer and the session tabs write figures: tokens, dollars and elapsed time, as Pi writes them."""

from __future__ import annotations


def format_tokens(count: int) -> str:
    """Pi's token counts: 1234 -> ``1.2k``, 12345 -> ``12k``, 1234567 -> ``1.2M``, 253612345 -> ``254M``."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def format_cost(cost: float) -> str:
    """Pi's dollars: always three decimals (``$0.005``, ``$12.340``), rounded as JavaScript's
    ``toFixed(3)`` does: from the float's exact value, a tie going up (``$0.0625`` → ``$0.063``,
    where Python's own formatting rounds a tie to even and would print ``$0.062``)."""
    from decimal import ROUND_HALF_UP, Decimal

    return "$" + str(Decimal(cost).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def format_duration(seconds: float) -> str:
    """Elapsed time as the footer shows a run's: ``42s``, ``3m05s``."""
    if seconds < 60:
        return f"{int(seconds)}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"
