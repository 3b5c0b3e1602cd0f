"""Helpers shared by the gate's verb rules: reading options, handing inner commands back.

A rule sees arguments after expansion: a ``str``, or None when the value is only known
at run time (an unknown argument is never taken for an option).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .gate_bash import Field, Invocation, Risky

if TYPE_CHECKING:
    from .gate_bash import BashChecker

Rule = Callable[["BashChecker", Invocation, list[Field]], None]
"""A verb rule: flags a risk, checks the paths it touches, or checks an inner command."""

RISKY_CODE = re.compile(
    r"\b(rmtree|remove_tree|rm_rf|rm_r|rmSync|rmdirSync|unlinkSync|unlink|rmdir|removedirs|remove|system|popen"
    r"|subprocess|child_process|execSync|spawnSync|execFile|spawn|exec[lv]?p?e?|eval|qx|__import__|importlib"
    r"|chmod|chown|rename|truncate|kill|shutil|FileUtils|writeFileSync|writeFile|write_text|write_bytes"
    r"|Remove-Item|Invoke-Expression|iex|Start-Process)\b|`")
"""Names in inline interpreter code that delete files, run programs or load code (or a backtick)."""


def split_options(
    args: Sequence[Field], with_value: str = "", long_with_value: Sequence[str] = (),
) -> tuple[list[str], dict[str, Field], list[Field]]:
    """Split arguments into flags (``-r``, ``--force``), option values and operands.

    Short clusters are opened (``-rf`` is ``-r -f``); ``with_value`` lists the short options
    that take a value, ``long_with_value`` the long ones (``--target-directory``).
    """
    flags: list[str] = []
    values: dict[str, Field] = {}
    operands: list[Field] = []
    items = list(args)
    index = 0
    while index < len(items):
        arg = items[index]
        index += 1
        if arg is None or not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        if arg == "--":
            operands.extend(items[index:])
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            flags.append(name)
            if eq:
                values[name] = value
            elif name in long_with_value and index < len(items):
                values[name] = items[index]
                index += 1
            continue
        for position, letter in enumerate(arg[1:], 1):
            flags.append("-" + letter)
            if letter in with_value:
                rest = arg[position + 1:]
                if rest:
                    values["-" + letter] = rest
                elif index < len(items):
                    values["-" + letter] = items[index]
                    index += 1
                break
    return flags, values, operands


def run_inner(checker: BashChecker, inv: Invocation, argv: list[Field]) -> None:
    """Check the command a wrapper runs (``nohup rm …``), in the same place and input."""
    checker.run(replace(inv, argv=argv))


def check_shell_code(checker: BashChecker, inv: Invocation, code: Field, what: str) -> None:
    """Check a string that will run as shell code (``bash -c``, ``eval``, a git alias)."""
    if code is None:
        checker.flag(f"runs shell code only known when it runs ({what})")
        return
    checker.script_text(code, inv.scope.copy(), inv.depth + 1)


def check_inline_code(checker: BashChecker, code: Field, what: str) -> None:
    """Interpreter code cannot be walked: look for calls that delete, run or load code."""
    if code is None:
        checker.flag(f"runs {what} code only known when it runs")
        return
    match = RISKY_CODE.search(code)
    if match is not None:
        checker.flag(f"runs inline {what} code that deletes files, runs programs or loads code ({match.group(0)})")
    if checker.needles is not None and (hit := checker.needles.search(code)) is not None:
        raise Risky(f"runs inline {what} code that names a protected path ({hit.group(0)})")


def check_named_paths(checker: BashChecker, inv: Invocation, args: Sequence[Field], program: str) -> None:
    """A program the gate has no rule for may write any path it is given: a protected one is risky.

    Each argument is taken as a path, and so is the value of ``--option=value``; a path is
    followed through links the command makes earlier (``ln -s .git/config c; vim c``).
    """
    for arg in args:
        if arg is None:
            continue
        value = arg.partition("=")[2] if arg.startswith("-") else arg
        if not value or value.startswith("-") or (inv.scope.cwds is None and not value.startswith("/")):
            continue
        for path in checker.candidates(value, inv.scope):
            hit = checker.protected(path)
            if hit is not None:
                raise Risky(f"gives a protected path to {program}, which may write it ({hit})")


def is_option(arg: Field) -> bool:
    """A known argument that starts with ``-`` (and is not ``-`` itself, which means stdin)."""
    return arg is not None and arg.startswith("-") and arg != "-"
