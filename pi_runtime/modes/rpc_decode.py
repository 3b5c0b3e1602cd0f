"""Decoding one RPC line into a value, for any JSON Pi's parser accepts.

``json.loads`` (C, fast) handles nearly every line. Two kinds of valid JSON make it fail
where Pi's ``JSON.parse`` succeeds: integers longer than Python's 4,300-digit conversion
limit, and nesting deeper than the interpreter's recursion limit. Those lines go through
:func:`loads_iterative`, an explicit-stack parser that reads numbers the way JavaScript
does (a huge integer becomes a float, ``inf`` past its range), so they get a real answer
instead of a traceback.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # public in CPython, untyped in typeshed
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_MAX_INT_DIGITS = 4000


class DecodeError(ValueError):
    """The line is not JSON; the message says where."""


def decode_line(text: str) -> Any:
    """The JSON value of ``text``.

    Raises:
        DecodeError: ``text`` is not valid JSON.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecodeError(str(exc)) from None
    except (RecursionError, ValueError):
        # Nested too deeply for the C scanner, or an integer over the digit limit.
        return loads_iterative(text)


def _number(match: re.Match[str]) -> Any:
    token = match.group(0)
    if match.group(1) is None and match.group(2) is None and len(token) <= _MAX_INT_DIGITS:
        return int(token)
    # Like JavaScript: a float, the nearest double (inf past its range) for huge integers.
    return float(token)


def _skip(text: str, pos: int) -> int:
    """The first position at or after ``pos`` that is not JSON whitespace."""
    match = _WS.match(text, pos)
    assert match is not None  # the pattern also matches the empty string
    return match.end()


def loads_iterative(text: str) -> Any:
    """Parse ``text`` without recursion (any depth).

    Raises:
        DecodeError: ``text`` is not valid JSON.
    """
    stack: list[tuple[Any, str | None]] = []  # (container, pending key of an object)
    pos = _skip(text, 0)
    result: Any = None
    have_result = False
    while True:
        # A value starts at ``pos``.
        if pos >= len(text):
            raise DecodeError(f"Expecting value: char {pos}")
        char = text[pos]
        value: Any
        opened = False
        if char == "{":
            pos = _skip(text, pos + 1)
            if text.startswith("}", pos):
                value, pos = {}, pos + 1
            else:
                first_key, pos = _key(text, pos)
                stack.append(({}, first_key))
                opened = True
        elif char == "[":
            pos = _skip(text, pos + 1)
            if text.startswith("]", pos):
                value, pos = [], pos + 1
            else:
                stack.append(([], None))
                opened = True
        elif char == '"':
            try:
                value, pos = scanstring(text, pos + 1, True)
            except ValueError as exc:
                raise DecodeError(str(exc)) from None
        elif (number := _NUMBER.match(text, pos)) is not None and number.end() > pos:
            value, pos = _number(number), number.end()
        else:
            for word, literal in _LITERALS.items():
                if text.startswith(word, pos):
                    value, pos = literal, pos + len(word)
                    break
            else:
                raise DecodeError(f"Expecting value: char {pos}")
        if opened:
            continue
        # Attach ``value`` to its container and close every container that ends here.
        while True:
            if not stack:
                result, have_result = value, True
                break
            container, key = stack[-1]
            if key is not None:
                container[key] = value
            else:
                container.append(value)
            pos = _skip(text, pos)
            closer = "}" if isinstance(container, dict) else "]"
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
                if key is not None:
                    next_key, pos = _key(text, pos)
                    stack[-1] = (container, next_key)
                break
            if text.startswith(closer, pos):
                stack.pop()
                value, pos = container, pos + 1
                continue
            raise DecodeError(f"Expecting ',' or '{closer}': char {pos}")
        if have_result:
            break
    pos = _skip(text, pos)
    if pos != len(text):
        raise DecodeError(f"Extra data: char {pos}")
    return result


def _key(text: str, pos: int) -> tuple[str, int]:
    """An object key and its colon; returns the key and where its value starts."""
    if not text.startswith('"', pos):
        raise DecodeError(f"Expecting property name enclosed in double quotes: char {pos}")
    try:
        key, pos = scanstring(text, pos + 1, True)
    except ValueError as exc:
        raise DecodeError(str(exc)) from None
    pos = _skip(text, pos)
    if not text.startswith(":", pos):
        raise DecodeError(f"Expecting ':' delimiter: char {pos}")
    return key, _skip(text, pos + 1)
