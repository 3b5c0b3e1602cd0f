"""Textual key events <-> the bytes a terminal sends for them (xterm's encoding).

Pi's ``onTerminalInput`` listeners see raw terminal input and may hand back different input.
Textual has parsed the bytes into ``events.Key`` before pi sees them, so ``sequence_for`` turns a
key back into the sequence an xterm-compatible terminal sends for it (``"\\x1b"`` for Esc,
``"\\x1b[A"`` for Up, ``"\\x18"`` for Ctrl+X, the character itself for printable keys), and
``events_for`` parses a listener's replacement back into key and paste events. Keys legacy xterm
cannot express (Shift+Enter, Ctrl+Shift+letter) use the kitty keyboard protocol's ``CSI code;mod u``
form, which Pi understands too.
"""

from __future__ import annotations

import re
import unicodedata

from textual import events

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
"""Bracketed paste markers: Pi hands a paste to listeners wrapped in them."""

# Keys whose modified forms are ``CSI 1;mod X`` (cursor keys) or ``CSI n;mod ~`` (editing keys).
_CURSOR_KEYS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_TILDE_KEYS = {"insert": "2", "delete": "3", "pageup": "5", "pagedown": "6", "f5": "15", "f6": "17",
               "f7": "18", "f8": "19", "f9": "20", "f10": "21", "f11": "23", "f12": "24"}
_SS3_KEYS = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
# Keys sent as one control character when unmodified; with modifiers kitty's CSI u carries them.
_SINGLE = {"escape": "\x1b", "enter": "\r", "tab": "\t", "backspace": "\x7f", "space": " "}
_SINGLE_CODES = {"escape": 27, "enter": 13, "tab": 9, "backspace": 127, "space": 32}
# Ctrl with punctuation: the ASCII control characters 0 and 28-31, under Textual's names.
_CTRL_PUNCTUATION = {"ctrl+@": "\x00", "ctrl+space": "\x00", "ctrl+backslash": "\x1c",
                     "ctrl+right_square_bracket": "\x1d", "ctrl+circumflex_accent": "\x1e",
                     "ctrl+underscore": "\x1f"}
_MODIFIER_BITS = {"shift": 1, "alt": 2, "ctrl": 4}
_MODIFIER_ORDER = ("ctrl", "alt", "shift")
"""Textual's order in multi-modifier names (``ctrl+shift+up``)."""


def _split(key: str) -> tuple[frozenset[str], str]:
    # Textual names "+" itself "plus", so splitting on it is safe.
    *modifiers, base = key.split("+")
    return frozenset(modifiers), base


def _mod_param(modifiers: frozenset[str]) -> int:
    return 1 + sum(_MODIFIER_BITS.get(m, 0) for m in modifiers)


def sequence_for_key(key: str) -> str | None:
    """The sequence for a Textual key name, or None when xterm has no encoding for it."""
    if key in _CTRL_PUNCTUATION:
        return _CTRL_PUNCTUATION[key]
    modifiers, base = _split(key)
    if not modifiers <= set(_MODIFIER_BITS):
        return None
    param = _mod_param(modifiers)
    if base in _CURSOR_KEYS:
        return f"\x1b[{_CURSOR_KEYS[base]}" if param == 1 else f"\x1b[1;{param}{_CURSOR_KEYS[base]}"
    if base in _TILDE_KEYS:
        return f"\x1b[{_TILDE_KEYS[base]}~" if param == 1 else f"\x1b[{_TILDE_KEYS[base]};{param}~"
    if base in _SS3_KEYS:
        return f"\x1bO{_SS3_KEYS[base]}" if param == 1 else f"\x1b[1;{param}{_SS3_KEYS[base]}"
    if base in _SINGLE:
        if not modifiers:
            return _SINGLE[base]
        if modifiers == {"shift"} and base == "tab":
            return "\x1b[Z"
        if modifiers == {"alt"}:
            return "\x1b" + _SINGLE[base]  # xterm's meta prefix (pi's terminal_keys reads ESC CR so)
        return f"\x1b[{_SINGLE_CODES[base]};{param}u"
    if len(base) == 1:
        if modifiers == {"ctrl"} and base.isascii() and base.isalpha():
            return chr(ord(base.lower()) - ord("a") + 1)
        if modifiers == {"alt"}:
            return "\x1b" + base
        if modifiers == {"alt", "shift"} and base.isalpha():
            return "\x1b" + base.upper()
        if modifiers == {"ctrl", "alt"} and base.isascii() and base.isalpha():
            return "\x1b" + chr(ord(base.lower()) - ord("a") + 1)
        if modifiers:
            return f"\x1b[{ord(base.lower())};{param}u"
        return base
    return None


def sequence_for(event: events.Key) -> str:
    """What a terminal sent for ``event``: the character a printable key types, else the
    sequence for its name; a key with neither (a media key) gives its Textual name."""
    if event.is_printable and event.character:
        return event.character
    sequence = sequence_for_key(event.key)
    if sequence is not None:
        return sequence
    return event.character or event.key


def _name(modifiers: frozenset[str], base: str) -> str:
    return "+".join([m for m in _MODIFIER_ORDER if m in modifiers] + [base])


def _build_table() -> dict[str, str]:
    """Every sequence ``sequence_for_key`` can produce for a named key -> the key's name."""
    table: dict[str, str] = {}
    combos = [frozenset(c) for c in ((), ("shift",), ("alt",), ("ctrl",), ("ctrl", "shift"), ("alt", "shift"),
                                     ("ctrl", "alt"), ("ctrl", "alt", "shift"))]
    bases = [*_CURSOR_KEYS, *_TILDE_KEYS, *_SS3_KEYS, *_SINGLE]
    for base in bases:
        for modifiers in combos:
            sequence = sequence_for_key(_name(modifiers, base))
            # Alt+Esc (ESC ESC) is left out: read back, it would swallow the ESC of a key after it.
            if sequence is not None and not sequence.startswith("\x1b\x1b"):
                table.setdefault(sequence, _name(modifiers, base))
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for modifiers in (frozenset({"ctrl"}), frozenset({"alt"}), frozenset({"ctrl", "alt"}),
                          frozenset({"ctrl", "shift"})):
            name = _name(modifiers, letter)
            sequence = sequence_for_key(name)
            if sequence is not None:
                # Tab, Enter and Backspace own \t, \r and \x08 in Textual's reading too.
                table.setdefault(sequence, name)
    for name, sequence in _CTRL_PUNCTUATION.items():
        table.setdefault(sequence, name)
    table["\x08"] = "backspace"  # what many terminals send for Backspace; Textual reads it so
    table["\n"] = "ctrl+j"
    return table


_TABLE = _build_table()
_LONGEST = max(len(s) for s in _TABLE)
_CSI_U = re.compile(r"\x1b\[(\d+)(?:;(\d+))?u")


def _character_key(character: str) -> str:
    """Textual's name for the key that types ``character`` (``"a"``, ``"number_sign"``, ``"space"``)."""
    if character.isalnum():
        return character
    try:
        name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        return character
    return name


def _csi_u_event(match: re.Match[str]) -> events.Key:
    code, param = int(match.group(1)), int(match.group(2) or 1)
    bits = param - 1
    modifiers = frozenset(m for m, bit in _MODIFIER_BITS.items() if bits & bit)
    by_code = {v: k for k, v in _SINGLE_CODES.items()}
    base = by_code.get(code) or chr(code)
    if not modifiers and len(base) == 1:
        return events.Key(_character_key(base), base)
    return events.Key(_name(modifiers, base), None)


def events_for(data: str) -> list[events.Key | events.Paste]:
    """Parse terminal input (a listener's replacement) into the events it stands for: known
    sequences become their keys, a bracketed paste a paste, anything else typed characters."""
    parsed: list[events.Key | events.Paste] = []
    i = 0
    while i < len(data):
        if data.startswith(PASTE_START, i):
            end = data.find(PASTE_END, i + len(PASTE_START))
            stop = len(data) if end < 0 else end
            parsed.append(events.Paste(data[i + len(PASTE_START):stop]))
            i = stop + (len(PASTE_END) if end >= 0 else 0)
            continue
        if data[i] == "\x1b" and (match := _CSI_U.match(data, i)):
            parsed.append(_csi_u_event(match))
            i = match.end()
            continue
        for length in range(min(_LONGEST, len(data) - i), 0, -1):
            name = _TABLE.get(data[i:i + length])
            if name is not None and (length > 1 or data[i] in _TABLE):
                character = data[i] if length == 1 else None
                parsed.append(events.Key(name, character))
                i += length
                break
        else:
            parsed.append(events.Key(_character_key(data[i]), data[i]))
            i += 1
    return parsed
