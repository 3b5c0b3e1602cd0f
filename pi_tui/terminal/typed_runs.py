"""Printable keys that arrive in one read become one ``TypedRun``, so the editor can take them as one insertion.

A key macro, a paste from a terminal without bracketed paste, or ``tmux send-keys`` hands pi
thousands of characters at once. Textual parses each into its own ``Key`` event and runs the
whole key path for each (the app's binding chain, the forward to the focused widget, an edit of
the text area that re-wraps the line): 3,007 such keys took pi 3.7 s to show where Pi 1.6, which
takes terminal input in chunks, needs 0.3-0.6 s.

The app's driver reads the terminal with a parser that hands over a run of two or more plain
printable keys (no modifier; what the user typed, in order) as one ``TypedRun`` carrying the
original keys. The app gives the run to the editor as one insertion when nothing else could want
those keys, else it handles the keys one by one exactly as before (``flows/typed_routing.py``,
``editor/typed_text.py``). Only the app's own input thread groups keys
(``group_runs_in_this_thread``); any other Textual app in the process gets its keys as Textual
sends them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from textual import events
from textual.message import Message

from .textual_internals import linux_driver_module, xterm_parser_class


class TypedRun(events.Event, bubble=False):
    """Plain printable keys that arrived together, in order (two or more)."""

    def __init__(self, keys: list[events.Key]) -> None:
        super().__init__()
        self.keys = keys
        """The keys as Textual parsed them (handled one by one when the run cannot be inserted whole)."""
        self.text = "".join(key.character or "" for key in keys)
        """What they type."""


def is_plain_printable(message: Message) -> bool:
    """A key that types one character and carries no modifier (Alt+T is printable to Textual, with "t")."""
    return (isinstance(message, events.Key) and message.is_printable and message.character is not None
            and len(message.character) == 1 and "+" not in message.key)


def grouped(messages: Iterable[Message]) -> Iterator[Message]:
    """``messages`` with each run of two or more plain printable keys replaced by one ``TypedRun``."""
    run: list[events.Key] = []
    for message in messages:
        if is_plain_printable(message):
            assert isinstance(message, events.Key)
            run.append(message)
            continue
        if run:
            yield TypedRun(run) if len(run) > 1 else run[0]
            run = []
        yield message
    if run:
        yield TypedRun(run) if len(run) > 1 else run[0]


_thread_state = threading.local()


def group_runs_in_this_thread() -> None:
    """Called by the app's input thread before it builds its parser: its reads come out grouped."""
    _thread_state.grouping = True


_installed = False


def install() -> None:
    """Idempotent; gives the Linux driver's input thread a parser that groups runs where asked to."""
    global _installed
    if _installed:
        return
    _installed = True
    base: Any = xterm_parser_class()

    class RunGroupingParser(base):
        """Textual's xterm parser (with pi's wrappers); in a grouping thread, one read's keys come out grouped."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._group = bool(getattr(_thread_state, "grouping", False))

        def feed(self, data: str) -> Iterable[Message]:
            parsed = super().feed(data)
            return grouped(list(parsed)) if self._group else parsed

    # The input thread builds ``XTermParser(...)`` from its module's globals (checked by textual_internals).
    linux_driver_module().XTermParser = RunGroupingParser
