"""The gate's rule for shell script files: a script the agent just wrote is checked like its text.

``sh payload.sh``, ``bash < payload.sh``, ``source payload.sh`` and ``./payload.sh`` (a
shell shebang, or none) read the file's commands and walk them with the same rules as a
command line. Only files changed since the session began are read (by ``st_ctime``, which
a command cannot set back the way ``touch -d`` sets the modification time): that is every
file the agent could have written or downloaded (``curl -o x.sh …`` one call, ``bash x.sh``
the next); the project's own older scripts are trusted as before. A script written by an
earlier part of the same command, or that does not exist yet, cannot be read in time and
is risky.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from .gate_bash import Field, Invocation, Risky

if TYPE_CHECKING:
    from .gate_bash import BashChecker

MAX_SCRIPT_BYTES = 1 << 20
"""A larger script is not read: it is risky as a whole."""
SHELL_NAMES = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})


def run_script_file(checker: BashChecker, inv: Invocation, target: Field, runner: str) -> None:
    """Check the commands of the script file ``target`` that ``runner`` is about to run."""
    if target is None:
        checker.flag(f"runs a script whose name is only known when it runs ({runner})")
        return
    for path in checker.candidates(target, inv.scope):
        shown = os.path.relpath(path, checker.cwd) if path.startswith(checker.cwd.rstrip("/") + "/") else path
        if path in checker.written:
            checker.flag(f"runs a script that the same command writes, so the gate cannot read it ({shown})")
            continue
        text = fresh_text(checker, path, shown)
        if text is None:
            continue
        try:
            checker.script_text(text, inv.scope.copy(), inv.depth + 1)
        except Risky as risky:
            raise Risky(f"runs the script {shown}, which {risky}") from None


def is_shell_script(path: str) -> bool:
    """A file run directly (``./x.sh``) that a shell would read: a shell shebang or none at all."""
    try:
        with open(path, "rb") as file:
            head = file.read(256)
    except OSError:
        return False
    if not head.startswith(b"#!"):
        return b"\0" not in head  # no shebang: the shell runs text files itself; binaries are no script
    words = head[2:].split(b"\n", 1)[0].split()
    if not words:
        return True
    name = os.path.basename(words[0].decode(errors="replace"))
    if name == "env":
        rest = [w.decode(errors="replace") for w in words[1:] if not w.startswith(b"-")]
        name = os.path.basename(rest[0]) if rest else ""
    return name in SHELL_NAMES


def fresh_text(checker: BashChecker, path: str, shown: str, missing_ok: bool = False) -> str | None:
    """The file's text when it must be checked; None when it is old enough to trust (or missing and ``missing_ok``)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if not missing_ok:
            checker.flag(f"runs a script that does not exist yet, so the gate cannot read it ({shown})")
        return None
    except OSError as exc:
        checker.flag(f"runs a script the gate cannot read ({shown}: {exc.strerror})")
        return None
    if not stat.S_ISREG(info.st_mode):
        # /dev/stdin, a FIFO, /proc/self/fd/0: code arriving at run time.
        checker.flag(f"runs a script that is not a regular file, so the gate cannot read it ({shown})")
        return None
    if info.st_ctime < checker.fresh_since:
        return None
    if info.st_size > MAX_SCRIPT_BYTES:
        checker.flag(f"runs a script too large to check ({shown}, {info.st_size:,} bytes)")
        return None
    try:
        with open(path, "rb") as file:
            return file.read(MAX_SCRIPT_BYTES + 1).decode("utf-8", errors="replace")
    except OSError as exc:
        checker.flag(f"runs a script the gate cannot read ({shown}: {exc.strerror})")
        return None


def run_program_file(checker: BashChecker, inv: Invocation) -> None:
    """``./payload.sh``: a program named by its path, checked when it is a shell script."""
    target = inv.argv[0]
    if target is None:
        return
    for path in checker.candidates(target, inv.scope):
        if path in checker.written:
            checker.flag(f"runs a program that the same command writes, so the gate cannot read it ({target})")
        elif is_shell_script(path):
            run_script_file(checker, inv, path, target)
