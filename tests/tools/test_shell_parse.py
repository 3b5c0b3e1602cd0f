"""The shell parser the permission gate relies on: what bash would run, found wherever it hides."""

from __future__ import annotations

import subprocess

import pytest

from pi_runtime.tools.shell_parse import parse
from pi_runtime.tools.shell_syntax import Compound, Script, ShellSyntaxError, Simple


def simple_commands(script: Script) -> list[list[str | None]]:
    """Every simple command, substitutions and bodies included, as literal words (None: not literal)."""
    found: list[list[str | None]] = []

    def walk(node: Script) -> None:
        for item in node.items:
            for pipeline in item.pipelines:
                for command in pipeline.commands:
                    if isinstance(command, Simple):
                        found.append([w.literal() for w in command.words])
                        for word in [*command.words, *(a.value for a in command.assignments)]:
                            for nested in word.scripts():
                                walk(nested)
                        for redirect in command.redirects:
                            for nested in redirect.heredoc.nested if redirect.heredoc else []:
                                walk(nested)
                    else:
                        assert isinstance(command, Compound)
                        for word in command.words:
                            for nested in word.scripts():
                                walk(nested)
                        for body in command.bodies:
                            walk(body)

    walk(script)
    return found


@pytest.mark.parametrize("text", ['"rm" -rf x', "r\\m -rf x", "'r'm -rf x", "rm \\\n -rf x", "{rm,-rf,x}", "$'\\x72m' -rf x"])
def test_quoting_and_escapes_are_removed_as_bash_does(text):
    assert simple_commands(parse(text)) == [["rm", "-rf", "x"]]
    # The same line, given to bash, runs the same words (echo them instead of running them).
    shown = subprocess.run(["bash", "-c", f"printf '%s\\n' {text}"], capture_output=True, text=True).stdout.split()
    assert shown == ["rm", "-rf", "x"]


def test_every_nested_command_is_found():
    text = ("a && (b; c) | d || { e; }; f $(g `h`) \"$(i)\" <(j) >(k) ${x:-$(l)} $((1 + $(m)));"
            " if n; then o; elif p; then q; else r; fi; while s; do t; done; for v in 1 2; do w; done;"
            " case $z in a|b) y ;; *) z ;; esac; fn() { body; }; [[ -n $(tst) ]]; (( $(ar) > 1 ))")
    names = {cmd[0] for cmd in simple_commands(parse(text)) if cmd and cmd[0]}
    assert names >= set("abcdefghijklmnopqrstwyz") | {"body", "tst", "ar"}


def test_here_documents_and_strings():
    script = parse("cat <<EOF | sh\nrm -rf $(pwd)\nEOF\ncat <<'RAW'\n$(not run)\nRAW\necho after")
    first, _, third = script.items
    heredoc = first.pipelines[0].commands[0].redirects[0].heredoc
    assert heredoc.body == "rm -rf $(pwd)\n" and heredoc.expands
    assert sorted(c[0] for c in simple_commands(Script([first]))) == ["cat", "pwd", "sh"]
    assert simple_commands(Script([third])) == [["echo", "after"]]
    raw = script.items[1].pipelines[0].commands[0].redirects[0].heredoc
    assert raw.body == "$(not run)\n" and not raw.expands and not raw.nested


def test_operators_inside_test_and_arithmetic_are_not_redirections():
    for text in ("[[ $a > $b ]]", "(( a > 3 ))", "x=$(( a > 3 ))"):
        command = parse(text).items[0].pipelines[0].commands[0]
        assert not getattr(command, "redirects", [])


@pytest.mark.parametrize("text", ["echo 'open", 'echo "open', "echo $(open", "if true; then x", "for x in; do", "echo )",
                                  "case x in a) b", "{ echo", "echo `open", "x=(a b"])
def test_incomplete_commands_are_syntax_errors(text):
    with pytest.raises(ShellSyntaxError):
        parse(text)


@pytest.mark.parametrize("text", ["echo " + "$(" * 5000 + "x" + ")" * 5000, "( " * 5000 + "x" + " )" * 5000,
                                  "{ " * 5000 + "x;" + " }" * 5000])
def test_deep_nesting_is_an_error_not_a_crash(text):
    with pytest.raises(ShellSyntaxError):
        parse(text)
