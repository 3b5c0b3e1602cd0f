"""Emacs-style kill ring for the prompt editor (Pi's ``tui.editor.yank`` / ``yankPop``).

Text removed by the kill keys (to line end/start, word back/forward) is pushed here; kills in a
row join into one entry (in the order the text stood), so ``ctrl+k ctrl+k`` yanks back both
lines. ``yank`` inserts the newest entry; ``yank_pop`` right after a yank swaps what was just
inserted for the entry before it, going round.
"""

from __future__ import annotations

MAX_ENTRIES = 30


class KillRing:
    def __init__(self) -> None:
        self._entries: list[str] = []
        self._pop_index: int | None = None
        """Index of the entry the last yank inserted (None unless the last key was a yank)."""

    def kill(self, text: str, *, backward: bool, continues: bool) -> None:
        """Remember removed ``text``; ``continues`` joins it to the previous kill."""
        if not text:
            return
        if continues and self._entries:
            last = self._entries[-1]
            self._entries[-1] = text + last if backward else last + text
        else:
            self._entries.append(text)
            del self._entries[:-MAX_ENTRIES]
        self._pop_index = None

    def yank(self) -> str | None:
        """The newest entry (None when the ring is empty)."""
        if not self._entries:
            return None
        self._pop_index = len(self._entries) - 1
        return self._entries[-1]

    def yank_pop(self) -> str | None:
        """The entry before the one just yanked (None unless the last key was a yank)."""
        if self._pop_index is None or not self._entries:
            return None
        self._pop_index = (self._pop_index - 1) % len(self._entries)
        return self._entries[self._pop_index]

    def other_key(self) -> None:
        """A key that was not a yank: ``yank_pop`` has nothing to replace."""
        self._pop_index = None
