"""Extensions' ``ctx.ui`` in the app: real dialogs, notifications, footer statuses, widgets.

Dialogs are modal screens pushed on the app; the extension's coroutine waits on a future
that the screen's dismiss callback resolves. Timeouts and failures are applied by the
runtime's ``GuardedUI`` around this object, so a dialog nobody answers resolves to its
default there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from rich.text import Text


class AppExtensionUI:
    has_ui = True

    def __init__(self, app: Any) -> None:
        self.app = app
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, tuple[list[str], str]] = {}
        self.on_change: Callable[[AppExtensionUI], None] | None = None
        """Called when statuses or widgets change (the app redraws its extension areas)."""

    async def _ask(self, screen: Any, timeout: float | None) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, done)
        try:
            return await (asyncio.wait_for(future, timeout) if timeout else future)
        except TimeoutError:
            # Nobody answered in time: take the dialog down, the caller gets the default.
            if screen.is_attached:
                screen.dismiss(None)
            return None

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        from .screens.pick_list import PickItem, PickList

        items = [PickItem(option, Text(option), option) for option in options]
        value = await self._ask(PickList(title, items), timeout)
        return value if value in options else None

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        from .screens.text_prompt import ConfirmPrompt

        return bool(await self._ask(ConfirmPrompt(title, message), timeout))

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None) -> str | None:
        from .screens.text_prompt import TextPrompt

        value = await self._ask(TextPrompt(title, placeholder=placeholder or ""), timeout)
        return value if isinstance(value, str) else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        from .screens.editor_prompt import EditorPrompt

        value = await self._ask(EditorPrompt(title, prefill or ""), None)
        return value if isinstance(value, str) else None

    def notify(self, message: str, level: str = "info") -> None:
        severity = {"info": "information", "warning": "warning", "error": "error"}.get(level, "information")
        self.app.notify(message, severity=severity)

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text
        self._refresh()

    def set_widget(self, key: str, lines: list[str] | None, *, placement: str = "aboveEditor") -> None:
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = (list(lines), placement)
        self._refresh()

    def _refresh(self) -> None:
        if self.on_change is not None:
            self.on_change(self)
