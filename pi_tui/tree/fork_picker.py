"""``/fork``: pick an earlier user message; a new session holds the history before it.

The list shows every user message on the active branch in Pi's order, oldest at the top and the
cursor on the newest, so Up goes back in time as in Pi; a one-line preview per message, and the
filter searches the whole text. After the fork the chosen message is put back into the editor so
it can be edited and sent again (Pi's behaviour; the flow is ``flows/nav_flows.py``).
"""

from __future__ import annotations

from rich.text import Text

from ..dialogs.pick_list import PickItem, PickList

PREVIEW = 90
"""Characters of a message shown in its row."""


def preview(text: str, limit: int = PREVIEW) -> str:
    """The first line of ``text``, cut to ``limit`` characters, with a marker for more."""
    lines = text.strip().splitlines() or [""]
    first = lines[0]
    more = len(lines) > 1
    if len(first) > limit:
        first, more = first[: limit - 1], True
    return first + (" …" if more else "")


def fork_items(messages: list[dict[str, str]]) -> list[PickItem]:
    """Rows for ``get_fork_messages()`` output, oldest first, numbered as in the session; the newest
    is where the cursor starts."""
    items = []
    for number, msg in enumerate(messages, 1):
        label = Text(f"{number:>3}. ", style="dim")
        label.append(preview(msg["text"]))
        items.append(PickItem(msg["entryId"], label, msg["text"], current=number == len(messages)))
    return items


class ForkPicker(PickList):
    """Returns the entry id of the chosen user message (or None)."""

    def __init__(self, messages: list[dict[str, str]]) -> None:
        super().__init__("Fork from an earlier message", fork_items(messages),
                         detail="A new session file gets the history before the chosen message; "
                                "the message returns to the editor.",
                         placeholder="type to search your messages", id="fork-picker")
