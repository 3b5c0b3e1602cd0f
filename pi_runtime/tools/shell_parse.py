"""Parse a bash command line into a :mod:`shell_syntax` tree.

Covers what a command line written by a person or a model uses: lists (``;``, ``&``,
``&&``, ``||``, newlines), pipelines, subshells, groups, ``if``/``while``/``until``/
``for``/``select``/``case``, functions, ``[[ … ]]``, ``(( … ))``, assignments (also
arrays), redirections, here-documents and here-strings, and every kind of substitution.
Unquoted brace expansion (``{a,b}``, ``{1..3}``) is applied to command words, since it
changes what runs (``{rm,-rf,x}`` is ``rm -rf x``).

Anything else — a syntax error, an unterminated quote, nesting too deep — raises
:class:`ShellSyntaxError`, so a caller that must be careful can treat the text as unknown.

Example:
    >>> script = parse("cd src && rm -rf build")
    >>> [w.literal() for w in script.items[0].pipelines[1].commands[0].words]
    ['rm', '-rf', 'build']
"""

from __future__ import annotations

import re

from .shell_braces import brace_expand
from .shell_lex import Lexer, Token
from .shell_syntax import (
    AndOr,
    Assignment,
    Command,
    Compound,
    Lit,
    Opaque,
    Piece,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Simple,
    Word,
)

_RESERVED_STARTS = frozenset({"{", "if", "while", "until", "for", "select", "case", "function", "[[", "coproc"})
_MISPLACED = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}", "in", "]]"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")


def parse(text: str) -> Script:
    """Parse a whole command line.

    Raises:
        ShellSyntaxError: It is not valid (or too deeply nested to check).
    """
    try:
        return _parse_full(text, 0)
    except RecursionError:
        raise ShellSyntaxError("nested too deeply") from None


def _parse_full(text: str, depth: int) -> Script:
    parser = _Parser(Lexer(text, 0, _parse_nested, _parse_full, depth))
    script = parser.script(frozenset(), frozenset())
    token = parser.peek()
    if token.kind != "eof":
        raise ShellSyntaxError(f"unexpected {token.value!r}")
    parser.lexer.finish()
    return script


def _parse_nested(text: str, pos: int, depth: int) -> tuple[Script, int]:
    parser = _Parser(Lexer(text, pos, _parse_nested, _parse_full, depth))
    script = parser.script(frozenset({")"}), frozenset())
    parser.expect_op(")")
    return script, parser.lexer.pos


class _Parser:
    def __init__(self, lexer: Lexer) -> None:
        self.lexer = lexer
        self._ahead: Token | None = None

    # ------------------------------------------------------------------ tokens

    def peek(self) -> Token:
        if self._ahead is None:
            self._ahead = self.lexer.next()
        return self._ahead

    def take(self) -> Token:
        token = self.peek()
        self._ahead = None
        return token

    def expect_op(self, op: str) -> None:
        token = self.take()
        if token.kind != "op" or token.value != op:
            raise ShellSyntaxError(f"expected {op!r}, found {token.value or 'end of input'!r}")

    def expect_word(self, text: str) -> None:
        token = self.take()
        if token.kind != "word" or token.word is None or not token.word.is_plain(text):
            raise ShellSyntaxError(f"expected {text!r}, found {token.value or 'end of input'!r}")

    def _is_op(self, *ops: str) -> bool:
        token = self.peek()
        return token.kind == "op" and token.value in ops

    def _is_word(self, words: frozenset[str]) -> bool:
        token = self.peek()
        return token.kind == "word" and token.word is not None and token.word.is_plain() and token.value in words

    def _skip_newlines(self) -> None:
        while self._is_op("\n"):
            self.take()

    # ------------------------------------------------------------------ lists

    def script(self, end_ops: frozenset[str], end_words: frozenset[str]) -> Script:
        """Commands until one of ``end_ops`` / ``end_words`` (not consumed) or the end."""
        items: list[AndOr] = []
        while True:
            self._skip_newlines()
            token = self.peek()
            if token.kind == "eof" or (token.kind == "op" and token.value in end_ops) or self._is_word(end_words):
                return Script(items)
            item = self._and_or()
            items.append(item)
            if self._is_op(";", "&", "\n"):
                item.background = self.take().value == "&"
            elif not (self.peek().kind == "eof" or self._is_op(*end_ops) or self._is_word(end_words)):
                raise ShellSyntaxError(f"unexpected {self.peek().value!r}")

    def _and_or(self) -> AndOr:
        item = AndOr([self._pipeline()])
        while self._is_op("&&", "||"):
            item.ops.append(self.take().value)
            self._skip_newlines()
            item.pipelines.append(self._pipeline())
        return item

    def _pipeline(self) -> Pipeline:
        negated = False
        while self._is_word(frozenset({"!", "time"})):
            negated ^= self.take().value == "!"
            if self._is_word(frozenset({"-p"})):
                self.take()
        pipeline = Pipeline([self._command()], negated)
        while self._is_op("|", "|&"):
            self.take()
            self._skip_newlines()
            pipeline.commands.append(self._command())
        return pipeline

    # ------------------------------------------------------------------ commands

    def _arith(self) -> str | None:
        """An ``(( … ))`` at the next token: its body (consumed), else None."""
        token = self.peek()
        if token.kind != "op" or token.value != "(" or not self.lexer.text.startswith("((", token.start):
            return None
        self.lexer.rewind(token.start)
        self._ahead = None
        body = self.lexer.at_arith_command()
        if body is None:  # "( (" after all: nested subshells
            self.lexer.rewind(token.start)
        return body

    def _command(self) -> Command:
        arith = self._arith()
        if arith is not None:
            return self._redirected(Compound("arith", [], [_opaque(arith, self.lexer)]))
        token = self.peek()
        if token.kind == "op" and token.value == "(":
            self.take()
            body = self.script(frozenset({")"}), frozenset())
            self.expect_op(")")
            return self._redirected(Compound("subshell", [body]))
        if token.kind == "word" and token.word is not None and token.word.is_plain():
            if token.value in _RESERVED_STARTS:
                return self._redirected(self._compound(self.take().value))
            if token.value in _MISPLACED:
                raise ShellSyntaxError(f"unexpected {token.value!r}")
        if token.kind not in ("word", "redir"):
            raise ShellSyntaxError(f"expected a command, found {token.value or 'end of input'!r}")
        return self._simple()

    def _redirected(self, command: Compound) -> Compound:
        while self.peek().kind == "redir":
            command.redirects.append(self._redirect(self.take()))
        return command

    def _compound(self, keyword: str) -> Compound:
        if keyword == "{":
            body = self.script(frozenset(), frozenset({"}"}))
            self.expect_word("}")
            return Compound("group", [body])
        if keyword == "if":
            bodies: list[Script] = []
            while True:
                bodies.append(self.script(frozenset(), frozenset({"then"})))
                self.expect_word("then")
                bodies.append(self.script(frozenset(), frozenset({"elif", "else", "fi"})))
                word = self.take().value
                if word == "elif":
                    continue
                if word == "else":
                    bodies.append(self.script(frozenset(), frozenset({"fi"})))
                    self.expect_word("fi")
                elif word != "fi":
                    raise ShellSyntaxError("expected 'fi'")
                return Compound("if", bodies)
        if keyword in ("while", "until"):
            condition = self.script(frozenset(), frozenset({"do"}))
            self.expect_word("do")
            body = self.script(frozenset(), frozenset({"done"}))
            self.expect_word("done")
            return Compound(keyword, [condition, body])
        if keyword in ("for", "select"):
            return self._for(keyword)
        if keyword == "case":
            return self._case()
        if keyword == "function":
            name = self.take()
            if name.kind != "word":
                raise ShellSyntaxError("expected a function name")
            if self._is_op("("):
                self.take()
                self.expect_op(")")
            self._skip_newlines()
            return Compound("function", [Script([AndOr([Pipeline([self._command()])])])], name=name.value)
        if keyword == "[[":
            self.lexer.test_mode = True
            words: list[Word] = []
            try:
                while not self._is_word(frozenset({"]]"})):
                    token = self.take()
                    if token.kind != "word" or token.word is None:
                        raise ShellSyntaxError("unterminated [[ ... ]]")
                    words.append(token.word)
            finally:
                self.lexer.test_mode = False
            self.take()
            return Compound("test", [], words)
        # coproc [NAME] command: the command is what runs.
        return Compound("group", [Script([AndOr([Pipeline([self._command()])])])])

    def _for(self, keyword: str) -> Compound:
        arith = self._arith()
        if arith is not None:  # for (( i = 0; i < n; i++ ))
            if self._is_op(";", "\n"):
                self.take()
            self._skip_newlines()
            return Compound("for", [self._loop_body()], [_opaque(arith, self.lexer)])
        name = self.take()
        if name.kind != "word" or name.word is None or not name.word.is_plain():
            raise ShellSyntaxError(f"expected a name after '{keyword}'")
        words = []
        self._skip_newlines()
        if self._is_word(frozenset({"in"})):
            self.take()
            while self.peek().kind == "word":
                token = self.take()
                assert token.word is not None
                words.extend(brace_expand(token.word))
            if not self._is_op(";", "\n"):
                raise ShellSyntaxError(f"expected ';' or a newline in '{keyword}'")
        else:
            words = [Word([Opaque('"$@"')], '"$@"')]  # no "in": the positional parameters
        if self._is_op(";", "\n"):
            self.take()
        self._skip_newlines()
        return Compound(keyword, [self._loop_body()], words, name=name.value)

    def _loop_body(self) -> Script:
        if self._is_word(frozenset({"{"})):
            self.take()
            body = self.script(frozenset(), frozenset({"}"}))
            self.expect_word("}")
            return body
        self.expect_word("do")
        body = self.script(frozenset(), frozenset({"done"}))
        self.expect_word("done")
        return body

    def _case(self) -> Compound:
        subject = self.take()
        if subject.kind != "word" or subject.word is None:
            raise ShellSyntaxError("expected a word after 'case'")
        words = [subject.word]
        self._skip_newlines()
        self.expect_word("in")
        bodies: list[Script] = []
        while True:
            self._skip_newlines()
            if self._is_word(frozenset({"esac"})):
                self.take()
                return Compound("case", bodies, words)
            if self._is_op("("):
                self.take()
            while True:
                pattern = self.take()
                if pattern.kind != "word" or pattern.word is None:
                    raise ShellSyntaxError("expected a case pattern")
                words.append(pattern.word)
                if self._is_op("|"):
                    self.take()
                    continue
                self.expect_op(")")
                break
            bodies.append(self.script(_CASE_ENDS, frozenset({"esac"})))
            if self._is_op(*_CASE_ENDS):
                self.take()

    def _simple(self) -> Command:
        command = Simple([], [], [])
        while True:
            token = self.peek()
            if token.kind == "redir":
                command.redirects.append(self._redirect(self.take()))
                continue
            if token.kind != "word" or token.word is None:
                break
            self.take()
            word = token.word
            if not command.words:
                assignment = _assignment(word)
                if assignment is not None:
                    command.assignments.append(assignment)
                    continue
                if not (command.assignments or command.redirects) and self._is_op("("):
                    return self._function(word)
            command.words.extend(brace_expand(word))
        if not (command.words or command.assignments or command.redirects):
            raise ShellSyntaxError("expected a command")
        return command

    def _function(self, name: Word) -> Compound:
        """``name() body``: a definition runs nothing now, its body is kept for checkers."""
        self.take()
        self.expect_op(")")
        self._skip_newlines()
        body = Script([AndOr([Pipeline([self._command()])])])
        return Compound("function", [body], name=name.literal())

    def _redirect(self, token: Token) -> Redirect:
        target = self.take()
        if target.kind != "word" or target.word is None:
            raise ShellSyntaxError(f"expected a file name after {token.value!r}")
        redirect = Redirect(token.value, token.fd, target.word)
        if token.value in ("<<", "<<-"):
            self.lexer.pending_heredocs.append(redirect)
        return redirect


def _opaque(body: str, lexer: Lexer) -> Word:
    scripts = lexer.scripts_in(body)
    return Word([Opaque(f"(({body}))", False, scripts)], f"(({body}))")


def _assignment(word: Word) -> Assignment | None:
    first = word.pieces[0] if word.pieces else None
    if not isinstance(first, Lit) or first.quoted:
        return None
    match = _ASSIGNMENT.match(first.text)
    if match is None:
        return None
    rest: list[Piece] = [Lit(first.text[match.end():])] if match.end() < len(first.text) else []
    value = Word(rest + word.pieces[1:], word.raw[match.end():], word.array)
    return Assignment(match.group(1), value)
