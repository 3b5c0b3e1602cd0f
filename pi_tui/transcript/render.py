"""Pure helpers that turn tool calls, results and numbers into display text.

No widgets here: titles (``$ ls -la``, ``read src/x.py:10-40``), diff lines as Rich
``Text``, path shortening. Kept pure so tests, tool boxes and history replay share them (token
and cost figures are the footer's: ``footer/figures.py``).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from rich.text import Text

from .image_size import image_fallback

DIFF_PREVIEW_LINES = 12
"""Diff lines shown while a tool box is collapsed."""
OUTPUT_PREVIEW_LINES = 5
"""Output lines (the last ones) shown while a tool box is collapsed: Pi's bash preview."""
WRITE_PREVIEW_LINES = 10
"""Lines of a written file (the first ones) shown while collapsed, as Pi shows them."""
MIN_LINES_SAVED = 3
"""Collapse only when it saves at least this many rows (the hint line costs one): folding a
7-line output into a 5-line tail and a hint saves one row and hides two lines for nothing."""


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
    if name == "codemode":  # the script is drawn under the title (codemode_view)
        return "codemode"
    if name in ("edit", "write", "ls"):
        return f"{name} {path}".rstrip()
    if name == "grep":
        where = f" in {path}" if path else ""
        return f"grep /{args.get('pattern', '')}/{where}"
    if name == "find":
        where = f" in {path}" if path else ""
        return f"find {args.get('pattern', '')}{where}"
    # Any other tool, as Pi titles it: its label, then ``key=value`` pairs (values as JSON) cut to
    # 100 characters; an MCP tool's label is ``server/tool``.
    pairs = " ".join(f"{key}={_json(value, compact=True)}" for key, value in args.items())
    if len(pairs) > GENERIC_ARGS_CHARS:
        pairs = pairs[:GENERIC_ARGS_CHARS - 3] + "..."
    return f"{tool_label(name)} {pairs}".rstrip()


GENERIC_ARGS_CHARS = 100
"""A tool's arguments on its title line, at most (Pi's)."""


def tool_label(name: str) -> str:
    """``server/tool`` for an MCP tool's ``mcp__server__tool`` (Pi's label), else the name."""
    if name.startswith("mcp__"):
        server, sep, tool = name[len("mcp__"):].partition("__")
        if sep and server and tool:
            return f"{server}/{tool}"
    return name


def argument_lines(args: dict[str, Any]) -> str:
    """The arguments one per line, as an expanded call shows them under its title (Pi's
    ``key: value``: strings as they are, other values as indented JSON)."""
    lines = []
    for key, value in args.items():
        text = value if isinstance(value, str) else _json(value, indent=2)
        lines.append(f"  {key}: " + text.replace("\r", "").expandtabs(3).replace("\n", "\n    "))
    return "\n".join(lines)


def _json(value: object, indent: int | None = None, compact: bool = False) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, separators=(",", ":") if compact else None)
    except (TypeError, ValueError):
        return str(value)


def result_text(content: Any) -> str:
    """The text parts of a tool result's content; an image becomes the text Pi shows for it in a
    terminal that shows no pictures (its type and size)."""
    parts: list[str] = []
    for block in content or []:
        kind = getattr(block, "type", None) or (block.get("type") if isinstance(block, dict) else None)
        if kind == "text":
            parts.append(getattr(block, "text", None) or (block.get("text", "") if isinstance(block, dict) else ""))
        elif kind == "image":
            data = getattr(block, "data", None) or (block.get("data") if isinstance(block, dict) else None)
            mime = getattr(block, "mime_type", None) or (block.get("mimeType") if isinstance(block, dict) else None)
            parts.append(image_fallback(data if isinstance(data, str) else "", mime if isinstance(mime, str) else "image"))
    return "\n".join(parts)


def _hunk_starts(header: str) -> tuple[int, int] | None:
    match = _HUNK.match(header)
    return (int(match.group(1)), int(match.group(2))) if match else None


_HUNK = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def numbered_diff(diff: str) -> list[str]:
    """A unified diff as Pi shows an edit: ``-12 old``, ``+12 new``, `` 13 context``, with the
    number in a gutter of even width (the old file's for removed and context lines, the new
    file's for added ones) and ``...`` between hunks.

    A diff already in that form (Pi writes it so into the session file) is returned as it is.
    """
    raw = [ln for ln in diff.splitlines() if not ln.startswith(("--- ", "+++ ", "\\ "))]
    if not any(_hunk_starts(ln) for ln in raw):
        return raw
    rows: list[tuple[str, int | None, str]] = []
    old = new = 0
    for line in raw:
        starts = _hunk_starts(line)
        if starts is not None:
            if rows:
                rows.append((" ", None, "..."))
            old, new = starts
        elif line.startswith("+"):
            rows.append(("+", new, line[1:]))
            new += 1
        elif line.startswith("-"):
            rows.append(("-", old, line[1:]))
            old += 1
        else:
            rows.append((" ", old, line[1:]))
            old, new = old + 1, new + 1
    width = max((len(str(n)) for _, n, _ in rows if n is not None), default=1)
    return [f"{sign}{'' if n is None else n:>{width}} {body}" for sign, n, body in rows]


def diff_text(diff: str, colors: dict[str, str], *, limit: int | None = None) -> tuple[Text, int]:
    """Colour an edit's diff (see ``numbered_diff``) with the theme's ``added``/``removed``/``context`` colours.

    Returns:
        (the text, how many lines were left out by ``limit``).
    """
    lines = numbered_diff(diff)
    hidden = 0
    if limit is not None:
        # Collapsed: start one context line before the first change, not at the hunk's top.
        first = next((i for i, ln in enumerate(lines) if ln[:1] in "+-" and ln), 0)
        if first > 1:
            hidden = first - 1
            lines = lines[first - 1:]
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
        else:
            text.append(line, style=colors.get("context", ""))
    return text, hidden


def format_tool_duration(ms: float) -> str:
    """Pi's tool timing: ``4.2s`` below a minute, then ``1m 30s`` and ``2h 3m 4s``."""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {rest}s"
    return f"{minutes // 60}h {minutes % 60}m {rest}s"
