"""The user's clipboard from inside the full-screen app: copying text, and reading an image
or text for Ctrl+V.

Copying: two routes, both tried: the system clipboard through ``pyperclip`` (works on a local
desktop), and the terminal's OSC 52 escape written through the app's driver (works over
SSH and inside tmux, where no clipboard tool can reach the user's machine). tmux only
forwards OSC 52 when ``set-clipboard`` is on; inside tmux the sequence is also wrapped in
tmux's passthrough so it reaches the outer terminal when ``allow-passthrough`` is set.

Reading: a terminal only ever pastes text, so an image has to come from the system
clipboard through a tool: ``wl-paste`` (Wayland), ``xclip`` (X11; ``xsel`` gives text
only), ``pngpaste`` or ``osascript`` (macOS). Each call has a short timeout; the app runs
``read_clipboard`` in a worker thread.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from .textual_internals import keep_app_clipboard, running_driver

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
    keep_app_clipboard(app, text)
    driver = running_driver(app)
    if driver is not None and len(text.encode("utf-8")) <= OSC52_LIMIT:
        try:
            driver.write(osc52_sequence(text, tmux=bool(os.environ.get("TMUX"))))
            routes.append("osc52")
        except Exception:  # noqa: BLE001 - a headless driver may not write
            pass
    return "+".join(routes)


# ---------------------------------------------------------------------- reading

READ_TIMEOUT = 3.0
"""Seconds one clipboard tool may take (a clipboard owner that hangs must not hang us)."""
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""Clipboard types we can send, in order of preference."""
NO_TOOL_HINT = "Cannot read the clipboard: install wl-clipboard (Wayland) or xclip (X11)"


@dataclass(frozen=True)
class ClipboardContent:
    """What the clipboard held; exactly one field is set."""

    image: bytes | None = None
    """Image bytes (one of ``IMAGE_TYPES``)."""
    text: str | None = None
    """Text, when there was no image."""
    problem: str = ""
    """One line for the user when nothing could be read."""


def _run(command: list[str]) -> tuple[bytes | None, str]:
    """(stdout, "") on success, (None, first line of the reason) otherwise."""
    try:
        proc = subprocess.run(command, capture_output=True, timeout=READ_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"{command[0]} did not answer within {READ_TIMEOUT:g} s"
    except OSError as exc:
        return None, f"{command[0]}: {exc.strerror or exc}"
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"{command[0]}: {reason[0] if reason else f'exit {proc.returncode}'}"
    return proc.stdout, ""


def _from_tool(list_types: list[str], read_type: list[str], read_text: list[str]) -> ClipboardContent:
    """An image when the tool lists one of ``IMAGE_TYPES``, else the clipboard's text."""
    listed, _ = _run(list_types)
    offered = set(listed.decode("utf-8", "replace").split()) if listed else set()
    for mime in IMAGE_TYPES:
        if mime in offered:
            data, _ = _run(read_type + [mime])
            if data:
                return ClipboardContent(image=data)
    data, problem = _run(read_text)
    if data is None:
        return ClipboardContent(problem=f"Cannot read the clipboard ({problem})")
    return ClipboardContent(text=data.decode("utf-8", "replace"))


def _read_macos() -> ClipboardContent:
    if shutil.which("pngpaste"):
        data, _ = _run(["pngpaste", "-"])
        if data:
            return ClipboardContent(image=data)
    # AppleScript prints PNG data as «data PNGf89504E47...»: hex between the class and the ».
    out, _ = _run(["osascript", "-e", "the clipboard as «class PNGf»"])
    if out:
        hex_digits = out.decode("utf-8", "replace").strip().removeprefix("«data PNGf").removesuffix("»")
        try:
            return ClipboardContent(image=bytes.fromhex(hex_digits))
        except ValueError:
            pass
    data, problem = _run(["pbpaste"])
    return ClipboardContent(text=data.decode("utf-8", "replace")) if data is not None else ClipboardContent(problem=problem)


def read_clipboard() -> ClipboardContent:
    """The clipboard's image (preferred) or text. Blocks for up to a few seconds: call it
    from a worker thread."""
    if sys.platform == "darwin":
        return _read_macos()
    wayland = bool(os.environ.get("WAYLAND_DISPLAY"))
    wl = ("wl-paste", (["wl-paste", "--list-types"], ["wl-paste", "--type"], ["wl-paste", "--no-newline"]))
    xclip = ("xclip", (["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
                       ["xclip", "-selection", "clipboard", "-o", "-t"],
                       ["xclip", "-selection", "clipboard", "-o"]))
    # Under Wayland, X11 tools only see XWayland's clipboard, which may lag behind.
    for tool, commands in ((wl, xclip) if wayland else (xclip, wl)):
        if shutil.which(tool):
            return _from_tool(*commands)
    if shutil.which("xsel"):
        data, problem = _run(["xsel", "--clipboard", "--output"])
        return ClipboardContent(text=data.decode("utf-8", "replace")) if data is not None else ClipboardContent(problem=problem)
    if sys.platform == "win32":
        try:
            import pyperclip

            return ClipboardContent(text=pyperclip.paste())
        except Exception:  # noqa: BLE001 - any failure means "no clipboard here"
            return ClipboardContent(problem="Cannot read the clipboard")
    return ClipboardContent(problem=NO_TOOL_HINT)
