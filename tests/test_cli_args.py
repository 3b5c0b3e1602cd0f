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
