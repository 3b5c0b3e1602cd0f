"""The kernel owns the end of a session: every way a headless pi ends fires ``session_shutdown`` once."""

from __future__ import annotations

import signal
import textwrap

import pytest
from e2e_support import MODEL, run_pi, stalled_reply, text_reply
from rpc_client import RpcClient


@pytest.fixture
def shutdown_log(tmp_path):
    log = tmp_path / "shutdown.log"
    ext = tmp_path / "on_exit.py"
    ext.write_text(textwrap.dedent(f"""
        def extension(pi):
            def on_shutdown(event, ctx):
                with open({str(log)!r}, "a") as out:
                    out.write(event.type + "\\n")
            pi.on("session_shutdown", on_shutdown)
    """))
    return ext, log


@pytest.mark.parametrize("mode", [["-p"], ["--mode", "json"]])
def test_a_one_shot_run_ends_with_one_session_shutdown(env, loopback, shutdown_log, mode):
    ext, log = shutdown_log
    loopback.push(text_reply("Done."))
    out = run_pi([*mode, "--model", MODEL, "-e", str(ext), "do it"], env)
    assert out.returncode == 0, out.stderr
    assert log.read_text() == "session_shutdown\n"


def test_rpc_end_of_input_fires_session_shutdown_once(env, shutdown_log):
    ext, log = shutdown_log
    client = RpcClient(env, "--model", MODEL, "-e", str(ext))
    client.ok({"type": "get_state"})
    assert client.close() == 0
    assert log.read_text() == "session_shutdown\n"


def test_a_signal_mid_run_fires_session_shutdown_once(env, loopback, shutdown_log):
    ext, log = shutdown_log
    loopback.push(stalled_reply("Working"))
    client = RpcClient(env, "--model", MODEL, "-e", str(ext))
    try:
        client.ok({"type": "prompt", "message": "stall"})
        client.wait(lambda r: r.get("type") == "message_update")
        client.proc.send_signal(signal.SIGTERM)
        assert client.proc.wait(15) == 143
    finally:
        client.kill()
    assert log.read_text() == "session_shutdown\n"
