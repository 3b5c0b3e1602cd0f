"""The compiled dataclass methods kept between runs (``pi_runtime.dataclass_code_cache``).

Each run is a fresh interpreter whose bytecode (and so the cache file) goes to a temporary
``PYTHONPYCACHEPREFIX``: the first run compiles and writes, the next compiles nothing and
makes classes that behave exactly the same; a damaged file is ignored and written again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r'''
import dataclasses, json, sys
from dataclasses import InitVar, field
from pi_runtime import dataclass_code_cache as cache
from pi_runtime.records import record

@record(frozen=True, slots=True, kw_only=True)
class Frozen:
    a: int
    b: tuple = field(default_factory=lambda: (1,))
    c: str = "c"

@record
class Post:
    x: int
    seed: InitVar[int] = 2
    y: int = field(init=False, default=0)
    def __post_init__(self, seed):
        self.y = self.x * seed

@dataclasses.dataclass(order=True)
class Plain:
    p: int
    q: tuple = ()

f = Frozen(a=1)
try:
    f.a = 2
    frozen_error = None
except dataclasses.FrozenInstanceError as exc:
    frozen_error = str(exc)
out = {
    "frozen": [repr(f), f == Frozen(a=1), hash(f) == hash(Frozen(a=1)), frozen_error, Frozen.__doc__],
    "post": [repr(Post(3)), Post(3, seed=5).y, Post.__doc__],
    "plain": [repr(Plain(1)), Plain(1) < Plain(2), Plain.__doc__],
    "init_annotations": [repr(v) for v in Frozen.__init__.__annotations__.values()],
    "installed": dataclasses._create_fn is cache._create_fn,
    "compiled": len(cache._compiled),
}
print(json.dumps(out))
'''


def run(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def cache_files(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "pycache").rglob("dataclass_code_cache.*.methods"))


@pytest.mark.skipif(sys.version_info[:2] != (3, 11) or sys.implementation.name != "cpython",
                    reason="the cache serves CPython 3.11's dataclasses only")
def test_second_run_compiles_nothing_and_makes_the_same_classes(tmp_path):
    first = run(tmp_path)
    assert first["installed"] and first["compiled"] > 0
    assert cache_files(tmp_path)
    second = run(tmp_path)
    assert second["compiled"] == 0
    assert {**second, "compiled": None} == {**first, "compiled": None}
    assert second["frozen"] == ["Frozen(a=1, b=(1,), c='c')", True, True, "cannot assign to field 'a'",
                                "Frozen(*, a: int, b: tuple = <factory>, c: str = 'c')"]
    assert second["init_annotations"] == ["<class 'int'>", "<class 'tuple'>", "<class 'str'>", "None"]
    assert second["post"][:2] == ["Post(x=3, y=6)", 15]
    assert second["plain"][:2] == ["Plain(p=1, q=())", True]


@pytest.mark.skipif(sys.version_info[:2] != (3, 11) or sys.implementation.name != "cpython",
                    reason="the cache serves CPython 3.11's dataclasses only")
def test_a_damaged_file_is_ignored_and_written_again(tmp_path):
    first = run(tmp_path)
    [file] = cache_files(tmp_path)
    file.write_bytes(file.read_bytes()[:200])  # cut short, as by a full disk
    again = run(tmp_path)
    assert again == first  # compiled afresh, same classes
    assert run(tmp_path)["compiled"] == 0  # and the file is whole again


def test_nothing_is_written_when_bytecode_writing_is_off(tmp_path):
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache")}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not cache_files(tmp_path)


@pytest.mark.skipif(sys.version_info[:2] != (3, 11) or sys.implementation.name != "cpython",
                    reason="the cache serves CPython 3.11's dataclasses only")
def test_the_app_keeps_its_methods_in_a_file_of_its_own(tmp_path):
    run(tmp_path)
    [headless] = cache_files(tmp_path)
    before = headless.read_bytes()
    script = SCRIPT.replace("from pi_runtime.records import record",
                            "from pi_runtime.records import record\ncache.use_file('app')\n"
                            "@dataclasses.dataclass\nclass OnlyInTheApp:\n    z: int = 0")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["compiled"] > 0  # the app file did not exist yet
    assert headless.read_bytes() == before
    assert [p.name.split(".")[-2] for p in (tmp_path / "pycache").rglob("*.app.methods")] == ["app"]
