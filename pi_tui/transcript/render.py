"""Pure helpers that turn tool calls, results and numbers into display text.

No widgets here: titles (``$ ls -la``, ``read src/x.py:10-40``), diff lines as Rich
``Text``, token and cost formatting, path shortening. Kept pure so tests and the footer,
tool boxes and history replay share them.
"""

from __future__ import annotations

import json
import os
from typing import Any

from rich.text import Text

DIFF_PREVIEW_LINES = 12
"""Diff lines shown while a tool box is collapsed."""
OUTPUT_PREVIEW_LINES = 6
"""Output lines shown while a tool box is collapsed."""


def short_path(path: str, cwd: str | None = None) -> str:
    """Relative to ``cwd`` when inside it, ``~`` for the home folder, else as given."""
    if not path:
        return path
    if cwd and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:
            rel = path
        if not rel.startswith(".."):
            return rel
    home = os.path.expanduser("~")
    if home and home != "/" and path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path


def tool_title(name: str, args: dict[str, Any] | None, cwd: str | None = None) -> str:
    """One line saying what a tool call does."""
    args = args or {}
    path = short_path(str(args.get("path") or args.get("file_path") or ""), cwd)
    if name == "bash":
        command = str(args.get("command") or "").strip()
        first = command.splitlines()[0] if command else ""
        return f"$ {first}" + (" …" if "\n" in command else "")
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) and isinstance(limit, int):
            return f"read {path}:{offset}-{offset + limit - 1}"
        if isinstance(offset, int):
            return f"read {path}:{offset}"
        if isinstance(limit, int):
            return f"read {path}:1-{limit}"
        return f"read {path}"
    if name in ("edit", "write", "ls"):
        return f"{name} {path}".rstrip()
    if name == "grep":
        where = f" in {path}" if path else ""
        return f"grep /{args.get('pattern', '')}/{where}"
    if name == "find":
        where = f" in {path}" if path else ""
        return f"find {args.get('pattern', '')}{where}"
    try:
        rendered = json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError):
        rendered = str(args)
    if len(rendered) > 80:
        rendered = rendered[:79] + "…"
    return f"{name} {rendered}"


def result_text(content: Any) -> str:
    """The text parts of a tool result's content (images become a placeholder)."""
    parts: list[str] = []
    for block in content or []:
        kind = getattr(block, "type", None) or (block.get("type") if isinstance(block, dict) else None)
        if kind == "text":
            parts.append(getattr(block, "text", None) or (block.get("text", "") if isinstance(block, dict) else ""))
        elif kind == "image":
            parts.append("[image]")
    return "\n".join(parts)


def diff_text(diff: str, colors: dict[str, str], *, limit: int | None = None) -> tuple[Text, int]:
    """Colour a unified diff with the theme's ``added``/``removed``/``context``/``hunk`` colours.

    Returns:
        (the text, how many lines were left out by ``limit``).
    """
    lines = [ln for ln in diff.splitlines() if not ln.startswith(("--- ", "+++ "))]
    hidden = 0
    if limit is not None:
        # Collapsed: start one context line before the first change, not at the hunk's top.
        first = next((i for i, ln in enumerate(lines) if ln[:1] in "+-" and ln), 0)
        if first > 2:
            hidden = first - 2
            lines = lines[:1] + lines[first - 1:]
    if limit is not None and len(lines) > limit:
        hidden += len(lines) - limit
        lines = lines[:limit]
    text = Text()
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        if line.startswith("+"):
            text.append(line, style=colors.get("added", "green"))
        elif line.startswith("-"):
            text.append(line, style=colors.get("removed", "red"))
        elif line.startswith("@@"):
            text.append(line, style=colors.get("hunk", "cyan"))
        else:
            text.append(line, style=colors.get("context", ""))
    return text, hidden


def tail_lines(text: str, limit: int | None) -> tuple[str, int]:
    """The last ``limit`` lines of ``text`` and how many were dropped."""
    lines = text.rstrip("\n").splitlines()
    if limit is None or len(lines) <= limit:
        return "\n".join(lines), 0
    return "\n".join(lines[-limit:]), len(lines) - limit


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
    if seconds < 60:
        return f"{int(seconds)}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"
