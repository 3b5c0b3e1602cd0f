"""``Modal``: the base of pi's dialogs, a ``ModalScreen`` that can be dismissed only once.

Textual's ``dismiss`` pops whatever screen is on top. Keys typed quickly (Enter, then more text
and Enter) can reach a dialog after its first ``dismiss`` took it off the stack; a second one
would then pop the screen beneath it, the app's own, and end the app ("Can't pop screen"). Found
typing ahead through the start-up question of ``pi --session`` on a session whose folder is gone.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class Modal(ModalScreen[ResultT]):
    """A modal dialog whose later ``dismiss`` calls, once it has left the screen stack, do nothing."""

    def dismiss(self, result: ResultT | None = None) -> AwaitComplete:
        if self not in self.app.screen_stack:
            return AwaitComplete(asyncio.sleep(0))  # already dismissed: its answer was given
        return super().dismiss(result)
