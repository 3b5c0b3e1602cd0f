"""Shared fixtures for session tests: fixture files copied into a temp folder, a temp agent dir."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy a fixture session into tmp_path and return the copy's path."""

    def copy(name: str) -> Path:
        return Path(shutil.copy(FIXTURES / name, tmp_path / name))

    return copy


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the agent dir (and so the sessions root) at a temp folder."""
    directory = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(directory))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    return directory
