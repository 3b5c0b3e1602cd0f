"""Teach Textual's input parser the Alt+key sequences Pi relies on.

Legacy terminals (and tmux) send Alt+Enter as ``ESC CR`` and Alt+Up as ``CSI 1;3A``;
Textual 8 turns the first into plain ``enter`` and the second into ``escape`` + ``up``,
which would send instead of queueing a follow-up and abort instead of dequeueing. Adding
the sequences to Textual's table makes them arrive as ``alt+enter`` / ``alt+up``.
Terminals speaking the kitty keyboard protocol are unaffected.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class _Key:
    value: str
    """Textual reads ``.value`` from the table's entries (normally ``Keys`` members)."""


_SEQUENCES = {
    "\x1b\r": "alt+enter",
    "\x1b[1;3A": "alt+up",
    "\x1b[1;3B": "alt+down",
    "\x1b[1;3C": "alt+right",
    "\x1b[1;3D": "alt+left",
}


def install() -> None:
    """Idempotent; called when the app module is imported."""
    from textual import _ansi_sequences

    for sequence, key in _SEQUENCES.items():
        # A private table, typed read-only; Textual looks keys up in it at run time.
        _ansi_sequences.ANSI_SEQUENCES_KEYS[sequence] = (_Key(key),)  # type: ignore[index]
