"""The permission gate's verb rules: what each known command does with its arguments.

A rule gets the expanded argument vector (unknown arguments are None) and flags a risk
(``rm -rf``, ``chmod 777``...), checks the paths it writes or deletes (``cp``, ``mv``,
``tee``, ``sed -i``, ``dd of=``...), records the links it makes (``ln``, ``cp -s``: a write
through one later in the command reaches its target), or hands an inner command back to the
checker (``find -exec``; the wrappers, shells and interpreters are in ``gate_runners``, git
in ``gate_git``, archivers in ``gate_archives``, build tools in ``gate_build``).

A program with no rule that is not known to only read (``cat``, ``grep``…) may write any
path it is given: naming a protected path to it is risky (``patch .git/config``,
``sqlite3 .env``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import gate_archives, gate_build, gate_git
from .gate_args import Rule, check_named_paths, run_inner, split_options
from .gate_bash import Field, Invocation
from .gate_runners import RUNNER_RULES, SHELLS, interpreter_language, run_interpreter, run_shell
from .gate_scripts import run_program_file, run_script_file

if TYPE_CHECKING:
    from .gate_bash import BashChecker

_DISK_TOOLS = re.compile(r"mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted|blkdiscard|mkntfs")
_ROOT_TOOLS = frozenset({"sudo", "doas", "pkexec", "run0", "su", "sudoedit"})


def check_invocation(checker: BashChecker, inv: Invocation) -> None:
    """Apply the rule for ``inv``'s command, if pi knows one."""
    name = os.path.basename(inv.argv[0] or "")
    args = inv.argv[1:]
    rule = RULES.get(name)
    if rule is not None:
        rule(checker, inv, args)
    elif name in _ROOT_TOOLS:
        checker.flag(f"runs as root ({name})")
    elif _DISK_TOOLS.fullmatch(name):
        checker.flag(f"formats or partitions a disk ({name})")
    elif name in SHELLS:
        run_shell(checker, inv, args)
    elif (language := interpreter_language(name)) is not None:
        run_interpreter(checker, inv, args, language)
    elif "/" in (inv.argv[0] or ""):
        run_program_file(checker, inv)
        check_named_paths(checker, inv, args, name)
    elif name not in READERS:
        check_named_paths(checker, inv, args, name)


# ---------------------------------------------------------------------- deleting and writing


def _rm(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags, _, operands = split_options(args)
    if None in args:
        checker.flag("deletes with an argument only known when it runs (rm)")
    recursive = bool({"-r", "-R", "--recursive"} & set(flags))
    if recursive and {"-f", "--force"} & set(flags):
        checker.flag("recursive forced delete (rm -rf)")
    elif recursive:
        # Pi's own example gate stops every recursive delete: without -f only write-protected files are asked about.
        checker.flag("recursive delete (rm -r)")
    if "--no-preserve-root" in flags:
        checker.flag("deletes with --no-preserve-root (rm)")
    for operand in operands:
        checker.touches(operand, inv.scope, "deletes")
        if recursive and operand is not None:
            _not_a_root(checker, inv, operand)


def _not_a_root(checker: BashChecker, inv: Invocation, operand: str) -> None:
    """A recursive delete of ``/``, home, or a folder holding the working directory."""
    home = os.path.realpath(os.path.expanduser("~"))
    project = os.path.realpath(checker.cwd)
    for path in checker.candidates(operand, inv.scope):
        real = os.path.realpath(path)
        if real in ("/", home) or project == real or project.startswith(real.rstrip("/") + "/"):
            checker.flag(f"deletes {real}, which holds the working directory or your home")


def _writes_operands(with_value: str = "", long_with_value: Sequence[str] = (), skip_first: bool = False,
                     target_options: Sequence[str] = (), verb: str = "writes", dest_only: bool = False) -> Rule:
    """A rule for commands that change the files they are given (``touch``, ``mv``, ``tee``...).

    ``dest_only``: only the destination is written (``cp``, ``ln``: the last operand, or the
    ``-t`` folder); the sources are read, which the gate does not judge.
    """

    def rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
        flags, values, operands = split_options(args, with_value, long_with_value)
        if skip_first and operands and not any(f.startswith("--reference") for f in flags):
            operands = operands[1:]
        targets = [values[o] for o in target_options if o in values]
        if dest_only and not targets:
            # One operand: the copy or link lands in the current folder under the same name.
            targets = operands[-1:] if len(operands) > 1 else [
                os.path.basename(o.rstrip("/")) if o is not None else None for o in operands]
        elif not dest_only:
            targets += operands
        for target in targets:
            checker.touches(target, inv.scope, verb)

    return rule


def _links(symbolic: Sequence[str], hard: Sequence[str], default_hard: bool) -> Rule:
    """``ln``/``cp -s``: the destination is written, and a write through it later reaches the source."""

    def rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
        _COPY_PATHS(checker, inv, args)
        flags, values, operands = split_options(args, "tS", ("--target-directory", "--suffix"))
        is_symbolic = bool(set(symbolic) & set(flags))
        if not (is_symbolic or default_hard or set(hard) & set(flags)) or inv.scope.cwds is None:
            return
        folder = values.get("-t", values.get("--target-directory"))
        relative = bool({"-r", "--relative"} & set(flags)) or not is_symbolic
        for cwd in inv.scope.cwds:
            for source, link in _link_pairs(cwd, folder, operands, bool({"-T", "--no-target-directory"} & set(flags))):
                # A symbolic link's text is read from the link's own folder (unless -r made it from here).
                base = cwd if relative else os.path.dirname(link)
                checker.link(link, os.path.join(base, os.path.expanduser(source)))

    return rule


def _link_pairs(cwd: str, folder: Field, operands: list[Field], no_folder: bool) -> list[tuple[str, str]]:
    """(source as written, absolute link path) for each link ``ln``/``cp`` makes."""
    if folder is not None:
        sources, into = operands, os.path.join(cwd, folder)
    elif len(operands) == 1:
        sources, into = operands, cwd
    elif len(operands) == 2 and (no_folder or not os.path.isdir(os.path.join(cwd, operands[1] or ""))):
        source, link = operands
        return [(source, os.path.normpath(os.path.join(cwd, link)))] if source is not None and link is not None else []
    else:
        sources, into = operands[:-1], os.path.join(cwd, operands[-1] or "")
    return [(s, os.path.normpath(os.path.join(into, os.path.basename(s.rstrip("/"))))) for s in sources if s is not None]


def _sort(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    _, values, _ = split_options(args, "kotST", ("--output", "--key", "--field-separator", "--temporary-directory",
                                                  "--buffer-size", "--files0-from", "--parallel", "--compress-program"))
    for option in ("-o", "--output"):
        if option in values:
            checker.touches(values[option], inv.scope)
    if "--compress-program" in values:
        checker.flag("runs a program from sort (--compress-program)")


def _uniq(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    _, _, operands = split_options(args, "fsw", ("--skip-fields", "--skip-chars", "--check-chars", "--group"))
    if len(operands) > 1:
        checker.touches(operands[1], inv.scope)  # uniq IN OUT


def _chmod(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags, _, operands = split_options([a for a in args if not (a and re.fullmatch(r"-[rwxXst]+", a))])
    if operands and not any(f.startswith("--reference") for f in flags):
        mode, operands = operands[0], operands[1:]
        if mode is None:
            checker.flag("sets permissions only known when it runs (chmod)")
        elif re.fullmatch(r"[0-7]*[2367]", mode) or re.search(r"(^|,)[ugo]*[ao][ugo]*[+=][rwxXst]*w", mode):
            checker.flag("world-writable permissions (chmod 777)")
    for operand in operands:
        checker.touches(operand, inv.scope, "changes")


def _dd(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    for arg in args:
        if arg is None:
            checker.flag("runs dd with an argument only known when it runs")
        elif arg.startswith("of="):
            checker.touches(arg[3:], inv.scope)


def _sed(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    flags, values, operands = split_options(args, "efl", ("--expression", "--file", "--line-length"))
    scripts = [v for k, v in values.items() if k in ("-e", "--expression")]
    if not scripts and operands:
        scripts, operands = [operands[0]], operands[1:]
    for script in scripts:
        if script is None:
            checker.flag("runs a sed script only known when it runs")
            continue
        # GNU sed's e command and s///e flag run shell commands; w writes a file.
        if re.search(r"(^|[;\n{}])\s*[0-9$,/~!\w\\.^*]*\s*e(\s|;|$)", script) or re.search(
                r"s(.)(?:(?!\1).|\\\1)*\1(?:(?!\1).|\\\1)*\1[gpiImM0-9w]*e", script):
            checker.flag("runs shell commands from a sed script (e)")
        for target in re.findall(r"(?:^|[;\n}]|\d|/[gpiImM0-9]*)\s*[wW] +(\S+)", script):
            checker.touches(target, inv.scope)
    if any(f == "-i" or f.startswith("--in-place") for f in flags) or "-i" in values:
        for operand in operands:
            checker.touches(operand, inv.scope, "edits")


def _find(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "-delete":
            checker.flag("deletes files (find -delete)")
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner: list[Field] = []
            while index < len(args) and args[index] not in (";", "+"):
                word = args[index]
                inner.append(None if word is None or "{}" in word else word)  # {} is each file found
                index += 1
            index += 1
            run_inner(checker, inv, inner)
        elif arg in ("-fprint", "-fprint0", "-fprintf", "-fls") and index < len(args):
            checker.touches(args[index], inv.scope)


def _cd(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    """Not a risk itself: follows where later relative paths point (``cd ~/.ssh && echo k >> keys``)."""
    scope = inv.scope
    operands = [a for a in args if a not in ("-L", "-P", "-e", "-@", "--")]
    target: Field = operands[0] if operands else checker.env.get("HOME", os.path.expanduser("~"))
    name = os.path.basename(inv.argv[0] or "")
    if name == "popd" or target is None or target == "-" or scope.cwds is None:
        scope.cwds = scope.cd_success = None
        return
    moved = frozenset(os.path.normpath(os.path.join(cwd, target)) for cwd in scope.cwds)
    scope.cd_success = moved
    scope.cwds = scope.cwds | moved  # a cd can fail, and the next command runs anyway after ';'


def _shopt(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    """Follows ``dotglob``, which makes later globs reach dot files (``.git``, ``.env``)."""
    if "dotglob" in args or None in args:
        if "-u" in args:
            inv.scope.dotglob = False
        elif "-s" in args or None in args:
            inv.scope.dotglob = True


def _source(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    # One that only exists at run time (`source <(curl …)`) is code the gate cannot see at all.
    if not args or args[0] is None:
        checker.flag("runs a script only known when it runs (source)")
        return
    run_script_file(checker, inv, args[0], "source")


def _mv(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    """``mv`` writes its destination and removes its sources: both must stay in the working directory.

    ``mv victim ..`` takes a file out of the project as surely as deleting it, which the
    write tool (and so the gate) refuses outside the working directory.
    """
    _MV_PATHS(checker, inv, args)
    if checker.allow_outside:
        return
    _, values, operands = split_options(args, "tS", ("--target-directory", "--suffix"))
    root = os.path.realpath(checker.cwd)
    for operand in [*operands, *(values[o] for o in ("-t", "--target-directory") if o in values)]:
        if operand is None:
            checker.flag("moves a file whose name is only known when it runs (mv)")
            continue
        for path in checker.candidates(operand, inv.scope):
            real = os.path.realpath(path)
            if real != root and not real.startswith(root.rstrip("/") + "/"):
                checker.flag(f"moves files out of or into the working directory ({real})")
            elif real == root:
                checker.flag("moves the working directory itself (mv)")


def _chown(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    _CHOWN_PATHS(checker, inv, args)
    _, _, operands = split_options(args)
    if operands and operands[0] is not None and "777" in operands[0]:
        checker.flag("gives files to owner or group 777 (chown 777)")


def _crontab(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
    if not ({"-l", "-V"} & {a for a in args if a is not None}):
        checker.flag("changes scheduled jobs (crontab)")


def _always(reason: str) -> Rule:
    def rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
        checker.flag(reason)

    return rule


def _output_files(with_value: str, long_with_value: Sequence[str], outputs: Sequence[str]) -> Rule:
    """A command that writes the files named by some of its options (``curl -o``, ``wget -O``)."""

    def rule(checker: BashChecker, inv: Invocation, args: list[Field]) -> None:
        _, values, _ = split_options(args, with_value, long_with_value)
        for option in outputs:
            if option in values:
                checker.touches(values[option], inv.scope)

    return rule


READERS = frozenset({
    "cat", "tac", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "wc", "ls", "dir",
    "stat", "file", "du", "df", "diff", "cmp", "comm", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
    "sha512sum", "b2sum", "cksum", "sum", "od", "xxd", "hexdump", "strings", "nl", "cut", "paste", "column", "fold",
    "fmt", "expand", "unexpand", "tr", "jq", "echo", "printf", "test", "[", "[[", "true", "false", "realpath",
    "readlink", "basename", "dirname", "pwd", "tree", "bat", "batcat", "which", "type", "whereis", "export",
    "declare", "local", "readonly", "typeset", "unset", "set", "shift", "exit", "return", "read", "mapfile",
    "readarray", "alias", "hash", "wait", "sleep", "fd", "fdfind", "zcat", "zgrep", "zless", "bzcat", "xzcat",
    "base64", "lsattr", "getfacl", "namei", "ssh", "ping", "date", "id", "whoami", "uname", "getopts",
})
"""Commands that only read the paths they are given (so naming a protected one is fine)."""

_COPY_PATHS = _writes_operands("tS", ("--target-directory", "--suffix"), target_options=("-t", "--target-directory"),
                               dest_only=True)
_MV_PATHS = _writes_operands("tS", ("--target-directory", "--suffix"), target_options=("-t", "--target-directory"))
_CHOWN_PATHS = _writes_operands(skip_first=True, verb="changes")

RULES: dict[str, Rule] = {
    "rm": _rm,
    "rmdir": _writes_operands(verb="deletes"),
    "unlink": _writes_operands(verb="deletes"),
    "shred": _always("destroys file contents (shred)"),
    "truncate": _writes_operands("sr", ("--size", "--reference")),
    "touch": _writes_operands("rtd", ("--reference", "--date")),
    "mkdir": _writes_operands("m", ("--mode", "--context")),
    "tee": _writes_operands(),
    "ln": _links(("-s", "--symbolic"), (), default_hard=True),
    "cp": _links(("-s", "--symbolic-link"), ("-l", "--link"), default_hard=False),
    "sort": _sort,
    "uniq": _uniq,
    "mv": _mv,
    "install": _writes_operands("tSmogC", ("--target-directory", "--suffix", "--mode", "--owner", "--group"),
                                target_options=("-t", "--target-directory"), dest_only=True),
    "chown": _chown,
    "chgrp": _writes_operands(skip_first=True, verb="changes"),
    "chmod": _chmod,
    "dd": _dd,
    "sed": _sed,
    "gsed": _sed,
    "find": _find,
    "curl": _output_files("oHdXuAeFTxrbcKwmEyY", ("--output", "--cookie-jar"), ("-o", "--output", "-c", "--cookie-jar")),
    "wget": _output_files("OoaPeUt", ("--output-document", "--output-file"), ("-O", "--output-document", "-o")),
    "cd": _cd,
    "shopt": _shopt,
    "source": _source,
    ".": _source,
    "unzip": _output_files("dPx", (), ("-d",)),
    "crontab": _crontab,
    "pushd": _cd,
    "popd": _cd,
    "git": gate_git.git_rule,
    **gate_archives.RULES,
    **gate_build.RULES,
    **RUNNER_RULES,
}
