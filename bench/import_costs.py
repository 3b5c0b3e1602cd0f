"""Where ``pi -p`` spends its instructions, module by module (callgrind, load-independent).

``pi -p "say hi"`` (the case of ``cli_bench.py``) runs under ``valgrind --tool=callgrind`` with a
small hook: every module body that executes is bracketed by a call to ``os.getppid``, and
callgrind is told to dump its counters at each such call (``--dump-before=getppid``). Each dump
part is then the *self* cost of the module whose body was running (what its own statements cost:
classes, records, patterns, tables; not the modules it imports, which get their own parts). The
HTTP client's modules are imported first (the floor every answer needs), so the background import
thread does not mix its work into pi's modules.

Printed: the floor (interpreter, site, asyncio, httpx2, httpcore2, msgspec, anyio's backend), the
sum of pi_runtime's module bodies, other modules loaded meanwhile, the run itself (settings,
catalogue, request, stream, output) and the interpreter's exit; then the costliest modules.
The hook costs ~0.2 M instructions per module imported (counted in the importing module's part),
so the totals read ~5 % above ``cli_instructions.py``; compare trees with the same script. The
parts are process-wide: what the HTTP set-up thread does while a module of the main thread loads
(its TLS context, pi_runtime.http's own modules) lands in that module's part, so a figure that
jumps between runs (``pi_runtime.http._versions``, ``pi_runtime.collector_pause``) is that thread.

Run: ``.venv/bin/python bench/import_costs.py [--tree PATH] [--top N] [--classes]`` (``--tree``: a
checkout whose pi_runtime is measured; ``--classes``: split module bodies further at each class
statement: ``module:Class`` is the class body, ``module:Class+after`` its decorator (a record's
generated methods) and what follows it). Needs valgrind; ~20 s. Asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_bench import bench_home, responder

from pi_runtime.testing.loopback import LoopbackServer

# Runs inside the measured interpreter: marks each module body's start and end (and, with
# BRACKET_CLASSES, each class statement) by calling os.getppid, the dump trigger.
_HOOK = r'''
import builtins, importlib.abc, os, sys
import asyncio, httpx2, httpcore2, msgspec, anyio._backends._asyncio, concurrent.futures.thread, ssl  # the floor

marks, stack, mark = [], ["(run)"], os.getppid


class _Bracketed:
    def __init__(self, loader, name):
        self._loader, self._name = loader, name

    def __getattr__(self, attr):
        return getattr(self._loader, attr)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        stack.append(self._name)
        marks.append(self._name)
        mark()
        try:
            self._loader.exec_module(module)
        finally:
            stack.pop()
            marks.append(stack[-1])
            mark()


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Bracketed(spec.loader, name)
                return spec
        return None


sys.meta_path.insert(0, _Finder())
if os.environ.get("BRACKET_CLASSES"):
    _build_class = builtins.__build_class__

    def _bracketed_class(func, name, *args, **kwargs):
        module = func.__globals__.get("__name__", "?")
        if not module.startswith("pi_runtime"):
            return _build_class(func, name, *args, **kwargs)
        marks.append(f"{module}:{name}")
        mark()
        try:
            return _build_class(func, name, *args, **kwargs)
        finally:
            marks.append(f"{module}:{name}+after")
            mark()

    builtins.__build_class__ = _bracketed_class
marks.append("(run)")
mark()
from pi_runtime.cli import main
try:
    code = main(sys.argv[1:])
finally:
    marks.append("(exit)")
    mark()
    with open(os.environ["MARKS_FILE"], "w") as out:
        out.write("\n".join(marks))
sys.exit(code)
'''


def parts(folder: Path) -> dict[int, int]:
    """Instructions of each callgrind dump part, by part number."""
    found = {}
    for path in folder.iterdir():
        text = path.read_text(errors="replace")
        part, total = re.search(r"^part: (\d+)", text, re.M), re.search(r"^totals: (\d+)", text, re.M)
        if part and total:
            found[int(part.group(1))] = int(total.group(1))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", help="a checkout whose pi_runtime is measured (first on PYTHONPATH)")
    parser.add_argument("--top", type=int, default=40, help="how many of the costliest parts to list")
    parser.add_argument("--classes", action="store_true", help="split module bodies at class statements")
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return
    root = Path(options.tree).resolve() if options.tree else Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(root / "pi_runtime"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(responder) as server:
        _, project, env = bench_home(tmp, server.url, {"compaction": {"enabled": False}})
        env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
        env["MARKS_FILE"] = str(Path(tmp, "marks.txt"))
        if options.classes:
            env["BRACKET_CLASSES"] = "1"
        dumps = Path(tmp, "dumps")
        dumps.mkdir()
        cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid", f"--callgrind-out-file={dumps}/out",
               sys.executable, "-c", _HOOK, "-p", "say hi", "--no-session", "--model", "bench/bench-model"]
        done = subprocess.run(cmd, env=env, cwd=str(project), stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-800:])
            return
        marks = Path(env["MARKS_FILE"]).read_text().split("\n")
        counts = parts(dumps)
    # Part 1 runs up to the first mark; part k + 2 follows marks[k] and belongs to it.
    cost: collections.Counter[str] = collections.Counter({"(start and floor)": counts.get(1, 0)})
    for index, name in enumerate(marks):
        cost[name] += counts.get(index + 2, 0)

    def pi_module(name: str) -> bool:
        return name.split(":")[0].startswith("pi_runtime")

    own = sum(v for name, v in cost.items() if pi_module(name))
    other = sum(v for name, v in cost.items() if not pi_module(name) and not name.startswith("("))
    print(f"pi_runtime from {root}")
    print(f"total                      {sum(counts.values()) / 1e6:8.1f} M instructions")
    print(f"  start and floor          {cost['(start and floor)'] / 1e6:8.1f} M")
    print(f"  pi_runtime module bodies {own / 1e6:8.1f} M")
    print(f"  other modules            {other / 1e6:8.1f} M")
    print(f"  the run                  {cost['(run)'] / 1e6:8.1f} M")
    print(f"  exit                     {cost['(exit)'] / 1e6:8.1f} M")
    print(f"costliest parts (top {options.top}):")
    for name, value in cost.most_common(options.top + 4):
        if not name.startswith("("):
            print(f"  {value / 1e6:7.2f} M  {name}")


if __name__ == "__main__":
    main()
