"""Start-up with folders that loop back (issue #34): two links to ``.`` in the user's skills
folder used to hang ``pi`` for good (Pi 1.6 hangs too, and ignores SIGTERM while it walks)."""

from __future__ import annotations

import os
from pathlib import Path

from e2e_support import MODEL, run_pi, text_reply


def test_start_up_with_looping_skill_links_finishes_and_the_skill_is_offered(loopback, env):
    skills = Path(env["HOME"]) / ".agents" / "skills"
    (skills / "real").mkdir(parents=True)
    (skills / "real" / "SKILL.md").write_text("---\nname: real-skill\ndescription: a real skill\n---\nbody\n")
    os.symlink(".", skills / "loop0")
    os.symlink(".", skills / "loop1")
    loopback.push(text_reply("Started."))
    result = run_pi(["-p", "hello", "--model", MODEL], env, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "Started.\n", "")
    system = loopback.requests[-1].json()["messages"][0]["content"]
    assert "real-skill" in system and system.count("<name>real-skill</name>") == 1
