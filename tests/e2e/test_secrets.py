"""Configured credentials in a whole run: secrets stay out of everything it leaves behind (stderr,
the session file, exports), and a key command returns when its shell does.

The loopback server echoes request headers in its error (as gateways do); the header value is a
literal in models.json and its token comes from the environment.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from e2e_support import MODEL, Reply, run_pi, session_files, text_reply

HEADER_SECRET = "org-secret-value-4242"
ENV_TOKEN = "env-token-value-1717"


def configure(env: dict[str, str], provider_changes: dict[str, Any]) -> None:
    path = Path(env["PI_CODING_AGENT_DIR"], "models.json")
    models = json.loads(path.read_text())
    models["providers"]["loop"].update(provider_changes)
    path.write_text(json.dumps(models))
    settings = Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "retry": {"enabled": False}}))


def test_echoed_header_values_reach_no_output_file_or_export(loopback, env, tmp_path):
    env = {**env, "PI_TEST_ENV_TOKEN": ENV_TOKEN}
    configure(env, {"headers": {"X-Org-Secret": HEADER_SECRET, "X-Token": "tok-${PI_TEST_ENV_TOKEN}"}})
    loopback.responder = lambda request: Reply.json(400, {"error": {"message": "rejected: " + json.dumps(request.headers)}})
    result = run_pi(["-p", "hello", "--model", MODEL], env)
    assert result.returncode == 1
    assert loopback.requests[0].headers["x-org-secret"] == HEADER_SECRET  # it was sent ...
    assert "rejected:" in result.stderr and "[redacted]" in result.stderr
    [saved] = session_files(env)
    export = tmp_path / "out.html"
    exported = run_pi(["--export", str(saved), str(export)], env)
    assert exported.returncode == 0, exported.stderr
    for text in (result.stderr, result.stdout, saved.read_text(), export.read_text()):  # ... and kept nowhere
        assert HEADER_SECRET not in text and ENV_TOKEN not in text and "loop-key" not in text


def test_a_failing_key_commands_stderr_is_not_saved(loopback, env):
    configure(env, {"apiKey": "!echo stderr-secret-6060 >&2; exit 2"})
    result = run_pi(["-p", "hello", "--model", MODEL], env)
    assert result.returncode == 1
    assert "failed with exit status 2" in result.stderr
    saved = "".join(path.read_text() for path in session_files(env))
    assert "stderr-secret-6060" not in result.stderr.replace("echo stderr-secret-6060", "")
    assert "stderr-secret-6060" not in saved.replace("echo stderr-secret-6060", "")
    assert loopback.requests == []


def test_a_key_command_that_leaves_a_job_holding_its_output_answers_at_once(loopback, env, tmp_path):
    pid_file = tmp_path / "job.pid"
    configure(env, {"apiKey": f"!setsid sh -c 'echo $$ > {pid_file}; exec sleep 30' & echo loop-key"})
    loopback.push(text_reply("done"))
    started = time.monotonic()
    try:
        result = run_pi(["-p", "hello", "--model", MODEL], env)
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    assert loopback.requests[0].headers["authorization"] == "Bearer loop-key"
    assert time.monotonic() - started < 8  # before: until the job ended (30 s here; for ever with no end)


# ---------------------------------------------------------------- issue 26: URL passwords, key commands

URL_PASSWORD = "url-pass-5151"


def test_a_password_in_a_base_url_reaches_no_rpc_answer_or_event(loopback, env):
    from rpc_client import RpcClient

    host = loopback.url.removeprefix("http://")
    configure(env, {"baseUrl": f"http://gw-user:{URL_PASSWORD}@{host}/v1"})
    client = RpcClient(env)
    try:
        state = client.ok({"type": "get_state"})
        assert state["model"]["baseUrl"] == f"http://gw-user:***@{host}/v1"
        models = client.ok({"type": "get_available_models"})["models"]
        assert models and all(URL_PASSWORD not in m["baseUrl"] for m in models)
        chosen = client.ok({"type": "set_model", "provider": "loop", "modelId": "loop-reasoner"})
        assert chosen["baseUrl"] == f"http://gw-user:***@{host}/v1"
        client.ok({"type": "cycle_model"})
        client.ok({"type": "get_state"})
    finally:
        assert client.close() == 0
    everything = json.dumps(client.records)
    assert URL_PASSWORD not in everything and "gw-user:***@" in everything


def test_a_failing_key_command_keeps_its_arguments_out_of_stderr_and_the_session(loopback, env):
    secret = "sk-inline-7373"
    configure(env, {"apiKey": f"!printf {secret} >/dev/null; exit 3"})
    result = run_pi(["-p", "hello", "--model", MODEL], env)
    assert result.returncode == 1
    assert "command `printf …` failed with exit status 3" in result.stderr
    assert secret not in result.stderr and secret not in result.stdout
    [saved] = session_files(env)  # the failure is kept in the session file, without the command's arguments
    text = saved.read_text(encoding="utf-8")
    assert "command `printf …` failed" in text and secret not in text
    assert loopback.requests == []
