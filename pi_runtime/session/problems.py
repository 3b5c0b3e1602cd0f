"""Saying which stored messages were left out of the context, where they are and what is wrong."""

from __future__ import annotations

from typing import Any

from ..ai.types import parse_message
from .storage import LoadResult, count_entry_lines

Entry = dict[str, Any]


def left_out_notice(source: str, entry_ids: list[str], by_id: dict[str, Entry], entries: list[Entry],
                    loaded: LoadResult | None) -> str:
    """``<file>: 2 malformed message(s) left out of the context: line 7 (entry ab12): Expected
    `str`, got `int` - at `$.message.content`; …`` (the first three named).

    Args:
        source: The session file.
        entry_ids: Ids of the message entries left out.
        by_id: Every entry dict by id.
        entries: Every entry dict in file order.
        loaded: What was read from the file, when ``entries`` are still those lines (their
            line numbers are known); None for a copied or new session.
    """
    if loaded is not None and loaded.lines_end is not None:
        try:
            with open(source, "rb") as file:  # the lines read at load, unchanged by appends
                count_entry_lines(loaded, file.read(loaded.lines_end))
        except OSError:
            loaded = None  # no line numbers then, rather than wrong ones
    named = "; ".join(_why(entry_id, by_id[entry_id], entries, loaded) for entry_id in entry_ids[:3])
    more = "; …" if len(entry_ids) > 3 else ""
    return f"{source}: {len(entry_ids)} malformed message(s) left out of the context: {named}{more}"


def _why(entry_id: str, entry: Entry, entries: list[Entry], loaded: LoadResult | None) -> str:
    try:
        parse_message(entry.get("message"))
        why = "not the shape of a message pi reads"
    except ValueError as exc:  # msgspec's ValidationError: the field, relative to the message
        why = str(exc).replace("`$.", "`$.message.").replace("`$`", "`$.message`")
    line = _line_of(entry, entries, loaded)
    return f"{f'line {line} ' if line else ''}(entry {entry_id}): {why}"


def _line_of(entry: Entry, entries: list[Entry], loaded: LoadResult | None) -> int | None:
    if loaded is None:
        return None
    index = next((i for i, e in enumerate(entries) if e is entry), None)
    if index is None:
        return None
    if loaded.entry_lines is None:
        return index + 2  # the header is line 1
    return loaded.entry_lines[index] if index < len(loaded.entry_lines) else None
