"""Whether a tab's session runs in this process or in a ``pi serve`` (``pi attach``).

A served session goes on when the app lets go of it: closing its tab or quitting detaches, so
neither needs the "it is still working" question, and its extensions run in the server (the tab
shows their dialogs, statuses and widgets through ``RemoteSession.ui``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from pi_runtime.frontend import RemoteSession


def is_served(session: Any) -> TypeGuard[RemoteSession]:
    """True for a ``RemoteSession``. Nothing is imported for this: when the module that defines
    it was never loaded, no session of this process can be one."""
    module = sys.modules.get("pi_runtime.remote.session")
    return module is not None and isinstance(session, module.RemoteSession)
