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

import re
from typing import Any

from .. import deep_json

_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LITERAL = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
"""A string literal, or the one still open at the end (an escape counts as two characters)."""
_INSIDE = re.compile(r'\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|\\(?=.)|[\x00-\x1f]', re.S)
"""In a literal: an escape JSON knows, a stray backslash (not the last character: an escape
still arriving mid-stream is left for its next character), a control character."""


def _mend(piece: re.Match[str]) -> str:
    found = piece.group()
    if found == "\\":
        return "\\\\"
    if found[0] == "\\":
        return found
    return _CONTROL_ESCAPES.get(found) or f"\\u{ord(found):04x}"


def mend_strings(text: str) -> str:
    """``text`` with control characters inside strings escaped and stray backslashes doubled
    (regular expressions, not a loop over characters: a large ``write`` is mended in 0.1 s a MB)."""
    return _LITERAL.sub(lambda literal: _INSIDE.sub(_mend, literal.group()), text)


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
