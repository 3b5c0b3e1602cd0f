"""Find each ``oldText`` in a file and splice in its ``newText`` without touching anything else.

Matching runs on normalised views of the file — line endings folded to LF, then (only if
the exact search fails) a forgiving view with trailing whitespace dropped, smart quotes,
Unicode dashes and odd spaces made ASCII and the text NFKC-normalised as a whole (as Pi does,
so a decomposed ``e`` + combining acute matches ``é``). Each
view remembers where its characters came from, so a match found in a view is mapped back
to offsets in the original text and only that span is replaced: untouched lines keep their
bytes, line endings and whitespace. Every edit is matched against the original content,
must be unique, and edits must not overlap.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Sequence

from ..agent.tool import ToolError
from ..records import record

_LINE_ENDINGS = re.compile(r"\r\n?")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_TRAILING_WS = re.compile(r"[^\S\n]+(?=\n|\Z)")
_FUZZY_TABLE = str.maketrans(
    {**dict.fromkeys("‘’‚‛", "'"),
     **dict.fromkeys("“”„‟", '"'),
     **dict.fromkeys("‐‑‒–—―−", "-"),
     **dict.fromkeys("\xa0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " ")}
)
_MAX_COUNT = 1000


class _Pass:
    """Where each character of a transformed string came from (only length changes are stored)."""

    __slots__ = ("records", "starts")

    def __init__(self, records: list[tuple[int, int, int, int]]) -> None:
        self.records = records  # (out_start, out_len, src_start, src_end), by out_start
        self.starts = [r[0] for r in records]

    def source(self, j: int) -> tuple[int, int]:
        i = bisect_right(self.starts, j) - 1
        if i < 0:
            return j, j + 1
        out_start, out_len, src_start, src_end = self.records[i]
        if j < out_start + out_len:
            return src_start, src_end
        src = src_end + (j - out_start - out_len)
        return src, src + 1


class _CrlfPass:
    """Source map for a text whose every line break was CRLF (the common Windows case):
    counting newlines is much faster than recording 100k replacements."""

    __slots__ = ("out",)

    def __init__(self, out: str) -> None:
        self.out = out

    def source(self, j: int) -> tuple[int, int]:
        src = j + self.out.count("\n", 0, j)
        if j < len(self.out) and self.out[j] == "\n":
            return src, src + 2
        return src, src + 1


def _sub(text: str, pattern: re.Pattern[str], repl: Callable[[str], str]) -> tuple[str, _Pass | None]:
    records: list[tuple[int, int, int, int]] = []
    delta = 0

    def fn(m: re.Match[str]) -> str:
        nonlocal delta
        out = repl(m.group())
        start, end = m.span()
        if len(out) != end - start:
            records.append((start + delta, len(out), start, end))
            delta += len(out) - (end - start)
        return out

    result = pattern.sub(fn, text)
    return result, (_Pass(records) if records else None)


def _attaches(ch: str) -> bool:
    """A mark, or a Hangul vowel/final jamo: NFKC may compose it with the character before."""
    return unicodedata.category(ch)[0] == "M" or "\u1160" <= ch <= "\u11ff" or "\ud7b0" <= ch <= "\ud7ff"


def _nfkc_view(text: str) -> tuple[str, _Pass | None]:
    """NFKC of the whole text, as Pi does, computed per cluster so offsets can be mapped back.

    A cluster is a character and the marks that follow it, so a decomposed ``e`` + U+0301 is
    folded together into ``é`` (normalising one character at a time would leave it apart);
    ASCII outside clusters never changes and is skipped.
    """
    records: list[tuple[int, int, int, int]] = []
    parts: list[str] = []
    delta = 0
    cursor = 0
    positions = [m.start() for m in _NON_ASCII.finditer(text)]
    i = 0
    while i < len(positions):
        start = positions[i]
        if _attaches(text[start]) and start > cursor:
            start -= 1  # its ASCII base (a non-ASCII base already took the mark into its cluster)
        end = positions[i] + 1
        i += 1
        while i < len(positions) and positions[i] == end and _attaches(text[end]):
            end += 1
            i += 1
        parts.append(text[cursor:start])
        out = unicodedata.normalize("NFKC", text[start:end])
        parts.append(out)
        if len(out) != end - start:
            records.append((start + delta, len(out), start, end))
            delta += len(out) - (end - start)
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts), (_Pass(records) if records else None)


@record(slots=True)
class View:
    """A normalised view of a text plus the passes that map it back."""

    text: str
    passes: list[_Pass | _CrlfPass]

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """Map the half-open span ``[start, end)`` (non-empty) back to the source text."""
        a, b = start, end
        for p in reversed(self.passes):
            a = p.source(a)[0]
            b = p.source(b - 1)[1]
        return a, b


def lf_view(text: str) -> View:
    """The text with CRLF and lone CR folded to LF."""
    if "\r" not in text:
        return View(text, [])
    crlf = text.count("\r\n")
    if crlf == text.count("\r") == text.count("\n"):
        out = text.replace("\r\n", "\n")
        return View(out, [_CrlfPass(out)])
    out, p = _sub(text, _LINE_ENDINGS, lambda _s: "\n")
    return View(out, [p] if p else [])


def fuzzy_view(base: View) -> View:
    """A forgiving view on top of ``base`` (see the module docstring)."""
    passes: list[_Pass | _CrlfPass] = list(base.passes)
    text = base.text.translate(_FUZZY_TABLE)
    if not text.isascii():
        text, p = _nfkc_view(text)
        if p:
            passes.append(p)
    text, p = _sub(text, _TRAILING_WS, lambda _s: "")
    if p:
        passes.append(p)
    return View(text, passes)


def fuzzy_normalize(text: str) -> str:
    """The forgiving normal form of a snippet (what :func:`fuzzy_view` does to the file)."""
    return fuzzy_view(lf_view(text)).text


def detect_line_ending(text: str) -> str:
    """``"\\r\\n"`` when the first line break is CRLF, else ``"\\n"``."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _occurrences(haystack: str, needle: str, first: int) -> int:
    count, pos = 1, first
    while count < _MAX_COUNT:
        pos = haystack.find(needle, pos + 1)
        if pos < 0:
            break
        count += 1
    return count


@record(slots=True)
class Replacement:
    """One resolved edit: replace ``content[start:end]`` with ``text``."""

    index: int
    start: int
    end: int
    text: str
    fuzzy: bool


class EditMatcher:
    """Resolves edits against one file's content (BOM already removed)."""

    def __init__(self, content: str, path: str) -> None:
        self.content = content
        self.path = path
        self.lf = lf_view(content)
        self._fuzzy: View | None = None
        self.ending = detect_line_ending(content)

    @property
    def fuzzy(self) -> View:
        if self._fuzzy is None:
            self._fuzzy = fuzzy_view(self.lf)
        return self._fuzzy

    def _label(self, index: int, multi: bool) -> str:
        return f"edits[{index}].oldText" if multi else "the text"

    def _hint(self, old_lf: str) -> str:
        for line in old_lf.split("\n"):
            probe = fuzzy_normalize(line).strip()
            if len(probe) >= 3:
                pos = self.fuzzy.text.find(probe)
                if pos >= 0:
                    line_no = self.fuzzy.text.count("\n", 0, pos) + 1
                    return (f" Its line {probe[:60]!r} occurs at line {line_no} of the file; re-read the "
                            "file around there and copy the text exactly.")
                break
        return " Re-read the file and copy the text exactly."

    def resolve(self, index: int, old_text: str, new_text: str, multi: bool) -> Replacement:
        """Locate one edit.

        Args:
            index: Position in ``edits`` (for messages).
            old_text: Text to find.
            new_text: Replacement.
            multi: Whether the call has several edits (changes the wording of errors).

        Returns:
            The replacement in original-content offsets.
        """
        label = self._label(index, multi)
        if not old_text:
            raise ToolError(f"edits[{index}].oldText must not be empty.")
        old_lf = lf_view(old_text).text
        pos = self.lf.text.find(old_lf)
        view, needle, fuzzy = self.lf, old_lf, False
        if pos < 0:
            needle = fuzzy_normalize(old_lf)
            view, fuzzy = self.fuzzy, True
            pos = view.text.find(needle) if needle else -1
            if pos < 0:
                what = "the exact text" if not multi else label
                raise ToolError(
                    f"Could not find {what} in {self.path}. The old text must match exactly "
                    f"including all whitespace and newlines.{self._hint(old_lf)}"
                )
        if view.text.find(needle, pos + 1) >= 0:
            count = _occurrences(view.text, needle, pos)
            raise ToolError(
                f"Found {count} occurrences of {label} in {self.path}. The text must be unique. "
                "Please provide more context to make it unique."
            )
        start, end = view.to_source(pos, pos + len(needle))
        span = self.content[start:end]
        ending = "\r\n" if "\r\n" in span else ("\n" if "\n" in span else self.ending)
        replacement = lf_view(new_text).text
        if ending == "\r\n":
            replacement = replacement.replace("\n", "\r\n")
        return Replacement(index, start, end, replacement, fuzzy)


def apply_edits(content: str, edits: Sequence[tuple[str, str]], path: str) -> tuple[str, list[Replacement]]:
    """Resolve every edit against ``content`` and apply them all at once.

    Args:
        content: File text without BOM.
        edits: ``(oldText, newText)`` pairs.
        path: The path as the model gave it (for messages).

    Returns:
        The new content and the replacements sorted by position.
    """
    matcher = EditMatcher(content, path)
    multi = len(edits) > 1
    reps = [matcher.resolve(i, old, new, multi) for i, (old, new) in enumerate(edits)]
    reps.sort(key=lambda r: (r.start, r.end))
    for prev, cur in zip(reps, reps[1:]):
        if cur.start < prev.end:
            a, b = sorted((prev.index, cur.index))
            raise ToolError(
                f"edits[{a}] and edits[{b}] overlap in {path}. Merge them into one edit or target "
                "disjoint regions."  # Pi 1.6's words: the model reads them
            )
    parts: list[str] = []
    cursor = 0
    for rep in reps:
        parts.append(content[cursor:rep.start])
        parts.append(rep.text)
        cursor = rep.end
    parts.append(content[cursor:])
    new_content = "".join(parts)
    if new_content == content:
        raise ToolError(f"No changes made to {path}. The replacement produced identical content.")
    return new_content, reps
