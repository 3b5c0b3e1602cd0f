"""pi's own docs ship with an installed pi: every file under docs/ is in pyproject's data-files."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from pi_runtime.resources.own_docs import TOPICS, find_own_docs

ROOT = Path(__file__).resolve().parents[2]


def test_every_doc_and_example_is_installed_beside_the_readme():
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["data-files"]
    installed = {}
    for target, patterns in data_files.items():
        for pattern in patterns:
            for path in ROOT.glob(pattern):
                installed[path.relative_to(ROOT).as_posix()] = target
    shipped = [p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts]
    missing = [p for p in shipped if p not in installed]
    assert not missing, f"add to [tool.setuptools.data-files]: {missing}"
    # Each lands at the same place under share/pi as in the checkout, so the prompt's paths hold.
    for path, target in installed.items():
        if fnmatch.fnmatch(path, "docs/*") or path == "README.md":
            assert f"{target}/{Path(path).name}" == f"share/pi/{path}"


def test_the_topics_name_files_of_this_checkout():
    docs = find_own_docs()
    assert docs is not None and docs.readme == ROOT / "README.md"
    for _topic, paths in TOPICS:
        for path in paths:
            base, _, rest = path.partition("/")
            assert ((docs.docs if base == "docs" else docs.examples) / rest).exists(), path
