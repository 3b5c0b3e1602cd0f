"""A finished tool call's arguments, read from the text the model streamed.

While a call streams, ``partial_json.parse_partial`` guesses an object from whatever has
arrived, for the preview. Once the call is finished nothing is guessed any more: guessing
closed a cut-off ``write`` and wrote half a file. Text that is not one JSON object leaves the
arguments empty and says why in ``argumentsError`` (Pi 1.6's field), with what the model sent;
the tool is then not run and the model gets the reason back.

Two slips that models make all the time are mended first, as Pi does: raw control characters
(a literal newline) inside a string, and a backslash before a character JSON cannot escape
(``"\\d+"`` in a regular expression), which is taken as a literal backslash.
"""

from __future__ import annotations

from typing import Any

from .. import deep_json

_ESCAPABLE = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def mend_strings(text: str) -> str:
    """``text`` with control characters inside strings escaped and stray backslashes doubled."""
    out: list[str] = []
    in_string = False
    i, end = 0, len(text)
    while i < end:
        ch = text[i]
        if not in_string:
            out.append(ch)
            in_string = ch == '"'
        elif ch == '"':
            out.append(ch)
            in_string = False
        elif ch == "\\":
            after = text[i + 1] if i + 1 < end else ""
            if not after:  # an escape still arriving (mid-stream): left for its next character
                out.append(ch)
            elif after in _ESCAPABLE:
                out.append(text[i:i + 2])
                i += 1
            elif after == "u" and len(text) >= i + 6 and all(c in _HEX for c in text[i + 2:i + 6]):
                out.append(text[i:i + 6])
                i += 5
            else:
                out.append("\\\\")
        elif ch < " ":
            out.append(_CONTROL_ESCAPES.get(ch) or f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def parse_tool_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """``(arguments, None)`` for a JSON object, else ``({}, why)``: the problem, a blank line,
    ``Received arguments:`` and the text as the model sent it."""
    if not text.strip():
        return {}, None
    try:
        value = _loads_mended(text)
    except ValueError as exc:
        return {}, f"{exc}\n\nReceived arguments:\n{text}"
    if type(value) is not dict:
        return {}, f"Tool arguments must be a JSON object\n\nReceived arguments:\n{text}"
    return value, None


def _loads_mended(text: str) -> Any:
    try:
        return deep_json.loads(text)
    except ValueError as first:
        mended = mend_strings(text)
        if mended == text:
            raise
        try:
            return deep_json.loads(mended)
        except ValueError:
            raise first from None  # its line and column are those of the text the model sent
