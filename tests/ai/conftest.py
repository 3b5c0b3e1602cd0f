"""Shared fixtures for the LLM-layer tests: a real loopback HTTP server per test, a clean AWS environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_runtime.testing.loopback import LoopbackServer


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started LoopbackServer on 127.0.0.1; stopped (stalled replies cancelled) afterwards."""
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No AWS variable from the machine; profiles read from a temp home; no instance metadata."""
    import os

    from pi_runtime.ai.providers.bedrock_converse import aws

    for name in list(os.environ):
        if name.startswith("AWS_") or name in ("PI_CACHE_RETENTION",):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / ".aws" / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / ".aws" / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    aws.forget_sessions()
    yield home
    aws.forget_sessions()


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    from bedrock_support import ACCESS, SECRET

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
