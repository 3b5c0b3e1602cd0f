"""The gate's rules for commands that run other code: wrappers, shells and interpreters.

``nohup``, ``timeout 5``, ``env X=1``, ``xargs``, ``find -exec`` (in ``gate_commands``) and
friends hand their inner command back to the checker; ``bash -c``, ``eval``, ``trap``,
``watch`` and a here-document fed to a shell have their code parsed and checked like the
command itself. A shell or interpreter reading its code from a pipe (``curl … | sh``) is
risky, since the gate cannot see what arrives. Inline interpreter code is searched for
calls that delete, run programs or load code (``python -c``, ``node -e``, awk ``system``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .gate_args import Rule, check_inline_code, check_named_paths, check_shell_code, is_option, run_inner, split_options
from .gate_bash import Field, Invocation, Risky
from .gate_scripts import run_script_file

if TYPE_CHECKING:
    from .gate_bash import BashChecker

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"})
_INTERPRETER = re.compile(r"(python|pypy)[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|bun|deno|php[0-9.]*|lua[0-9.]*"
                          r"|Rscript|osascript|tclsh|wish|pwsh|powershell")
_CODE_FLAGS = {"python": "c", "pypy": "c", "perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep", "bun": "e",
               "php": "r", "lua": "e", "Rscript": "e", "osascript": "e", "pwsh": "cC", "powershell": "cC"}


def _wrapper(with_value: str = "", long_with_value: Sequence[str] = (), positional: int = 0) -> Rule:
    """A command that runs the rest of its arguments as a command (``nohup``, ``nice -n 5``, ``timeout 5``)."""

    def rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
        index = 0
        while index < len(args) and is_option(args[index]):
            arg = args[index] or ""
            index += 1
            if arg == "--":
                break
            if arg.startswith("--"):
                if "=" not in arg and arg in long_with_value:
                    index += 1
            elif arg[-1] in with_value:
                index += 1
        index += positional
        if index < len(args):
            run_inner(checker, inv, list(args[index:]))

    return rule


def _env(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg is None:
            checker.flag("runs env with an argument only known when it runs")
            return
        if arg in ("-u", "--unset", "-C", "--chdir"):
            index += 2
        elif arg in ("-S", "--split-string") or arg.startswith("-S"):
            code = arg[2:] if arg.startswith("-S") and len(arg) > 2 else (args[index + 1] if index + 1 < len(args) else "")
            rest = args[index + (1 if len(arg) > 2 else 2):]
            known = [a for a in rest if a is not None]
            joined = None if code is None or len(known) < len(rest) else " ".join([code, *known])
            check_shell_code(checker, inv, joined, "env -S")
            return
        elif arg.startswith("-") or "=" in arg:
            index += 1
        else:
            run_inner(checker, inv, list(args[index:]))
            return


def _command_builtin(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags = split_options(args[:1])[0] if args and args[0] and args[0].startswith("-") else []
    if {"-v", "-V"} & set(flags):
        return  # only looks the name up
    run_inner(checker, inv, list(args[1:] if flags else args))


def _xargs(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    index = 0
    replace_str: str | None = None
    while index < len(args) and is_option(args[index]):
        arg = args[index] or ""
        index += 1
        if arg == "--":
            break
        if arg in ("-I", "-a", "-d", "-E", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args",
                   "--max-procs", "--max-chars", "--replace", "--max-lines", "--eof"):
            if arg in ("-I", "--replace"):
                replace_str = args[index]
            index += 1
        elif arg.startswith(("-I", "-i")) and len(arg) > 2:
            replace_str = arg[2:]
        elif arg == "-i" or arg == "--replace":
            replace_str = "{}"
    inner = list(args[index:]) or ["echo"]
    if replace_str:
        inner = [None if a is not None and replace_str in a else a for a in inner]
    else:
        inner.append(None)  # the items read from stdin
    run_inner(checker, inv, inner)


def _eval(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    check_shell_code(checker, inv, None if None in args else " ".join(a for a in args if a is not None), "eval")


def _trap(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    if args and args[0] not in ("-p", "-l", "-", None) and len(args) > 1:
        check_shell_code(checker, inv, args[0], "trap")
    elif args and args[0] is None:
        checker.flag("sets a trap whose code is only known when it runs")


def _watch(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    index, exec_mode = 0, False
    while index < len(args) and is_option(args[index]):
        arg = args[index] or ""
        index += 1
        exec_mode |= arg in ("-x", "--exec")
        if arg in ("-n", "-q", "--interval", "--equexit"):
            index += 1
    command = args[index:]
    if exec_mode:
        run_inner(checker, inv, list(command))
    elif command:
        check_shell_code(checker, inv, None if None in command else " ".join(c for c in command if c is not None), "watch")


def _flock(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    _, values, operands = split_options(args, "wEc", ("--timeout", "--conflict-exit-code", "--command"))
    if "-c" in values or "--command" in values:
        check_shell_code(checker, inv, values.get("-c", values.get("--command")), "flock -c")
    elif len(operands) > 1:
        run_inner(checker, inv, operands[1:])


def run_shell(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    name = os.path.basename(inv.argv[0] or "")
    index, command_mode, stdin_mode = 0, False, False
    while index < len(args):
        arg = args[index]
        if arg is None:
            checker.flag(f"runs {name} with an option only known when it runs")
            return
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if arg == "--":
            index += 1
            break
        if not arg.startswith(("-", "+")) or arg in ("-", "+"):
            break
        if not arg.startswith("--"):
            command_mode |= "c" in arg
            stdin_mode |= "s" in arg
        index += 1
    operands = args[index:]
    if command_mode:
        if name in ("fish", "csh", "tcsh"):
            checker.flag(f"runs {name} code, which the gate cannot check")
            return
        check_shell_code(checker, inv, operands[0] if operands else "", f"{name} -c")
    elif operands and not stdin_mode and operands[0] != "-":
        run_script_file(checker, inv, operands[0], name)
    elif inv.stdin_text is not False:
        check_shell_code(checker, inv, inv.stdin_text if isinstance(inv.stdin_text, str) else None, f"{name} <<")
    elif inv.stdin_file is not False:
        run_script_file(checker, inv, inv.stdin_file if isinstance(inv.stdin_file, str) else None, f"{name} <")
    elif inv.stdin_piped:
        checker.flag(f"pipes commands into a shell ({name}), so the gate cannot see them (e.g. curl | sh)")


def run_interpreter(checker: BashChecker, inv: Invocation, args: list[Field], language: str) -> None:
    if language in _SWITCH_VALUES:
        _perl_or_ruby(checker, inv, args, language)
        return
    letters = _CODE_FLAGS.get(language, "e")
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg is None:
            checker.flag(f"runs {language} with an argument only known when it runs")
            return
        if arg in ("--eval", "--print", "-Command", "-command"):
            check_inline_code(checker, args[index] if index < len(args) else "", language)
            return
        if language == "deno" and arg == "eval":
            check_inline_code(checker, args[index] if index < len(args) else "", language)
            return
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            if arg[-1] in letters:
                check_inline_code(checker, args[index] if index < len(args) else "", language)
                return
            if arg in ("-m", "-I", "-r", "-W", "-X", "-M"):
                if arg == "-m":
                    check_named_paths(checker, inv, args[index + 1:], f"{language} -m")
                    return  # a module: not inline code
                index += 1
            continue
        if arg == "-":
            break
        check_named_paths(checker, inv, args[index:], f"a {language} script")
        return  # a script file: not inline code
    _code_from_input(checker, inv, language)


_SWITCH_VALUES = {"perl": ("0CdDFIlmMx", "I"), "ruby": ("0CEFIKWrx", "CEIr")}
"""Switches whose value is the rest of their cluster, and those that may take the next argument instead."""


def _perl_or_ruby(checker: BashChecker, inv: Invocation, args: list[Field], language: str) -> None:
    """``perl``/``ruby``: ``-e`` code is searched, and ``-i`` edits in place every file after the code."""
    rest_letters, next_letters = _SWITCH_VALUES[language]
    code_letters = "eE" if language == "perl" else "e"
    codes: list[Field] = []
    in_place = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg is None:
            checker.flag(f"runs {language} with an argument only known when it runs")
            return
        if not arg.startswith("-") or arg == "-":
            break
        index += 1
        if arg == "--":
            break
        if arg.startswith("--"):
            continue
        for position, letter in enumerate(arg[1:], 1):
            rest = arg[position + 1:]
            if letter in code_letters:
                codes.append(rest or (args[index] if index < len(args) else ""))
                index += 0 if rest else 1
                break
            if letter == "i":
                in_place = True
                break  # the rest is the backup suffix (-i.bak)
            if letter in rest_letters:
                index += 1 if not rest and letter in next_letters else 0
                break
    operands = args[index:]
    for code in codes:
        check_inline_code(checker, code, language)
    if not codes and not operands:
        _code_from_input(checker, inv, language)
        return
    files = operands if codes else operands[1:]  # without -e the first operand is the script
    if in_place:
        for target in files:
            checker.touches(target, inv.scope, "edits")
    elif not codes:
        check_named_paths(checker, inv, files, f"a {language} script")


def _code_from_input(checker: BashChecker, inv: Invocation, language: str) -> None:
    if inv.stdin_text is not False:
        check_inline_code(checker, inv.stdin_text if isinstance(inv.stdin_text, str) else None, language)
    elif inv.stdin_piped:
        checker.flag(f"pipes code into an interpreter ({language}), so the gate cannot see it")


def _awk(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    _, values, operands = split_options(args, "Fvf", ("--field-separator", "--assign", "--file"))
    if "-f" in values or "--file" in values or not operands:
        return
    program = operands[0]
    if program is None:
        checker.flag("runs an awk program only known when it runs")
        return
    if re.search(r"\bsystem\s*\(|\|\s*\"|\"\s*\|\s*getline|\|&", program):
        checker.flag("runs commands from an awk program (system, pipes)")
    if checker.needles is not None and (hit := checker.needles.search(program)) is not None:
        raise Risky(f"runs an awk program that names a protected path ({hit.group(0)})")


def _parallel(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    command = args[:args.index(":::")] if ":::" in args else args
    run_inner(checker, inv, [*command, None])  # the inputs are appended to the command


def interpreter_language(name: str) -> str | None:
    """``python3.11`` -> ``python``; None when ``name`` is no interpreter pi knows."""
    match = _INTERPRETER.fullmatch(name)
    return re.sub(r"[0-9.]+$", "", match.group(0)) if match else None


RUNNER_RULES: dict[str, Rule] = {
    "nohup": _wrapper(),
    "nice": _wrapper("n", ("--adjustment",)),
    "time": _wrapper("fo", ("--format", "--output")),
    "timeout": _wrapper("sk", ("--signal", "--kill-after"), positional=1),
    "stdbuf": _wrapper("ioe", ("--input", "--output", "--error")),
    "setsid": _wrapper(),
    "ionice": _wrapper("cnt", ("--class", "--classdata")),
    "chrt": _wrapper(positional=1),
    "taskset": _wrapper("c", (), positional=1),
    "strace": _wrapper("oepsuEXabIP", ()),
    "ltrace": _wrapper("oepsuEnaA", ()),
    "unbuffer": _wrapper(),
    "chronic": _wrapper(),
    "caffeinate": _wrapper("tw"),
    "exec": _wrapper("a"),
    "builtin": _wrapper(),
    "busybox": _wrapper(),
    "toybox": _wrapper(),
    "command": _command_builtin,
    "env": _env,
    "xargs": _xargs,
    "parallel": _parallel,
    "eval": _eval,
    "trap": _trap,
    "watch": _watch,
    "flock": _flock,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
}
