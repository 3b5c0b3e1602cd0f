"""Ctrl+G (``app.editor.external``): the prompt edited in the user's own editor, as in Pi.

The command is Pi's: the ``externalEditor`` setting, else ``$VISUAL``, else ``$EDITOR``, else
``nano``. ``edit_in_editor`` never raises: the app runs it inside ``App.suspend()``, and Textual
only starts its driver again when that block ends normally. An editor that could not be started
(``nano`` missing on a minimal system) used to raise through it and leave pi frozen with its
input and output threads stopped; a Ctrl+G typed by accident, or a BEL byte in pasted text, did it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass


@dataclass(frozen=True)
class EditOutcome:
    """The edited text, or why the prompt stays as it was (Pi's words)."""

    text: str | None = None
    problem: str | None = None


def editor_command(configured: str | None) -> str:
    """The editor to run: the setting if it names one, then ``$VISUAL``, ``$EDITOR``, ``nano``."""
    if configured and configured.strip():
        return configured
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "nano"


def _ended(returncode: int) -> str:
    if returncode >= 0:
        return f"code {returncode}"
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def edit_in_editor(command: str, content: str) -> EditOutcome:
    """Run ``command`` on a temporary file holding ``content`` and read it back (never raises)."""
    folder = tempfile.mkdtemp(prefix="pi-editor-")
    path = os.path.join(folder, "prompt.md")
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content)
        try:
            returncode = subprocess.run([*shlex.split(command), path], check=False).returncode
        except (OSError, ValueError):  # not found, not executable, or unbalanced quotes
            return EditOutcome(problem=f"Failed to launch external editor: {command}")
        if returncode != 0:
            return EditOutcome(problem=f"External editor exited with {_ended(returncode)}; prompt unchanged")
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
        return EditOutcome(text=text[:-1] if text.endswith("\n") else text)  # the newline editors add
    except (OSError, UnicodeDecodeError) as exc:
        return EditOutcome(problem=f"External editor failed: {exc}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
