"""The command-line parser (Pi's flags) and the checks the CLI makes after it."""

from __future__ import annotations

import pytest

from pi_runtime.cli_args import UsageError, check_model_choice, parse_args


def test_provider_without_model_parses_and_the_cli_rejects_it_later() -> None:
    # As Pi: its parser accepts the flag alone; its CLI rejects it when a session would start.
    args = parse_args(["--provider", "loop", "-p", "hi"])
    assert args.provider == "loop" and args.model is None and args.print_mode
    with pytest.raises(UsageError, match=r"^--provider requires --model \(for example: --provider loop --model <pattern>\)$"):
        check_model_choice(args)
    check_model_choice(parse_args(["--provider", "loop", "--model", "loop-model"]))


def test_provider_still_needs_a_value() -> None:
    with pytest.raises(UsageError, match="Option --provider needs a value"):
        parse_args(["-p", "hi", "--provider"])


def test_each_command_line_has_its_own_lists() -> None:
    first = parse_args(["-e", "a.py", "--skill", "s", "hi"])
    second = parse_args([])
    assert first.extensions == ["a.py"] and first.skills == ["s"] and first.messages == ["hi"]
    assert second.extensions == [] and second.skills == [] and second.messages == []


def test_replaced_copies_the_lists_and_refuses_unknown_names() -> None:
    args = parse_args(["-e", "a.py", "--model", "m", "first"])
    copy = args.replaced(model="n", messages=[])
    copy.extensions.append("b.py")
    assert (copy.model, copy.messages, copy.extensions) == ("n", [], ["a.py", "b.py"])
    assert (args.model, args.messages, args.extensions) == ("m", ["first"], ["a.py"])
    with pytest.raises(TypeError, match="no field 'modle'"):
        args.replaced(modle="x")


def test_parsing_compiles_no_code() -> None:
    # A dataclass's generated __init__ for the 50 fields was 8.5 M instructions of every run.
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pi_runtime.cli_args import parse_args\n"
        "seen = []\n"
        "sys.addaudithook(lambda event, args: seen.append(event) if event in ('compile', 'exec') else None)\n"
        "parse_args(['-p', 'hi', '--model', 'm'])\n"
        "print(len(seen))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"
