"""Where the built-in themes and keybindings live.

In a checkout (and an editable install) they are the top-level ``themes/`` and
``keybindings/`` folders; a regular install puts them under ``<prefix>/share/pi/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def data_dir(name: str) -> Path:
    """The folder of built-in ``name`` data (``themes`` or ``keybindings``)."""
    beside = _CHECKOUT / name
    if beside.is_dir():
        return beside
    return Path(sys.prefix) / "share" / "pi" / name
