"""Reading a Makefile the way the gate needs: which shell lines ``make <goals>`` would run.

Not a make: enough of GNU make's grammar to find the recipes of the goals asked for and of
everything they depend on, with variables expanded as make would (an undefined variable is
empty; the environment and make's built-in defaults count). What cannot be known before
running (automatic variables such as ``$@``, make functions) becomes a shell variable no one
sets, so the gate sees an unknown word there. Both branches of a conditional are taken, and
``$(shell …)`` or ``!=`` anywhere is shell code too. ``$(eval …)`` and ``.RECIPEPREFIX`` are
not followed: the file is then reported as unreadable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field

from ...records import record

UNKNOWN = "${__pi_gate_unknown__}"
"""What an expansion only known at run time becomes: a shell variable that is never set."""
MAX_EXPANSION_DEPTH = 24
_ASSIGNMENT = re.compile(r"^(?:(?:export|override|private)\s+)*([^\s:#=!?+]+)\s*(:::=|::=|:=|\?=|\+=|!=|=)(.*)$")
_RULE = re.compile(r"^([^:=#]+?)\s*(::?)(?!=)\s*(.*)$")
_AUTOMATIC = frozenset("@<^+*?%|") | {f"{v}{d}" for v in "@<^+*?%" for d in "DF"}
_DEFAULTS = {"RM": "rm -f", "MAKE": "make", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "AR": "ar", "AS": "as",
             "LD": "ld", "FC": "f77", "LEX": "lex", "YACC": "yacc", "SHELL": "/bin/sh", "MAKEFLAGS": ""}
"""make's built-in variables (GNU make 4), used when neither the file nor the environment sets one."""


@record
class MakeRule:
    """One rule: what it depends on (unexpanded) and its recipe lines."""

    prerequisites: list[str]
    recipe: list[str] = field(default_factory=list)


class Makefile:
    """The rules, variables and parse-time shell code of one make run (its makefile and includes).

    Args:
        env: The environment make starts with (its variables are make variables).
    """

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.variables: dict[str, str] = {}
        self.rules: dict[str, list[MakeRule]] = {}
        self.patterns: list[MakeRule] = []
        self.default_goal: str | None = None
        self.includes: list[str] = []
        self.parse_time_code: list[str] = []
        """Shell code make runs while reading the files (``VAR != cmd``)."""
        self.shell_code: list[str] = []
        """``$(shell …)`` code met while expanding."""
        self.problem: str | None = None
        """Why the file cannot be followed, if it cannot."""
        self.one_shell = False

    # ------------------------------------------------------------------ reading

    def read(self, text: str) -> None:
        """Add one file's rules and variables."""
        current: list[MakeRule] | None = None
        define: str | None = None
        body: list[str] = []
        for line in _logical_lines(text):
            if define is not None:
                if line.strip() == "endef":
                    self.variables[define], define = "\n".join(body), None
                else:
                    body.append(line)
                continue
            if line.startswith("\t") and current is not None:
                for rule in current:
                    rule.recipe.append(line[1:])
                continue
            stripped = _strip_comment(line).strip()
            if not stripped:
                continue
            if re.search(r"[$][({]eval\b", stripped) or stripped.startswith(".RECIPEPREFIX"):
                self.problem = "it uses $(eval) or .RECIPEPREFIX, which the gate does not follow"
            word = stripped.split()[0]
            if word in ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"):
                continue  # both branches are read
            if word == "define":
                define, body, current = (stripped.split() + [""])[1], [], None
                continue
            if word in ("include", "-include", "sinclude"):
                self.includes.extend(stripped.split()[1:])
                current = None
                continue
            if (assignment := _ASSIGNMENT.match(stripped)) is not None:
                self._assign(*assignment.groups())
                current = None
                continue
            if (header := _RULE.match(stripped)) is not None:
                current = self._rule(header.group(1).split(), header.group(3))
                continue
            self.expand(stripped)  # a bare function call ($(info …), $(shell …)) is run when read

    def _assign(self, name: str, op: str, value: str) -> None:
        value = value.strip()
        if op == "!=":
            self.parse_time_code.append(self.expand(value))
            self.variables[name] = UNKNOWN
        elif op == "+=":
            self.variables[name] = f"{self.variables.get(name, '')} {value}".strip()
        elif op == "?=":
            self.variables.setdefault(name, value)
        else:
            self.variables[name] = value
        if op in (":=", "::=", ":::="):
            self.expand(value)  # expanded now: a $(shell …) in it runs now

    def _rule(self, targets: list[str], rest: str) -> list[MakeRule]:
        if (specific := _ASSIGNMENT.match(rest)) is not None:  # `target: VAR = value`
            self._assign(*specific.groups())
            return []
        prerequisites, _, inline = rest.partition(";")
        rule = MakeRule(prerequisites.split(), [inline.strip()] if inline.strip() else [])
        for target in targets:
            if "%" in target:
                self.patterns.append(rule)
            else:
                self.rules.setdefault(target, []).append(rule)
            if self.default_goal is None and not target.startswith(".") and "%" not in target:
                self.default_goal = target
        self.one_shell |= ".ONESHELL" in targets
        return [rule]

    # ------------------------------------------------------------------ running

    def recipes(self, goals: list[str | None]) -> list[list[str]]:
        """The recipes (lists of shell lines, expanded) that ``make goals`` may run."""
        todo = list(goals) or ([self.variables.get(".DEFAULT_GOAL") or self.default_goal] if (
            self.variables.get(".DEFAULT_GOAL") or self.default_goal) else [])
        every = any(g is None or UNKNOWN in g for g in todo)
        seen: set[str] = set()
        chosen: list[MakeRule] = list(self.patterns)  # which pattern rule applies is not worked out
        while todo and not every:
            goal = todo.pop()
            if goal is None or goal in seen:
                continue
            seen.add(goal)
            for rule in self.rules.get(goal, []):
                chosen.append(rule)
                for prerequisite in self.expand(" ".join(rule.prerequisites)).split():
                    every |= UNKNOWN in prerequisite
                    if prerequisite != "|":
                        todo.append(prerequisite)
        if every:
            chosen = [rule for rules in self.rules.values() for rule in rules] + self.patterns
        # After expansion too: `$(Q)rm …` with Q = @ is a common idiom.
        return [[_recipe_line(self.expand(_recipe_line(line))) for line in rule.recipe] for rule in chosen]

    def expand(self, text: str, depth: int = 0) -> str:
        """``text`` with make's references replaced (``$$`` is ``$``; unknowns become :data:`UNKNOWN`)."""
        out: list[str] = []
        index = 0
        while index < len(text):
            char = text[index]
            if char != "$" or index + 1 >= len(text):
                out.append(char)
                index += 1
                continue
            following = text[index + 1]
            if following == "$":
                out.append("$")
                index += 2
            elif following in "({":
                end = _closing(text, index + 1)
                if end < 0:
                    out.append(UNKNOWN)
                    break
                out.append(self._reference(text[index + 2:end], depth))
                index = end + 1
            else:
                out.append(self._variable(following, depth))
                index += 2
        return "".join(out)

    def _reference(self, inner: str, depth: int) -> str:
        if depth > MAX_EXPANSION_DEPTH:
            return UNKNOWN
        head = re.match(r"([\w-]+)[ \t]+(.*)$", inner, re.S)
        if head is not None and head.group(1) == "shell":
            self.shell_code.append(self.expand(head.group(2), depth + 1))
            return UNKNOWN
        if head is not None:
            self.expand(head.group(2), depth + 1)  # a function: its value is not worked out, a $(shell) in it is
            return UNKNOWN
        name, colon, substitution = inner.partition(":")
        if colon and "=" in substitution:  # $(SRC:.c=.o)
            before, _, after = substitution.partition("=")
            words = self._variable(self.expand(name, depth + 1), depth).split()
            return " ".join(_substitute(w, before, after) for w in words)
        return self._variable(self.expand(inner, depth + 1), depth)

    def _variable(self, name: str, depth: int) -> str:
        if name in _AUTOMATIC or UNKNOWN in name:
            return UNKNOWN
        if name in self.variables:
            return self.expand(self.variables[name], depth + 1)
        if name in self.env:
            return self.env[name]
        return self.expand(_DEFAULTS.get(name, ""), depth + 1)


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash-newline continuations joined."""
    lines: list[str] = []
    pending = ""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _strip_comment(line: str) -> str:
    match = re.search(r"(?<!\\)#", line)
    return line[:match.start()] if match else line


def _recipe_line(line: str) -> str:
    """A recipe line without its ``@``/``-``/``+`` prefixes (echo off, ignore errors, always run)."""
    return line.lstrip(" \t@-+")


def _closing(text: str, opening: int) -> int:
    """Index of the bracket closing the one at ``opening`` (nesting counted), or -1."""
    pair = {"(": ")", "{": "}"}[text[opening]]
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == text[opening]:
            depth += 1
        elif text[index] == pair:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _substitute(word: str, before: str, after: str) -> str:
    if "%" in before:
        prefix, _, suffix = before.partition("%")
        if word.startswith(prefix) and word.endswith(suffix) and len(word) >= len(prefix) + len(suffix):
            stem = word[len(prefix):len(word) - len(suffix)]
            return after.replace("%", stem, 1) if "%" in after else after
        return word
    return word[:-len(before)] + after if before and word.endswith(before) else word
