"""Instructions the ``pi`` command executes (callgrind), for the cases of ``cli_bench.py``.

Wall and CPU times on a shared two-core machine move by tens of percent with the load; the
count of instructions does not (within ~2 %: hash seeds and the HTTP import thread's interleaving
vary). Use it to compare two trees; ``cli_bench.py`` gives the times beside Pi's.

Cases: ``--version``, ``-p "say hi"`` (no session), ``--session`` 20k ``-p``, ``-c -p`` on 20k
messages, all against the same loopback server as ``cli_bench.py``. Each runs once under
``valgrind --tool=callgrind`` (~15-40 s each). The bytecode is compiled first, as
``cli_bench.py`` does.

Run: ``.venv/bin/python bench/cli_instructions.py [--tree PATH]`` (``--tree``: a checkout whose
``pi_runtime`` is measured instead, put first on ``PYTHONPATH``). Needs valgrind. Asserts nothing.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_bench import SESSION_MESSAGES, bench_home, responder, write_session

from pi_runtime.testing.loopback import LoopbackServer


def instructions(cmd: list[str], env: dict[str, str], cwd: str) -> int | None:
    """Instructions executed by ``cmd`` and its threads, or None when callgrind did not report."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                          env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    sys.stderr.write(done.stderr[-500:])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", help="a checkout whose pi_runtime is measured (first on PYTHONPATH)")
    tree = parser.parse_args().tree
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return
    root = Path(tree).resolve() if tree else Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(root / "pi_runtime"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(responder) as server:
        agent, project, env = bench_home(tmp, server.url, {"compaction": {"enabled": False}})
        if tree:
            env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
        from pi_runtime.session.paths import encode_cwd

        big = agent / "sessions" / encode_cwd(str(project)) / "2025-01-01T00-00-00-000Z_bench-20k.jsonl"
        model = ["--model", "bench/bench-model"]
        # The console script would import the editable install's tree; this picks the one asked for.
        pi = [sys.executable, "-c", "import sys; from pi_runtime.cli import main; sys.exit(main())"]
        cases = [
            ("pi --version", ["--version"]),
            ('pi -p "say hi"', ["-p", "say hi", "--no-session", *model]),
            ("--session (20k) -p", ["--session", str(big), "-p", "say hi", *model]),
            ("-c -p on 20k messages", ["-c", "-p", "say hi", *model]),
        ]
        print(f"pi_runtime from {root}")
        for label, args in cases:
            if "20k" in label:
                write_session(big, str(project), SESSION_MESSAGES)
            count = instructions([*pi, *args], env, str(project))
            shown = f"{count / 1e6:8.1f} M instructions" if count is not None else "   (no figure)"
            print(f"{label:<24}{shown}")


if __name__ == "__main__":
    main()
