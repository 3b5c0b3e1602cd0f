"""Tokens of a bash command line: words (with quoting and expansions), operators, redirections.

The lexer does what bash does before parsing: it removes line continuations, quotes and
backslashes (``r\\m``, ``"rm"`` and ``r''m`` are all the word ``rm``), decodes ``$'…'``,
and reads ``$(…)``, backticks and ``<(…)`` by handing the text to the parser (a callback,
so the two modules do not import each other). Here-document bodies are read at the
newline that follows their operator.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..records import record
from .shell_syntax import Heredoc, Lit, Opaque, Param, Piece, Redirect, Script, ShellSyntaxError, Subst, Word

NestedParser = Callable[[str, int, int], tuple[Script, int]]
"""Parse a script from ``pos`` up to an unmatched ``)``; returns it and the position after ``)``."""
FullParser = Callable[[str, int], Script]
"""Parse a whole text (a backtick substitution's body, a here-document) at a nesting depth."""

_METACHARS = frozenset(" \t\n;&|()<>")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$")
_FD = re.compile(r"[0-9]+(?=[<>])")
_REDIRECTS = ("<<<", "<<-", "&>>", "<<", "<>", "<&", ">>", ">&", ">|", "&>", "<", ">")
_OPERATORS = (";;&", "&&", "||", "|&", ";;", ";&", "&", "|", ";", "(", ")")
_SPECIAL_PARAMS = frozenset("0123456789@*#?$!-")
_ANSI = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
                "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
MAX_DEPTH = 50
"""Nested substitutions deeper than this are refused (and the command counts as unparseable)."""


def _ansi_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "xuU":
        return chr(min(int(code[1:], 16), 0x10FFFF))
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    if code[0] == "c" and len(code) == 2:
        return chr(ord(code[1].upper()) ^ 0x40)
    return _ANSI_SIMPLE.get(code, "\\" + code)


@record(slots=True)
class Token:
    kind: str
    """``word``, ``op`` (including ``\\n``), ``redir`` or ``eof``."""
    value: str = ""
    word: Word | None = None
    fd: int | None = None
    start: int = 0
    """Where the token begins in the text."""


class Lexer:
    def __init__(self, text: str, pos: int, nested: NestedParser, full: FullParser, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise ShellSyntaxError("substitutions nested too deeply")
        self.text = text
        self.pos = pos
        self._nested = nested
        self._full = full
        self.depth = depth
        self.test_mode = False
        """Inside ``[[ … ]]``: ``<``, ``>``, ``(``, ``)``, ``&&``, ``||`` are words there."""
        self.pending_heredocs: list[Redirect] = []

    # ------------------------------------------------------------------ tokens

    def next(self) -> Token:
        self._skip_blanks()
        start = self.pos
        token = self._next()
        token.start = start
        return token

    def _next(self) -> Token:
        text, pos = self.text, self.pos
        if pos >= len(text):
            return Token("eof")
        char = text[pos]
        if char == "\n":
            self.pos += 1
            self._read_heredocs()
            return Token("op", "\n")
        if self.test_mode:
            for op in ("&&", "||", "(", ")", "<", ">"):
                if text.startswith(op, pos):
                    self.pos += len(op)
                    return Token("word", op, Word([Lit(op)], op))
        fd_match = _FD.match(text, pos)
        fd = int(fd_match.group(0)) if fd_match else None
        at = fd_match.end() if fd_match else pos
        if fd is not None or not text.startswith(("<(", ">("), at):
            for op in _REDIRECTS:
                if text.startswith(op, at):
                    self.pos = at + len(op)
                    return Token("redir", op, fd=fd)
            for op in _OPERATORS:
                if text.startswith(op, pos):
                    self.pos += len(op)
                    return Token("op", op)
        word = self.read_word()
        return Token("word", word.raw, word)

    def rewind(self, pos: int) -> None:
        """Go back to ``pos`` (the start of a token the parser wants to read differently)."""
        self.pos = pos

    def at_arith_command(self) -> str | None:
        """At ``(( … ))``: consume it and return its body; otherwise None (nothing consumed)."""
        self._skip_blanks()
        if not self.text.startswith("((", self.pos):
            return None
        end = self._match_arith(self.pos + 2)
        if end is None:
            return None
        body = self.text[self.pos + 2:end]
        self.pos = end + 2
        return body

    def _skip_blanks(self) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif text.startswith("\\\n", self.pos):
                self.pos += 2
            elif char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end == -1 else end
            else:
                return

    # ------------------------------------------------------------------ words

    def read_word(self) -> Word:
        text, start = self.text, self.pos
        pieces: list[Piece] = []
        array: list[Word] | None = None
        while self.pos < len(text):
            char = text[self.pos]
            if char in "<>" and text.startswith("(", self.pos + 1):
                script, self.pos = self._nested(text, self.pos + 2, self.depth + 1)
                pieces.append(Subst(script))
                continue
            if char in _METACHARS:
                break
            if char == "\\":
                if text.startswith("\n", self.pos + 1):
                    self.pos += 2
                elif self.pos + 1 < len(text):
                    _add(pieces, text[self.pos + 1], True)
                    self.pos += 2
                else:
                    _add(pieces, "\\", False)
                    self.pos += 1
            elif char == "'":
                end = text.find("'", self.pos + 1)
                if end == -1:
                    raise ShellSyntaxError("unterminated single quote")
                _add(pieces, text[self.pos + 1:end], True)
                self.pos = end + 1
            elif char == '"':
                self.pos = self.read_dquoted(self.pos + 1, pieces, '"')
            elif char == "$":
                self.pos = self._read_dollar(self.pos, pieces, False)
            elif char == "`":
                self.pos = self._read_backtick(self.pos, pieces, False)
            else:
                _add(pieces, char, False)
                self.pos += 1
                if char == "=" and text.startswith("(", self.pos) and _plain_prefix(pieces):
                    array = self._read_array()
        return Word(pieces, text[start:self.pos], array)

    def _read_array(self) -> list[Word]:
        self.pos += 1  # the "("
        elements: list[Word] = []
        while True:
            self._skip_blanks()
            if self.pos >= len(self.text):
                raise ShellSyntaxError("unterminated array assignment")
            char = self.text[self.pos]
            if char == ")":
                self.pos += 1
                return elements
            if char == "\n":
                self.pos += 1
                continue
            if char in _METACHARS and not self.text.startswith(("<(", ">("), self.pos):
                raise ShellSyntaxError(f"unexpected {char!r} in an array assignment")
            elements.append(self.read_word())

    def read_dquoted(self, pos: int, pieces: list[Piece], closing: str | None) -> int:
        """Read double-quoted text (or a here-document body when ``closing`` is None)."""
        text = self.text
        while pos < len(text):
            char = text[pos]
            if closing is not None and char == closing:
                return pos + 1
            if char == "\\" and pos + 1 < len(text) and text[pos + 1] in '$`"\\\n':
                if text[pos + 1] != "\n":
                    _add(pieces, text[pos + 1], True)
                pos += 2
            elif char == "$":
                pos = self._read_dollar(pos, pieces, True)
            elif char == "`":
                pos = self._read_backtick(pos, pieces, True)
            else:
                _add(pieces, char, True)
                pos += 1
        if closing is not None:
            raise ShellSyntaxError("unterminated double quote")
        return pos

    def _read_dollar(self, pos: int, pieces: list[Piece], quoted: bool) -> int:
        text = self.text
        after = text[pos + 1] if pos + 1 < len(text) else ""
        if after == "'" and not quoted:
            end = pos + 2
            while end < len(text) and text[end] != "'":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise ShellSyntaxError("unterminated $'...' string")
            _add(pieces, _ANSI.sub(_ansi_escape, text[pos + 2:end]), True)
            return end + 1
        if after == '"' and not quoted:
            return self.read_dquoted(pos + 2, pieces, '"')
        if text.startswith("((", pos + 1):
            closing = self._match_arith(pos + 3)
            if closing is not None:
                body = text[pos + 3:closing]
                pieces.append(Opaque(text[pos:closing + 2], quoted, self.scripts_in(body)))
                return closing + 2
        if after == "(":
            script, end = self._nested(text, pos + 2, self.depth + 1)
            pieces.append(Subst(script, quoted))
            return end
        if after == "{":
            end = self._match_brace(pos + 2)
            body = text[pos + 2:end]
            if _NAME.fullmatch(body) or (len(body) == 1 and body in _SPECIAL_PARAMS):
                pieces.append(Param(body, quoted))
            else:
                pieces.append(Opaque(text[pos:end + 1], quoted, self.scripts_in(body)))
            return end + 1
        name = _NAME.match(text, pos + 1)
        if name is not None:
            pieces.append(Param(name.group(0), quoted))
            return name.end()
        if after and after in _SPECIAL_PARAMS:
            pieces.append(Param(after, quoted))
            return pos + 2
        _add(pieces, "$", quoted)
        return pos + 1

    def _read_backtick(self, pos: int, pieces: list[Piece], quoted: bool) -> int:
        text = self.text
        body: list[str] = []
        pos += 1
        while pos < len(text) and text[pos] != "`":
            if text[pos] == "\\" and pos + 1 < len(text) and text[pos + 1] in "$`\\":
                body.append(text[pos + 1])
                pos += 2
            else:
                body.append(text[pos])
                pos += 1
        if pos >= len(text):
            raise ShellSyntaxError("unterminated backtick substitution")
        pieces.append(Subst(self._full("".join(body), self.depth + 1), quoted))
        return pos + 1

    def scripts_in(self, body: str) -> list[Script]:
        """The substitutions inside an expansion's text (``${x:-$(cmd)}``, ``$(( $(n) + 1 ))``)."""
        if "$" not in body and "`" not in body:
            return []
        inner = Lexer(body, 0, self._nested, self._full, self.depth + 1)
        found: list[Piece] = []
        inner.read_dquoted(0, found, None)
        scripts: list[Script] = []
        for piece in found:
            if isinstance(piece, Subst):
                scripts.append(piece.script)
            elif isinstance(piece, Opaque):
                scripts.extend(piece.nested)
        return scripts

    def _match_arith(self, pos: int) -> int | None:
        """The index of the ``))`` closing an arithmetic expansion whose body starts at ``pos``."""
        text, depth = self.text, 0
        while pos < len(text):
            char = text[pos]
            if char in "'\"":
                end = text.find(char, pos + 1)
                if end == -1:
                    return None
                pos = end
            elif char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    return pos if text.startswith("))", pos) else None
                depth -= 1
            pos += 1
        return None

    def _match_brace(self, pos: int) -> int:
        """The index of the ``}`` closing ``${`` whose body starts at ``pos``."""
        text, depth = self.text, 0
        while pos < len(text):
            char = text[pos]
            if char == "\\":
                pos += 2
                continue
            if char == "'":
                end = text.find("'", pos + 1)
                pos = len(text) if end == -1 else end + 1
                continue
            if char == '"':
                pos = self.read_dquoted(pos + 1, [], '"')
                continue
            if text.startswith("$(", pos):
                _, pos = self._nested(text, pos + 2, self.depth + 1)
                continue
            if text.startswith("${", pos):
                depth += 1
                pos += 2
                continue
            if char == "}":
                if depth == 0:
                    return pos
                depth -= 1
            pos += 1
        raise ShellSyntaxError("unterminated ${...} expansion")

    # ------------------------------------------------------------------ here-documents

    def _read_heredocs(self) -> None:
        pending, self.pending_heredocs = self.pending_heredocs, []
        for redirect in pending:
            assert redirect.target is not None
            delimiter = redirect.target.literal()
            quoted = any(isinstance(p, Lit) and p.quoted for p in redirect.target.pieces)
            if delimiter is None:
                delimiter = "".join(p.text for p in redirect.target.pieces if isinstance(p, Lit))
            lines: list[str] = []
            text = self.text
            while self.pos < len(text):
                end = text.find("\n", self.pos)
                line = text[self.pos:] if end == -1 else text[self.pos:end]
                self.pos = len(text) if end == -1 else end + 1
                check = line.lstrip("\t") if redirect.op == "<<-" else line
                if check == delimiter:
                    break
                lines.append(check)
            body = "\n".join(lines) + ("\n" if lines else "")
            redirect.heredoc = Heredoc(body, not quoted, [] if quoted else self.scripts_in(body))

    def finish(self) -> None:
        """End of input: here-documents still pending run to the end (as bash does, with a warning)."""
        if self.pending_heredocs:
            self._read_heredocs()


def _add(pieces: list[Piece], text: str, quoted: bool) -> None:
    last = pieces[-1] if pieces else None
    if isinstance(last, Lit) and last.quoted == quoted:
        last.text += text
    else:
        pieces.append(Lit(text, quoted))


def _plain_prefix(pieces: list[Piece]) -> bool:
    """Whether the word so far is ``name=`` / ``name+=`` / ``name[i]=``, unquoted (an array follows)."""
    return len(pieces) == 1 and isinstance(pieces[0], Lit) and not pieces[0].quoted and bool(
        _ASSIGN_PREFIX.match(pieces[0].text))
