"""``!command`` credentials run as real shell commands: background jobs, timeouts, stderr."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_runtime.ai.credentials import DEFAULT_COMMAND_TIMEOUT, CredentialError, clear_command_cache, resolve_value
from pi_runtime.testing.waiting import wait_until


@pytest.fixture(autouse=True)
def _fresh_command_cache() -> Iterator[None]:
    clear_command_cache()
    yield
    clear_command_cache()


@pytest.fixture
def pid_file(tmp_path: Path) -> Iterator[Path]:
    """Where a test's background job writes its pid, so the test can end it."""
    path = tmp_path / "bg.pid"
    yield path
    if path.exists():
        for line in path.read_text().split():
            try:
                os.kill(int(line), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass


def test_a_background_job_holding_the_output_does_not_hold_the_key(pid_file: Path) -> None:
    # The job inherits stdout and keeps it open for 60 s; the shell itself exits at once. Waiting for
    # the job, or for the 30 s timeout, is told apart from not waiting even on a loaded machine.
    started = time.monotonic()
    key = resolve_value(f"!sleep 60 & echo $! > {pid_file}; echo sk-from-shell", where="k", timeout=30)
    assert key == "sk-from-shell"
    assert time.monotonic() - started < 15


def test_a_detached_job_is_left_alone_and_does_not_hang(pid_file: Path) -> None:
    # setsid puts the job out of the shell's process group: nothing may wait for it.
    started = time.monotonic()
    key = resolve_value(f"!setsid sh -c 'echo $$ > {pid_file}; sleep 60' & echo sk-detached", where="k", timeout=30)
    assert key == "sk-detached" and time.monotonic() - started < 15
    assert wait_until(lambda: pid_file.exists() and pid_file.read_text().strip())
    os.kill(int(pid_file.read_text()), 0)  # still running: not killed, not waited for


def test_the_timeout_holds_even_when_a_detached_job_keeps_the_pipe(pid_file: Path) -> None:
    started = time.monotonic()
    with pytest.raises(CredentialError, match=r"^k: command `.*` timed out after 1s$"):
        resolve_value(f"!setsid sh -c 'echo $$ > {pid_file}; sleep 60' & sleep 60", where="k", timeout=1)
    assert 0.9 < time.monotonic() - started < 15  # the timeout, not the jobs' 60 s


def test_the_default_timeout_is_pis() -> None:
    assert DEFAULT_COMMAND_TIMEOUT == 10


def test_a_failing_commands_stderr_is_not_kept() -> None:
    with pytest.raises(CredentialError) as info:
        resolve_value("!echo token-in-stderr-991 >&2; exit 4", where="models.json providers.x.apiKey")
    assert str(info.value) == "models.json providers.x.apiKey: command `echo …` failed with exit status 4"


def test_resolved_values_and_their_parts_are_remembered_as_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_runtime.ai import redaction

    monkeypatch.setenv("PI_TEST_TOKEN_PART", "env-part-31337")
    assert resolve_value("Bearer org-${PI_TEST_TOKEN_PART}", where="h") == "Bearer org-env-part-31337"
    assert resolve_value("!echo cmd-output-777", where="k") == "cmd-output-777"
    assert resolve_value("literal-header-4242", where="h") == "literal-header-4242"
    text = "server said: env-part-31337 / cmd-output-777 / literal-header-4242 / Bearer org-env-part-31337"
    assert redaction.redact(text) == "server said: [redacted] / [redacted] / [redacted] / [redacted]"
