"""Modified keys that legacy terminal input cannot tell apart (Shift+Enter, Ctrl+Shift+F).

Textual asks for the kitty keyboard protocol only. tmux (and xterm) do not speak it: they send
Shift+Enter as a bare CR unless the program asks for xterm's *modifyOtherKeys*, which Pi does
(``CSI > 4 ; 2 m`` on start, ``CSI > 4 ; 0 m`` on exit). ``ExtendedKeysDriver`` asks for it the
same way, and gives it back whenever Textual leaves application mode (exit, Ctrl+Z).

The keys then arrive as ``CSI code ; mod u`` (tmux's csi-u format) or ``CSI 27 ; mod ; code ~``
(xterm's format, tmux's ``extended-keys-format xterm``). Textual reads the first as
``ctrl+shift+F`` (a capital, which no binding names) and the second not at all, so
``install`` teaches its parser both, under the names Pi's keymap uses (``ctrl+shift+f``).

``tmux_warning`` is Pi's start-up warning when tmux would drop these keys anyway.
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from typing import Any

from textual import events
from textual.drivers.linux_driver import LinuxDriver

from .textual_internals import key_name, xterm_parser_class

REQUEST_MODIFY_OTHER_KEYS = "\x1b[>4;2m"
RESET_MODIFY_OTHER_KEYS = "\x1b[>4;0m"
_XTERM_FORMAT = re.compile(r"\x1b\[27;(\d+);(\d+)~")


class ExtendedKeysDriver(LinuxDriver):
    """Textual's Linux driver, also asking for modifyOtherKeys while the app owns the terminal."""

    def start_application_mode(self) -> None:
        super().start_application_mode()
        self.write(REQUEST_MODIFY_OTHER_KEYS)
        self.flush()

    def stop_application_mode(self) -> None:
        # Before Textual restores the screen: the shell after pi must get plain keys again.
        self.write(RESET_MODIFY_OTHER_KEYS)
        self.flush()
        super().stop_application_mode()


def _character_key_name(character: str) -> str:
    return character if character.isalnum() else key_name(character)


def _normalised(key: events.Key) -> events.Key:
    """``ctrl+shift+F`` -> ``ctrl+shift+f``; ``shift+A`` (no text) -> the typed ``A``."""
    *modifiers, base = key.key.split("+")
    if len(base) != 1 or not modifiers:
        return key
    if modifiers == ["shift"] and base.isprintable():
        # Shift alone on a printable key types its character (tmux and xterm encode it when asked).
        # csi-u names the unshifted key (``CSI 108;2u`` is Shift+L), so a letter is typed capital.
        character = base.upper() if base.isalpha() else base
        return events.Key(_character_key_name(character), character)
    if base.isupper():
        names = sorted({*modifiers, "shift"})
        return events.Key("+".join([*names, base.lower()]), None)
    return key


def _shifted(code: int, modifier: int) -> str:
    """The character xterm's ``27;mod;code`` types: the code is of the unshifted key."""
    character = chr(code)
    return character.upper() if (modifier - 1) & 1 and character.isalpha() else character


_installed = False


def install() -> None:
    """Idempotent; wraps Textual's (private, cached) extended key parser."""
    global _installed
    if _installed:
        return
    _installed = True
    parser = xterm_parser_class()
    original = parser._parse_extended_key

    @lru_cache(maxsize=1024)
    def parse_extended_key(self: Any, sequence: str) -> list[events.Key] | None:
        if (match := _XTERM_FORMAT.fullmatch(sequence)) is not None:
            modifier, code = int(match.group(1)), int(match.group(2))
            if code in (9, 13, 27, 127, 32):  # Tab, Enter, Esc, Backspace, Space: keys, not text
                sequence = f"\x1b[{code};{modifier}u"
            elif modifier == 2:
                character = _shifted(code, modifier)
                return [events.Key(_character_key_name(character), character)]
            else:
                sequence = f"\x1b[{ord(_shifted(code, modifier))};{modifier}u"
        keys = original(self, sequence)
        return None if keys is None else [_normalised(key) for key in keys]

    parser._parse_extended_key = parse_extended_key


TMUX_EXTENDED_KEYS_OFF = ("tmux extended-keys is off. Modified Enter keys may not work. "
                          "Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux.")
TMUX_FORMAT_XTERM = ("tmux extended-keys-format is xterm. Pi works best with csi-u. "
                     "Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux.")


def _tmux_show(option: str) -> str | None:
    try:
        done = subprocess.run(["tmux", "show", "-gv", option], capture_output=True, text=True, timeout=2,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def inside_tmux() -> bool:
    """Whether pi runs inside tmux (the only place ``tmux_warning`` asks anything)."""
    return bool(os.environ.get("TMUX"))


def tmux_warning() -> str | None:
    """Pi's warning when pi runs inside tmux with extended keys off (None outside tmux, or
    when tmux cannot be asked: a warning that might be wrong is worse than none)."""
    if not inside_tmux():
        return None
    extended_keys = _tmux_show("extended-keys")
    if extended_keys is None:
        return None
    if extended_keys not in ("on", "always"):
        return TMUX_EXTENDED_KEYS_OFF
    if _tmux_show("extended-keys-format") == "xterm":
        return TMUX_FORMAT_XTERM
    return None
