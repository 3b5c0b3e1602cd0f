"""Pi's project-trust question, asked before the session is built when a folder brings its own
``.pi`` settings or resources and nothing has decided yet (``defaultProjectTrust: "ask"``).

Returns ``(trusted, save_for)``: whether to load the project's resources this time, and the
folder to save that decision for (None: this session only). Esc is "do not trust, this session".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from rich.text import Text

from .pick_list import PickItem, PickList

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import AwaitMount

    from pi_runtime.frontend import SessionPort

NOT_TRUSTED = ("This project is not trusted. Project .pi resources and packages are ignored. "
               "Use /trust to save a trust decision, then restart pi.")


def trust_items(folder: str) -> list[PickItem]:
    parent = str(Path(folder).parent)
    rows = [
        ((True, folder), "Trust"),
        ((True, parent), f"Trust parent folder ({parent})"),
        ((True, None), "Trust (this session only)"),
        ((False, folder), "Do not trust"),
        ((False, None), "Do not trust (this session only)"),
    ]
    return [PickItem(value, Text(label), label, "", i == 0) for i, (value, label) in enumerate(rows)]


class TrustPrompt(PickList):
    """Trust project folder?"""

    def __init__(self, folder: str) -> None:
        super().__init__(
            "Trust project folder?", trust_items(folder),
            detail=f"{folder}\nThis allows pi to load .pi settings and resources, install missing project "
                   "packages, and execute project extensions.",
            hint="↑↓ navigate · enter select · esc do not trust (this session)",
            filterable=False, id="trust-prompt",
        )

    async def action_dismiss(self, result: Any = None) -> None:
        # Esc (the cancel binding dismisses with None) means "not trusted, this session only".
        await super().action_dismiss(result if result is not None else (False, None))


class _Notices(Protocol):
    async def add_notice(self, text: str, kind: str = "info") -> object: ...


class TrustAsker(Protocol):
    """What asking about trust needs of the app: a screen, notices, and where to say "not trusted"."""

    @property
    def session(self) -> SessionPort | None: ...
    @property
    def transcript(self) -> _Notices: ...
    @property
    def start_notices(self) -> list[tuple[str, str]]:
        """(text, kind) said before the first session is attached, shown once it is."""
    def push_screen(self, screen: Screen[Any] | str, callback: ScreenResultCallbackType[Any] | None = None,
                    wait_for_dismiss: Literal[False] = False, *, mode: str | None = None) -> AwaitMount: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...


async def ask_project_trust(app: TrustAsker, folder: str, *, say_untrusted: bool = True) -> bool:
    """Ask whether to trust ``folder`` (at start-up, or before a session of that folder is opened);
    saves the decision when the user asks to and, with ``say_untrusted``, says in the transcript
    shown when it is not trusted (``NOT_TRUSTED``)."""
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def answered(value: Any) -> None:
        if not answer.done():
            answer.set_result(value)

    app.push_screen(TrustPrompt(folder), answered)
    trusted, save_for = await answer
    if save_for is not None:
        from pi_runtime.frontend.app_support import save_trust_decision

        try:
            save_trust_decision(save_for, trusted)
        except Exception as exc:  # noqa: BLE001 - the decision still holds for this session
            app.notify(f"Trust decision not saved: {exc}", severity="warning", timeout=8)
    if not trusted and say_untrusted:
        if app.session is None:  # at start-up: the session's history is about to replace the transcript
            app.start_notices.append((NOT_TRUSTED, "warning"))
        else:
            app.call_later(app.transcript.add_notice, NOT_TRUSTED, "warning")
    return bool(trusted)
