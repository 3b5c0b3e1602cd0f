"""The dialog an account sign-in runs in (``/login`` on a provider with account sign-in).

The provider's flow runs in a worker; what it shows lands here as Pi shows it: the sign-in URL
(opened in the browser at once, Enter opens it again) with the provider's instructions, or a device
code with the page to enter it at (Enter opens the page), progress lines, and "Waiting for
authentication...". What the flow asks is answered in the dialog's own input line (a pasted
redirect URL or code, the GitHub Enterprise domain); a choice (browser or device code) opens a
pick list on top. Esc cancels the flow through its abort signal; when the browser's callback
answers first, the pending question is taken back. The result is a notice in the transcript;
tokens never appear on screen.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from .modal import Modal
from .pick_list import PickItem, PickList
from .text_prompt import DIALOG_CSS


class OAuthLoginScreen(Modal[None]):
    """Runs ``registry.login_oauth(provider, self, signal)``; implements its ``LoginUI``."""

    DEFAULT_CSS = DIALOG_CSS.replace("TextPrompt,", "OAuthLoginScreen, TextPrompt,") + """
    OAuthLoginScreen #oauth-input { display: none; }
    OAuthLoginScreen #oauth-input.asking { display: block; }
    """
    BINDINGS = [
        Binding("escape,ctrl+c", "cancel", "Cancel", id="tui.select.cancel"),
        Binding("enter", "open_url", "Open the link", id="tui.select.confirm"),
    ]

    def __init__(self, provider: str, name: str, registry: Any, on_done: Any, *, agent_dir: Any = None,
                 open_browser: bool = True) -> None:
        super().__init__(id="oauth-login")
        from pi_runtime.frontend import AbortController

        self.provider = provider
        self.provider_name = name
        self.registry = registry
        self.on_done = on_done
        """``on_done(ok: bool, message: str)``, called once when the flow ends."""
        self.agent_dir = agent_dir
        self.open_browser = open_browser
        self.controller = AbortController()
        self.lines: list[Text] = [Text("Starting the login...", style="dim")]
        self.url: str | None = None
        self.user_code: str | None = None
        """The device code shown (Enter copies it), else None."""
        self._answer: asyncio.Future[str | None] | None = None
        self._finished = False
        self._shown = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(f"Login to {self.provider_name}", classes="dialog-title")
            yield Static(Text("\n").join(self.lines), id="oauth-body")
            yield Input(id="oauth-input")
            yield Static("enter opens the link in a browser · esc cancels", classes="dialog-hint", id="oauth-hint")

    def on_mount(self) -> None:
        self.run_worker(self._flow(), name="oauth-login", exit_on_error=False)

    # ------------------------------------------------------------------ the flow

    async def _flow(self) -> None:
        from pi_runtime.frontend import OAuthError, OAuthLoginCancelled

        device_id = None
        if self.agent_dir is not None:
            from pi_runtime.frontend.app_support import device_id_getter

            device_id = device_id_getter(self.agent_dir)
        try:
            await self.registry.login_oauth(self.provider, self, self.controller.signal, device_id=device_id)
        except OAuthLoginCancelled:
            self._finish(False, f"Login to {self.provider_name} cancelled")
        except asyncio.CancelledError:
            self._finish(False, f"Login to {self.provider_name} cancelled")
            raise
        except OAuthError as exc:
            self._finish(False, f"Failed to login to {self.provider_name}: {exc}")
        except Exception as exc:  # noqa: BLE001 - e.g. auth.json not writable; the message names the file
            self._finish(False, f"Failed to login to {self.provider_name}: {exc}")
        else:
            where = getattr(self.registry.auth, "path", "auth.json")
            self._finish(True, f"Logged in to {self.provider_name}. Credentials saved to {where}")

    def _finish(self, ok: bool, message: str) -> None:
        if self._finished:
            return
        self._finished = True
        if not self.is_attached:
            self.on_done(ok, message)
            return
        app = self.app
        # Closed first (with a question still open on top, if the flow went on without it), so
        # what on_done opens (the list to go back to) is not closed with it.
        app.call_later(self._close_then, ok, message)

    def _close_then(self, ok: bool, message: str) -> None:
        app = self.app
        while self.is_attached and app.screen is not self:
            app.pop_screen()
        if self.is_attached:
            self.dismiss(None)
        app.call_later(self.on_done, ok, message)

    def _show(self, line: Text, *, replace: bool = False) -> None:
        self.lines = [line] if replace or not self._shown else [*self.lines, line]
        self._shown = True
        if self.is_mounted:
            self.query_one("#oauth-body", Static).update(Text("\n").join(self.lines))

    def _hint(self, text: str) -> None:
        if self.is_mounted:
            self.query_one("#oauth-hint", Static).update(text)

    def _open(self, url: str) -> None:
        if self.open_browser:
            from pi_runtime.frontend.app_support import open_in_browser

            open_in_browser(url)

    # ------------------------------------------------------------------ LoginUI

    def show_auth(self, url: str, instructions: str | None) -> None:
        from pi_runtime.frontend import terminal_safe

        self.url, self.user_code = url, None
        line = Text().append(terminal_safe(url), style=f"underline link {url}")
        if instructions:
            line.append("\n\n")
            line.append(instructions, style="yellow")
        self._show(line, replace=True)
        self._open(url)
        self._hint("enter opens the link again · esc cancels")

    def show_device_code(self, user_code: str, verification_uri: str) -> None:
        from pi_runtime.frontend import terminal_safe

        self.url = verification_uri
        self.user_code = user_code
        line = Text().append(terminal_safe(verification_uri), style=f"underline link {verification_uri}")
        line.append("\n\n")
        line.append(f"Enter code: {terminal_safe(user_code)}", style="bold yellow")
        line.append("\n\nWaiting for authentication...", style="dim")
        self._show(line, replace=True)
        self._hint("enter opens the page and copies the code · esc cancels")

    def show_progress(self, message: str) -> None:
        self._show(Text(message, style="dim"))

    async def prompt(self, prompt: Any) -> str | None:
        """Ask in the dialog's input line; a ``manual_code`` question is taken back by cancelling this."""
        placeholder = prompt.placeholder or ""
        self._show(Text("\n" + prompt.message, style="dim" if prompt.kind == "manual_code" else ""))
        field = self.query_one("#oauth-input", Input)
        field.value = ""
        field.placeholder = placeholder
        field.add_class("asking")
        field.focus()
        self._hint("enter submits · esc cancels")
        while True:
            self._answer = asyncio.get_running_loop().create_future()
            remove = self.controller.signal.add_listener(lambda: self._give(None))
            try:
                answer = await self._answer
            finally:
                remove()
                self._answer = None
                if self.is_mounted:
                    field.remove_class("asking")
                    self.set_focus(None)  # Enter opens the link again, Esc still cancels
            if answer is None or answer.strip() or prompt.allow_empty:
                if answer is not None:
                    shown = "(link pasted)" if prompt.kind == "manual_code" else answer.strip() or "(blank)"
                    self._show(Text(f"> {shown}", style="dim"))
                return answer.strip() if isinstance(answer, str) else None
            field.add_class("asking")

    def _give(self, value: str | None) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._give(event.value)

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
            if screen.is_attached and self.app.screen is screen:
                screen.dismiss(None)  # taken back (the flow went on without the answer)

    # ------------------------------------------------------------------ keys

    def action_cancel(self) -> None:
        self.controller.abort("cancelled")

    def action_open_url(self) -> None:
        if self.user_code:
            from ..terminal.clipboard import copy_text

            copied = copy_text(self.app, self.user_code)
            self._hint("Code copied to clipboard · esc cancels" if copied else "Copy the code by hand · esc cancels")
        if self.url:
            self._open(self.url)
