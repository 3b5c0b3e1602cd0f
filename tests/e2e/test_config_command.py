"""``pi config`` (Pi's resource toggles) is a command, never a prompt (issue #37: it started a
session and sent "config" to the model). pi does not have it yet and says so in one line."""

from __future__ import annotations

from e2e_support import assert_one_line_error, run_pi


def test_pi_config_says_it_is_not_there_and_sends_nothing(env, loopback):
    done = run_pi(["config"], env)
    assert done.returncode == 1
    assert_one_line_error(done.stderr)
    assert "pi config" in done.stderr and loopback.requests == []
