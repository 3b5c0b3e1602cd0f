"""A session's own panes, for flows and commands that act on the session they were started in.

After an await (a dialog, the kernel, a subprocess) another tab may be on screen: ``app.transcript``
is then that tab's. A notice about what happened to a session goes to that session's transcript,
and text for its editor to its editor or to its tab's draft, wherever it is shown (or later, when
its tab is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

    from ..transcript.transcript import Transcript
    from .host import PiHost


def transcript_of(app: PiHost, session: SessionPort) -> Transcript:
    """``session``'s transcript: its tab's, or the one shown when it has no tab (start-up)."""
    entry = app.workspace.entry_for(session)
    return entry.transcript if entry is not None else app.transcript


def put_in_editor(app: PiHost, session: SessionPort, text: str) -> None:
    """``text`` in ``session``'s editor: the one on screen, or the draft its tab gets back when shown."""
    if app.session is session:
        app.editor.set_text(text)
        return
    from ..sessions.open_session import Draft

    entry = app.workspace.entry_for(session)
    if entry is not None:
        lines = text.split("\n")
        entry.draft = Draft(text, (len(lines) - 1, len(lines[-1])))
