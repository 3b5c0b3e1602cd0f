"""Start-up pays for MCP only when a server is configured (and for the SDK only once it connects),
and for pi packages only when settings declare some."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded_after_build(agent: Path, project: Path) -> list[str]:
    code = textwrap.dedent(
        """
        import sys
        from pi_runtime.cli_args import parse_args
        from pi_runtime.modes.startup import build_session
        session = build_session(parse_args(["-p", "hi", "--no-session"]))
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "anyio")
                              or m.startswith(("pi_runtime.mcp", "pi_runtime.packages")))))
        """
    )
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "HOME": str(agent.parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return [m for m in out.stdout.strip().split(",") if m]


def test_no_mcp_json_and_no_packages_import_only_the_two_checks(tmp_path):
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    # The package __init__ modules hold the checks (two stats, a dict lookup); nothing else loads.
    assert loaded_after_build(agent, project) == ["pi_runtime.mcp", "pi_runtime.packages"]


def test_a_configured_server_loads_the_sdk_only_when_it_connects(tmp_path):
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"t": {"command": "true"}}}))
    loaded = loaded_after_build(agent, project)
    assert "pi_runtime.mcp.manager" in loaded
    assert not any(m.split(".")[0] in ("mcp", "mcp_types", "anyio") for m in loaded), loaded
