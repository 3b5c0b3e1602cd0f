"""Brace expansion: ``{a,b}c`` is ``ac bc``, ``{1..3}`` is ``1 2 3``, before anything else expands.

It matters to a checker because it can build a command out of pieces: ``{rm,-rf,x}`` runs
``rm -rf x``. Only unquoted braces expand; ``${…}`` never reaches here (it is a parameter).
"""

from __future__ import annotations

import re

from .shell_syntax import Lit, Piece, ShellSyntaxError, Word

_SEQUENCE = re.compile(r"(-?[0-9]+)\.\.(-?[0-9]+)(?:\.\.(-?[0-9]+))?|([A-Za-z])\.\.([A-Za-z])")
MAX_BRACE_WORDS = 256


_Atom = str | Piece
"""One unquoted character (a brace, comma or other), or a piece brace expansion does not look into."""


def brace_expand(word: Word) -> list[Word]:
    """The words ``{a,b}`` / ``{1..3}`` expand to (the word itself when there is none).

    Raises:
        ShellSyntaxError: The expansion would make more than ``MAX_BRACE_WORDS`` words.
    """
    if not any(isinstance(p, Lit) and not p.quoted and "{" in p.text for p in word.pieces):
        return [word]
    atoms: list[_Atom] = []
    for piece in word.pieces:
        if isinstance(piece, Lit) and not piece.quoted:
            atoms.extend(piece.text)
        else:
            atoms.append(piece)
    expanded = _expand(atoms)
    if len(expanded) == 1:
        return [word]
    return [Word(_pieces(atoms), word.raw) for atoms in expanded]


def _expand(atoms: list[_Atom]) -> list[list[_Atom]]:
    for start, atom in enumerate(atoms):
        if atom != "{":
            continue
        depth, commas, close = 0, [], None
        for index in range(start + 1, len(atoms)):
            item = atoms[index]
            if item == "{":
                depth += 1
            elif item == "}":
                if depth == 0:
                    close = index
                    break
                depth -= 1
            elif item == "," and depth == 0:
                commas.append(index)
        if close is None:
            continue
        inner = atoms[start + 1:close]
        if commas:
            bounds = [start, *commas, close]
            choices = [atoms[a + 1:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        else:
            sequence = _sequence(inner)
            if sequence is None:
                continue
            choices = [list(item) for item in sequence]
        out: list[list[_Atom]] = []
        for choice in choices:
            out.extend(_expand(atoms[:start] + choice + atoms[close + 1:]))
            if len(out) > MAX_BRACE_WORDS:
                raise ShellSyntaxError("brace expansion makes too many words")
        return out
    return [atoms]


def _sequence(inner: list[_Atom]) -> list[str] | None:
    if not all(isinstance(a, str) for a in inner):
        return None
    match = _SEQUENCE.fullmatch("".join(inner))  # type: ignore[arg-type]  # all str, checked above
    if match is None:
        return None
    if match.group(4):
        first, last = ord(match.group(4)), ord(match.group(5))
        step = 1 if last >= first else -1
        return [chr(c) for c in range(first, last + step, step)]
    first, last = int(match.group(1)), int(match.group(2))
    step = abs(int(match.group(3) or 1)) or 1
    step = step if last >= first else -step
    if abs(last - first) // abs(step) > MAX_BRACE_WORDS:
        raise ShellSyntaxError("brace expansion makes too many words")
    return [str(n) for n in range(first, last + (1 if step > 0 else -1), step)]


def _pieces(atoms: list[_Atom]) -> list[Piece]:
    pieces: list[Piece] = []
    for atom in atoms:
        if isinstance(atom, str):
            if pieces and isinstance(pieces[-1], Lit) and not pieces[-1].quoted:
                pieces[-1] = Lit(pieces[-1].text + atom)
            else:
                pieces.append(Lit(atom))
        else:
            pieces.append(atom)
    return pieces
