"""The gate's rules for archivers and syncers, which can delete what they are given.

``tar --remove-files``, ``zip -m``, ``7z -sdel`` and ``rsync --remove-source-files`` delete
their inputs once archived or copied, and ``rsync --delete`` deletes what the source lacks:
each is a delete of its operands, judged like ``rm``: a folder (or a name only known when it
runs) is a recursive delete, which is risky; a plain file is a delete checked as a path.
``tar`` also runs programs (``--to-command``…) and writes where ``-C`` points.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .gate_args import Rule, split_options
from .gate_bash import Field, Invocation

if TYPE_CHECKING:
    from .gate_bash import BashChecker

_TAR_RUNS = ("--to-command", "--use-compress-program", "--checkpoint-action", "--rsh-command", "--info-script",
             "--new-volume-script")
_TAR_SHORT_VALUES = "fCTXbHKNLVgI"
"""tar's short options that take a value (``-f v.tar``, ``-C dir``…)."""
_TAR_LONG_VALUES = ("--file", "--directory", "--files-from", "--exclude-from", "--blocking-factor", "--format",
                    "--starting-file", "--newer", "--tape-length", "--label", "--listed-incremental",
                    "--use-compress-program", "--exclude", "--transform", "--owner", "--group", "--mode", "--mtime")


def deletes_inputs(checker: BashChecker, inv: Invocation, operands: list[tuple[str | None, Field]], how: str,
                   recursive: bool = True) -> None:
    """The program deletes ``operands`` (each with the folder it is relative to; None: the shell's).

    Args:
        how: The program and option, for the reason shown (``tar --remove-files``).
        recursive: A folder operand is deleted with everything in it.
    """
    for base, operand in operands:
        if operand is None:
            checker.flag(f"deletes files whose names are only known when it runs ({how})")
            continue
        target = os.path.join(base, operand) if base is not None else operand
        checker.touches(target, inv.scope, "deletes")
        for path in checker.candidates(target, inv.scope):
            if recursive and os.path.isdir(path):
                checker.flag(f"recursive delete of {os.path.relpath(path, checker.cwd)} ({how})")


def _tar(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    if args and args[0] is not None and not args[0].startswith("-"):
        args = ["-" + args[0], *args[1:]]  # old style: `tar cf v.tar dir` is `tar -cf v.tar dir`
    base: str | None = None
    operands: list[tuple[str | None, Field]] = []
    remove = recurse = False
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg is None:
            operands.append((base, None))
            continue
        if arg.startswith(_TAR_RUNS) or arg == "-I":
            checker.flag(f"runs commands from tar ({arg.split('=')[0]})")
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if not eq and name in _TAR_LONG_VALUES and index < len(args):
                if args[index] is None:
                    checker.flag(f"runs tar with a value only known when it runs ({name})")
                value, index = args[index] or "", index + 1
            if name == "--files-from":
                operands.append((base, None))  # names read from a file: not known here
            if name == "--directory":
                checker.touches(value, inv.scope)
                base = os.path.join(base, value) if base else value
            remove |= name == "--remove-files"
            recurse |= name == "--recursion"
            continue
        if not arg.startswith("-") or arg == "-":
            operands.append((base, arg))
            continue
        for position, letter in enumerate(arg[1:], 1):
            if letter not in _TAR_SHORT_VALUES:
                continue
            attached: Field = arg[position + 1:] or (args[index] if index < len(args) else "")
            if not arg[position + 1:]:
                index += 1
            if letter == "T":
                operands.append((base, None))
            if letter == "C":
                checker.touches(attached, inv.scope)
                base = None if attached is None else os.path.join(base, attached) if base else attached
            break
    if remove:
        no_recursion = "--no-recursion" in args and not recurse
        deletes_inputs(checker, inv, operands, "tar --remove-files", recursive=not no_recursion)


def _zip(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags, _, operands = split_options(args, "bnxitO", ("--temp-path", "--suffixes", "--exclude", "--include"))
    if not {"-m", "--move"} & set(flags):
        return
    recursive = bool({"-r", "-R", "--recurse-paths", "--recurse-patterns"} & set(flags))
    deletes_inputs(checker, inv, [(None, o) for o in operands[1:]], "zip -m", recursive)


def _seven_zip(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    if "-sdel" in args:
        operands = [a for a in args[1:] if a is None or not a.startswith("-")]
        deletes_inputs(checker, inv, [(None, o) for o in operands[1:]], "7z -sdel")


def _rsync(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags, _, operands = split_options(args, "eTf", ("--rsh", "--exclude", "--include", "--filter", "--temp-dir"))
    if len(operands) > 1:
        checker.touches(operands[-1], inv.scope)
    if "--remove-source-files" in flags:
        deletes_inputs(checker, inv, [(None, o) for o in operands[:-1]], "rsync --remove-source-files")
    if any(f.startswith("--delete") for f in flags) and operands:
        deletes_inputs(checker, inv, [(None, operands[-1])], "rsync --delete")


RULES: dict[str, Rule] = {"tar": _tar, "gtar": _tar, "bsdtar": _tar, "zip": _zip, "7z": _seven_zip,
                          "7za": _seven_zip, "7zr": _seven_zip, "rsync": _rsync}
