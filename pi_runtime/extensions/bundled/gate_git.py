"""The gate's rule for git: commands that discard work, configuration that runs code, aliases.

git runs code its configuration names: an alias starting with ``!`` is shell code, keys such
as ``core.pager``, ``core.sshCommand`` or ``filter.<x>.clean`` are command lines, and
``core.hooksPath`` or ``include.path`` point git at files whose code runs later (the next
commit's hooks). So:

- ``git config`` that changes a setting writes the config file it targets, which is checked
  as a path: the repository's ``.git/config`` and ``~/.gitconfig`` are protected;
- a setting that names a command (by ``git config`` or ``git -c``) is checked as the shell code
  it will be; one that points at files of code is risky;
- a subcommand git does not have runs an alias: its definition (from ``-c``, from an earlier
  ``git config`` of the same command, or from git's own config files, read with
  ``git config --get``) is checked like the command it stands for.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .gate_args import check_shell_code, split_options
from .gate_bash import MAX_SCRIPT_DEPTH, Field, Invocation, Risky

if TYPE_CHECKING:
    from .gate_bash import BashChecker

_CODE_KEYS = re.compile(
    r"alias\..+|core\.(pager|editor|sshcommand|askpass|gitproxy|fsmonitor|alternaterefscommand)|sequence\.editor"
    r"|diff\.external|diff\..+\.(textconv|command)|(diff|merge)tool\..+\.cmd|merge\..+\.driver"
    r"|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|gpg(\..+)?\.program|pager\..+"
    r"|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|sendemail\.(smtpserver|tocmd|cccmd)"
    r"|(browser|man)\..+\.cmd|web\.browser|core\.hookspath|include\.path|includeif\..+\.path|init\.templatedir"
    r"|protocol\..*allow")
"""Settings whose value git runs, or that point git at code (matched on the lowercased key)."""
_FILE_KEYS = re.compile(r"core\.hookspath|include\.path|includeif\..+\.path|init\.templatedir|protocol\..*allow")
"""Of those, the ones naming files of code (hooks, included config) or enabling a transport that runs commands."""
_VALUE_OPTIONS = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix")
_CONFIG_VALUE_OPTIONS = ("--file", "-f", "--blob", "--type", "--default", "--comment", "--value", "--url")
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color",
                           "--get-colorbool", "--show-origin", "--show-scope", "--name-only"})
_CONFIG_WRITES = frozenset({"--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
                            "--remove-section", "--edit", "-e"})
_CONFIG_SUBCOMMANDS = {"get": False, "list": False, "get-color": False, "get-colorbool": False, "set": True,
                       "unset": True, "rename-section": True, "remove-section": True, "edit": True}
"""git ≥ 2.46 spells the actions as subcommands: whether each one writes."""


def git_rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    """``git …``: global options, then the subcommand (an alias is looked up and checked)."""
    bases: list[Field] = []
    git_dir: Field = checker.env.get("GIT_DIR")
    aliases: dict[str, str] = {}
    index = 0
    while index < len(args) and (args[index] or "").startswith("-"):
        option, eq, attached = (args[index] or "").partition("=")
        index += 1
        if option not in _VALUE_OPTIONS and not (option.startswith("-c") and len(option) > 2):
            if option == "--exec-path" and eq:
                checker.flag("runs git programs from a folder the gate cannot check (--exec-path)")
            continue
        if option.startswith("-c") and len(option) > 2:
            value: Field = option[2:] + eq + attached
        elif eq:
            value = attached
        else:
            value = args[index] if index < len(args) else ""
            index += 1
        if option == "-C":
            bases.append(value)
        elif option == "--git-dir":
            git_dir = value
        elif option == "-c":
            _setting(checker, inv, value, aliases)
        elif option == "--config-env":
            key = (value or "").partition("=")[0]
            if value is None or _CODE_KEYS.fullmatch(key.lower()):
                checker.flag(f"sets git's {key or 'settings'} from the environment, which the gate cannot check")
    if index >= len(args):
        return
    sub, rest = args[index], args[index + 1:]
    if sub is None:
        checker.flag("runs a git command only known when it runs")
        return
    cwds = _bases(checker, inv, bases)
    if sub == "config":
        _config(checker, inv, cwds, git_dir, rest)
        return
    _subcommand(checker, sub, rest)
    if sub not in _git_commands():
        _alias(checker, inv, cwds, sub, rest, aliases)


def _subcommand(checker: BashChecker, sub: str, rest: list[Field]) -> None:
    flags, _, operands = split_options(rest)
    if sub == "push" and (
        {"-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "-d", "--prune"}
        & set(flags) or any(o is not None and o.startswith(("+", ":")) for o in operands)
    ):
        checker.flag("force-pushes or deletes on the remote (git push --force)")
    if sub == "clean" and {"-f", "--force"} & set(flags) and not {"-n", "--dry-run"} & set(flags):
        checker.flag("deletes untracked files (git clean -f)")
    if sub == "reset" and "--hard" in flags:
        checker.flag("discards uncommitted changes (git reset --hard)")
    if sub in ("checkout", "restore") and ({"-f", "--force"} & set(flags) or "." in operands) and "--staged" not in flags:
        checker.flag(f"discards uncommitted changes (git {sub})")


def _bases(checker: BashChecker, inv: Invocation, bases: list[Field]) -> list[str]:
    """Every folder git may run in, after its ``-C`` options (each relative to the one before)."""
    cwds = sorted(inv.scope.cwds) if inv.scope.cwds is not None else None
    for base in bases:
        if base is None or cwds is None:
            checker.flag("runs git in a folder only known when it runs (git -C)")
            return []
        cwds = [os.path.normpath(os.path.join(cwd, os.path.expanduser(base))) for cwd in cwds]
    if cwds is None:
        checker.flag("runs git after a `cd` to a place only known when it runs")
        return []
    return cwds


# ---------------------------------------------------------------------- settings


def _setting(checker: BashChecker, inv: Invocation, value: Field, aliases: dict[str, str]) -> None:
    """``git -c key=value``: a setting for this one command."""
    if value is None:
        checker.flag("sets git configuration only known when it runs (git -c)")
        return
    key, _, setting = value.partition("=")
    _check_setting(checker, inv, key, setting)
    if key.lower().startswith("alias."):
        aliases[key[6:].lower()] = setting


def _check_setting(checker: BashChecker, inv: Invocation, key: str, value: Field, running: str = "") -> None:
    """A setting that runs code: its value is checked as that code (or is risky when it cannot be).

    ``running``: the alias being run (``git zap``), for the reason shown; empty when the setting is being set.
    """
    lowered = key.lower()
    if not _CODE_KEYS.fullmatch(lowered):
        return
    if _FILE_KEYS.fullmatch(lowered):
        checker.flag(f"sets git's {key}, which makes git run code the gate cannot check")
    if value is None:
        checker.flag(f"sets git's {key} to a command only known when it runs")
        return
    if lowered.startswith("alias.") and not value.startswith("!"):
        _alias_words(checker, inv, key, value, running)
        return
    try:
        check_shell_code(checker, inv, value.removeprefix("!"), f"git's {key}")
    except Risky as risky:
        raise Risky(_why(key, running, risky)) from None


def _why(key: str, running: str, risky: Risky) -> str:
    if running:
        return f"runs the git alias {running}, which is risky: {risky}"
    return f"sets git's {key} to a command that is risky: {risky}"


def _alias_words(checker: BashChecker, inv: Invocation, key: str, value: str, running: str = "") -> None:
    """A plain alias (``cl = clean -fdx``) is more git arguments: checked as ``git <value>``."""
    try:
        words: list[Field] = list(shlex.split(value))
    except ValueError:
        checker.flag(f"sets git's {key} to text the gate cannot read")
        return
    if inv.depth >= MAX_SCRIPT_DEPTH:
        checker.flag("nests git aliases too deeply to be checked")
        return
    try:
        git_rule(checker, Invocation(["git", *words], False, False, inv.scope, inv.depth + 1), words)
    except Risky as risky:
        raise Risky(_why(key, running, risky)) from None


def _config(checker: BashChecker, inv: Invocation, cwds: list[str], git_dir: Field, args: list[Field]) -> None:
    """``git config``: a change writes a config file (checked as a path); a setting that runs code is checked."""
    writes: bool | None = None
    if args and args[0] in _CONFIG_SUBCOMMANDS:
        writes, args = _CONFIG_SUBCOMMANDS[args[0] or ""], args[1:]
    flags, values, operands = split_options(args, "f", _CONFIG_VALUE_OPTIONS)
    if writes is None:
        writes = bool(_CONFIG_WRITES & set(flags)) or (not _CONFIG_READS & set(flags) and len(operands) >= 2)
    if not writes or "--blob" in flags:
        return
    key = operands[0] if operands else None
    if len(operands) >= 2 and not {"--unset", "--unset-all", "--rename-section", "--remove-section"} & set(flags):
        if key is None:
            checker.flag("sets a git setting whose name is only known when it runs")
        else:
            _check_setting(checker, inv, key, operands[1])
            if key.lower().startswith("alias.") and operands[1] is not None:
                checker.aliases[key[6:].lower()] = operands[1]
    for target in _config_files(checker, cwds, git_dir, flags, values):
        checker.touches(target, inv.scope, "writes git configuration in")


def _config_files(checker: BashChecker, cwds: list[str], git_dir: Field, flags: list[str],
                  values: dict[str, Field]) -> list[Field]:
    """The files a ``git config`` change writes, by its scope options."""
    if "--file" in values or "-f" in values:
        named = values.get("--file", values.get("-f"))
        return [os.path.join(cwds[0], named) if named is not None and cwds else None]
    if "--global" in flags:
        home = checker.env.get("HOME", os.path.expanduser("~"))
        xdg = checker.env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        return [checker.env.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"),
                os.path.join(xdg, "git", "config")]
    if "--system" in flags:
        checker.flag("changes git's configuration for every user (git config --system)")
        return []
    name = "config.worktree" if "--worktree" in flags else "config"
    return [os.path.join(_git_dir(cwd, git_dir), name) for cwd in cwds]


def _git_dir(cwd: str, git_dir: Field) -> str:
    """The repository folder git uses from ``cwd`` (``.git`` up the tree, or a ``gitdir:`` file's target)."""
    if git_dir:
        return os.path.normpath(os.path.join(cwd, git_dir))
    folder = cwd
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return dot_git
        if os.path.isfile(dot_git):
            try:
                with open(dot_git, encoding="utf-8", errors="replace") as file:
                    line = file.read(4096).strip()
            except OSError:
                return dot_git
            if line.startswith("gitdir:"):
                return os.path.normpath(os.path.join(folder, line[7:].strip()))
            return dot_git
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.join(cwd, ".git")  # no repository yet (git init may come first): where it would be
        folder = parent


# ---------------------------------------------------------------------- aliases


def _alias(checker: BashChecker, inv: Invocation, cwds: list[str], sub: str, rest: list[Field],
           aliases: dict[str, str]) -> None:
    """A subcommand git does not have: the alias it names, if any, is checked."""
    name = sub.lower()
    definitions = [aliases[name]] if name in aliases else [checker.aliases[name]] if name in checker.aliases else [
        d for d in (_configured_alias(cwd, name, checker.env) for cwd in cwds) if d is not None]
    arguments = [shlex.quote(a) if a is not None else '"$UNKNOWN"' for a in rest]
    for definition in dict.fromkeys(definitions):
        key = f"alias.{sub}"
        # git passes the alias its arguments: a shell alias gets them as "$@", a plain one after its words.
        code = " ".join([definition, *arguments])
        if definition.startswith("!"):
            _check_setting(checker, inv, key, code, running=sub)
        else:
            _alias_words(checker, inv, key, code, running=sub)


def _configured_alias(cwd: str, name: str, env: Mapping[str, str]) -> str | None:
    """``alias.<name>`` as git itself reads it from its config files in ``cwd`` (None: there is none)."""
    try:
        done = subprocess.run(["git", "config", "--get", f"alias.{name}"], cwd=cwd if os.path.isdir(cwd) else None,
                              env=dict(env), capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.rstrip("\n") if done.returncode == 0 else None


@functools.cache
def _git_commands() -> frozenset[str]:
    """The commands the installed git has (an alias cannot replace one of them)."""
    try:
        done = subprocess.run(["git", "--list-cmds=main,others,nohelpers"], capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(done.stdout.split())
