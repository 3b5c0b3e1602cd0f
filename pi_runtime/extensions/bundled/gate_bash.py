"""The permission gate's bash check: parse the command, walk every command that will run.

Every simple command is looked at, wherever it is: in a list or pipeline, a subshell or
group, a loop or condition body, a function, a ``$(…)``/backtick/``<(…)`` substitution,
a here-document fed to a shell, a ``bash -c``/``eval``/``xargs``/``find -exec`` string.
Words are expanded as far as they can be known before running: quotes removed, ``~``,
variables assigned earlier in the command (or in the environment), ``for`` lists, globs
(against the file system as it is now), and ``cd`` followed (each possible directory).
What cannot be known is treated as risky where it matters: a command name computed at
run time, or a file written or deleted whose name is not known. Text that does not parse
is risky as a whole.

The verb rules (``rm -rf``, ``git clean -f``, interpreters...) are in ``gate_commands``.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import field

from ...records import record
from ...tools.shell_parse import parse
from ...tools.shell_syntax import (
    AndOr,
    Command,
    Lit,
    Opaque,
    Param,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Simple,
    Subst,
    Word,
)
from .gate_paths import PathPolicy, is_device

Field = str | None
"""One argument after expansion; None when its value is only known at run time."""

MAX_ALTERNATIVES = 16
MAX_GLOB_MATCHES = 500
MAX_SCRIPT_DEPTH = 8
_MOVES = frozenset({"cd", "pushd", "popd", "shopt"})
_DEFAULT_IFS = (" \t\n",)


class Risky(Exception):
    """Raised at the first risky thing found; its message is the reason shown to the user."""


@record
class Scope:
    """What the shell knows at a point of the command: variables and possible directories."""

    variables: dict[str, tuple[str, ...] | None]
    cwds: frozenset[str] | None
    """Every directory the shell may be in (``cd`` can fail); None when one is unknown."""
    cd_success: frozenset[str] | None = None
    """Set by a ``cd`` for the command after ``&&`` (which runs only if it worked)."""
    functions: set[str] = field(default_factory=set)
    dotglob: bool = False
    """``shopt -s dotglob``: globs match dot files too (``rm -r *`` then reaches ``.git``)."""

    def copy(self) -> Scope:
        return Scope(dict(self.variables), self.cwds, None, set(self.functions), self.dotglob)


@record
class Invocation:
    """One command about to run, as a rule sees it."""

    argv: list[Field]
    stdin_piped: bool
    """Its input comes from the previous command of a pipeline."""
    stdin_text: Field | bool
    """A here-document or here-string's text (None: not known), or False when there is none."""
    scope: Scope
    depth: int
    stdin_file: Field | bool = False
    """The file redirected to its input (``bash < x.sh``; None: not known), or False when there is none."""


class BashChecker:
    """Checks bash commands against the gate's rules.

    Args:
        paths: Protected paths.
        cwd: Where the command starts.
        env: Environment the command starts with (variables it may expand).
        deny: Extra risky patterns (regex, reason), searched in the whole text and in each command.
        allow: Patterns that exempt a command from the verb rules (searched in each command's text).
        defaults: Apply the built-in rules; when False only ``deny`` and protected paths count.
        fresh_since: Script files changed at or after this time (``st_ctime``, which no
            command can set back) are read and checked when run; older ones are trusted.
        allow_outside: Moving files out of (or into) the working directory is fine.
    """

    def __init__(self, paths: PathPolicy, cwd: str, env: Mapping[str, str],
                 deny: Sequence[tuple[re.Pattern[str], str]] = (), allow: Sequence[re.Pattern[str]] = (),
                 defaults: bool = True, fresh_since: float = 0.0, allow_outside: bool = False) -> None:
        self.defaults = defaults
        self.fresh_since = fresh_since
        self.allow_outside = allow_outside
        self.written: set[str] = set()
        """Every path an earlier part of the command writes or deletes (a script it then runs is unseen)."""
        self.aliases: dict[str, str] = {}
        """git aliases an earlier part of the command defines (``git config alias.x …``), by lowercased name."""
        self.links: dict[str, str] = {}
        """Links an earlier part of the command makes (``ln -s .git/config cfg``): link path -> where it leads.
        The file system does not show them yet, so writes through them are mapped here."""
        self.paths = paths
        self.cwd = cwd
        self.env = env
        self.deny = list(deny)
        self.allow = list(allow)
        self.needles = paths.needles()

    def flag(self, reason: str) -> None:
        """A built-in rule's finding: risky unless the built-in rules are off."""
        if self.defaults:
            raise Risky(reason)

    def check(self, command: str) -> str | None:
        """Why ``command`` is risky, or None."""
        for pattern, why in self.deny:
            if pattern.search(command):
                return why
        scope = Scope({k: (v,) for k, v in self.env.items()}, frozenset({self.cwd}))
        try:
            self.script_text(command, scope, 0)
        except Risky as risky:
            return str(risky)
        except RecursionError:
            return "cannot be checked: it is nested too deeply"
        return None

    # ------------------------------------------------------------------ walking

    def script_text(self, text: str, scope: Scope, depth: int) -> None:
        """Check shell code (the whole command, a ``bash -c`` string, a here-document)."""
        if depth > MAX_SCRIPT_DEPTH:
            self.flag("nests shell code too deeply to be checked")
            return
        try:
            script = parse(text)
        except ShellSyntaxError as exc:
            self.flag(f"cannot be checked: it does not parse as a shell command ({exc})")
            return
        self._script(script, scope, depth, False)

    def _script(self, script: Script, scope: Scope, depth: int, conditional: bool) -> None:
        for item in script.items:
            self._and_or(item, scope.copy() if item.background else scope, depth, conditional)

    def _and_or(self, item: AndOr, scope: Scope, depth: int, conditional: bool) -> None:
        seen = set(scope.cwds) if scope.cwds is not None else None
        for index, pipeline in enumerate(item.pipelines):
            if index and item.ops[index - 1] == "&&" and scope.cd_success is not None:
                scope.cwds = scope.cd_success  # runs only if the cd before it worked
            scope.cd_success = None
            self._pipeline(pipeline, scope, depth, conditional or index > 0)
            if seen is not None and scope.cwds is not None:
                seen |= scope.cwds
            else:
                seen = None
        scope.cd_success = None
        scope.cwds = frozenset(seen) if seen is not None else None

    def _pipeline(self, pipeline: Pipeline, scope: Scope, depth: int, conditional: bool) -> None:
        alone = len(pipeline.commands) == 1
        for index, command in enumerate(pipeline.commands):
            # Each part of a real pipeline runs in a subshell: its cd and variables stay there.
            self._command(command, scope if alone else scope.copy(), depth, conditional, index > 0)

    def _command(self, command: Command, scope: Scope, depth: int, conditional: bool, piped: bool) -> None:
        if isinstance(command, Simple):
            self._simple(command, scope, depth, conditional, piped)
            return
        self._redirects(command.redirects, scope, depth)
        kind = command.kind
        for word in command.words:
            self._substitutions(word, scope, depth)
        if kind == "subshell":
            self._script(command.bodies[0], scope.copy(), depth, conditional)
        elif kind == "group":
            self._script(command.bodies[0], scope, depth, conditional)
        elif kind == "function":
            if command.name:
                scope.functions.add(command.name)
            self._script(command.bodies[0], scope.copy(), depth, True)
        elif kind == "arith":
            # bash reads (( … )) as arithmetic, but sh/dash as two nested subshells: check both.
            try:
                as_commands = parse(command.words[0].raw[2:-2])
            except ShellSyntaxError:
                as_commands = Script()
            self._script(as_commands, scope.copy(), depth, True)
        elif kind in ("for", "select") and command.name:
            values = self._fields_of(command.words, scope)
            scope.variables[command.name] = tuple(values) if values is not None else None
            self._script(command.bodies[0], scope, depth, True)
        else:
            for branch in command.bodies:
                self._script(branch, scope, depth, True)

    def _simple(self, command: Simple, scope: Scope, depth: int, conditional: bool, piped: bool) -> None:
        for assignment in command.assignments:
            self._substitutions(assignment.value, scope, depth)
        for word in command.words:
            self._substitutions(word, scope, depth)
        self._redirects(command.redirects, scope, depth)
        if not command.words:
            for assignment in command.assignments:
                self.assign(scope, assignment.name, assignment.value, conditional)
            return
        stdin_text: Field | bool = False
        stdin_file: Field | bool = False
        for redirect in command.redirects:
            if redirect.op == "<" and redirect.fd in (None, 0) and redirect.target is not None:
                stdin_file = self._single(redirect.target, scope)
            elif redirect.heredoc is not None:
                stdin_text = redirect.heredoc.body if not redirect.heredoc.nested and (
                    not redirect.heredoc.expands or "$" not in redirect.heredoc.body) else None
            elif redirect.op == "<<<" and redirect.target is not None:
                stdin_text = self._single(redirect.target, scope)
        for argv in self._argvs(command.words, scope):
            self.run(Invocation(argv, piped, stdin_text, scope, depth, stdin_file), command.words)

    def run(self, invocation: Invocation, words: Sequence[Word] = ()) -> None:
        """Check one command (also the inner command of a wrapper such as ``nohup``)."""
        from .gate_commands import check_invocation

        argv = invocation.argv
        if not argv:
            return
        text = self.render(argv, words)
        for pattern, why in self.deny:
            if pattern.search(text):
                raise Risky(why)
        if argv[0] is None:
            self.flag(f"runs a command whose name is only known when it runs (`{text[:80]}`)")
            return
        # An allowed command skips the verb rules, but a cd is still followed.
        if any(pattern.search(text) for pattern in self.allow) and os.path.basename(argv[0]) not in _MOVES:
            return
        check_invocation(self, invocation)

    # ------------------------------------------------------------------ paths

    def touches(self, target: Field, scope: Scope, verb: str = "writes") -> None:
        """Raise when writing or deleting ``target`` would touch a protected path or a device."""
        if target is None:
            self.flag(f"{verb} a file whose name is only known when it runs")
            return
        if target in ("", "-"):
            return
        for path in self.candidates(target, scope):
            self.written.add(path)
            for place in self.reached(path):
                if is_device(place):
                    self.flag(f"{verb} a device ({place})")
            hit = self.protected(path)
            if hit is not None:
                raise Risky(f"{verb} a protected path ({hit})")

    def protected(self, path: str) -> str | None:
        """The protected path that ``path`` (absolute) is or leads to, links of this command included."""
        for place in self.reached(path):
            hit = self.paths.protected(place, self.cwd)
            if hit is not None:
                return hit
        return None

    def reached(self, path: str) -> list[str]:
        """``path``, and where it leads through links that an earlier part of the command makes."""
        places = [path]
        for _ in range(MAX_SCRIPT_DEPTH):  # a link to a link: follow a few
            for link, target in self.links.items():
                if path == link or path.startswith(link.rstrip("/") + "/"):
                    path = os.path.normpath(target + path[len(link):])
                    break
            else:
                break
            places.append(path)
        return places

    def link(self, at: str, to: str) -> None:
        """Record a link made by the command: ``at`` (absolute) will lead to ``to`` (absolute)."""
        self.links[os.path.normpath(at)] = os.path.normpath(to)

    def candidates(self, target: str, scope: Scope) -> list[str]:
        """The absolute paths ``target`` may be, from every directory the shell may be in."""
        if os.path.isabs(target):
            return [os.path.normpath(target)]
        if scope.cwds is None:
            self.flag(f"uses the relative path {target!r} after a `cd` to a place only known when it runs")
            return []
        return sorted(os.path.normpath(os.path.join(cwd, target)) for cwd in scope.cwds)

    def _redirects(self, redirects: list[Redirect], scope: Scope, depth: int) -> None:
        for redirect in redirects:
            if redirect.target is not None:
                self._substitutions(redirect.target, scope, depth)
            if redirect.heredoc is not None:
                for nested in redirect.heredoc.nested:
                    self._script(nested, scope.copy(), depth, True)
            if not redirect.writes or redirect.target is None:
                continue
            target = self._single(redirect.target, scope)
            if redirect.op == ">&" and target is not None and (target.isdigit() or target == "-"):
                continue  # 2>&1: duplicates a descriptor
            if redirect.target.has_glob() and target is not None:
                matches = self._glob(target, scope)
                for match in matches or [target]:
                    self.touches(match, scope)
            else:
                self.touches(target, scope)

    def _substitutions(self, word: Word, scope: Scope, depth: int) -> None:
        for nested in word.scripts():
            self._script(nested, scope.copy(), depth, True)

    # ------------------------------------------------------------------ expansion

    def assign(self, scope: Scope, name: str, value: Word | None, conditional: bool) -> None:
        """Record ``name=value`` (a value that may or may not be set joins the previous ones)."""
        values: tuple[str, ...] | None = None
        if value is not None and value.array is None:
            alternatives = self._expand(value, scope, split=False)
            if alternatives is not None:
                values = tuple(fields[0] if fields else "" for fields in alternatives)
        previous = scope.variables.get(name)
        if conditional and values is not None:
            values = None if name in scope.variables and previous is None else tuple(
                dict.fromkeys((*(previous or ()), *values)))
        scope.variables[name] = values

    def _single(self, word: Word, scope: Scope) -> Field:
        """A word that must be one value (a redirection target); None when not known."""
        alternatives = self._expand(word, scope, split=False)
        if alternatives is None or len(alternatives) != 1 or len(alternatives[0]) != 1:
            return None
        return alternatives[0][0]

    def _fields_of(self, words: Sequence[Word], scope: Scope) -> list[str] | None:
        out: list[str] = []
        for word in words:
            alternatives = self._expand(word, scope)
            if alternatives is None:
                return None
            for fields in alternatives:
                for value in fields:
                    out.extend(self._glob(value, scope) or [value] if word.has_glob() else [value])
        return out

    def _argvs(self, words: Sequence[Word], scope: Scope) -> list[list[Field]]:
        """Every argument vector the words may expand to (unknown words become None)."""
        argvs: list[list[Field]] = [[]]
        for word in words:
            alternatives = self._expand(word, scope)
            if alternatives is None:
                argvs = [[*argv, None] for argv in argvs]
                continue
            if word.has_glob():
                alternatives = [[m for v in fields for m in (self._glob(v, scope) or [v])] for fields in alternatives]
            if len(argvs) * len(alternatives) > MAX_ALTERNATIVES:
                argvs = [[*argv, None] for argv in argvs]
                continue
            argvs = [[*argv, *fields] for argv in argvs for fields in alternatives]
        return argvs

    def _expand(self, word: Word, scope: Scope, split: bool = True) -> list[list[str]] | None:
        """The field lists ``word`` may become (one per combination of variable values); None if unknown."""
        alternatives: list[list[str]] = [[""]]
        for index, piece in enumerate(word.pieces):
            if isinstance(piece, Lit):
                text = piece.text
                if index == 0 and not piece.quoted and text.startswith("~"):
                    head, slash, rest = text[1:].partition("/")
                    if head == "":
                        text = self.env.get("HOME", os.path.expanduser("~")) + slash + rest
                    elif head == "+" and scope.cwds is not None and len(scope.cwds) == 1:
                        text = next(iter(scope.cwds)) + slash + rest
                    else:
                        return None
                for fields in alternatives:
                    fields[-1] += text
            elif isinstance(piece, Param):
                values = scope.variables.get(piece.name) if piece.name not in "@*#?$!-0123456789" else None
                if values is None or len(alternatives) * len(values) > MAX_ALTERNATIVES:
                    return None
                if split and not piece.quoted and scope.variables.get("IFS", _DEFAULT_IFS) != _DEFAULT_IFS:
                    return None  # a changed IFS splits words where pi would not
                grown: list[list[str]] = []
                for fields in alternatives:
                    for value in values:
                        parts = value.split() if split and not piece.quoted else [value]
                        if not parts:
                            grown.append(list(fields))
                            continue
                        grown.append([*fields[:-1], fields[-1] + parts[0], *parts[1:]])
                alternatives = grown
            elif isinstance(piece, Subst | Opaque):
                return None
        if split:
            # An unquoted empty expansion leaves no field at all ($empty).
            alternatives = [[f for f in fields if f or _has_quoted(word)] or [] for fields in alternatives]
        return alternatives

    def _glob(self, pattern: str, scope: Scope) -> list[str] | None:
        """What a glob matches now (relative patterns from each possible directory)."""
        if scope.cwds is None and not os.path.isabs(pattern):
            return None
        matches: list[str] = []
        for cwd in sorted(scope.cwds or {"/"}):
            matches.extend(glob.glob(pattern, root_dir=cwd, include_hidden=scope.dotglob))
            if len(matches) > MAX_GLOB_MATCHES:
                self.flag(f"matches too many files to check ({pattern})")
                return None
        return matches or None

    @staticmethod
    def render(argv: Sequence[Field], words: Sequence[Word] = ()) -> str:
        """The command as text for patterns: static words quoted as needed, the rest as written."""
        if words and len(words) == len(argv):
            return " ".join(shlex.quote(f) if f is not None else w.raw for f, w in zip(argv, words, strict=True))
        return " ".join(shlex.quote(f) if f is not None else "$UNKNOWN" for f in argv)


def _has_quoted(word: Word) -> bool:
    return any(getattr(p, "quoted", False) for p in word.pieces)
