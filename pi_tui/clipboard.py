"""Copy text to the user's clipboard from inside the full-screen app.

Two routes, both tried: the system clipboard through ``pyperclip`` (works on a local
desktop), and the terminal's OSC 52 escape written through the app's driver (works over
SSH and inside tmux, where no clipboard tool can reach the user's machine). tmux only
forwards OSC 52 when ``set-clipboard`` is on; inside tmux the sequence is also wrapped in
tmux's passthrough so it reaches the outer terminal when ``allow-passthrough`` is set.
"""

from __future__ import annotations

import base64
import os
from typing import Any

OSC52_LIMIT = 100_000
"""Largest payload (bytes of text) sent by OSC 52; many terminals drop longer ones."""


def osc52_sequence(text: str, *, tmux: bool = False) -> str:
    """The escape that asks the terminal to put ``text`` on the clipboard.

    Args:
        text: What to copy.
        tmux: Wrap it in tmux's DCS passthrough as well.

    Returns:
        The escape sequence (plain, or plain followed by the wrapped form).
    """
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    plain = f"\x1b]52;c;{payload}\x07"
    if not tmux:
        return plain
    # Inside tmux: the plain form is handled by tmux itself (set-clipboard), the wrapped
    # form is passed through to the outer terminal (allow-passthrough).
    return plain + "\x1bPtmux;" + plain.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def _system_copy(text: str) -> bool:
    # No display and no macOS: pyperclip would only fail (and may print); skip it.
    if os.environ.get("SSH_CONNECTION") and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return False
    try:
        import pyperclip

        pyperclip.copy(text)
        return True
    except Exception:  # noqa: BLE001 - any failure means "no system clipboard here"
        return False


def copy_text(app: Any, text: str) -> str:
    """Copy ``text``; returns how (``"system"``, ``"osc52"``, ``"system+osc52"``) or ``""``.

    Args:
        app: The running Textual app (its driver writes the escape; ``app._clipboard`` is
            kept so Textual's own paste-from-app works).
        text: What to copy (source text: no wrapping, no padding).
    """
    routes = []
    if _system_copy(text):
        routes.append("system")
    app._clipboard = text
    driver = getattr(app, "_driver", None)
    if driver is not None and len(text.encode("utf-8")) <= OSC52_LIMIT:
        try:
            driver.write(osc52_sequence(text, tmux=bool(os.environ.get("TMUX"))))
            routes.append("osc52")
        except Exception:  # noqa: BLE001 - a headless driver may not write
            pass
    return "+".join(routes)
