"""Flags whose checks happen after parsing, as in Pi: ``--provider`` without ``--model``."""

from __future__ import annotations

from e2e_support import assert_one_line_error, run_pi


def test_provider_alone_is_fine_for_help_and_list_models(loopback, env):
    helped = run_pi(["--provider", "loop", "--help"], env)
    assert helped.returncode == 0 and "--provider" in helped.stdout
    listed = run_pi(["--provider", "loop", "--list-models"], env)
    assert listed.returncode == 0, listed.stderr
    assert "loop-model" in listed.stdout


def test_provider_alone_cannot_start_a_session(loopback, env):
    result = run_pi(["--provider", "loop", "-p", "hi"], env)
    assert result.returncode == 2
    assert_one_line_error(result.stderr)
    assert result.stderr.strip() == "pi: --provider requires --model (for example: --provider loop --model <pattern>)"
    assert loopback.requests == []
