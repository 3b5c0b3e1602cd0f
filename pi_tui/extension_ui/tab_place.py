"""``TabPlace``: the tab a session's ``ctx.ui`` belongs to when several sessions are open.

While the tab is in the background its extensions still reach "the editor" and "the
transcript": they get the tab's draft (what the editor will hold when the tab is shown) and
its own transcript, never those on screen, which are another session's.
"""

from __future__ import annotations

from typing import Any, Protocol


class DraftLike(Protocol):
    text: str
    cursor: tuple[int, int]
    """(row, column), as ``TextArea.cursor_location``."""


class TabPlace(Protocol):
    """Satisfied by ``sessions/open_session.py``'s ``OpenSession``."""

    @property
    def transcript(self) -> Any:
        """The session's transcript widget."""

    @property
    def draft(self) -> DraftLike:
        """The editor's text and cursor while the tab is in the background."""


def set_draft_text(draft: DraftLike, text: str) -> None:
    """``text`` in the draft, the cursor at its end (as ``ctx.ui.set_editor_text`` in the editor)."""
    lines = text.split("\n")
    draft.text, draft.cursor = text, (len(lines) - 1, len(lines[-1]))


def paste_into_draft(draft: DraftLike, text: str) -> None:
    """``text`` inserted at the draft's cursor, the cursor after it (as a paste in the editor)."""
    lines = draft.text.split("\n")
    row = max(0, min(draft.cursor[0], len(lines) - 1))
    offset = sum(len(line) + 1 for line in lines[:row]) + min(draft.cursor[1], len(lines[row]))
    before, after = draft.text[:offset], draft.text[offset:]
    set_draft_text(draft, before + text)
    draft.text += after
