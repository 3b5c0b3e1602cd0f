"""What the app does with what the user sends: prompts (which steer or follow up while the agent
works), ``!`` commands, slash commands, the queue, Esc and the quit keys.

``InputController`` owns the state behind these keys (text sent before the session existed,
when Esc and Ctrl+C were last pressed) and talks to the kernel through the session port only.
Every kernel call that may wait runs in a named worker with ``exit_on_error=False``; a refused
prompt (``PromptError``) becomes an inline notice, never a traceback.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .bound import transcript_of

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from .host import PiHost

DOUBLE_ESCAPE_SECONDS = 0.5
"""Two Esc presses closer than this on an empty, idle editor are a double Esc."""
DOUBLE_CLEAR_SECONDS = 2.0
"""Ctrl+C on an empty editor twice within this quits."""


@dataclass
class _Pending:
    text: str
    mode: str
    images: list[Any] | None


class InputController:
    """Routes the editor's text and runs the input keys of one app."""

    def __init__(self, app: PiHost) -> None:
        self._app = app
        self._pending: list[_Pending] = []
        """Sent before the session was attached; sent in order once it is."""
        self._last_escape = 0.0
        self._last_clear = 0.0

    # ------------------------------------------------------------------ sending

    async def submit(self, text: str, mode: str, images: list[Any]) -> None:
        """Enter (``send``) or the follow-up key sent ``text`` and ``images`` (``AttachedImage``)."""
        if not text.strip() and not images:
            return
        await self.send(text, mode, [image.to_content() for image in images] or None)

    async def send(self, text: str, mode: str = "send", images: list[Any] | None = None) -> None:
        """Route ``text``: ``!``/``!!`` bash, a built-in ``/command``, else a prompt (with ``images``).

        Before the session exists the text is kept and sent, in order, once it is attached,
        so nothing typed while pi starts is lost.
        """
        session = self._app.session
        if session is None:
            self._pending.append(_Pending(text, mode, images))
            self.show_starting()
            self._app.key_hold.release_after_refresh()
            return
        await self._app.transcript.restore_end()
        self._app.transcript.follow()  # what the user sends, and what it causes, is shown
        stripped = text.strip()
        if stripped.startswith("!") and len(stripped) > 1:
            exclude = stripped.startswith("!!")
            command = (stripped[2:] if exclude else stripped[1:]).strip()
            if command:
                self._app.run_worker(self._bash(session, command, exclude), name="bash", group="bash",
                                     exit_on_error=False)
                return
        if stripped.startswith("/") and await self._app.run_command(stripped):
            return  # the command gives back the keys typed after it (``key_hold.py``)
        self._app.key_hold.release_after_refresh()
        self._app.run_worker(self._prompt(session, text, mode, images), name="prompt", group="kernel",
                             exit_on_error=False)

    def take_typeahead(self, lines: list[str], partial: str) -> None:
        """What was typed while pi started: each line is sent (kept until the session exists, after
        ``pi "message"``), the rest starts the editor. Runs before any key event is handled."""
        for line in lines:
            self._app.editor.remember(line)
            self._pending.append(_Pending(line, "send", None))
        if partial:
            self._app.editor.set_text(partial)

    def show_starting(self) -> None:
        """The footer says pi is starting, and how much is waiting to be sent."""
        waiting = f" ({len(self._pending)} queued)" if self._pending else ""
        self._app.footer_bar.set_working(True, f"Starting{waiting}")

    async def session_attached(self) -> None:
        """Send what was typed while the session was being built."""
        pending, self._pending = self._pending, []
        for item in pending:
            await self.send(item.text, item.mode, item.images)

    @property
    def pending_texts(self) -> list[str]:
        """Texts waiting for the session (shown while starting)."""
        return [p.text for p in self._pending]

    async def _prompt(self, session: SessionPort, text: str, mode: str, images: list[Any] | None) -> None:
        from pi_runtime.frontend import PromptError

        # One path in every state: extension commands and input hooks see the text even while
        # the agent streams; the kernel decides whether it starts a run, steers or follows up.
        try:
            await session.prompt(text, images, streaming_behavior="followUp" if mode == "followUp" else "steer",
                                 wait=False)
        except PromptError as exc:
            await transcript_of(self._app, session).add_notice(str(exc), "error")
        except Exception as exc:
            from ..sessions.served import is_served

            if not is_served(session):
                raise
            # pi serve is out of reach (reconnecting, or it closed the session): nothing was sent,
            # so the text goes back to the editor to send again.
            self.restore_to_editor([text])
            await transcript_of(self._app, session).add_notice(f"Not sent: {exc}", "error")

    async def _bash(self, session: SessionPort, command: str, exclude: bool) -> None:
        transcript = self._app.transcript
        request_id = uuid.uuid4().hex[:12]
        await transcript.start_bash(request_id, command, exclude)
        result = await session.execute_bash(command, exclude, request_id=request_id)
        transcript.finish_bash(request_id, command, result, exclude)
        if session is self._app.session:
            # The output is now in the context; no answer or run end comes to refresh the footer.
            self._app.chrome.refresh_stats(session)

    # ------------------------------------------------------------------ queue and abort

    async def dequeue(self) -> None:
        """Bring queued steering/follow-up messages back into the editor, and say how many (as Pi does)."""
        session = self._app.session
        if session is None:
            texts = self.pending_texts
            self._pending.clear()
        else:
            steering, follow_up = session.clear_queue()
            texts = steering + follow_up
        self.restore_to_editor(texts)
        count = len(texts)
        await self._app.transcript.add_notice(
            f"Restored {count} queued message{'s' if count > 1 else ''} to editor" if count
            else "No queued messages to restore")

    def restore_to_editor(self, texts: list[str]) -> None:
        """Put ``texts`` before the editor's draft (a blank line between each)."""
        if not texts:
            return
        editor = self._app.editor
        current = editor.text
        editor.set_text("\n\n".join(texts + ([current] if current.strip() else [])))

    def interrupt(self) -> None:
        """Esc: while the agent works, always abort the run (queued messages return to the editor),
        closing the menu, the search bar and a selection on the way; when idle, close the first of
        those, else on an empty editor twice, ``doubleEscapeAction``.

        Abort comes first because text put back in the editor (Alt+Up, the abort's own restore)
        can open the completion menu by itself (an ``@file`` at its end): an Esc that only closed
        that menu left a run the user wanted stopped going on to its end.
        """
        from ..transcript.transcript_nav import clear_selection
        from .view_actions import close_search

        app = self._app
        session = app.session
        if session is not None and (session.is_streaming or session.is_compacting):
            app.menu.hide()
            close_search(app)
            clear_selection(app.transcript)
            session.abort_bash()
            steering, follow_up = session.clear_queue()
            self.restore_to_editor(steering + follow_up)
            app.run_worker(session.abort(), name="abort", group="kernel", exit_on_error=False)
            return
        if app.menu.is_open:
            app.menu.hide()
            return
        if session is None:
            return
        if close_search(app) or clear_selection(app.transcript):
            return
        session.abort_bash()
        self._double_escape(session)

    def _double_escape(self, session: SessionPort) -> None:
        if self._app.editor.text.strip():
            return
        now = time.monotonic()
        last, self._last_escape = self._last_escape, now
        if now - last > DOUBLE_ESCAPE_SECONDS:
            return
        self._last_escape = 0.0
        from pi_runtime.frontend import typed_settings

        action = typed_settings(session.settings).double_escape_action
        if action in ("tree", "fork"):
            self._app.call_later(self._app.run_command, f"/{action}")

    # ------------------------------------------------------------------ quitting

    def clear(self) -> None:
        """Ctrl+C: clear the editor; on an empty one twice in a row, quit."""
        app = self._app
        if app.editor.text:
            app.editor.take_text()
            self._last_clear = time.monotonic()
            return
        if time.monotonic() - self._last_clear < DOUBLE_CLEAR_SECONDS:
            app.request_quit()
            return
        self._last_clear = time.monotonic()
        app.notify("Press ctrl+c again to quit", timeout=2)

    def exit_if_empty(self) -> None:
        """Ctrl+D: quit on an empty editor, else delete forward."""
        app = self._app
        if not app.editor.text:
            app.request_quit()
        else:
            app.editor.action_delete_right()

    # ------------------------------------------------------------------ external editor

    def edit_externally(self) -> None:
        """``app.editor.external``: edit the prompt in the user's editor (the app is suspended meanwhile)."""
        from textual.app import SuspendNotSupported

        from pi_runtime.frontend import typed_settings

        from ..editor.external_editor import edit_in_editor, editor_command

        app = self._app
        session = app.session
        command = editor_command(typed_settings(session.settings).external_editor if session is not None else None)
        try:
            with app.suspend():
                outcome = edit_in_editor(command, app.editor.text)  # never raises: the app must resume
        except SuspendNotSupported:  # a browser page (pi serve --web) has no terminal to lend
            app.notify("The external editor needs a terminal", severity="warning")
            return
        if outcome.problem is not None:
            app.notify(outcome.problem, severity="warning")
        elif outcome.text is not None:
            app.editor.set_text(outcome.text)
