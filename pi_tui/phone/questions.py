"""An extension's question on the phone: the dialog and the ``ExtensionUI`` that puts it there.

``RemoteSession.ui.bind(PhoneQuestions(card))`` routes each of the session's dialogs (``confirm``,
``select``, ``input``, ``editor``) here; each becomes a ``QuestionBox`` in the session's card and
the call returns once it is answered. When another viewer answers first, the binding cancels the
call and the box goes.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

if TYPE_CHECKING:
    from .cards import SessionCard

QuestionKind = Literal["confirm", "select", "input", "editor"]


class QuestionBox(Vertical):
    """One open question with its answers; resolves ``future`` with what was chosen."""

    DEFAULT_CSS = """
    QuestionBox { height: auto; border: round $warning; padding: 0 1; margin: 1 0 0 0; }
    QuestionBox .question-title { text-style: bold; }
    QuestionBox Horizontal { height: auto; }
    QuestionBox Button { min-width: 10; margin: 0 1 0 0; }
    """

    def __init__(self, kind: QuestionKind, title: str, message: str, options: list[str],
                 future: asyncio.Future[Any], prefill: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.title_text = title
        self.message = message
        self.options = options
        self.future = future
        self.prefill = prefill

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, classes="question-title", markup=False)
        if self.message:
            yield Static(self.message, markup=False)
        if self.kind in ("input", "editor"):
            yield Input(value=self.prefill, id="answer")
        with Horizontal():
            if self.kind == "confirm":
                yield Button("Approve (a)", id="approve", variant="success")
                yield Button("Deny (d)", id="deny", variant="error")
            elif self.kind == "select":
                for index, option in enumerate(self.options):
                    yield Button(option, id=f"option-{index}")
                yield Button("Cancel", id="cancel")
            else:
                yield Button("Send", id="send", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id or ""
        if button == "approve":
            self.answer(True)
        elif button == "deny":
            self.answer(False)
        elif button.startswith("option-"):
            self.answer(self.options[int(button.removeprefix("option-"))])
        elif button == "send":
            self.answer(self.query_one("#answer", Input).value)
        else:
            self.answer(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(event.value)

    def answer(self, value: Any) -> None:
        if not self.future.done():
            self.future.set_result(value)


class PhoneQuestions:
    """The ``ExtensionUI`` of one session on the phone: its dialogs only (the rest is for the app)."""

    def __init__(self, card: SessionCard) -> None:
        self.card = card

    async def _ask(self, kind: QuestionKind, title: str, message: str = "", options: list[str] | None = None,
                   prefill: str = "") -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        box = QuestionBox(kind, title, message, options or [], future, prefill)
        await self.card.add_question(box)
        try:
            return await future
        finally:
            # Answered here, answered by another viewer (cancelled), or timed out on the server.
            await box.remove()
            self.card.refresh_state()

    async def confirm(self, title: str, message: str = "") -> bool:
        return bool(await self._ask("confirm", title, message))

    async def select(self, title: str, options: list[str]) -> str | None:
        value = await self._ask("select", title, options=[str(option) for option in options])
        return None if value is None else str(value)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        value = await self._ask("input", title, placeholder or "")
        return None if value is None else str(value)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        value = await self._ask("editor", title, prefill=prefill or "")
        return None if value is None else str(value)
