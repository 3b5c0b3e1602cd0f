"""The gate's rules for build tools: a build file the agent wrote is checked like a script.

``make`` runs the shell lines of a Makefile, ``npm run``/``npm test``/``npm install`` (and
yarn, pnpm, bun) the scripts of a package.json. As with shell scripts (``gate_scripts``), a
build file changed since the session began is read and the lines the command would run
are checked like the command line itself; older files are the project's own and are trusted.
A build file written by an earlier part of the same command cannot be read in time and is
risky. Other build tools whose files the gate cannot read (``just``, ``rake``, ``ninja``…)
are risky when their build file is fresh.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .gate_args import Rule, split_options
from .gate_bash import Field, Invocation, Risky
from .gate_make import UNKNOWN, Makefile
from .gate_scripts import SHELL_NAMES, fresh_text

if TYPE_CHECKING:
    from .gate_bash import BashChecker

_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_MAKE_DRY_RUN = frozenset({"-n", "--just-print", "--dry-run", "--recon", "-q", "--question", "-t", "--touch"})
_INSTALL = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare")
_INSTALL_COMMANDS = frozenset({"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
                               "isntall", "ci", "clean-install", "install-clean", "rebuild", "rb", "add"})
_SCRIPT_COMMANDS = {"test": "test", "t": "test", "tst": "test", "start": "start", "stop": "stop", "restart": "restart"}
_PACK = ("prepack", "prepare", "postpack", "prepublishOnly", "publish", "postpublish")
_RUNNER_OWN = {
    # Commands of yarn/pnpm/bun that are not a package.json script of the same name.
    "yarn": frozenset({"add", "remove", "upgrade", "info", "init", "why", "config", "cache", "global", "link",
                       "outdated", "pack", "publish", "version", "workspaces", "workspace", "dlx", "exec", "bin"}),
    "pnpm": frozenset({"add", "remove", "update", "up", "why", "list", "ls", "outdated", "exec", "dlx", "config",
                       "store", "link", "unlink", "pack", "publish", "init", "env", "root", "bin", "audit"}),
    "bun": frozenset({"add", "remove", "update", "x", "pm", "link", "unlink", "init", "create", "build", "test",
                      "upgrade", "outdated", "publish", "patch"}),
}
UNREAD_BUILD_FILES: dict[str, tuple[str, ...]] = {
    "just": ("justfile", "Justfile", ".justfile"), "task": ("Taskfile.yml", "Taskfile.yaml"),
    "ninja": ("build.ninja",), "rake": ("Rakefile", "rakefile", "Rakefile.rb"), "tox": ("tox.ini",),
    "nox": ("noxfile.py",), "invoke": ("tasks.py",), "gradle": ("build.gradle", "build.gradle.kts"),
    "cargo": ("build.rs",),
}
"""Build tools whose files the gate does not read: a fresh one makes the command risky."""


def _folders(checker: BashChecker, inv: Invocation, changes: Sequence[Field], tool: str) -> list[str]:
    """Where the tool runs: each folder the shell may be in, moved by its ``-C``/``--prefix`` options."""
    if inv.scope.cwds is None:
        checker.flag(f"runs {tool} after a `cd` to a place only known when it runs")
        return []
    folders = sorted(inv.scope.cwds)
    for change in changes:
        if change is None:
            checker.flag(f"runs {tool} in a folder only known when it runs")
            return []
        folders = [os.path.normpath(os.path.join(f, os.path.expanduser(change))) for f in folders]
    return folders


def _read(checker: BashChecker, path: str, tool: str) -> str | None:
    """A build file's text when it is fresh; None when it is missing or old enough to trust."""
    shown = os.path.relpath(path, checker.cwd) if path.startswith(checker.cwd.rstrip("/") + "/") else path
    if path in checker.written:
        checker.flag(f"runs {shown} ({tool}), which the same command writes, so the gate cannot read it")
        return None
    return fresh_text(checker, path, shown, missing_ok=True)


def _check_lines(checker: BashChecker, inv: Invocation, folder: str, code: str, what: str, one_scope: bool) -> None:
    scope = inv.scope.copy()
    scope.cwds = frozenset({folder})
    try:
        checker.script_text(code, scope if one_scope else scope.copy(), inv.depth + 1)
    except Risky as risky:
        raise Risky(f"runs {what} that is risky: {risky}") from None


# ---------------------------------------------------------------------- make


def _make(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags, values, operands = _make_options(args)
    changes = [values[o] for o in ("-C", "--directory") if o in values]
    for folder in _folders(checker, inv, changes, "make"):
        named = [values[o] for o in ("-f", "--file", "--makefile") if o in values]
        if "-" in named:
            checker.flag("reads its Makefile from its input, which the gate cannot see (make -f -)")
            return
        paths = [os.path.join(folder, n) if n is not None else None for n in named] or [
            next((os.path.join(folder, n) for n in _MAKEFILES if os.path.exists(os.path.join(folder, n))),
                 os.path.join(folder, "Makefile"))]
        makefile = Makefile(checker.env)
        fresh = False
        extra = values.get("--eval", values.get("-E"))
        while paths:
            path = paths.pop(0)
            if path is None:
                checker.flag("runs a Makefile whose name is only known when it runs")
                return
            text = _read(checker, path, "make")
            fresh |= text is not None
            if text is None and os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as file:
                    text = file.read(1 << 20)  # an old file: read only to find a fresh include
            before = len(makefile.includes)
            makefile.read(text or "")
            for name in makefile.includes[before:]:
                expanded = makefile.expand(name)
                if UNKNOWN in expanded:
                    checker.flag(f"includes a makefile only known when it runs ({name})")
                    return
                paths.extend(sorted(glob.glob(os.path.join(folder, expanded))) or [os.path.join(folder, expanded)])
        if extra is not None:
            makefile.read(extra or "")
            fresh = True
        if fresh:
            _check_makefile(checker, inv, folder, makefile, flags, operands)


def _make_options(args: list[Field]) -> tuple[list[str], dict[str, Field], list[Field]]:
    return split_options(args, "CfIoWE", ("--directory", "--file", "--makefile", "--include-dir", "--old-file",
                                          "--assume-old", "--what-if", "--new-file", "--assume-new", "--eval"))


def _check_makefile(checker: BashChecker, inv: Invocation, folder: str, makefile: Makefile, flags: list[str],
                    operands: list[Field]) -> None:
    if makefile.problem is not None:
        checker.flag(f"runs a Makefile the gate cannot follow: {makefile.problem}")
        return
    goals: list[str | None] = []
    for operand in operands:
        if operand is not None and "=" in operand:
            name, _, value = operand.partition("=")
            makefile.variables[name.strip().rstrip(":")] = value  # `make RM='rm -r'` overrides the file
        else:
            goals.append(operand)
    recipes = [] if _MAKE_DRY_RUN & set(flags) else makefile.recipes(goals)
    shell = makefile.expand("$(SHELL)")
    if recipes and os.path.basename(shell.split()[0] if shell.split() else "") not in SHELL_NAMES:
        checker.flag(f"runs its Makefile's recipes with SHELL={shell}, which the gate cannot check")
    for code in [*makefile.parse_time_code, *makefile.shell_code]:
        _check_lines(checker, inv, folder, code, "a Makefile's $(shell …)", False)
    for recipe in recipes:
        if makefile.one_shell:
            _check_lines(checker, inv, folder, "\n".join(recipe), "a Makefile recipe", True)
        else:
            for line in recipe:
                _check_lines(checker, inv, folder, line, "a Makefile recipe", False)


# ---------------------------------------------------------------------- package.json scripts


def _package_scripts(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    tool = os.path.basename(inv.argv[0] or "")
    _, values, operands = split_options(args, "C", ("--prefix", "--cwd", "--dir"))
    changes = [values[o] for o in ("--prefix", "--cwd", "--dir", "-C") if o in values]
    names = _scripts_run(tool, operands)
    if not names:
        return
    for folder in _folders(checker, inv, changes, tool):
        path = os.path.join(folder, "package.json")
        text = _read(checker, path, tool)
        if text is None:
            continue
        try:
            scripts = json.loads(text).get("scripts") or {}
        except (ValueError, AttributeError):
            checker.flag(f"runs scripts of a package.json the gate cannot read ({tool})")
            continue
        if not isinstance(scripts, dict):
            continue
        for name in names:
            if name is None:
                checker.flag(f"runs a package.json script only known when it runs ({tool})")
            elif isinstance(scripts.get(name), str):
                _check_lines(checker, inv, folder, scripts[name], f"the package.json script {name!r}", False)


def _scripts_run(tool: str, operands: list[Field]) -> list[str | None]:
    """The package.json scripts ``tool operands…`` runs (with their pre- and post- scripts)."""
    sub = operands[0] if operands else ("install" if tool == "yarn" else None)
    if sub is None:
        return [None] if operands else []
    if sub in ("run", "run-script", "rum", "urn"):
        name = operands[1] if len(operands) > 1 else None
        return [None] if name is None else [f"pre{name}", name, f"post{name}"]
    if sub in _SCRIPT_COMMANDS and not (tool == "bun" and sub == "test"):
        name = _SCRIPT_COMMANDS[sub]
        return [f"pre{name}", name, f"post{name}"]
    if sub in _INSTALL_COMMANDS:
        return list(_INSTALL) if len(operands) == 1 or sub in ("ci", "rebuild", "rb") else []
    if sub in ("pack", "publish"):
        return list(_PACK)
    if tool in _RUNNER_OWN and sub not in _RUNNER_OWN[tool]:
        return [f"pre{sub}", sub, f"post{sub}"]  # `yarn clean` runs the script `clean`
    return []


# ---------------------------------------------------------------------- tools whose files are not read


def _unread(files: tuple[str, ...]) -> Rule:
    def rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
        tool = os.path.basename(inv.argv[0] or "")
        for folder in _folders(checker, inv, [], tool):
            for name in files:
                path = os.path.join(folder, name)
                if _read(checker, path, tool) is not None:
                    checker.flag(f"runs {name}, a build file changed in this session that the gate cannot read ({tool})")

    return rule


RULES: dict[str, Rule] = {
    "make": _make, "gmake": _make,
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), _package_scripts),
    **{tool: _unread(files) for tool, files in UNREAD_BUILD_FILES.items()},
}
