"""The panes extensions draw with: their areas, screens, components, editors and themes. The
``ctx.ui`` object that acts on pi's panes for them (``flows/app_extension_ui.py``), hosting it
(``flows/extension_host.py``), swapping editors and pi's header/footer (``flows/screen_parts.py``,
``flows/editor_swap.py``) and containing an extension's failures (``flows/extension_guard.py``)
live in ``flows/``: they act on several panes.

Extensions import their building blocks from here: ``from pi_tui.extension_ui import CustomEditor,
BorderedLoader, SettingsList, SettingItem, Editor``. They are looked up on first use so that importing this package (the app
does, for every extension) costs nothing more.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BorderedLoader", "CustomEditor", "Editor", "SettingItem", "SettingsList"]


def __getattr__(name: str) -> Any:
    if name == "CustomEditor":
        from .custom_editor import CustomEditor

        return CustomEditor
    if name == "BorderedLoader":
        from .bordered_loader import BorderedLoader

        return BorderedLoader
    if name in ("Editor", "SettingItem", "SettingsList"):
        from . import components

        return getattr(components, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
