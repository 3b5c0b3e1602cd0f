"""The dialog an extension provider's OAuth login runs in (``/login`` on an OAuth provider).

The provider's ``login`` flow runs in a worker; what it shows lands in this dialog (the
authorization URL, a device code, progress lines) and what it asks opens on top of it (a
one-line prompt, a pick list). Enter opens the last URL in a browser; Esc (here or in a
question) cancels the flow through its abort signal. The result is a notice in the
transcript; tokens never appear on screen.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from .modal import Modal
from .pick_list import PickItem, PickList
from .text_prompt import DIALOG_CSS, TextPrompt


class OAuthLoginScreen(Modal[None]):
    """Runs ``registry.login_oauth(provider, self, signal)``; implements its ``LoginUI``."""

    DEFAULT_CSS = DIALOG_CSS.replace("TextPrompt,", "OAuthLoginScreen, TextPrompt,")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="tui.select.cancel"),
        Binding("enter", "open_url", "Open the link", id="tui.select.confirm"),
    ]

    def __init__(self, provider: str, name: str, registry: Any, on_done: Any) -> None:
        super().__init__(id="oauth-login")
        from pi_runtime.frontend import AbortController

        self.provider = provider
        self.provider_name = name
        self.registry = registry
        self.on_done = on_done
        """``on_done(ok: bool, message: str)``, called once when the flow ends."""
        self.controller = AbortController()
        self.lines: list[Text] = [Text("Starting the login...", style="dim")]
        self.url: str | None = None
        self._finished = False
        self._shown = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(f"Log in to {self.provider_name} ({self.provider})", classes="dialog-title")
            yield Static(Text("\n").join(self.lines), id="oauth-body")
            yield Static("enter opens the link in a browser · esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        self.run_worker(self._flow(), name="oauth-login", exit_on_error=False)

    # ------------------------------------------------------------------ the flow

    async def _flow(self) -> None:
        from pi_runtime.frontend import OAuthError, OAuthLoginCancelled

        try:
            await self.registry.login_oauth(self.provider, self, self.controller.signal)
        except OAuthLoginCancelled:
            self._finish(False, f"Login to {self.provider_name} cancelled")
        except asyncio.CancelledError:
            self._finish(False, f"Login to {self.provider_name} cancelled")
            raise
        except OAuthError as exc:
            self._finish(False, f"Login to {self.provider_name} failed: {exc}")
        except Exception as exc:  # noqa: BLE001 - e.g. auth.json not writable; the message names the file
            self._finish(False, f"Login to {self.provider_name} failed: {exc}")
        else:
            where = getattr(self.registry.auth, "path", "auth.json")
            self._finish(True, f"Logged in to {self.provider_name}: credentials saved in {where}")

    def _finish(self, ok: bool, message: str) -> None:
        if self._finished:
            return
        self._finished = True
        self.on_done(ok, message)
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
        elif self.is_attached:
            # A question is still open on top (the flow ended without waiting for it).
            self.app.call_later(self._close)

    def _close(self) -> None:
        while self.is_attached and self.app.screen is not self:
            self.app.pop_screen()
        if self.is_attached:
            self.dismiss(None)

    def _show(self, line: Text) -> None:
        self.lines = [line] if not self._shown else [*self.lines, line]
        self._shown = True
        if self.is_mounted:
            self.query_one("#oauth-body", Static).update(Text("\n").join(self.lines))

    # ------------------------------------------------------------------ LoginUI

    def show_auth(self, url: str, instructions: str | None) -> None:
        self.url = url
        line = Text("Open this link to log in:\n")
        line.append(url, style=f"underline link {url}")
        if instructions:
            line.append(f"\n{instructions}")
        self._show(line)

    def show_device_code(self, user_code: str, verification_uri: str) -> None:
        self.url = verification_uri
        line = Text("Enter the code ")
        line.append(user_code, style="bold")
        line.append(" at ")
        line.append(verification_uri, style=f"underline link {verification_uri}")
        self._show(line)

    def show_progress(self, message: str) -> None:
        self._show(Text(message, style="dim"))

    async def prompt(self, prompt: Any) -> str | None:
        while True:
            answer = await self._ask(TextPrompt(prompt.message, hint="enter to submit · esc to cancel",
                                                placeholder=prompt.placeholder or ""))
            if answer is None or answer.strip() or prompt.allow_empty:
                return answer.strip() if isinstance(answer, str) else None

    async def select(self, message: str, options: list[Any]) -> str | None:
        items = [PickItem(o.id, Text(o.label, style="bold"), f"{o.label} {o.id}") for o in options]
        return await self._ask(PickList(message, items, hint="enter to choose · esc to cancel",
                                        filterable=len(items) > 8, id="oauth-select"))

    async def _ask(self, screen: ModalScreen[Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def answered(value: Any) -> None:
            if not future.done():
                future.set_result(value)

        self.app.push_screen(screen, answered)
        remove = self.controller.signal.add_listener(lambda: answered(None))
        try:
            return await future
        finally:
            remove()

    # ------------------------------------------------------------------ keys

    def action_cancel(self) -> None:
        self.controller.abort("cancelled")

    def action_open_url(self) -> None:
        if self.url:
            self.app.open_url(self.url)
