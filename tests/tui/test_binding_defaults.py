"""Every binding pi declares under one of Pi's ids has the keys ``keybindings/default.json`` gives it.

The app hands Textual only the ids whose keys differ from the defaults (``Keymap.textual_keymap``):
Textual re-applies a keymap to every widget of the focus chain on every key, which with one entry
per id cost 2-3 ms a key. So a ``BINDINGS`` line that drifted from default.json would now be what
the user gets; this test keeps them equal.
"""

from __future__ import annotations

import importlib
import json
import pkgutil

import pi_tui
from pi_tui.keys.keymap import load_keymap


def _pi_tui_classes() -> list[type]:
    from textual.dom import DOMNode

    for module in pkgutil.walk_packages(pi_tui.__path__, "pi_tui."):
        if not module.name.endswith(".__main__"):  # a command line, not a module to import
            importlib.import_module(module.name)
    found: list[type] = []
    pending = [DOMNode]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.startswith("pi_tui.") and sub not in found:
                found.append(sub)
    return found


def test_every_declared_binding_id_has_its_default_keys():
    from textual.binding import Binding

    keymap = load_keymap(None)
    declared = drifted = 0
    problems: list[str] = []
    for cls in _pi_tui_classes():
        for binding in vars(cls).get("BINDINGS", []):
            if not isinstance(binding, Binding) or binding.id is None:
                continue
            declared += 1
            keys = sorted(k.strip() for k in binding.key.split(","))
            if binding.id not in keymap.pi_keys:
                problems.append(f"{cls.__qualname__}: {binding.id} is not in keybindings/default.json")
                continue
            wanted = sorted(keymap.keys(binding.id)) or ["pi_disabled_key"]
            if keys != wanted:
                drifted += 1
                problems.append(f"{cls.__module__}.{cls.__qualname__}: {binding.id} declares {keys}, "
                                f"default.json gives {wanted}")
    assert declared > 50  # the walk found the app's, the editor's and the dialogs' bindings
    assert not problems, "\n".join(problems)


def test_the_keymap_given_to_textual_holds_only_what_the_user_changed(tmp_path):
    path = tmp_path / "keybindings.json"
    assert load_keymap(None).textual_keymap() == {}
    path.write_text(json.dumps({"app.tools.expand": "ctrl+t", "app.model.select": "ctrl+l",
                                "tui.select.cancel": ["escape"]}), encoding="utf-8")
    # ctrl+l is app.model.select's default: nothing to apply for it.
    assert load_keymap(path).textual_keymap() == {"app.tools.expand": "ctrl+t", "tui.select.cancel": "escape"}
