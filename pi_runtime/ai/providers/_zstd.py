"""Zstandard for request bodies (the Codex endpoint takes ``content-encoding: zstd``, as Pi sends).

Python 3.14 has ``compression.zstd``; before it, the ``backports.zstd`` package is the same module.
Imported on first use only: a run that never talks to Codex never loads it.
"""

from __future__ import annotations

from types import ModuleType


def _module() -> ModuleType:
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from backports import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]
    return zstd


def compress(data: bytes, level: int = 3) -> bytes:
    """One zstd frame holding ``data`` (Pi compresses at level 3)."""
    return bytes(_module().compress(data, level=level))


def decompress(data: bytes) -> bytes:
    """The bytes of every zstd frame in ``data``."""
    return bytes(_module().decompress(data))
