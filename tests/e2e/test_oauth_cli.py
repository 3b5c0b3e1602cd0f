"""An extension's OAuth provider through the installed ``pi`` in print and RPC mode.

There is no interactive login there; a stored credential is refreshed at request time like
in the app, and a missing or unrefreshable one ends in a clear message (no traceback).
The token server and the model server are real HTTP servers on 127.0.0.1.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from e2e_support import run_pi, text_reply
from rpc_client import RpcClient

from pi_runtime.testing.oauth_server import OAuthTokenServer

EXT = str(Path(__file__).resolve().parent.parent / "fixtures" / "oauth_provider_ext.py")
ARGS = ["-e", EXT, "--model", "corp/corp-1"]


@pytest.fixture
def oauth_env(env, loopback):
    with OAuthTokenServer() as auth:
        env.update(PI_TEST_OAUTH_URL=auth.url, PI_TEST_LLM_URL=loopback.url)
        yield env, auth


def store(env, **entry) -> Path:
    path = Path(env["PI_CODING_AGENT_DIR"]) / "auth.json"
    path.write_text(json.dumps({"corp": {"type": "oauth", **entry}}))
    return path


def test_print_mode_without_a_login_says_how_to_log_in(oauth_env):
    env, _ = oauth_env
    result = run_pi(["-p", *ARGS, "hi"], env)
    assert result.returncode != 0
    assert "/login corp" in result.stderr
    assert "Traceback" not in result.stderr


def test_print_mode_refreshes_an_expired_token(oauth_env, loopback):
    env, auth = oauth_env
    auth.valid_refresh = "refresh-0"
    path = store(env, access="stale", refresh="refresh-0", expires=int(time.time() * 1000) - 1)
    loopback.push(text_reply("fresh answer"))
    result = run_pi(["-p", *ARGS, "hi"], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "fresh answer"
    assert loopback.requests[0].headers["authorization"] == "Bearer access-1"
    saved = json.loads(path.read_text())["corp"]
    assert saved["access"] == "access-1" and saved["refresh"] == "refresh-1" and saved["type"] == "oauth"


def test_print_and_rpc_report_a_failed_refresh(oauth_env, loopback):
    env, auth = oauth_env
    auth.fail_refresh = True
    store(env, access="stale", refresh="refresh-0", expires=0)
    result = run_pi(["-p", *ARGS, "hi"], env)
    assert result.returncode != 0
    assert "Run /login corp to log in again" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    client = RpcClient(env, *ARGS)
    try:
        client.ok({"type": "prompt", "message": "hi"})
        end = client.wait_event("agent_end", timeout=20)
        assert "Run /login corp to log in again" in json.dumps(end)
        assert client.ok({"type": "get_state"})["isStreaming"] is False
    finally:
        client.kill()
    assert loopback.requests == []


def test_two_processes_refresh_an_expired_token_once(oauth_env, loopback):
    # The token server rotates refresh tokens: a second refresh with the old one would fail.
    env, auth = oauth_env
    auth.valid_refresh, auth.delay = "refresh-0", 1.0  # both processes see the stale token
    path = store(env, access="stale", refresh="refresh-0", expires=0)
    loopback.push(text_reply("one"), text_reply("two"))
    import subprocess

    from e2e_support import PI

    procs = [subprocess.Popen([PI, "-p", *ARGS, f"hi {i}"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, cwd=env["PI_TEST_PROJECT"]) for i in range(2)]
    results = [p.communicate(timeout=30) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err.decode() for _, err in results]
    assert auth.grants == ["refresh_token"]
    assert {r.headers["authorization"] for r in loopback.requests} == {"Bearer access-1"}
    assert json.loads(path.read_text())["corp"]["refresh"] == "refresh-1"
