"""The README's commands and SDK example stay true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_first_screen_has_exactly_the_two_setup_commands():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    commands = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/pi",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "pip install --quiet -e '.[test]'" in ci and ".venv/bin/python -m pytest" in ci


def test_sdk_example_runs_as_written(tmp_path):
    code = re.search(r"## SDK\n\n```python\n(.*?)```", README, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code)
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == "Hello from pi!"
    assert "event: agent_settled" in lines
