"""Key lookup for the navigation screens (tree browser, session picker) by Pi's action ids.

These screens read keys in ``on_key`` instead of ``BINDINGS`` because two of Pi's defaults
cannot be Textual bindings: ``shift+l`` arrives from a terminal as the character ``L``, and
typing must fall through to the search text when no action matches. Keys come from the
app's ``Keymap`` (so the user's ``keybindings.json`` applies), or Pi's defaults.
"""

from __future__ import annotations

from typing import Any

from ..keys.keymap import Keymap, load_keymap

_MOD_ORDER = ("alt", "ctrl", "shift", "super")


def normalize_key(key: str) -> str:
    """A Textual key name in the keymap's spelling: ``L`` -> ``shift+l``, modifiers sorted."""
    if len(key) == 1 and key.isalpha() and key.isupper():
        return f"shift+{key.lower()}"
    parts = key.split("+")
    if len(parts) == 1:
        return key
    mods, name = parts[:-1], parts[-1]
    if all(m in _MOD_ORDER for m in mods):
        return "+".join(sorted(mods) + [name])
    return key


def app_keymap(app: Any) -> Keymap:
    """The running app's keymap when it has one (``PiApp.keymap``), else Pi's defaults."""
    keymap = getattr(app, "keymap", None)
    return keymap if isinstance(keymap, Keymap) else load_keymap(None)


class KeyTable:
    """Maps pressed keys to method names of a screen."""

    def __init__(self, keymap: Keymap, by_id: dict[str, str], fixed: dict[str, str] | None = None) -> None:
        """
        Args:
            keymap: Resolved keys per action id.
            by_id: Action id -> method name.
            fixed: Extra keys (Textual names) -> method name, for keys Pi has no id for.
        """
        self.table: dict[str, str] = {}
        for key, method in (fixed or {}).items():
            self.table[normalize_key(key)] = method
        for action_id, method in by_id.items():
            for key in keymap.keys(action_id):
                self.table.setdefault(normalize_key(key), method)

    def method_for(self, key: str) -> str | None:
        return self.table.get(normalize_key(key))

    def first_key(self, method: str) -> str:
        """A key that triggers ``method``, for hints ("" when none)."""
        return next((k for k, m in self.table.items() if m == method), "")
