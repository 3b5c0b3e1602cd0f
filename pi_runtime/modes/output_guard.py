"""Headless modes own stdout: what an extension prints goes to stderr (Pi's ``takeOverStdout``).

In print, JSON and RPC mode stdout carries pi's answer or its protocol, so a stray ``print()``
in an extension (Pi's model-status example logs with ``console.log``, its notify example writes
terminal escapes) would corrupt a JSON line or the printed answer. Pi sends every write to
``process.stdout`` to stderr there and writes its own output to the real stdout; here
``sys.stdout`` becomes ``sys.stderr`` and pi writes through :func:`real_stdout`. The JSONL
writer writes to file descriptor 1 directly, so it needs nothing.
"""

from __future__ import annotations

import sys
from typing import TextIO

_real: TextIO | None = None


def take_over_stdout() -> None:
    """From now on ``sys.stdout`` is stderr; pi's own output goes through :func:`real_stdout`."""
    global _real
    if _real is not None:
        return
    _real = sys.stdout
    try:
        _real.flush()
    except (OSError, ValueError):
        pass
    sys.stdout = sys.stderr


def restore_stdout() -> None:
    global _real
    if _real is None:
        return
    sys.stdout = _real
    _real = None


def real_stdout() -> TextIO:
    """Where pi's own answer goes: the process's stdout even while it is taken over."""
    return _real if _real is not None else sys.stdout
