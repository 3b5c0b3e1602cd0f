"""Pi's ``footerData``: what a replaced footer (``ctx.ui.set_footer``) can read that extensions
cannot reach otherwise — the git branch and the statuses extensions set.

A factory that takes three arguments, ``factory(tui, theme, footer_data)``, gets one; a
two-argument factory does not. The branch is read from ``.git/HEAD`` at each call (a file read,
no subprocess). ``on_branch_change`` listeners are called when pi's own footer sees the branch
change, which it checks when a run settles (Pi watches the file).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .header_bar import git_branch


def takes_footer_data(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` has room for a third positional argument (Pi's ``footerData``)."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) >= 3


class FooterData:
    """The data side of pi's footer, for an extension's footer."""

    def __init__(self, cwd: str, statuses: dict[str, Any]) -> None:
        self._cwd = cwd
        self._statuses = statuses
        self._listeners: list[Callable[[], Any]] = []
        self._branch = git_branch(cwd)

    def get_git_branch(self) -> str | None:
        """The checked-out branch (a short commit id when detached; None outside git)."""
        return git_branch(self._cwd)

    def get_extension_statuses(self) -> dict[str, Any]:
        """A copy of the texts extensions set with ``ctx.ui.set_status``, by key."""
        return dict(self._statuses)

    def on_branch_change(self, listener: Callable[[], Any]) -> Callable[[], None]:
        """Call ``listener()`` when the branch changes; returns the unsubscriber."""
        self._listeners.append(listener)

        def off() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return off

    def check_branch(self) -> None:
        """Tell the listeners if the branch changed since the last look (a failing one is skipped)."""
        branch = git_branch(self._cwd)
        if branch == self._branch:
            return
        self._branch = branch
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # noqa: BLE001 - one extension's listener must not stop the others
                pass
