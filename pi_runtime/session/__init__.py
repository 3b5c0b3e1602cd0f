"""Sessions as a durable tree of entries in Pi's JSONL format (version 3).

Public surface: ``SessionManager`` (factories, appends, tree moves, context rebuild),
``SessionContext``, ``SessionInfo`` (picker rows) and the errors from ``storage``.
"""

from .context import SessionContext, build_session_context
from .listing import SessionInfo
from .manager import ReadOnlySessionError, SessionManager
from .storage import NotASessionFileError, SessionFileError, SessionLockedError
from .tree import TreeNode

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
