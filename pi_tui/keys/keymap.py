"""Pi's keybinding ids, their keys, and the user's overrides, as a Textual keymap.

``keybindings/default.json`` lists every action id Pi documents with its default keys.
``<agent dir>/keybindings.json`` replaces the keys of the ids it names (one key or a list;
``[]`` disables). Keys are written Pi's way (``ctrl+shift+p``, ``pageUp``, ``ctrl+]``) and
converted to Textual key names here; every binding in the app is declared with one of these
ids, so ``App.set_keymap`` applies the result. Bad entries and conflicts are reported, never
fatal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data_paths import data_dir

DEFAULTS_PATH = data_dir("keybindings") / "default.json"

_MODIFIERS = ("alt", "ctrl", "shift", "super")
_NAMED = {
    "esc": "escape", "escape": "escape", "return": "enter", "enter": "enter", "tab": "tab",
    "space": "space", "backspace": "backspace", "delete": "delete", "insert": "insert",
    "clear": "clear", "home": "home", "end": "end", "pageup": "pageup", "pagedown": "pagedown",
    "up": "up", "down": "down", "left": "left", "right": "right",
    **{f"f{i}": f"f{i}" for i in range(1, 13)},
}
_SYMBOLS = {
    "`": "grave_accent", "-": "minus", "=": "equals_sign", "[": "left_square_bracket",
    "]": "right_square_bracket", "\\": "backslash", ";": "semicolon", "'": "apostrophe",
    ",": "comma", ".": "full_stop", "/": "slash", "!": "exclamation_mark", "@": "at",
    "#": "number_sign", "$": "dollar_sign", "%": "percent_sign", "^": "circumflex_accent",
    "&": "ampersand", "*": "asterisk", "(": "left_parenthesis", ")": "right_parenthesis",
    "_": "underscore", "+": "plus", "|": "vertical_line", "~": "tilde",
    "{": "left_curly_bracket", "}": "right_curly_bracket", ":": "colon", "<": "less_than_sign",
    ">": "greater_than_sign", "?": "question_mark",
}

MAIN_VIEW_IDS = (
    "app.interrupt", "app.clear", "app.exit", "app.suspend", "app.editor.external",
    "app.clipboard.pasteImage", "app.session.new", "app.session.tree", "app.session.fork",
    "app.session.resume", "app.session.open", "app.session.next", "app.session.previous", "app.model.select", "app.model.cycleForward", "app.model.cycleBackward",
    "app.thinking.cycle", "app.thinking.toggle", "app.tools.expand", "app.message.copy",
    "app.message.followUp", "app.message.dequeue", "tui.altScreen.pageUp", "tui.altScreen.pageDown",
    "tui.altScreen.top", "tui.altScreen.bottom", "tui.altScreen.search", "tui.altScreen.previousPrompt",
    "tui.altScreen.nextPrompt", "pi.search", "pi.search.next", "pi.search.previous", "app.pane.tree", "pi.pane.focus",
    "pi.queue.focus",
)
"""Ids bound at once in the main view (before the editor sees a key): a key used by two of them
is a conflict, and an editor key one of them uses never reaches the editor."""


class KeySyntaxError(ValueError):
    """A key string Pi's syntax does not allow."""


def to_textual_key(pi_key: str) -> str:
    """``shift+ctrl+p`` -> ``ctrl+shift+p``; ``pageUp`` -> ``pageup``; ``ctrl+]`` -> ``ctrl+right_square_bracket``.

    Raises:
        KeySyntaxError: not a key in Pi's syntax.
    """
    text = pi_key.strip()
    if not text:
        raise KeySyntaxError("empty key")
    # A trailing "+" is the plus key itself ("ctrl++").
    if text.endswith("++") or text == "+":
        parts, key = text[:-2].split("+") if len(text) > 1 else [], "+"
        parts = [p for p in parts if p]
    else:
        *parts, key = text.split("+")
    mods = [p.lower() for p in parts]
    for mod in mods:
        if mod not in _MODIFIERS:
            raise KeySyntaxError(f"unknown modifier '{mod}' in '{pi_key}'")
    if len(set(mods)) != len(mods):
        raise KeySyntaxError(f"repeated modifier in '{pi_key}'")
    lowered = key.lower()
    if lowered in _NAMED:
        name = _NAMED[lowered]
    elif len(key) == 1 and (key.isascii() and key.isalnum()):
        name = key.lower()
    elif key in _SYMBOLS:
        name = _SYMBOLS[key]
    else:
        raise KeySyntaxError(f"unknown key '{key}' in '{pi_key}'")
    return "+".join(sorted(mods) + [name])


@dataclass
class Keymap:
    """Resolved keys per action id, in Pi's syntax and as Textual key names."""

    pi_keys: dict[str, list[str]] = field(default_factory=dict)
    """Action id -> keys as written (defaults replaced by the user's)."""
    problems: list[str] = field(default_factory=list)
    """Unknown ids, bad keys, conflicts: one sentence each."""
    overridden: set[str] = field(default_factory=set)
    """Ids the user file set."""
    defaults: dict[str, list[str]] = field(default_factory=dict)
    """Action id -> keys as ``keybindings/default.json`` writes them (what ``BINDINGS`` declare)."""

    def keys(self, action_id: str) -> list[str]:
        """Textual key names for an id (empty when unbound or unknown)."""
        out: list[str] = []
        for key in self.pi_keys.get(action_id, []):
            try:
                out.append(to_textual_key(key))
            except KeySyntaxError:
                continue
        return out

    def textual_keymap(self) -> dict[str, str]:
        """The mapping ``App.set_keymap`` takes (id -> comma-separated keys): only the ids whose keys
        differ from ``keybindings/default.json``, which every ``BINDINGS`` declaration repeats (a test
        keeps them equal). Textual applies a keymap to every widget of the focus chain on every key
        (``Screen._binding_chain``); with one entry per id that cost 2-3 ms a key, with none it is skipped."""
        # Textual ignores an empty key string, so a disabled action gets a key no terminal sends.
        return {aid: ",".join(self.keys(aid)) or "pi_disabled_key" for aid in self.pi_keys
                if self.pi_keys[aid] != self.defaults.get(aid)}

    def first_key(self, action_id: str) -> str:
        """The first key of an id, for hints (``""`` when unbound)."""
        keys = self.pi_keys.get(action_id) or []
        return keys[0] if keys else ""

    def shadowed_keys(self, action_id: str) -> dict[str, str]:
        """Keys of an editor or input id that a main-view action takes first (key -> that id)."""
        if action_id in MAIN_VIEW_IDS or not action_id.startswith(("tui.editor.", "tui.input.")):
            return {}
        taken = {key: owner for owner in MAIN_VIEW_IDS for key in self.keys(owner)}
        out: dict[str, str] = {}
        for key in self.pi_keys.get(action_id, []):
            try:
                owner = taken.get(to_textual_key(key))
            except KeySyntaxError:
                continue
            if owner is not None:
                out[key] = owner
        return out

    def action_for_key(self, key: str, ids: tuple[str, ...]) -> str | None:
        """Which of ``ids`` a Textual key name triggers (first match wins)."""
        for action_id in ids:
            if key in self.keys(action_id):
                return action_id
        return None


def _as_list(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def load_keymap(user_path: Path | None = None) -> Keymap:
    """Defaults from ``keybindings/default.json`` with the user's file applied on top."""
    raw = json.loads(DEFAULTS_PATH.read_text(encoding="utf-8"))
    defaults = {k: _as_list(v) or [] for k, v in raw.items() if not k.startswith("$")}
    keymap = Keymap(dict(defaults), defaults={k: list(v) for k, v in defaults.items()})
    if user_path is not None and user_path.exists():  # a FIFO or device is reported, not read
        _apply_user(keymap, user_path)
    _report_conflicts(keymap)
    return keymap


def _apply_user(keymap: Keymap, path: Path) -> None:
    from pi_runtime.frontend.app_support import parse_config_json, read_config_text

    try:
        # Refuses FIFOs, devices and huge files; a 100,000-digit number or a value nested
        # 100,000 deep is left out with a message (parse_config_json).
        data, dropped = parse_config_json(read_config_text(path))
    except (OSError, ValueError) as exc:
        keymap.problems.append(f"{path}: cannot read keybindings ({exc}); using the defaults")
        return
    keymap.problems.extend(f"{path}: {message}" for message in dropped)
    if not isinstance(data, dict):
        keymap.problems.append(f"{path}: keybindings must be a JSON object; using the defaults")
        return
    for action_id, value in data.items():
        if action_id.startswith("$"):
            continue
        if action_id not in keymap.pi_keys:
            keymap.problems.append(f"{path}: unknown action id '{action_id}'")
            continue
        keys = _as_list(value)
        if keys is None:
            keymap.problems.append(f"{path}: '{action_id}' must be a key or a list of keys")
            continue
        good: list[str] = []
        for key in keys:
            try:
                to_textual_key(key)
            except KeySyntaxError as exc:
                keymap.problems.append(f"{path}: '{action_id}': {exc}")
                continue
            good.append(key)
        keymap.pi_keys[action_id] = good
        keymap.overridden.add(action_id)


def _report_conflicts(keymap: Keymap) -> None:
    owners: dict[str, list[str]] = {}
    for action_id in MAIN_VIEW_IDS:
        for key in keymap.keys(action_id):
            owners.setdefault(key, []).append(action_id)
    for key, ids in owners.items():
        if len(ids) > 1 and any(i in keymap.overridden for i in ids):
            keymap.problems.append(f"key '{key}' is bound to several actions: {', '.join(ids)}")
