"""A model scope pattern (``--models``, ``enabledModels``) that matches nothing: Pi's warning, and the run goes on.

Pi 1.6 reports ``No models match pattern "<pattern>"`` for each such pattern and uses the ones
that match; pi says the same (one ``pi:`` line on stderr in the headless modes) instead of leaving
the pattern out silently (``enabledModels``) or stopping (``--models``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from e2e_support import run_pi, text_reply

from pi_runtime.testing.loopback import LoopbackServer

PI_REFERENCE = os.environ.get("PI_REFERENCE")


def _settings(env: dict[str, str], **values: object) -> None:
    path = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **values}))


def test_an_enabled_models_pattern_that_matches_nothing_is_named(env, loopback: LoopbackServer) -> None:
    _settings(env, enabledModels=["nosuch-model-xyz", "loop/loop-model"])
    loopback.push(text_reply("hello"))
    done = run_pi(["-p", "hi"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello"
    assert 'pi: No models match pattern "nosuch-model-xyz"' in done.stderr.splitlines()


def test_a_models_flag_pattern_that_matches_nothing_warns_and_the_rest_is_used(env, loopback: LoopbackServer) -> None:
    loopback.push(text_reply("scoped"))
    done = run_pi(["--models", "nosuch*,loop/loop-model", "-p", "hi"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "scoped"
    assert 'pi: No models match pattern "nosuch*"' in done.stderr.splitlines()


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_pi_1_6_words_it_the_same(env, loopback: LoopbackServer) -> None:
    assert PI_REFERENCE is not None
    _settings(env, enabledModels=["nosuch-model-xyz", "loop/loop-model"])
    loopback.push(text_reply("hello"))
    done = subprocess.run([PI_REFERENCE, "-p", "hi"], capture_output=True, text=True, env=env, timeout=60,
                          cwd=env["PI_TEST_PROJECT"], stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert 'Warning: No models match pattern "nosuch-model-xyz"' in done.stderr
