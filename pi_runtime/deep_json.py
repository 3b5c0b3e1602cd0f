"""JSON lines nested deeper than Python's recursion limit, read and written like any other.

Pi (V8) parses and writes lines nested thousands deep (a model that emits deeply nested tool
arguments puts them in the session file); Python's ``json`` stops at about a thousand levels
with ``RecursionError``. These helpers retry such a line in a worker thread with a large stack
and a raised recursion limit, which handles about 100,000 levels; deeper than that it is
reported as malformed (``ValueError``), never as a traceback.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_STACK_BYTES = 512 * 1024 * 1024
"""Reserved, not committed: only the pages a deep line touches are used."""
_RECURSION_LIMIT = 120_000
_lock = threading.Lock()


def _with_deep_stack(fn: Callable[..., T], *args: Any) -> T:
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            failure.append(exc)

    # The recursion limit is process-wide: raise it only while this one thread needs it.
    with _lock:
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        try:
            # The stack size applies to threads started while it is set.
            old_stack = threading.stack_size(_STACK_BYTES)
            try:
                worker = threading.Thread(target=run, name="pi-deep-json", daemon=True)
                worker.start()
            finally:
                threading.stack_size(old_stack)
            worker.join()
        finally:
            sys.setrecursionlimit(old_limit)
    if failure:
        if isinstance(failure[0], RecursionError):
            raise ValueError("nested too deeply to decode") from failure[0]
        raise failure[0]
    return result[0]


def loads(line: bytes | str, **hooks: Any) -> Any:
    """``json.loads`` that also takes lines nested past the recursion limit.

    Args:
        line: The JSON text.
        **hooks: ``json.loads``'s ``parse_int``, ``parse_float``... as they are.

    Raises:
        ValueError: Not JSON, or nested deeper than even the worker can follow.
    """
    try:
        return json.loads(line, **hooks)
    except RecursionError:
        return _with_deep_stack(lambda: json.loads(line, **hooks))


def dumps(data: Any, **kwargs: Any) -> str:
    """``json.dumps`` that also writes values nested past the recursion limit."""
    try:
        return json.dumps(data, **kwargs)
    except RecursionError:
        return _with_deep_stack(lambda: json.dumps(data, **kwargs))


def encode(data: Any) -> bytes:
    """Compact UTF-8 JSON bytes (non-ASCII kept), as ``dumps(..., separators=(",", ":"),
    ensure_ascii=False).encode()`` gives, at any depth.

    msgspec writes a 20,000-message request body several times faster than ``json``; what it
    refuses (nesting past its limit, a key that is not a string or number, an integer past 64
    bits, a lone surrogate) goes the ``json`` way, which accepts or rejects it as before.
    """
    import msgspec.json

    try:
        return msgspec.json.encode(data)
    except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError):
        return dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
