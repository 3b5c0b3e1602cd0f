"""MCP OAuth end to end: the installed ``pi`` against a real OAuth-protected MCP server (its own
authorization server: discovery, dynamic registration, PKCE, rotating refresh tokens) run as a
subprocess, with ``BROWSER`` set to a script that follows the authorization redirect."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from e2e_support import MODEL, PI, run_pi, text_reply, tool_reply
from rpc_client import RpcClient

from pi_runtime.testing.mcp_oauth_server import McpOAuthServer
from pi_runtime.testing.oauth_browser import redirect_target, write_browser
from pi_runtime.testing.waiting import wait_until


@pytest.fixture(scope="module")
def shared_oauth_server(tmp_path_factory):
    """One server for the module's tests that need no special options: starting one takes a second
    or more. Each test signs in with a fresh agent dir, so it registers its own client."""
    with McpOAuthServer(tmp_path_factory.mktemp("oauth-mcp")) as server:
        yield server


@pytest.fixture
def oauth_server(shared_oauth_server):
    shared_oauth_server.clear_events()
    return shared_oauth_server


def configure(env: dict[str, str], url: str, **extra: object) -> dict[str, str]:
    agent = Path(env["PI_CODING_AGENT_DIR"])
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"notes": {"url": url, "exposure": "direct", **extra}}}),
                                    encoding="utf-8")
    return {**env, "BROWSER": str(write_browser(agent.parent))}


def auth_file(env: dict[str, str]) -> Path:
    return Path(env["PI_CODING_AGENT_DIR"], "mcp-auth.json")


def tool_messages(request) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
            for m in request.json()["messages"] if m["role"] == "tool"]


def test_login_then_print_mode_calls_the_protected_tool(loopback, env, oauth_server):
    env = configure(env, oauth_server.url)
    before = run_pi(["mcp", "list"], env, timeout=60)
    assert before.returncode == 1
    assert "notes: needs-auth" in before.stdout
    assert "needs sign-in: run /mcp login notes or pi mcp login notes" in before.stdout
    assert not auth_file(env).exists()  # connecting in a session registered nothing and stored nothing

    login = run_pi(["mcp", "login", "notes"], env, timeout=60)
    assert login.returncode == 0, login.stderr
    assert "/authorize?" in login.stdout and "Signed in to MCP server \"notes\"" in login.stdout
    assert oauth_server.events() == ["register pi", "authorization_code"]
    assert stat.S_IMODE(auth_file(env).stat().st_mode) == 0o600
    [entry] = json.loads(auth_file(env).read_text()).values()
    assert entry["server"] == "notes" and entry["url"] == oauth_server.url and entry["tokens"]["refresh_token"]

    loopback.push(tool_reply("mcp__notes__whoami", {}), text_reply("You are signed in."))
    result = run_pi(["-p", "who am I?", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "You are signed in.\n"
    assert "mcp__notes__whoami" in [t["function"]["name"] for t in loopback.requests[0].json()["tools"]]
    assert tool_messages(loopback.requests[1]) == ["signed-in user"]


def test_logout_deletes_the_credentials_and_the_next_run_needs_sign_in(env, oauth_server):
    env = configure(env, oauth_server.url)
    assert run_pi(["mcp", "login", "notes"], env, timeout=60).returncode == 0
    assert run_pi(["mcp", "list"], env, timeout=60).returncode == 0

    out = run_pi(["mcp", "logout", "notes"], env, timeout=30)
    assert out.returncode == 0, out.stderr
    assert 'Signed out of MCP server "notes"' in out.stdout
    assert json.loads(auth_file(env).read_text()) == {}
    again = run_pi(["mcp", "list"], env, timeout=60)
    assert again.returncode == 1
    assert "notes: needs-auth" in again.stdout and "pi mcp login notes" in again.stdout
    assert "No stored credentials" in run_pi(["mcp", "logout", "notes"], env, timeout=30).stdout


def test_rejected_stored_tokens_show_needs_auth_and_register_nothing(env, oauth_server):
    env = configure(env, oauth_server.url)
    auth_file(env).write_text(json.dumps({f"notes@{oauth_server.url}": {
        "type": "mcp-oauth", "server": "notes", "url": oauth_server.url,
        "tokens": {"access_token": "revoked", "token_type": "Bearer"}}}), encoding="utf-8")
    before = auth_file(env).read_text(encoding="utf-8")
    listed = run_pi(["mcp", "list"], env, timeout=60)
    assert listed.returncode == 1
    assert "notes: needs-auth" in listed.stdout and "pi mcp login notes" in listed.stdout
    assert "Traceback" not in listed.stderr and "OAuth flow error" not in listed.stderr
    assert auth_file(env).read_text(encoding="utf-8") == before  # a session keeps no registration it cannot use


def test_an_expired_access_token_is_refreshed(loopback, env, tmp_path):
    with McpOAuthServer(tmp_path, expires_in=2) as server:
        env = configure(env, server.url)
        assert run_pi(["mcp", "login", "notes"], env, timeout=60).returncode == 0
        stored = json.loads(auth_file(env).read_text())[f"notes@{server.url}"]
        first = stored["tokens"]
        assert wait_until(lambda: time.time() > stored["expiresAt"], timeout=10)  # pi knows it has expired
        loopback.push(tool_reply("mcp__notes__whoami", {}), text_reply("Still you."))
        result = run_pi(["-p", "who?", "--model", MODEL], env, timeout=60)
        assert result.returncode == 0, result.stderr
        assert tool_messages(loopback.requests[1]) == ["signed-in user"]
        assert "refresh_token" in server.events()
        assert server.events().count("authorization_code") == 1  # no new browser sign-in
    now = json.loads(auth_file(env).read_text())[f"notes@{server.url}"]["tokens"]
    assert now["access_token"] != first["access_token"] and now["refresh_token"] != first["refresh_token"]


def test_a_pre_registered_client_with_a_secret_from_the_environment(loopback, env, tmp_path):
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    with McpOAuthServer(tmp_path, client=("pi-test-client", "s3cret", redirect)) as server:
        env = {**configure(env, server.url, oauth={"clientId": "pi-test-client", "clientSecret": "${NOTES_SECRET}",
                                                    "callbackPort": port}), "NOTES_SECRET": "s3cret"}
        login = run_pi(["mcp", "login", "notes"], env, timeout=60)
        assert login.returncode == 0, login.stderr
        assert f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback" in login.stdout
        assert "client_id=pi-test-client" in login.stdout
        assert server.events() == ["authorization_code"]  # nothing registered
        loopback.push(tool_reply("mcp__notes__whoami", {}), text_reply("Yes."))
        assert run_pi(["-p", "who?", "--model", MODEL], env, timeout=60).returncode == 0
        assert tool_messages(loopback.requests[1]) == ["signed-in user"]
        wrong = {**env, "NOTES_SECRET": "wrong"}
        Path(env["PI_CODING_AGENT_DIR"], "mcp-auth.json").unlink()
        failed = run_pi(["mcp", "login", "notes"], wrong, timeout=60)
    assert failed.returncode == 1 and "sign-in failed" in failed.stderr and "invalid_client" in failed.stderr and "Traceback" not in failed.stderr
    assert not auth_file(env).exists()


def test_cimd_fails_when_the_authorization_server_does_not_support_documents(env, oauth_server):
    env = configure(env, oauth_server.url, oauth={"clientRegistration": "cimd"})
    result = run_pi(["mcp", "login", "notes"], env, timeout=60)
    assert result.returncode == 1
    assert "does not support Client ID Metadata Documents" in result.stderr and "Traceback" not in result.stderr
    assert not auth_file(env).exists()


def test_auth_server_metadata_url_replaces_a_wrong_advertised_server(env, tmp_path):
    with McpOAuthServer(tmp_path, wrong_as=True) as server:
        env = configure(env, server.url)
        wrong = run_pi(["mcp", "login", "notes"], env, timeout=60)
        assert wrong.returncode == 1 and "sign-in failed" in wrong.stderr and "Traceback" not in wrong.stderr
        metadata = server.url.replace("/mcp", "/.well-known/oauth-authorization-server")
        env = configure(env, server.url, oauth={"authServerMetadataUrl": metadata})
        right = run_pi(["mcp", "login", "notes"], env, timeout=60)
        assert right.returncode == 0, right.stderr
        assert server.events() == ["register pi", "authorization_code"]
        assert run_pi(["mcp", "list"], env, timeout=60).returncode == 0


@pytest.mark.parametrize(("oauth", "registered"), [
    ({}, None),
    ({"clientRegistration": "cimd"}, None),
    ({"clientName": "Claude Code"}, "register Claude Code"),
    ({"clientRegistration": "dcr"}, "register pi"),
])
def test_the_client_metadata_document_is_used_when_the_server_accepts_it(env, tmp_path, oauth, registered):
    with McpOAuthServer(tmp_path, cimd=True) as server:
        env = configure(env, server.url, oauth=oauth)
        login = run_pi(["mcp", "login", "notes"], env, timeout=60)
        assert login.returncode == 0, login.stderr
        events = server.events()
    [entry] = json.loads(auth_file(env).read_text()).values()
    if registered is None:
        assert "client_id=https%3A%2F%2Fpi.dev%2Foauth%2Fclient.json" in login.stdout
        assert events == ["document https://pi.dev/oauth/client.json", "authorization_code"]
        assert entry["client"]["client_id"] == "https://pi.dev/oauth/client.json"
    else:
        assert events == [registered, "authorization_code"]
        assert entry["client"]["client_id"] != "https://pi.dev/oauth/client.json"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_rejected_access_token_is_refreshed_before_asking_for_sign_in(loopback, env, oauth_server):
    env = configure(env, oauth_server.url)
    assert run_pi(["mcp", "login", "notes"], env, timeout=60).returncode == 0
    oauth_server.revoke_access_tokens()
    loopback.push(tool_reply("mcp__notes__whoami", {}), text_reply("Still you."))
    result = run_pi(["-p", "who?", "--model", MODEL], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert tool_messages(loopback.requests[1]) == ["signed-in user"]
    assert oauth_server.events()[-2:] == ["rejected", "refresh_token"]
    assert oauth_server.events().count("authorization_code") == 1


def test_a_denied_authorization_fails_clearly_and_stores_nothing(env, tmp_path):
    with McpOAuthServer(tmp_path, deny=True) as server:
        env = configure(env, server.url)
        result = run_pi(["mcp", "login", "notes"], env, timeout=60)
    assert result.returncode == 1
    assert 'MCP server "notes": authorization failed: access_denied' in result.stderr
    assert "Traceback" not in result.stderr
    assert not auth_file(env).exists()


def test_a_redirect_with_the_wrong_state_is_refused_and_stores_nothing(env, oauth_server, tmp_path):
    env = {**configure(env, oauth_server.url), "BROWSER": str(write_browser(tmp_path, tamper=True))}
    result = run_pi(["mcp", "login", "notes"], env, timeout=60)
    assert result.returncode == 1
    assert "wrong state" in result.stderr and "Traceback" not in result.stderr
    assert "authorization_code" not in oauth_server.events()
    assert not auth_file(env).exists()


def test_the_redirected_url_can_be_pasted(env, oauth_server):
    env = {**configure(env, oauth_server.url), "BROWSER": "/bin/true"}  # a browser that goes nowhere
    proc = subprocess.Popen([PI, "mcp", "login", "notes"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=env["PI_TEST_PROJECT"], text=True)
    try:
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True)
        reader.start()
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                line = lines.get(timeout=1)
                url = line.strip() if "/authorize?" in line else None
        assert url, "pi did not print the authorization URL"
        assert proc.stdin is not None
        proc.stdin.write("not a url\n" + redirect_target(url) + "\n")
        proc.stdin.flush()
        proc.stdin.close()
        assert proc.wait(30) == 0, proc.stderr.read() if proc.stderr else ""
        reader.join(10)
        out = "".join(lines.get() for _ in range(lines.qsize()))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "That is not the redirected URL" in out and 'Signed in to MCP server "notes"' in out
    assert auth_file(env).exists()


def test_sign_in_times_out_with_a_clear_message(env, oauth_server):
    env = {**configure(env, oauth_server.url), "BROWSER": "/bin/true"}
    result = run_pi(["mcp", "login", "notes", "--timeout", "2"], env, timeout=60)
    assert result.returncode == 1
    assert 'MCP server "notes": sign-in timed out after 2 seconds' in result.stderr
    assert not auth_file(env).exists()


def test_a_corrupt_credentials_file_is_reported_and_left_alone(env, oauth_server):
    env = configure(env, oauth_server.url)
    auth_file(env).write_text("{broken", encoding="utf-8")
    login = run_pi(["mcp", "login", "notes"], env, timeout=60)
    assert login.returncode == 1
    assert "mcp-auth.json: invalid JSON at line 1" in login.stderr and "Traceback" not in login.stderr
    listed = run_pi(["mcp", "list"], env, timeout=60)
    assert listed.returncode == 1 and "mcp-auth.json: invalid JSON" in listed.stdout
    assert run_pi(["mcp", "logout", "notes"], env, timeout=30).returncode == 1
    assert auth_file(env).read_text(encoding="utf-8") == "{broken"


def test_login_of_an_unknown_or_stdio_server_says_why(env):
    Path(env["PI_CODING_AGENT_DIR"], "mcp.json").write_text(json.dumps({"mcpServers": {"local": {"command": "true"}}}))
    unknown = run_pi(["mcp", "login", "nope"], env)
    assert unknown.returncode == 1 and 'No MCP server named "nope"' in unknown.stderr
    stdio = run_pi(["mcp", "login", "local"], env)
    assert stdio.returncode == 1 and "stdio server" in stdio.stderr


def test_slash_mcp_login_and_logout_in_print_and_rpc_mode(env, oauth_server):
    """Outside the app ``/mcp login|logout <server>`` act directly (mcp.md): print mode shows the
    URL on stderr and the outcome on stdout; RPC shows both as notifications."""
    env = configure(env, oauth_server.url)
    login = run_pi(["-p", "/mcp login notes", "--model", MODEL], env, timeout=60)
    assert login.returncode == 0, login.stderr
    assert "/authorize?" in login.stderr and login.stdout == 'Signed in to MCP server "notes"\n'
    assert json.loads(auth_file(env).read_text())
    status = run_pi(["-p", "/mcp", "--model", MODEL], env, timeout=60)
    assert status.stdout.startswith("notes: connected"), status.stdout

    # Closing stdin ends an RPC session and cuts short what is still running (rpc.md "Shutdown"),
    # so the client waits for the command's outcome before it closes.
    client = RpcClient(env, "--model", MODEL)
    try:
        client.send({"type": "prompt", "id": "1", "message": "/mcp logout notes"})
        client.wait(lambda r: r.get("method") == "notify"
                    and r.get("message", "").startswith('Signed out of MCP server "notes"'), timeout=60)
        assert client.close(timeout=60) == 0
    finally:
        client.kill()
    assert json.loads(auth_file(env).read_text()) == {}
