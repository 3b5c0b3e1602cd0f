"""Pi-tui's fuzzy matching (``fuzzyMatch`` / ``fuzzyFilter``), for ``--list-models``, the model
picker and extensions' completion providers (Pi's GitHub-issue example filters its issues with
it). Here in the kernel so every mode can use it.

The rule, as Pi's: a query matches when its letters appear in the text in order (case
ignored); lower scores are better: runs of adjacent letters, letters at word starts (after
space, ``-``, ``_``, ``.``, ``/``, ``:``) and early letters score better, gaps worse; a
contiguous occurrence is scored too and the best alignment kept; the whole text scores best. A
query of letters then digits (``gpt5``) that does not match is tried the other way round
(``5gpt``), a little worse. ``fuzzy_filter`` splits the query on spaces and slashes: every
word must match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_BOUNDARY = frozenset(" \t\n-_./:")
_LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")
_DIGITS_LETTERS = re.compile(r"^([0-9]+)([a-z]+)$")


def _score(text: str, positions: list[int]) -> float:
    score = 0.0
    last = -1
    run = 0
    for i in positions:
        if last == i - 1:
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or text[i - 1] in _BOUNDARY:
            score -= 10
        score += i * 0.1
        last = i
    return score


def _match(query: str, text: str) -> float | None:
    """Score of lower-cased ``query`` in lower-cased ``text``; None when it does not match."""
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    positions: list[int] = []
    last = -1
    for char in query:
        found = text.find(char, last + 1)
        if found < 0:
            return None
        positions.append(found)
        last = found
    best = _score(text, positions)
    start = text.find(query)
    width = len(query)
    while start >= 0:
        best = min(best, _score(text, list(range(start, start + width))))
        start = text.find(query, start + 1)
    if query == text:
        best -= 100
    return best


def fuzzy_match(query: str, text: str) -> float | None:
    """How well ``query`` matches ``text`` (lower is better), or None when it does not."""
    query, text = query.lower(), text.lower()
    score = _match(query, text)
    if score is not None:
        return score
    m = _LETTERS_DIGITS.match(query) or _DIGITS_LETTERS.match(query)
    if m is None:
        return None
    swapped = m.group(2) + m.group(1)
    score = _match(swapped, text)
    return None if score is None else score + 5


def fuzzy_filter(items: list[T], query: str, text_of: Callable[[T], str]) -> list[T]:
    """The items whose text matches every word of ``query`` (split on spaces and ``/``), best
    match first (equal scores keep the items' order). An empty query keeps them all, in order."""
    words = [w for w in re.split(r"[\s/]+", query.strip()) if w]
    if not words:
        return list(items)
    scored: list[tuple[float, int, T]] = []
    for index, item in enumerate(items):
        text = text_of(item)
        total = 0.0
        for word in words:
            score = fuzzy_match(word, text)
            if score is None:
                break
            total += score
        else:
            scored.append((total, index, item))
    scored.sort(key=lambda row: (row[0], row[1]))
    return [item for _, _, item in scored]
