"""Search sessions by what was said in them, as Pi's ``/resume`` search does, and say where.

Pi matches a query against a session's name, id, working directory and the text of every user
and assistant message: words are looked for literally (case-insensitive) in each of those,
a word found nowhere may still match the name or the folder as a scattered subsequence,
``"two words"`` is a phrase, and ``re:pattern`` a regular expression. A name match ranks
first, then a literal match anywhere, then a scattered one; ties go to the most recent.

Beyond Pi, each hit says where it matched: the message line around the first match, shown
under the hit. Message texts are read from the file on the first search (only the lines of
user and assistant messages are decoded) and kept while the file is unchanged.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

TIER_NAME, TIER_TEXT, TIER_FUZZY = 0, 1, 2
TIER_WEIGHT = 1_000_000
SNIPPET_WIDTH = 90
"""Characters of the matching line shown under a hit."""


@dataclass
class Token:
    kind: Literal["fuzzy", "phrase"]
    value: str


@dataclass
class Query:
    """A parsed search: words and phrases, or a regular expression (``re:``)."""

    tokens: list[Token] = field(default_factory=list)
    regex: re.Pattern[str] | None = None
    error: str | None = None
    """Why a ``re:`` pattern is unusable (nothing matches then)."""

    @property
    def empty(self) -> bool:
        return not self.tokens and self.regex is None and self.error is None


@dataclass
class Hit:
    score: float
    """Lower is better (Pi's order)."""
    snippet: str | None
    """The message line where the query matched, when it matched in a message."""


def parse_query(text: str) -> Query:
    """Pi's query syntax: ``re:<pattern>``, or words with ``"quoted phrases"`` (an unclosed quote
    makes every word a plain one)."""
    trimmed = text.strip()
    if not trimmed:
        return Query()
    if trimmed.startswith("re:"):
        pattern = trimmed[3:].strip()
        if not pattern:
            return Query(error="Empty regex")
        try:
            return Query(regex=re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            return Query(error=str(exc))
    if trimmed.count('"') % 2:
        return Query(tokens=[Token("fuzzy", word) for word in trimmed.split()])
    tokens: list[Token] = []
    for n, part in enumerate(trimmed.split('"')):
        if n % 2:
            if part.strip():
                tokens.append(Token("phrase", part.strip()))
        else:
            tokens.extend(Token("fuzzy", word) for word in part.split())
    return Query(tokens=tokens)


# ------------------------------------------------------------------ message texts


_CACHE: OrderedDict[tuple[str, int, int], list[str]] = OrderedDict()
_CACHE_FILES = 4_000
_CACHE_LOCK = threading.Lock()
"""The picker reads texts ahead in a thread while its own thread may ask for one."""
_ROLE_MARKS = (b'"role":"user"', b'"role":"assistant"')


def message_texts(path: Path) -> list[str]:
    """The text of every user and assistant message in a session file, in order, each on one
    line (kept in memory while the file's size and time are unchanged)."""
    try:
        stat = os.stat(path)
    except OSError:
        return []
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            _CACHE.move_to_end(key)
            return cached
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    texts: list[str] = []
    for line in raw.split(b"\n"):
        # Only message lines of the two roles are decoded (tool results, often large, are not):
        # inside a JSON string every quote is escaped, so the marks cannot come from the text.
        # Lines from other writers (another key order, spaces) are decoded to be sure.
        if line.startswith(b'{"type":"'):
            if not line.startswith(b'{"type":"message"') or not any(mark in line for mark in _ROLE_MARKS):
                continue
        elif not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "message" else None
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        text = _text(message.get("content"))
        if text:
            texts.append(" ".join(text.split()))
    with _CACHE_LOCK:
        _CACHE[key] = texts
        while len(_CACHE) > _CACHE_FILES:
            _CACHE.popitem(last=False)
    return texts


def read_session_texts(paths: list[Path], stop: threading.Event | None = None) -> None:
    """Read the message texts of ``paths`` now (a picker's first search is then as quick as the next)."""
    for path in paths:
        if stop is not None and stop.is_set():
            return
        message_texts(path)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(t for b in content if isinstance(b, dict) and b.get("type") == "text"
                        and isinstance(t := b.get("text"), str))
    return ""


# ------------------------------------------------------------------ matching


def _subsequence_score(query: str, text: str) -> float | None:
    """A scattered (in order) match of ``query`` in ``text``: lower is better; None: no match."""
    hay = text.lower()
    pos, gaps, first = 0, 0, -1
    for ch in query.lower():
        found = hay.find(ch, pos)
        if found < 0:
            return None
        if first < 0:
            first = found
        gaps += found - pos if pos else 0
        pos = found + 1
    return gaps + first * 0.1


def _snippet(line: str, start: int, length: int) -> str:
    """About ``SNIPPET_WIDTH`` characters of ``line`` around ``line[start:start+length]``."""
    if len(line) <= SNIPPET_WIDTH:
        return line
    lead = max(0, min(start - SNIPPET_WIDTH // 3, len(line) - SNIPPET_WIDTH))
    cut = line[lead:lead + SNIPPET_WIDTH]
    return ("…" if lead else "") + cut + ("…" if lead + SNIPPET_WIDTH < len(line) else "")


class SessionMatcher:
    """Matches parsed queries against session rows (``SessionInfo``), reading message texts
    through ``texts_of`` (``message_texts`` by default)."""

    def __init__(self, texts_of: Any = message_texts) -> None:
        self.texts_of = texts_of
        self._lower: dict[Path, tuple[list[str], str, list[int]]] = {}

    def _messages(self, info: Any) -> tuple[list[str], str, list[int]]:
        """The session's message texts, all of them lower-cased in one string (a newline between
        two), and where each starts in it: one ``find`` per word looks through every message."""
        found = self._lower.get(info.path)
        texts = self.texts_of(info.path)
        if found is None or found[0] is not texts:
            starts, at = [], 0
            for text in texts:
                starts.append(at)
                at += len(text) + 1
            found = self._lower[info.path] = (texts, "\n".join(texts).lower(), starts)
        return found

    def _in_messages(self, info: Any, needle: str) -> str | None:
        """The snippet of the first message holding ``needle`` (lower case), or None."""
        texts, joined, starts = self._messages(info)
        at = joined.find(needle)
        if at < 0:
            return None
        index = bisect.bisect_right(starts, at) - 1
        return _snippet(texts[index], at - starts[index], len(needle))

    def _literal(self, info: Any, needle: str) -> tuple[float, str | None] | None:
        name = (info.name or "").lower()
        if needle in name:
            return TIER_NAME * TIER_WEIGHT + name.find(needle) * 0.01, None
        if needle in info.id.lower():
            return TIER_TEXT * TIER_WEIGHT, None
        snippet = self._in_messages(info, needle)
        if snippet is not None:
            return TIER_TEXT * TIER_WEIGHT, snippet
        if needle in (info.cwd or "").lower():
            return TIER_TEXT * TIER_WEIGHT, None
        return None

    def match(self, info: Any, query: Query) -> Hit | None:
        """Whether (and how well) ``info`` matches ``query``; None when it does not."""
        if query.error is not None:
            return None
        if query.regex is not None:
            return self._match_regex(info, query.regex)
        total = 0.0
        snippet: str | None = None
        for token in query.tokens:
            needle = " ".join(token.value.lower().split())
            if not needle:
                continue
            found = self._literal(info, needle)
            if found is None and token.kind == "fuzzy":
                scores = [s for s in (_subsequence_score(needle, info.name or ""),
                                      _subsequence_score(needle, info.cwd or "")) if s is not None]
                found = (TIER_FUZZY * TIER_WEIGHT + min(scores), None) if scores else None
            if found is None:
                return None
            total += found[0]
            snippet = snippet or found[1]
        return Hit(total, snippet)

    def _match_regex(self, info: Any, regex: re.Pattern[str]) -> Hit | None:
        if info.name and regex.search(info.name):
            return Hit(TIER_NAME * TIER_WEIGHT, None)
        if regex.search(info.id):
            return Hit(TIER_TEXT * TIER_WEIGHT, None)
        for text in self._messages(info)[0]:
            found = regex.search(text)
            if found is not None:
                return Hit(TIER_TEXT * TIER_WEIGHT, _snippet(text, found.start(), found.end() - found.start()))
        if regex.search(info.cwd or ""):
            return Hit(TIER_TEXT * TIER_WEIGHT, None)
        return None
