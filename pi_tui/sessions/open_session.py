"""One session of the workspace and what its tab says about it.

``OpenSession`` holds what belongs to one open session: its port, its bridge (its events
come in through it, tagged), its transcript widget (mounted once, hidden while another
session is shown), the editor draft it had when the user switched away, and its state.
``OpenSession.note`` follows the kernel's events to keep the state (working, idle, waiting
for you, failed) without reading widgets; the tab bar draws from it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pi_runtime.frontend import events as ev

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..bridge import Bridge
    from ..transcript.transcript import Transcript


class TabState(StrEnum):
    """What a session is doing, as its tab says it."""

    IDLE = "idle"
    WORKING = "working"
    WAITING = "waiting for you"
    FAILED = "failed"


@dataclass
class Draft:
    """The editor's text and cursor when the user switched away from a session."""

    text: str = ""
    cursor: tuple[int, int] = (0, 0)
    pastes: dict[str, str] = field(default_factory=dict)
    """Large pastes shown as markers in ``text`` (``paste.py``)."""
    images: dict[str, Any] = field(default_factory=dict)
    """Images attached to the draft (``AttachedImage`` by marker)."""


@dataclass(eq=False)
class OpenSession:
    """A session open in the workspace (one tab)."""

    number: int
    """Shown on the tab (1, 2, …); kept when other tabs close, so a tab keeps its name."""
    session: SessionPort
    bridge: Bridge
    transcript: Transcript
    draft: Draft = field(default_factory=Draft)
    working: bool = False
    working_since: float | None = None
    """``time.monotonic()`` when the current run began (the footer counts from it when the tab is shown)."""
    failed: bool = False
    """The last run ended with an error (until the next one starts)."""
    questions: int = 0
    """Dialogs of this session's extensions waiting for the tab to be shown (or answered)."""
    unseen: str | None = None
    """What happened while the tab was in the background: ``done``, ``failed`` or ``asks``."""
    extension_ui: Any = None
    """Its extensions' ``ctx.ui`` (``AppExtensionUI``), once started."""
    shown: asyncio.Event = field(default_factory=asyncio.Event)
    """Set while this session is the one on screen (its extensions' dialogs wait for it)."""
    _prompt_for: tuple[str, str] | None = None
    """(session file, its first prompt) as last found (``name``)."""

    @property
    def state(self) -> TabState:
        if self.questions:
            return TabState.WAITING
        if self.working:
            return TabState.WORKING
        return TabState.FAILED if self.failed else TabState.IDLE

    @property
    def name(self) -> str:
        """What the session is called: its name, else its first prompt, else ``new session``."""
        return self.session.session_name or self._first_prompt() or "new session"

    def _first_prompt(self) -> str:
        """The first user message on one line (found once per session file; a new session's
        comes with its first prompt)."""
        key = str(self.session.session_file or id(self.session.session_manager))
        cached = self._prompt_for
        if cached is not None and cached[0] == key and cached[1]:
            return cached[1]
        text = ""
        for message in self.session.messages:
            if getattr(message, "role", None) == "user":
                from ..transcript.history import user_text

                text = " ".join(user_text(getattr(message, "content", "")).split())
                break
        self._prompt_for = (key, text)
        return text

    def note(self, event: ev.SessionEvent) -> str | None:
        """Follow ``event``; returns what a background tab should signal (``done``/``failed``), if anything."""
        match event:
            case ev.AgentStartEvent() | ev.CompactionStartEvent():
                if not self.working:
                    self.working_since = time.monotonic()
                self.working, self.failed = True, False
            case ev.MessageEndEvent(message=message) if getattr(message, "role", None) == "assistant":
                self.failed = getattr(message, "stop_reason", None) == "error"
            case ev.CompactionEndEvent():
                self.working = self.session.is_streaming
            case ev.AgentSettledEvent():
                self.working = False
                return "failed" if self.failed else "done"
            case _:
                pass
        return None
