"""A codemode script's source: JavaScript, optionally after one ``// @options: {...}`` line.

Pi's rules and messages: empty input, invalid JSON, unknown fields, an options line without code,
and an options line anywhere but the first line fail the call before the script runs. The options
line becomes an empty line, so line numbers in stack traces match what the model wrote.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

OPTIONS_PREFIX = "// @options:"
_FIELDS = ("max_output_tokens", "timeout_ms")
_FIELDS_TEXT = "`max_output_tokens` and `timeout_ms`"
MAX_TIMEOUT_MS = 2_147_483_647
MAX_SAFE_INTEGER = 2**53 - 1


class CodemodeSourceError(ValueError):
    """The source or its options line is malformed (the message is the model's to read)."""


@dataclass(frozen=True)
class CodemodeSource:
    """The script and its options."""

    code: str
    max_output_tokens: int | None = None
    timeout_ms: int | None = None


def _non_negative_integer(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) and value == int(value) and 0 <= value <= MAX_SAFE_INTEGER


def _options(text: str) -> dict[str, int]:
    if text == "":
        raise CodemodeSourceError(f"@options must be a JSON object with supported fields {_FIELDS_TEXT}")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CodemodeSourceError(f"@options must be valid JSON with supported fields {_FIELDS_TEXT}: {exc}") from None
    if not isinstance(value, dict):
        raise CodemodeSourceError(f"@options must be a JSON object with supported fields {_FIELDS_TEXT}")
    for key in value:
        if key not in _FIELDS:
            raise CodemodeSourceError(f"@options only supports {_FIELDS_TEXT}; got `{key}`")
    options: dict[str, int] = {}
    tokens, timeout = value.get("max_output_tokens"), value.get("timeout_ms")
    if tokens is not None:
        if not _non_negative_integer(tokens):
            raise CodemodeSourceError("@options field `max_output_tokens` must be a non-negative safe integer")
        options["max_output_tokens"] = int(tokens)
    if timeout is not None:
        if not _non_negative_integer(timeout) or timeout == 0 or timeout > MAX_TIMEOUT_MS:
            raise CodemodeSourceError(f"@options field `timeout_ms` must be a positive integer up to {MAX_TIMEOUT_MS}")
        options["timeout_ms"] = int(timeout)
    return options


def parse_source(text: str) -> CodemodeSource:
    """Split the options line from the script.

    Raises:
        CodemodeSourceError: The input breaks one of the rules in the module docstring.
    """
    if text.strip() == "":
        raise CodemodeSourceError(
            "Expected JavaScript source text (non-empty). Provide JS only, optionally with a first line "
            '`// @options: {"max_output_tokens": 1000}`.'
        )
    lines = text.split("\n")
    for number, line in enumerate(lines[1:], start=2):
        if line.lstrip().startswith(OPTIONS_PREFIX):
            raise CodemodeSourceError(
                f"The {OPTIONS_PREFIX} line must be the first line of the input; found one on line {number}")
    first = lines[0].removesuffix("\r").lstrip()
    if not first.startswith(OPTIONS_PREFIX):
        return CodemodeSource(text)
    newline = text.find("\n")
    code = "" if newline == -1 else text[newline:]
    if code.strip() == "":
        raise CodemodeSourceError("The @options line must be followed by JavaScript source on subsequent lines")
    return CodemodeSource(code, **_options(first[len(OPTIONS_PREFIX):].strip()))
