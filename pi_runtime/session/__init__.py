"""Sessions as a durable tree of entries in Pi's JSONL format (version 3).

Public surface: ``SessionManager`` (factories, appends, tree moves, context rebuild),
``SessionContext``, ``SessionInfo`` (picker rows) and the errors from ``storage``.
``SessionInfo`` and ``TreeNode`` load with their modules on first use (a prompt lists no
sessions and draws no tree).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .context import SessionContext, build_session_context
from .manager import ReadOnlySessionError, SessionManager
from .storage import NotASessionFileError, SessionFileError, SessionLockedError

if TYPE_CHECKING:
    from .listing import SessionInfo as SessionInfo
    from .tree import TreeNode as TreeNode

_LATER = {"SessionInfo": "listing", "TreeNode": "tree"}

__all__ = [
    "NotASessionFileError",
    "ReadOnlySessionError",
    "SessionContext",
    "SessionFileError",
    "SessionInfo",
    "SessionLockedError",
    "SessionManager",
    "TreeNode",
    "build_session_context",
]


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
