"""Layering, proven: the runtime never loads the UI stack, and --version stays featherweight."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_no_runtime_module_imports_textual_or_rich():
    loaded = run_python(
        """
        import importlib, pkgutil, sys
        import pi_runtime
        for mod in pkgutil.walk_packages(pi_runtime.__path__, "pi_runtime."):
            importlib.import_module(mod.name)
        bad = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "pi_tui"))
        print(",".join(bad))
        """
    )
    assert loaded == ""


def test_version_does_not_import_heavy_libraries():
    loaded = run_python(
        """
        import sys, io, contextlib
        from pi_runtime.cli import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["--version"])
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "httpx", "textual", "rich"))
        print(code, buf.getvalue().strip(), ",".join(heavy))
        """
    )
    code, version, heavy = (loaded.split(" ") + [""])[:3]
    assert code == "0"
    assert version.count(".") == 2
    assert heavy == ""


def test_the_app_module_loads_without_the_kernel_stack():
    # The app paints its first frame before the kernel is imported (in a worker); anything
    # pulling pydantic or httpx into ``pi_tui.app`` would delay that frame for everyone.
    loaded = run_python(
        """
        import sys
        import pi_tui.app, pi_tui.launch
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "httpx"))))
        """
    )
    assert loaded == ""


def test_the_app_runs_textual_at_120_ticks_without_passing_it_to_child_processes():
    out = run_python(
        """
        import os
        os.environ.pop("TEXTUAL_FPS", None)
        import pi_tui.app
        import textual.constants
        print(textual.constants.MAX_FPS, os.environ.get("TEXTUAL_FPS"))
        """
    )
    assert out == "120 None"
