"""The syntax tree of a POSIX/bash command line, as :mod:`shell_parse` builds it.

A word keeps its pieces (literal text with its quoting, ``$name`` parameters, command
substitutions, and opaque expansions such as ``${x:-y}`` or ``$((…))``), so a checker can
tell which parts are known before the command runs and which are not, and can find every
nested script that will run (``$(…)``, backticks, ``<(…)``, here-documents).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field

from ..records import record

GLOB_CHARS = frozenset("*?[")


class ShellSyntaxError(ValueError):
    """The text is not a complete, valid command (unterminated quote, missing ``fi``…)."""


@record(slots=True)
class Lit:
    """Literal text after quote removal; ``quoted`` when it was quoted or escaped."""

    text: str
    quoted: bool = False


@record(slots=True)
class Param:
    """``$name`` / ``${name}`` (also the special ``$@``, ``$1``, ``$?``...)."""

    name: str
    quoted: bool = False


@record(slots=True)
class Subst:
    """A command or process substitution: ``$(…)``, ```…```, ``<(…)``, ``>(…)``."""

    script: Script
    quoted: bool = False


@record(slots=True)
class Opaque:
    """An expansion whose value cannot be known before running (``${x%y}``, ``$((…))``)."""

    raw: str
    quoted: bool = False
    nested: list[Script] = field(default_factory=list)
    """Scripts that run while it expands (``${x:-$(cmd)}``)."""


Piece = Lit | Param | Subst | Opaque


@record(slots=True)
class Word:
    pieces: list[Piece]
    raw: str
    """The word as written."""
    array: list[Word] | None = None
    """The elements of an array assignment ``name=(a b c)``."""

    def literal(self) -> str | None:
        """The word's value when it is literal text only, else None."""
        if not all(isinstance(p, Lit) for p in self.pieces):
            return None
        return "".join(p.text for p in self.pieces)  # type: ignore[union-attr]  # all Lit, checked above

    def is_plain(self, text: str | None = None) -> bool:
        """Unquoted literal text (a reserved-word candidate), optionally equal to ``text``."""
        if not (len(self.pieces) == 1 and isinstance(self.pieces[0], Lit) and not self.pieces[0].quoted):
            return False
        return text is None or self.pieces[0].text == text

    def has_glob(self) -> bool:
        """Whether an unquoted ``*``, ``?`` or ``[`` makes the shell expand it to file names."""
        return any(isinstance(p, Lit) and not p.quoted and GLOB_CHARS & set(p.text) for p in self.pieces)

    def scripts(self) -> Iterator[Script]:
        """Every script that runs while this word expands."""
        for piece in self.pieces:
            if isinstance(piece, Subst):
                yield piece.script
            elif isinstance(piece, Opaque):
                yield from piece.nested
        for element in self.array or ():
            yield from element.scripts()


@record(slots=True)
class Heredoc:
    body: str
    expands: bool
    """False when the delimiter was quoted: the body is taken as is."""
    nested: list[Script] = field(default_factory=list)


@record(slots=True)
class Redirect:
    op: str
    """``>``, ``>>``, ``>|``, ``<``, ``<>``, ``&>``, ``&>>``, ``>&``, ``<&``, ``<<``, ``<<-``, ``<<<``."""
    fd: int | None
    target: Word | None = None
    """The file, the fd of a duplication, a here-string, or a here-document's delimiter."""
    heredoc: Heredoc | None = None

    @property
    def writes(self) -> bool:
        """Whether it opens its target for writing (a file, unless it duplicates an fd)."""
        return self.op in (">", ">>", ">|", "<>", "&>", "&>>", ">&")


@record(slots=True)
class Assignment:
    name: str
    value: Word


@record(slots=True)
class Simple:
    assignments: list[Assignment]
    words: list[Word]
    redirects: list[Redirect]


@record(slots=True)
class Compound:
    kind: str
    """``subshell``, ``group``, ``if``, ``while``, ``until``, ``for``, ``case``, ``function``, ``arith``, ``test``."""
    bodies: list[Script]
    words: list[Word] = field(default_factory=list)
    """For-loop words, the case subject and patterns, the words of ``[[ … ]]`` or ``(( … ))``."""
    name: str | None = None
    """The loop variable of ``for``/``select``, or the function's name."""
    redirects: list[Redirect] = field(default_factory=list)


Command = Simple | Compound


@record(slots=True)
class Pipeline:
    commands: list[Command]
    negated: bool = False


@record(slots=True)
class AndOr:
    pipelines: list[Pipeline]
    ops: list[str] = field(default_factory=list)
    """``&&`` / ``||`` between consecutive pipelines."""
    background: bool = False


@record(slots=True)
class Script:
    items: list[AndOr] = field(default_factory=list)
