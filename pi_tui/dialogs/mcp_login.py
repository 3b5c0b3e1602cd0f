"""The sign-in dialog of an OAuth MCP server (``/mcp login <server>``, "Sign in" in ``/mcp``).

Runs :func:`pi_runtime.mcp.oauth_login.mcp_sign_in` in a worker, as the provider login dialog
(:mod:`.oauth_login`) runs a provider's flow: the authorization URL shows here once the
authorization server is known, the browser is opened (Enter in the empty field opens it again),
and when the browser runs elsewhere (SSH) the redirected URL can be pasted into the field. Esc
cancels; nothing is stored then. After a sign-in the server is reconnected, and the result is a
notice in the transcript; tokens never appear on screen.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from .modal import Modal
from .text_prompt import DIALOG_CSS


class McpLoginScreen(Modal[None]):
    """Signs in to one server of ``manager`` and reconnects it.

    Args:
        manager: The session's ``McpManager``.
        name: The server.
        on_done: ``on_done(ok: bool, message: str)``, called once when the sign-in ends.
    """

    DEFAULT_CSS = DIALOG_CSS.replace("TextPrompt,", "McpLoginScreen, TextPrompt,")
    BINDINGS = [Binding("escape,ctrl+c", "cancel", "Cancel", id="tui.select.cancel")]

    def __init__(self, manager: Any, name: str, on_done: Any) -> None:
        super().__init__(id="mcp-login")
        self.manager = manager
        self.server = name
        self.on_done = on_done
        self.lines: list[Text] = [Text("Finding the authorization server...", style="dim")]
        self.attempt: Any = None
        self._finished = False
        self._worker: Any = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="nav-dialog"):
            yield Static(f'Sign in to MCP server "{self.server}"', classes="dialog-title")
            yield Static(Text("\n").join(self.lines), id="mcp-login-body")
            yield Input(placeholder="paste the redirected URL here if the browser is on another machine",
                        id="mcp-login-paste")
            yield Static("", id="mcp-login-problem", classes="dialog-error")
            yield Static("enter submits a pasted URL (empty: open the link again) · esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._worker = self.run_worker(self._flow(), name="mcp-login", exit_on_error=False)

    async def _flow(self) -> None:
        from pi_runtime.frontend.app_support import McpAuthFileError, McpSignInError, mcp_sign_in

        entry = self.manager.connections[self.server].entry
        try:
            signed_in = await mcp_sign_in(entry, self.manager.agent_dir, self._show, started=self._started)
        except asyncio.CancelledError:
            self._finish(False, f'Sign-in to MCP server "{self.server}" cancelled')
            raise
        except (McpSignInError, McpAuthFileError) as exc:
            self._finish(False, str(exc))
            return
        self._show(Text("Signed in. Reconnecting...", style="dim"))
        try:
            await self.manager.reconnect(self.server)
        except Exception as exc:  # noqa: BLE001 - the sign-in is stored; say why the server is not up
            self._finish(False, f'Signed in, but MCP server "{self.server}" did not connect: {str(exc).splitlines()[0]}')
            return
        done = "Signed in to" if signed_in else "No sign-in was needed for"
        self._finish(True, f'{done} MCP server "{self.server}"; it is connected')

    def _started(self, attempt: Any) -> None:
        self.attempt = attempt

    def _show(self, message: str | Text) -> None:
        if isinstance(message, Text):
            line = message
        else:
            line = Text(message)
        if isinstance(message, str) and self.attempt is not None and self.attempt.authorization_url \
                and self.attempt.authorization_url in message:
            url = self.attempt.authorization_url
            line = Text(message.replace(url, "").rstrip() + "\n")
            line.append(url, style=f"underline link {url}")
        self.lines = [*[t for t in self.lines if t.style != "dim"], line]
        if self.is_mounted:
            self.query_one("#mcp-login-body", Static).update(Text("\n").join(self.lines))

    def _finish(self, ok: bool, message: str) -> None:
        if self._finished:
            return
        self._finished = True
        self.on_done(ok, message)
        if self.is_attached:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        problem_line = self.query_one("#mcp-login-problem", Static)
        if not text:
            url = self.attempt.authorization_url if self.attempt is not None else None
            if url:
                self.app.open_url(url)
            return
        if self.attempt is None:
            problem_line.update("The sign-in has not started yet.")
            return
        problem = self.attempt.deliver(text)
        problem_line.update(problem or "")
        if problem is None:
            event.input.value = ""

    def action_cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()  # sign_in stops listening for the callback; nothing was stored
        self._finish(False, f'Sign-in to MCP server "{self.server}" cancelled')
