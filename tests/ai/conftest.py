"""Shared fixtures for the LLM-layer tests: a real loopback HTTP server per test."""

from __future__ import annotations

from collections.abc import Iterator

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
