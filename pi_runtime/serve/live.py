"""The sessions a ``pi serve`` keeps running: opened on request, closed on request or at shutdown.

Each live session is an ``AgentSession`` built as the command line would build it (the server's
own flags are the defaults: model, tools, extensions...), with a ``SessionHub`` for its viewers
and the fan-out extension UI installed before its extensions start. A session's id on the server
(its ``handle``) stays the same while the session moves to other files (``/new``, fork, resume).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from collections.abc import Callable
from typing import Any

from ..agent.transcript import message_at
from ..cli_args import CliArgs
from ..records import record
from .hub import SessionHub

LAST_ANSWER_CHARS = 400
"""Characters of the last answer a listing shows."""

DISPOSE_TIMEOUT = 5.0


@record
class LiveSession:
    handle: str
    session: Any
    """The ``AgentSession``."""
    hub: SessionHub

    def summary(self) -> dict[str, Any]:
        """One row of ``list_sessions``."""
        session = self.session
        model = session.model
        answer = last_answer(session.messages)
        return {
            "session": self.handle,
            "sessionId": session.session_id,
            "sessionFile": session.session_file,
            "name": session.session_name,
            "cwd": session.cwd,
            "status": self.hub.status(),
            "error": self.hub.last_error,
            "lastAnswer": answer[:LAST_ANSWER_CHARS] if answer else None,
            "model": model.ref if model is not None else None,
            "messageCount": len(session.messages),
            "viewers": len(self.hub.viewers),
            "cursor": self.hub.cursor,
        }


def last_answer(messages: Any) -> str | None:
    """Text of the latest assistant message that has any, read from the end (a long resumed
    transcript's stored messages stay dicts: nothing is validated)."""
    for index in range(len(messages) - 1, -1, -1):
        message = message_at(messages, index)
        if isinstance(message, dict):
            if message.get("role") != "assistant":
                continue
            text = "".join(b.get("text", "") for b in message.get("content") or () if isinstance(b, dict)
                           and b.get("type") == "text")
        elif getattr(message, "role", None) == "assistant":
            text = message.text()
        else:
            continue
        if text:
            return str(text)
    return None


class LiveSessions:
    """The live sessions of one folder.

    Args:
        folder: Where sessions run (their working directory).
        base_args: The server's command line: what every session is built with.
        on_close_request: Called with a handle when an extension asks its session to end (``ctx.shutdown()``).
    """

    def __init__(self, folder: str, base_args: CliArgs, on_close_request: Callable[[str], None]) -> None:
        self.folder = folder
        self.base_args = base_args
        self.by_handle: dict[str, LiveSession] = {}
        self._on_close_request = on_close_request

    def find(self, ref: Any) -> LiveSession | None:
        """The session a handle names (or a unique prefix of a handle or of a session id)."""
        if not isinstance(ref, str) or not ref:
            return None
        live = self.by_handle.get(ref)
        if live is not None:
            return live
        hits = [live for live in self.by_handle.values()
                if live.handle.startswith(ref) or str(live.session.session_id).startswith(ref)]
        return hits[0] if len(hits) == 1 else None

    async def open(self, *, session_path: str | None = None, continue_recent: bool = False,
                   name: str | None = None) -> LiveSession:
        """Build a session (a new one, a file, or the folder's most recent) and start its extensions.

        A file already open here is not opened twice: its live session is returned.

        Raises:
            One of ``modes.startup.user_errors()`` with a one-line message.
        """
        from ..modes.session_notices import print_startup_notices
        from ..modes.startup import build_session

        if session_path is not None:
            wanted = os.path.realpath(session_path)
            for live in self.by_handle.values():
                if live.session.session_file and os.path.realpath(live.session.session_file) == wanted:
                    return live
        args = self.base_args.replaced(session=session_path, continue_=continue_recent and not session_path,
                                       name=name or None, no_session=self.base_args.no_session and not session_path)
        # Built on the loop: a 20,000-message session takes ~0.3 s, during which other sessions wait.
        session = build_session(args, cwd=self.folder)
        print_startup_notices(session)
        return await self._adopt(session)

    async def open_beside(self, source: LiveSession, kind: str, entry_id: str | None = None) -> tuple[LiveSession, str]:
        """A session built beside ``source`` (``pi_runtime.sibling``): ``new``, ``fork`` before the
        user message ``entry_id``, or ``clone`` of its active branch; ``source`` runs on untouched.
        Returns it and, for a fork, the text of the message it was forked before (for the editor).

        Raises:
            KeyError, ValueError: No such user message; a clone of an empty session.
        """
        from ..sibling import open_sibling_session

        if kind not in ("new", "fork", "clone"):
            raise ValueError(f"kind must be new, fork or clone (not {kind!r})")
        sibling = open_sibling_session(source.session, kind, entry_id=entry_id)  # type: ignore[arg-type]
        return await self._adopt(sibling.session), sibling.editor_text

    async def _adopt(self, session: Any) -> LiveSession:
        """Serve a built session: its hub, its handle, its extensions started with the fan-out UI."""
        handle = secrets.token_hex(4)
        while handle in self.by_handle:
            handle = secrets.token_hex(4)
        live = LiveSession(handle, session, SessionHub(handle, session))
        self.by_handle[handle] = live
        runner = session.extension_runner
        if runner is not None:
            runner.set_ui(live.hub.ui, "rpc")
            runner.on_shutdown_request = lambda: self._on_close_request(handle)
            await runner.start()
        live.hub.checkpoint()
        return live

    async def close(self, handle: str, reason: str = "closed") -> bool:
        """End a session: its run is aborted, its viewers told ``session_closed``, its file closed."""
        live = self.by_handle.pop(handle, None)
        if live is None:
            return False
        live.hub.ui.cancel_all()
        try:
            await asyncio.wait_for(live.session.dispose(), DISPOSE_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - the file is append-only; closing goes on
            print(f"pi serve: session {handle} did not close cleanly: {exc}", file=sys.stderr)
        live.hub.publish({"type": "session_closed", "reason": reason})
        live.hub.close()
        return True

    async def close_all(self, reason: str = "server stopped") -> None:
        await asyncio.gather(*(self.close(handle, reason) for handle in list(self.by_handle)))
