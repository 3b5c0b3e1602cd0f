"""Front matter of Markdown resources (skills, prompt templates): a small YAML subset.

A file may start with a block between two ``---`` lines. We read the part of YAML such files
use in practice — ``key: value`` pairs, quoted strings, booleans, numbers, null, block scalars
(``|`` and ``>``), plain values wrapped over several lines, lists (``- item`` and ``[a, b]``) and
nested mappings — without depending on a YAML library. Anything else is a
:class:`FrontmatterError` naming the line, so a broken file is reported rather than misread.
"""

from __future__ import annotations

import json
import re
from typing import Any

_KEY_RE = re.compile(r"^([^\s:#'\"\[\]{}][^:]*?)\s*:(?:\s+(.*)|)$")
_INT_RE = re.compile(r"^[-+]?\d+$")
_FLOAT_RE = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")


class FrontmatterError(ValueError):
    """The front matter block is not the YAML subset we read."""


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Separate the front matter block from the body.

    Returns:
        ``(block, body)``; ``block`` is None when the text has no (closed) front matter, in
        which case ``body`` is the whole text.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---"):
        return None, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None, text
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    return None, text


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """Parse a Markdown file's front matter.

    Args:
        text: Whole file content.

    Returns:
        ``(fields, body)``; ``fields`` is empty when there is no front matter. ``body`` is the
        text after the closing ``---``.

    Raises:
        FrontmatterError: The block is malformed.
    """
    block, body = split_frontmatter(text)
    if block is None:
        return {}, body
    lines = [(n + 2, raw) for n, raw in enumerate(block.split("\n"))]
    value, rest = _parse_block(lines, 0)
    if rest:
        raise FrontmatterError(f"line {rest[0][0]}: unexpected indentation")
    if value is None:
        return {}, body
    if not isinstance(value, dict):
        raise FrontmatterError("front matter must be a mapping of keys to values")
    return value, body


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _significant(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    while lines and (not lines[0][1].strip() or lines[0][1].lstrip().startswith("#")):
        lines = lines[1:]
    return lines


def _parse_block(lines: list[tuple[int, str]], min_indent: int) -> tuple[Any, list[tuple[int, str]]]:
    """Parse a mapping or list whose lines are indented at least ``min_indent``."""
    lines = _significant(lines)
    if not lines or _indent(lines[0][1]) < min_indent:
        return None, lines
    first = lines[0][1]
    if "\t" in first[: _indent(first) + 1]:
        raise FrontmatterError(f"line {lines[0][0]}: tabs are not allowed for indentation")
    if first.strip().startswith("- ") or first.strip() == "-":
        return _parse_list(lines, _indent(first))
    return _parse_mapping(lines, _indent(first))


def _parse_mapping(lines: list[tuple[int, str]], indent: int) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    result: dict[str, Any] = {}
    while True:
        lines = _significant(lines)
        if not lines or _indent(lines[0][1]) < indent:
            return result, lines
        number, raw = lines[0]
        if _indent(raw) > indent:
            raise FrontmatterError(f"line {number}: unexpected indentation")
        match = _KEY_RE.match(raw.strip())
        if not match:
            raise FrontmatterError(f"line {number}: expected 'key: value'")
        key, rest_text = match.group(1).strip(), (match.group(2) or "").strip()
        if key in result:
            raise FrontmatterError(f"line {number}: duplicate key {key!r}")
        lines = lines[1:]
        result[key], lines = _parse_value(rest_text, number, lines, indent)


def _parse_list(lines: list[tuple[int, str]], indent: int) -> tuple[list[Any], list[tuple[int, str]]]:
    result: list[Any] = []
    while True:
        lines = _significant(lines)
        if not lines or _indent(lines[0][1]) < indent:
            return result, lines
        number, raw = lines[0]
        stripped = raw.strip()
        if _indent(raw) > indent:
            raise FrontmatterError(f"line {number}: unexpected indentation")
        if not (stripped.startswith("- ") or stripped == "-"):
            # The list ends; the caller decides whether what follows fits.
            return result, lines
        lines = lines[1:]
        item_text = stripped[1:].strip()
        if _KEY_RE.match(item_text) and not item_text.startswith(("'", '"')):
            # "- key: value" starts a mapping inside the list; re-read it at the item's indent.
            inner = indent + 2
            value, lines = _parse_mapping([(number, " " * inner + item_text), *lines], inner)
        else:
            value, lines = _parse_value(item_text, number, lines, indent)
        result.append(value)


def _parse_value(
    text: str, number: int, lines: list[tuple[int, str]], indent: int
) -> tuple[Any, list[tuple[int, str]]]:
    """The value after ``key:`` (or ``-``), possibly continued on the following lines."""
    if text.startswith(("|", ">")) and re.fullmatch(r"[|>][-+]?", text):
        return _block_scalar(text, lines, indent)
    if not text or text.startswith("#"):
        nested, rest = _parse_block(lines, indent + 1)
        if nested is None and rest and _indent(rest[0][1]) == indent and rest[0][1].strip().startswith("- "):
            # A list may sit at the same indentation as its key.
            return _parse_list(rest, indent)
        return nested, rest
    if text[0] in "'\"[{":
        return _scalar(text, number), lines
    # A plain value may wrap onto more-indented lines; YAML joins them with spaces.
    parts = [text]
    while lines and lines[0][1].strip() and _indent(lines[0][1]) > indent:
        parts.append(lines[0][1].strip())
        lines = lines[1:]
    return _scalar(" ".join(parts), number), lines


def _block_scalar(header: str, lines: list[tuple[int, str]], indent: int) -> tuple[str, list[tuple[int, str]]]:
    collected: list[str] = []
    block_indent: int | None = None
    while lines:
        raw = lines[0][1]
        if raw.strip():
            if _indent(raw) <= indent:
                break
            block_indent = _indent(raw) if block_indent is None else block_indent
            collected.append(raw[min(block_indent, _indent(raw)) :])
        else:
            collected.append("")
        lines = lines[1:]
    while collected and not collected[-1]:
        collected.pop()
    if header[0] == "|":
        text = "\n".join(collected)
    else:
        # Folded: lines of a paragraph join with spaces; each blank line becomes a newline.
        text = ""
        for index, line in enumerate(collected):
            if not line:
                text += "\n"
            elif index and collected[index - 1]:
                text += " " + line
            else:
                text += line
    if header.endswith("-"):
        return text, lines
    return text + "\n", lines


def _strip_comment(text: str) -> str:
    match = re.search(r"\s#", text)
    return text[: match.start()].rstrip() if match else text


def _scalar(text: str, number: int) -> Any:
    text = text.strip()
    if text.startswith('"'):
        end = _closing_double_quote(text)
        if end < 0:
            raise FrontmatterError(f"line {number}: unterminated double-quoted string")
        _check_trailing(text[end + 1 :], number)
        try:
            return json.loads(text[: end + 1])
        except json.JSONDecodeError as exc:
            raise FrontmatterError(f"line {number}: bad escape in string ({exc.msg})") from exc
    if text.startswith("'"):
        match = re.match(r"'((?:[^']|'')*)'", text)
        if not match:
            raise FrontmatterError(f"line {number}: unterminated single-quoted string")
        _check_trailing(text[match.end() :], number)
        return match.group(1).replace("''", "'")
    if text.startswith("["):
        body = _strip_comment(text)
        if not body.endswith("]"):
            raise FrontmatterError(f"line {number}: unterminated [list]")
        return [_scalar(item, number) for item in _split_flow(body[1:-1], number)]
    if text.startswith("{"):
        body = _strip_comment(text)
        if not body.endswith("}"):
            raise FrontmatterError(f"line {number}: unterminated {{mapping}}")
        out: dict[str, Any] = {}
        for item in _split_flow(body[1:-1], number):
            key, sep, value = item.partition(":")
            if not sep:
                raise FrontmatterError(f"line {number}: expected 'key: value' inside {{}}")
            out[key.strip().strip("'\"")] = _scalar(value, number)
        return out
    text = _strip_comment(text)
    # YAML 1.2 core schema, like Pi's parser: "yes"/"no" stay strings.
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if text in ("null", "Null", "NULL", "~", ""):
        return None
    if _INT_RE.match(text):
        return int(text)
    if _FLOAT_RE.match(text):
        return float(text)
    return text


def _closing_double_quote(text: str) -> int:
    index = 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return index
        index += 1
    return -1


def _check_trailing(rest: str, number: int) -> None:
    if rest.strip() and not rest.strip().startswith("#"):
        raise FrontmatterError(f"line {number}: unexpected text after a quoted string")


def _split_flow(body: str, number: int) -> list[str]:
    items: list[str] = []
    current = ""
    quote: str | None = None
    depth = 0
    for char in body:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        current += char
    if quote:
        raise FrontmatterError(f"line {number}: unterminated string in a flow collection")
    items.append(current)
    return [item.strip() for item in items if item.strip()]
