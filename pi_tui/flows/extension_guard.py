"""Keeps the app running when an extension's own widget raises.

Textual ends the whole app on any exception raised in a widget's handlers, ``compose`` or
``render``. For pi's widgets that is right (it is our bug), but a widget an extension built —
``ctx.ui.custom``'s, a ``set_footer``/``set_header``/``set_widget`` component — is the
extension's code, and nothing an extension does may stop pi. Such an error is reported as an
``extension_error`` (event ``ui``) and the broken widget is taken away: the custom screen
closes (``custom`` returns None), a replaced footer or header gives way to pi's own.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import textual
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen

    from .app_extension_ui import AppExtensionUI


class _Tab(Protocol):
    @property
    def session(self) -> object: ...
    @property
    def extension_ui(self) -> AppExtensionUI | None: ...


class _Tabs(Protocol):
    @property
    def sessions(self) -> Sequence[_Tab]: ...


class GuardedApp(Protocol):
    """Where extensions' widgets are: the open sessions' ``ctx.ui`` and the screens on the stack."""

    @property
    def session(self) -> object: ...
    @property
    def extension_ui(self) -> AppExtensionUI | None: ...
    @property
    def workspace(self) -> _Tabs: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...


def _frame_objects(error: BaseException) -> list[Any]:
    """The ``self`` of every frame the error went through, innermost first."""
    found: list[Any] = []
    tb = error.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if owner is not None:
            found.append(owner)
        tb = tb.tb_next
    return list(reversed(found))


Root = tuple[Widget, str, Any, Any]
"""A widget extensions own, what to do with it (``screen`` or a component key), the ``ctx.ui`` it
belongs to and the runner of the session whose extensions made it."""


def _extension_roots(app: GuardedApp) -> list[Root]:
    """Every widget extensions own: a background tab's are mounted too, hidden."""
    from ..extension_ui.extension_screen import ExtensionScreen

    def runner_of(session: Any) -> Any:
        return getattr(session, "extension_runner", None)

    roots: list[Root] = [(screen, "screen", app.extension_ui, runner_of(app.session))
                         for screen in app.screen_stack if isinstance(screen, ExtensionScreen)]
    owners = [(entry.extension_ui, runner_of(entry.session)) for entry in app.workspace.sessions]
    if not any(ui is app.extension_ui for ui, _ in owners):
        owners.append((app.extension_ui, runner_of(app.session)))
    for ui, runner in owners:
        if ui is not None:
            roots.extend((widget, key, ui, runner) for key, widget in ui.components.items())
    return roots


def _extension_path(runner: Any, error: BaseException) -> str:
    """The extension whose file the traceback passes through ("(ui)" when none does)."""
    paths = [ext.path for ext in getattr(runner, "extensions", [])]
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        for path in paths:
            if filename == path or filename.startswith(path.rstrip("/") + "/"):
                return path
        tb = tb.tb_next
    return "(ui)"


def _describe(error: BaseException) -> str:
    """``Type: message`` and the traceback without Textual's own frames (they say nothing to
    the extension's author)."""
    textual_dir = str(Path(textual.__file__).parent)
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if not frame.filename.startswith(textual_dir)]
    lines = "".join(traceback.format_list(frames)).rstrip()
    return f"{type(error).__name__}: {error}" + (f"\n{lines}" if lines else "")


def contain_extension_error(app: GuardedApp, error: BaseException) -> bool:
    """Report and remove the extension widget ``error`` came from; False when it is not one."""
    roots = _extension_roots(app)
    if not roots:
        return False
    culprit: Root | None = None
    for owner in _frame_objects(error):
        if not isinstance(owner, Widget):
            continue
        culprit = next((root for root in roots if root[0] in owner.ancestors_with_self), None)
        if culprit is not None:
            break
    if culprit is None:
        return False
    root, key, ui, runner = culprit
    text = _describe(error)
    if runner is not None:
        runner.reporter.report_soon(_extension_path(runner, error), "ui", text)
    if key == "screen":
        root.finish(None)  # type: ignore[attr-defined]  # as the extension's done(None) would
    else:
        ui.drop_component(key)
    return True
