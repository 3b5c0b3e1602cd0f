"""Pi-tui's ``fuzzyFilter`` for extensions' completion providers (Pi's GitHub-issue example
filters its issues with it). Here in the kernel so an extension can import it in every mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _score(word: str, text: str) -> int | None:
    """Higher is better; None when ``word`` is not a subsequence of ``text`` (case ignored)."""
    word, text = word.lower(), text.lower()
    if word in text:
        return 1000 - text.index(word) - len(text)  # a contiguous match, the earlier the better
    position, score = -1, 0
    for char in word:
        found = text.find(char, position + 1)
        if found < 0:
            return None
        score += 10 if found == position + 1 else 0  # runs of adjacent letters count
        position = found
    return score - len(text)


def fuzzy_filter(items: list[T], query: str, text_of: Callable[[T], str]) -> list[T]:
    """The items whose text holds every space-separated word of ``query`` as a subsequence,
    best match first (equal scores keep the items' order). An empty query keeps them all."""
    words = query.split()
    scored: list[tuple[int, int, T]] = []
    for index, item in enumerate(items):
        text = text_of(item)
        scores = [_score(word, text) for word in words]
        if all(score is not None for score in scores):
            scored.append((-sum(score or 0 for score in scores), index, item))
    scored.sort(key=lambda row: (row[0], row[1]))
    return [item for _, _, item in scored]
