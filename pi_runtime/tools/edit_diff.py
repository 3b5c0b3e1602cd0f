"""An edit's diffs, as Pi 1.6 records them, computed only around the changed spans.

Pi's edit result carries two diffs in ``details``: ``diff``, the display form its renderer shows
(``-12 old``, ``+12 new``, `` 13 context`` with the number in a gutter as wide as the file's
line count, four context lines, `` ... `` where lines are skipped), and ``patch``, a unified
patch (``--- path``/``+++ path`` headers, four context lines, hunk headers always with
counts). Diffing a whole large file is slow and pointless when the edit tool knows which spans
changed: each change gets a window of 32 unchanged lines on each side (enough for the line
matcher to align it as it would over the whole file), touching windows merge, and each window
is diffed on its own with its line numbers shifted to where it sits in the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from .edit_match import Replacement

CONTEXT_LINES = 4
"""Unchanged lines shown around a change (Pi's default)."""
WINDOW_MARGIN_LINES = 32
"""Unchanged lines diffed on each side of a replacement."""


@dataclass(frozen=True, slots=True)
class EditDiff:
    diff: str
    """The display diff (Pi's ``details.diff``)."""
    patch: str
    """The unified patch (Pi's ``details.patch``)."""
    first_changed_line: int | None
    """1-based line of the first change in the new content (Pi's ``firstChangedLine``)."""


@dataclass(slots=True)
class _Window:
    old_start: int
    old_end: int
    old_line: int
    """0-based line of ``old_start`` in the old content."""
    new_start: int
    new_end: int
    new_line: int


def _line_start(text: str, pos: int) -> int:
    return 0 if pos == 0 else text.rfind("\n", 0, pos) + 1


def _windows(old: str, reps: Sequence[Replacement]) -> list[_Window]:
    windows: list[_Window] = []
    offset_delta = line_delta = 0
    cursor_offset = cursor_line = 0
    for rep in reps:
        start = _line_start(old, rep.start)
        for _ in range(WINDOW_MARGIN_LINES):
            if start == 0:
                break
            start = _line_start(old, start - 1)
        end = rep.end
        # The end of the match's last line, then the margin's lines after it.
        for i in range(WINDOW_MARGIN_LINES + 1):
            if end >= len(old):
                break
            feed = old.find("\n", max(rep.end - 1, rep.start) if i == 0 else end)
            end = len(old) if feed < 0 else feed + 1
        change = len(rep.text) - (rep.end - rep.start)
        lines_change = rep.text.count("\n") - old.count("\n", rep.start, rep.end)
        if windows and start <= windows[-1].old_end:
            last = windows[-1]
            last.old_end = max(last.old_end, end)
            last.new_end = last.old_end + offset_delta + change
        else:
            cursor_line += old.count("\n", cursor_offset, start)
            cursor_offset = start
            windows.append(_Window(start, end, cursor_line, start + offset_delta, end + offset_delta + change,
                                   cursor_line + line_delta))
        offset_delta += change
        line_delta += lines_change
    return windows


def _tokens(chunk: str) -> list[str]:
    """Lines with their line feed (a last line without one is a different token, as jsdiff sees it)."""
    return chunk.splitlines(keepends=True) if "\r" not in chunk else _lf_lines(chunk)


def _lf_lines(chunk: str) -> list[str]:
    parts = chunk.split("\n")
    tokens = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        tokens.append(parts[-1])
    return tokens


def _shown(token: str) -> str:
    return token.rstrip("\n").removesuffix("\r")


def _display(matcher: SequenceMatcher, old: list[str], new: list[str], old_no: int, new_no: int, width: int,
             context: int) -> tuple[list[str], int | None]:
    """Pi's display lines for one window's line diff, numbering from 1-based ``old_no``/``new_no``."""
    parts: list[tuple[str, list[str]]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(("=", old[i1:i2]))
            continue
        if i2 > i1:
            parts.append(("-", old[i1:i2]))
        if j2 > j1:
            parts.append(("+", new[j1:j2]))
    skip = f" {'':>{width}} ..."
    out: list[str] = []
    first: int | None = None
    last_was_change = False

    def show(lines: list[str]) -> None:
        nonlocal old_no, new_no
        for line in lines:
            out.append(f" {old_no:>{width}} {_shown(line)}")
            old_no, new_no = old_no + 1, new_no + 1

    def skip_lines(count: int) -> None:
        nonlocal old_no, new_no
        if count > 0:
            out.append(skip)
            old_no, new_no = old_no + count, new_no + count

    for i, (kind, lines) in enumerate(parts):
        if kind != "=":
            if first is None:
                first = new_no
            for line in lines:
                if kind == "+":
                    out.append(f"+{new_no:>{width}} {_shown(line)}")
                    new_no += 1
                else:
                    out.append(f"-{old_no:>{width}} {_shown(line)}")
                    old_no += 1
            last_was_change = True
            continue
        before_change = i + 1 < len(parts) and parts[i + 1][0] != "="
        if last_was_change and before_change:
            if len(lines) <= context * 2:
                show(lines)
            else:
                show(lines[:context])
                skip_lines(len(lines) - 2 * context)
                show(lines[-context:])
        elif last_was_change:
            show(lines[:context])
            skip_lines(len(lines) - context)
        elif before_change:
            skip_lines(len(lines) - context)
            show(lines[max(0, len(lines) - context):])
        else:
            old_no, new_no = old_no + len(lines), new_no + len(lines)
        last_was_change = False
    return out, first


def _hunks(matcher: SequenceMatcher, old: list[str], new: list[str], old_line: int, new_line: int,
           context: int) -> list[str]:
    """Unified hunks for one window (0-based window lines ``old_line``/``new_line`` in the file)."""
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = old_line + i1 + (1 if i2 > i1 else 0)
        new_start = new_line + j1 + (1 if j2 > j1 else 0)
        out.append(f"@@ -{old_start},{i2 - i1} +{new_start},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_patch_lines(" ", old[a1:a2]))
                continue
            out.extend(_patch_lines("-", old[a1:a2]))
            out.extend(_patch_lines("+", new[b1:b2]))
    return out


def _patch_lines(sign: str, tokens: list[str]) -> list[str]:
    out = []
    for token in tokens:
        out.append(sign + _shown(token))
        if not token.endswith("\n"):
            out.append("\\ No newline at end of file")
    return out


def edit_diff(old: str, new: str, reps: Sequence[Replacement], path: str,
              context: int = CONTEXT_LINES) -> EditDiff:
    """The display diff and the patch of ``old`` → ``new``, given the applied replacements.

    Args:
        old: Content before (no BOM).
        new: Content after.
        reps: The replacements, sorted by position in ``old``.
        path: Name used in the patch's ``---``/``+++`` headers.
        context: Context lines around each change.
    """
    width = len(str(max(old.count("\n"), new.count("\n")) + 1))
    skip = f" {'':>{width}} ..."
    display: list[str] = []
    hunks: list[str] = []
    first: int | None = None
    for window in _windows(old, reps):
        old_tokens = _tokens(old[window.old_start:window.old_end])
        new_tokens = _tokens(new[window.new_start:window.new_end])
        matcher = SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
        shown, changed = _display(matcher, old_tokens, new_tokens, window.old_line + 1, window.new_line + 1,
                                  width, context)
        if first is None:
            first = changed
        if display and display[-1] == skip and shown[:1] == [skip]:
            shown = shown[1:]  # one marker for the unchanged run between two windows
        display.extend(shown)
        hunks.extend(_hunks(matcher, old_tokens, new_tokens, window.old_line, window.new_line, context))
    patch = "\n".join([f"--- {path}", f"+++ {path}", *hunks]) + "\n"
    return EditDiff("\n".join(display), patch, first)
