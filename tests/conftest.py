"""Set-up shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path


def _reference_node_first() -> None:
    """Put the Node that runs the reference Pi first on PATH, for every test and its subprocesses.

    Pi 1.6 needs Node >= 22.19. ``.ci/run`` installs npm's ``node`` package beside Pi
    (``node_modules/node/bin``); a developer who only sets ``PI_REFERENCE`` gets the same Node
    here instead of whatever ``node`` the machine has. ``PI_NODE_BIN`` names another folder.
    """
    reference = os.environ.get("PI_REFERENCE")
    named = os.environ.get("PI_NODE_BIN")
    node = Path(named) if named else (Path(reference).parent.parent / "node" / "bin" if reference else None)
    if node is not None and node.is_dir() and str(node) not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = f"{node}{os.pathsep}{os.environ.get('PATH', '')}"


_reference_node_first()
