"""The README's commands and SDK example stay true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


SETUP = [
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && pi",
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && python -m pytest -n 2",
]


def first_block() -> str:
    return re.search(r"```bash\n(.*?)```", README, re.S).group(1)


def test_first_screen_has_exactly_the_two_setup_commands():
    commands = [line for line in first_block().splitlines() if line and not line.startswith("#")]
    assert commands == SETUP
    # The comment over the test command says how long it takes (measured on a 2-core machine).
    lines = first_block().splitlines()
    assert re.search(r"about \d+ minutes on a 2-core machine", lines[lines.index(SETUP[1]) - 1])
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "pip install --quiet -e '.[test]'" in ci and ".venv/bin/python -m pytest -n 2" in ci


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


def test_pi_commands_are_true_after_the_setup():
    """Every later ``pi …`` line works in the set-up shell: activating the venv puts ``pi`` on PATH."""
    later = README[README.index(first_block()) + len(first_block()):]
    commands = [line.split("#")[0].strip() for block in re.findall(r"```bash\n(.*?)```", later, re.S)
                for line in block.splitlines()]
    pi_lines = [c for c in commands if re.search(r"(^|\| )pi ", c)]
    assert len(pi_lines) >= 5
    assert "`. .venv/bin/activate`" in README and "`.venv/bin/pi`" in README  # the new-terminal hint
    venv = Path(sys.prefix)
    activate = venv / "bin" / "activate"
    if not activate.exists():
        import pytest

        pytest.skip("the tests do not run from a venv")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(venv)}
    out = subprocess.run(["sh", "-c", f". '{activate}' && command -v pi && pi --version"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    found, version = out.stdout.split()[:2]
    assert Path(found) == venv / "bin" / "pi" and version
