"""A unified diff of an edit, computed only around the changed spans.

Diffing a whole large file line by line is slow and pointless when the edit tool already
knows exactly which spans changed. Each change gets a window of context lines; windows that
touch are merged; difflib diffs each small window and the hunk headers are shifted to the
window's real line numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from .edit_match import Replacement


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    nxt = text.find("\n", pos)
    return len(text) if nxt < 0 else nxt + 1


def _lines(chunk: str) -> list[str]:
    if not chunk:
        return []
    lines = chunk.split("\n")
    if chunk.endswith("\n"):
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _range(start: int, length: int) -> str:
    # Same convention as difflib: an empty range names the line before it.
    if length == 1:
        return str(start)
    if length == 0:
        start -= 1
    return f"{start},{length}"


def unified_edit_diff(
    old: str, new: str, reps: Sequence[Replacement], path: str, context: int = 3
) -> tuple[str, int | None]:
    """Build the diff of ``old`` → ``new`` given the applied replacements.

    Args:
        old: Content before (no BOM).
        new: Content after.
        reps: The replacements, sorted by position in ``old``.
        path: Name used in the ``---``/``+++`` headers.
        context: Context lines around each change.

    Returns:
        ``(diff, first_changed_line)``; the line number is 1-based in the new content.
    """
    # Windows in old-content offsets, each with the net length change of its edits.
    windows: list[list[int]] = []  # [start, end, shift_before, shift_within]
    shift = 0
    for rep in reps:
        start = _line_start(old, rep.start)
        end = _line_end(old, max(rep.end - 1, rep.start))
        for _ in range(context):
            if start == 0:
                break
            start = _line_start(old, start - 1)
        for _ in range(context):
            if end >= len(old):
                break
            end = _line_end(old, end)
        change = len(rep.text) - (rep.end - rep.start)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], end)
            windows[-1][3] += change
        else:
            windows.append([start, end, shift, change])
        shift += change

    out = [f"--- a/{path}", f"+++ b/{path}"]
    first_changed: int | None = None
    for start, end, before, within in windows:
        new_start, new_end = start + before, end + before + within
        old_lines = _lines(old[start:end])
        new_lines = _lines(new[new_start:new_end])
        old_base = old.count("\n", 0, start) + 1
        new_base = new.count("\n", 0, new_start) + 1
        matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        for group in matcher.get_grouped_opcodes(context):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            out.append(f"@@ -{_range(old_base + i1, i2 - i1)} +{_range(new_base + j1, j2 - j1)} @@")
            for tag, a1, a2, b1, b2 in group:
                if tag == "equal":
                    out.extend(" " + line for line in old_lines[a1:a2])
                    continue
                if first_changed is None:
                    first_changed = new_base + b1
                out.extend("-" + line for line in old_lines[a1:a2])
                out.extend("+" + line for line in new_lines[b1:b2])
    return "\n".join(out) + "\n", first_changed
