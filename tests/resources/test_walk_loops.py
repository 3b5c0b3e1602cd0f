"""Folders that loop back cannot hang a walk (issue #34).

Two symlinks to ``.`` in a skills folder make 2^40 paths before the kernel's link limit ends any
one of them: start-up never finished (Pi 1.6 hangs the same way). Every walk now enters each
folder once (by device and inode) and a bounded number of them. Each walk runs in a thread with
a time limit, so a regression fails instead of hanging the test run.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_runtime.packages.manifest import offered
from pi_runtime.resources.skills import load_skills_from
from pi_runtime.tools.walk import iter_tree
from pi_runtime.walk_guard import WalkGuard

SKILL = "---\nname: {name}\ndescription: a real skill\n---\nbody\n"


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still walking after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def looping_skills(folder: Path) -> Path:
    (folder / "real").mkdir(parents=True)
    (folder / "real" / "SKILL.md").write_text(SKILL.format(name="real"))
    os.symlink(".", folder / "loop0")
    os.symlink(".", folder / "loop1")
    return folder


def test_two_links_to_the_skills_folder_itself_end_and_find_the_skill(tmp_path):
    folder = looping_skills(tmp_path / ".agents" / "skills")
    skills, warnings = within(10, lambda: load_skills_from(folder, "user"))
    assert [s.name for s in skills] == ["real"] and warnings == []


def test_a_package_whose_skills_loop_ends_and_offers_the_skill(tmp_path):
    package = tmp_path / "pkg"
    looping_skills(package / "skills")
    found = within(10, lambda: offered(package))
    assert found.skills == [package / "skills" / "real"] and found.problems == []


def test_a_skills_tree_1500_folders_deep_is_read_without_running_out_of_stack(tmp_path):
    root = tmp_path / "skills"
    deep = str(root)
    os.mkdir(deep)
    for _ in range(1500):  # one by one: makedirs recurses once per level itself
        deep += "/d"
        os.mkdir(deep)
    deep = Path(deep)
    (deep / "SKILL.md").write_text(SKILL.format(name="deep"))
    try:
        skills, warnings = within(30, lambda: load_skills_from(root, "user"))
        assert [s.name for s in skills] == ["deep"] and warnings == []
    finally:  # shutil.rmtree (pytest's clean-up) recurses once per level too
        (deep / "SKILL.md").unlink()
        for _ in range(1500):
            os.rmdir(deep)
            deep = deep.parent


def test_the_walk_stops_at_its_bound_and_says_so(tmp_path):
    guard = WalkGuard(limit=3)
    assert [guard.enter(tmp_path / n) for n in ("a", "b")] == [False, False]  # missing: not entered
    for name in "abcd":
        (tmp_path / name).mkdir()
    assert [guard.enter(tmp_path / n) for n in "abcd"] == [True, True, True, False]
    assert guard.enter(tmp_path / "a") is False and guard.repeats == 1
    assert guard.note() == "stopped after 3 folders; the rest is not read"


@pytest.fixture
def bind_mount_loops(tmp_path):
    """A folder with two bind mounts of itself inside (root only): no symlink, still a loop."""
    if os.geteuid() != 0:
        pytest.skip("bind mounts need root")
    root = tmp_path / "tree"
    (root / "a").mkdir(parents=True)
    (root / "file.txt").write_text("x")
    mounted = []
    for name in ("m0", "m1"):
        (root / "a" / name).mkdir()
        done = subprocess.run(["mount", "--bind", str(root), str(root / "a" / name)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
        mounted.append(root / "a" / name)
    yield root
    for path in reversed(mounted):
        subprocess.run(["umount", "-l", str(path)], check=False)


def test_the_search_walk_ends_on_bind_mount_loops(bind_mount_loops):
    found = within(20, lambda: list(iter_tree(str(bind_mount_loops), respect_ignore=False)))
    assert ("file.txt", False) in found and len(found) < 10


def test_the_at_completion_walk_ends_on_bind_mount_loops(bind_mount_loops):
    from pi_tui.editor.completion import _walk

    assert within(20, lambda: _walk(str(bind_mount_loops))) == ["file.txt"]
