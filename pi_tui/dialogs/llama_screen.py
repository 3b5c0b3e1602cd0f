"""The ``/llama`` screen: one box whose content the llama flow (``pi_tui/flows/llama_flow.py``) changes.

Like Pi's llama.cpp view, the box shows one step at a time: the router's models, a question
(a list of answers), or a load's progress. Each step is awaited by the flow: :meth:`choose`
returns the picked value (None on Esc), :meth:`wait_for_stop` returns when Esc is pressed during
a progress step. The flow closes the screen when it is done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TypeVar, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .modal import Modal
from .pick_list import PICKER_CSS

BAR_WIDTH = 40
"""Cells of the progress bar (Pi's width)."""


def progress_bar(ratio: float) -> str:
    """``████────── 40%``: how far a load has come."""
    ratio = max(0.0, min(1.0, ratio))
    filled = round(ratio * BAR_WIDTH)
    return f"{'█' * filled}{'─' * (BAR_WIDTH - filled)} {round(ratio * 100)}%"


T = TypeVar("T")


class LlamaScreen(Modal[None]):
    """The box the flow draws its steps in."""

    DEFAULT_CSS = PICKER_CSS.replace("PickList", "LlamaScreen") + """
    LlamaScreen #llama-detail { color: $pi-muted; height: auto; }
    LlamaScreen #llama-progress { color: $pi-accent; height: auto; }
    LlamaScreen #llama-note { color: $pi-dim; height: auto; }
    """
    BINDINGS = [Binding("escape,ctrl+c", "cancel", "Cancel", id="tui.select.cancel")]

    def __init__(self) -> None:
        super().__init__(id="llama-screen")
        self._answer: asyncio.Future[object] | None = None
        self._values: list[object] = []
        self._stop: asyncio.Event | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("llama.cpp models", classes="picker-title", id="llama-title")
            yield Static("Loading…", id="llama-detail")
            yield OptionList(id="llama-options")
            yield Static("", id="llama-progress")
            yield Static("", id="llama-note")
            yield Static("", classes="picker-hint", id="llama-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).display = False
        self.query_one("#llama-progress").display = False

    # ------------------------------------------------------------------ steps

    async def choose(self, title: str, detail: str, options: Sequence[tuple[T, str]], hint: str,
                     *, highlighted: T | None = None) -> T | None:
        """Show ``options`` (value, label) under ``title``; the picked value, or None on Esc."""
        self._end_progress()
        self._set_text(title, detail, hint)
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.add_options([Option(label) for _value, label in options])
        self._values = [value for value, _label in options]
        listing.display = True
        if options:
            listing.highlighted = self._values.index(highlighted) if highlighted in self._values else 0
        listing.focus()
        self._answer = asyncio.get_running_loop().create_future()
        try:
            return cast("T | None", await self._answer)  # one of ``options``' values, or None
        finally:
            self._answer = None

    def show_progress(self, title: str, model: str, message: str, ratio: float | None) -> None:
        """A load in progress: the model, its stage and (when known) a bar."""
        self._set_text(title, model, "esc stop")
        self.query_one(OptionList).display = False
        bar = self.query_one("#llama-progress", Static)
        bar.update(message + (f"\n{progress_bar(ratio)}" if ratio is not None else ""))
        bar.display = True
        if self._stop is None:
            self._stop = asyncio.Event()

    async def wait_for_stop(self) -> None:
        """Returns when Esc is pressed while a progress step shows."""
        if self._stop is None:
            self._stop = asyncio.Event()
        await self._stop.wait()
        self._stop = asyncio.Event()

    def note(self, text: str) -> None:
        """A line under the step (what the last action did)."""
        self.query_one("#llama-note", Static).update(text)

    # ------------------------------------------------------------------ plumbing

    def _set_text(self, title: str, detail: str, hint: str) -> None:
        self.query_one("#llama-title", Static).update(title)
        detail_widget = self.query_one("#llama-detail", Static)
        detail_widget.update(detail)
        detail_widget.display = bool(detail)
        self.query_one("#llama-hint", Static).update(hint)

    def _end_progress(self) -> None:
        self.query_one("#llama-progress").display = False

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self._answer is not None and not self._answer.done() and event.option_index < len(self._values):
            self._answer.set_result(self._values[event.option_index])

    def action_cancel(self) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(None)
        elif self._stop is not None and self.query_one("#llama-progress").display:
            self._stop.set()
