"""An extension's ``print()`` in a headless mode goes to stderr, as Pi's ``takeOverStdout`` sends it.

Pi's model-status example logs with ``console.log`` and its notify example writes a terminal
escape to stdout; in print mode that text would sit in the answer, in JSON/RPC mode it would
break the line protocol.
"""

from __future__ import annotations

import json

from e2e_support import MODEL, run_pi, text_reply

NOISY = '''
import sys
print("loaded noisy")


def extension(pi):
    pi.on("session_start", lambda event, ctx: print("started noisy"))

    def settled(event, ctx):
        sys.stdout.write("\\x1b]777;notify;Pi;Ready for input\\x07")
        sys.stdout.flush()

    pi.on("agent_settled", settled)
'''


def noisy_extension(tmp_path):
    path = tmp_path / "noisy.py"
    path.write_text(NOISY)
    return str(path)


def test_print_mode_stdout_is_only_the_answer(loopback, env, tmp_path):
    loopback.push(text_reply("The answer."))
    result = run_pi(["-p", "hi", "--model", MODEL, "-e", noisy_extension(tmp_path)], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer.\n"
    assert "loaded noisy" in result.stderr and "started noisy" in result.stderr
    assert "\x1b]777;notify;Pi;Ready for input\x07" in result.stderr


def test_json_and_rpc_stdout_stay_json_lines(loopback, env, tmp_path):
    extension = noisy_extension(tmp_path)
    loopback.push(text_reply("First."), text_reply("Second."))
    json_run = run_pi(["--mode", "json", "hi", "--model", MODEL, "-e", extension], env)
    assert json_run.returncode == 0, json_run.stderr
    rpc_run = run_pi(["--mode", "rpc", "--model", MODEL, "-e", extension], env,
                     stdin=json.dumps({"type": "prompt", "message": "hi"}) + "\n")
    for run in (json_run, rpc_run):
        records = [json.loads(line) for line in run.stdout.splitlines()]  # each line is JSON
        assert any(r.get("type") == "agent_end" for r in records) or run is rpc_run
        assert "loaded noisy" in run.stderr and "started noisy" in run.stderr
    assert "\x1b]777" in json_run.stderr
