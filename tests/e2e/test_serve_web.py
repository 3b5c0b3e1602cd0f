"""``pi serve --web`` at the HTTP level: the installed server on loopback, requests made by hand.

The bar (issue 38): the pairing URL gates the page; the page's own ``/ws`` upgrade is accepted,
a foreign Origin refused; the token never reaches a log.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import threading

import pytest
from e2e_support import MODEL, PI, Reply, chunk, usage
from serve_support import ServeProcess, short_runtime_dir
from web_support import PAIRING, child_pids, get, open_ws, pair, pairing_url, ws_refusal

from pi_runtime.testing.waiting import wait_until


@pytest.fixture
def served_env(env):
    runtime = short_runtime_dir()
    yield {**env, "XDG_RUNTIME_DIR": runtime}
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def web(served_env):
    process = ServeProcess(served_env, "--model", MODEL, "--web")
    yield process
    process.stop()


def test_the_page_needs_the_pairing_link_and_the_link_works_once(web):
    origin, token = pairing_url(web)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", origin)
    for path in ("/", "/static/textual.js", "/static/page.css", "/nothing"):
        assert get(origin, path).status == 401, path
    assert get(origin, "/?token=not-the-token").status == 403
    answer = get(origin, f"/?token={token}")
    assert answer.status == 303
    assert answer.headers["location"] == "/"  # the token leaves the address bar
    flags = [part.strip() for part in answer.headers["set-cookie"].split(";")]
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(flags)
    cookie = flags[0]
    assert get(origin, f"/?token={token}").status == 403  # spent
    page = get(origin, "/", cookie=cookie)
    assert page.status == 200 and b'class="textual-terminal"' in page.body
    assert get(origin, "/", cookie=cookie.split("=")[0] + "=made-up").status == 401
    again = get(origin, f"/?token={token}", cookie=cookie)  # the spent link reopened in the paired browser
    assert again.status == 303 and "set-cookie" not in again.headers
    # stdout is no terminal (a log, here a pipe): no unused link is left in it, but SIGUSR1 asks for one.
    assert wait_until(lambda: any("kill -USR1" in line for line in web.lines), timeout=10)
    assert len({m.group(2) for m in map(PAIRING.search, web.lines) if m}) == 1
    web.proc.send_signal(signal.SIGUSR1)
    assert wait_until(lambda: len({m.group(2) for m in map(PAIRING.search, web.lines) if m}) == 2, timeout=10)
    fresh = [m.group(2) for m in map(PAIRING.search, web.lines) if m][-1]
    assert get(origin, f"/?token={fresh}").status == 303
    assert get(origin, f"/?token={fresh}").status == 403


def test_every_resource_is_served_here(web):
    origin, token = pairing_url(web)
    cookie = pair(origin, token)
    page = get(origin, "/", cookie=cookie)
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "https:" not in csp
    urls = re.findall(rb'(?:src|href)="([^"]+)"', page.body)
    css = get(origin, "/static/page.css", cookie=cookie)
    urls += re.findall(rb'url\("([^"]+)"\)', css.body)
    assert urls, page.body
    for url in urls:
        assert url.startswith(b"/"), url  # nothing from another host (fonts included)
        assert get(origin, url.decode(), cookie=cookie).status == 200, url
    script = get(origin, "/static/textual.js", cookie=cookie)
    assert script.headers["content-type"].startswith("text/javascript")
    assert not re.search(rb"https?://(?!www\.w3\.org)", script.body)  # the client fetches nothing by address


def test_only_the_pages_own_websocket_is_accepted(web):
    origin, token = pairing_url(web)
    cookie = pair(origin, token)
    assert ws_refusal(origin, cookie=cookie, page_origin="http://evil.example") == 403
    assert ws_refusal(origin, cookie=cookie, page_origin="http://localhost:1") == 403
    assert ws_refusal(origin, cookie=cookie, page_origin=None) == 403  # no Origin: not a browser page of ours
    assert ws_refusal(origin, cookie=None, page_origin=origin) == 401
    assert ws_refusal(origin, cookie=cookie.split("=")[0] + "=guess", page_origin=origin) == 401
    with open_ws(origin, cookie=cookie, page_origin=origin) as ws:
        # 101, and the app draws: the web driver's first screen comes as binary frames.
        drawn = b""
        while len(drawn) < 2000:
            frame = ws.recv(timeout=60)
            if isinstance(frame, bytes):
                drawn += frame
        assert b"\x1b[" in drawn
        ws.send(json.dumps(["ping", "42"]))
        while (frame := ws.recv(timeout=20)) != '["pong", "42"]':
            assert isinstance(frame, bytes), frame


def test_a_name_pointed_at_loopback_is_refused(web):
    # DNS rebinding: another site's page reaching 127.0.0.1 under its own host name.
    origin, token = pairing_url(web)
    port = origin.rsplit(":", 1)[1]
    assert get(origin, f"/?token={token}", host=f"evil.example:{port}").status == 403
    assert get(origin, f"/?token={token}").status == 303  # the token was not spent by that


def test_the_token_and_cookie_never_reach_the_log(served_env, loopback):
    serve = ServeProcess(served_env, "--model", MODEL, "--web")
    try:
        origin, token = pairing_url(serve)
        cookie = pair(origin, token)
        assert ws_refusal(origin, cookie=cookie, page_origin="http://evil.example") == 403
        get(origin, "/?token=" + token)
        get(origin, "/", cookie=cookie.split("=")[0] + "=" + "x" * 5000)
    finally:
        serve.stop()
    stderr = serve.stderr()
    value = cookie.split("=", 1)[1]
    assert token not in stderr and value not in stderr
    printed = "\n".join(serve.lines)
    assert value not in printed
    assert printed.count(token) == 1  # the pairing link, printed once, and nothing after it


def test_closing_the_page_does_not_stop_a_run(web, loopback):
    gate = threading.Event()
    events = [chunk({"content": "Half of it, "}), chunk({"content": "and the rest."}), chunk(finish="stop"),
              usage(), "[DONE]"]
    loopback.push(Reply.sse(events, gate_at=1, gate=gate))
    viewer = web.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    viewer.ok({"type": "attach", "session": handle})
    viewer.send({"type": "prompt", "session": handle, "message": "go"})
    viewer.wait_event("message_update")
    origin, token = pairing_url(web)
    cookie = pair(origin, token)
    with open_ws(origin, cookie=cookie, page_origin=origin) as ws:
        assert isinstance(ws.recv(timeout=60), bytes | str)
    gate.set()
    viewer.wait_event("agent_settled", timeout=30)
    assert viewer.ok({"type": "get_last_assistant_text", "session": handle})["text"] == "Half of it, and the rest."
    viewer.close()


@pytest.mark.parametrize(("flags", "message"), [
    (["--web", "--web-host", "192.0.2.1"], "needs TLS"),
    (["--web", "--web-host", "0.0.0.0"], "names no single address"),
    (["--web", "--web-cert", "cert.pem"], "go together"),
    (["--web", "--web-port", "http"], "must be a number"),
    (["--web-port", "8080"], "needs --web"),
])
def test_unsafe_or_wrong_web_flags_are_refused(served_env, flags, message):
    out = subprocess.run([PI, "serve", *flags], capture_output=True, text=True, env=served_env,
                         cwd=served_env["PI_TEST_PROJECT"], timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    assert message in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_tls_gives_a_secure_cookie_and_wants_the_https_origin(served_env):
    from pi_runtime.testing.standin import TestAuthority

    authority = TestAuthority()
    authority.server_context("127.0.0.1")  # writes 127.0.0.1.pem and 127.0.0.1.key
    folder = authority.directory
    serve = ServeProcess(served_env, "--model", MODEL, "--web", "--web-cert", str(folder / "127.0.0.1.pem"),
                         "--web-key", str(folder / "127.0.0.1.key"))
    try:
        origin, token = pairing_url(serve)
        assert origin.startswith("https://127.0.0.1:")
        tls = ssl.create_default_context(cafile=str(authority.ca_file))
        answer = get(origin, f"/?token={token}", tls=tls)
        assert answer.status == 303 and "; Secure" in answer.headers["set-cookie"]
        cookie = answer.headers["set-cookie"].split(";", 1)[0]
        assert "wss://127.0.0.1:" in answer.headers["content-security-policy"]
        assert ws_refusal(origin, cookie=cookie, page_origin=origin.replace("https", "http"), tls=tls) == 403
        with open_ws(origin, cookie=cookie, page_origin=origin, tls=tls) as ws:
            assert isinstance(ws.recv(timeout=60), bytes)
    finally:
        serve.stop()


def test_stopping_the_server_ends_the_pages_apps(web):
    origin, token = pairing_url(web)
    cookie = pair(origin, token)
    with open_ws(origin, cookie=cookie, page_origin=origin) as ws:
        ws.recv(timeout=60)
        apps = child_pids(web.proc.pid)
        assert apps
        assert web.stop() == 128 + 15
    assert wait_until(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in apps), timeout=20)


def test_the_server_imports_no_app_while_pages_are_open(served_env):
    # The app of each page runs in a child process; pi serve itself stays headless.
    env = {**served_env, "PYTHONPROFILEIMPORTTIME": "1"}
    serve = ServeProcess(env, "--model", MODEL, "--web")
    try:
        origin, token = pairing_url(serve)
        cookie = pair(origin, token)
        for query in ("?width=120&height=40", "?width=40&height=40"):  # the app, then the phone layout
            with open_ws(origin, cookie=cookie, page_origin=origin, query=query) as ws:
                assert isinstance(ws.recv(timeout=60), bytes)
    finally:
        serve.stop()
    imported = [line.rsplit("|", 1)[-1].strip() for line in serve.stderr().splitlines() if "import time:" in line]
    assert any(name.startswith("pi_runtime.serve.web") for name in imported)
    assert [name for name in imported if name.split(".")[0] in ("textual", "rich", "pi_tui", "textual_serve")] == []


def test_a_taken_port_is_one_line_and_no_server(web, served_env, tmp_path):
    port = pairing_url(web)[0].rsplit(":", 1)[1]
    other = tmp_path / "other"
    other.mkdir()
    out = subprocess.run([PI, "serve", "--web", "--web-port", port], capture_output=True, text=True, env=served_env,
                         cwd=other, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 1
    assert out.stderr == f"pi: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert "listening on" not in out.stdout


def test_on_a_terminal_the_next_link_is_printed_at_once(served_env):
    import pty
    import select
    import time

    controller, terminal = pty.openpty()
    proc = subprocess.Popen([PI, "serve", "--model", MODEL, "--web"], stdin=subprocess.DEVNULL, stdout=terminal,
                            stderr=subprocess.PIPE, env=served_env, cwd=served_env["PI_TEST_PROJECT"])
    os.close(terminal)
    seen = b""

    def read_until(done, timeout: float = 30) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while not done(seen):
            ready, _, _ = select.select([controller], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"timed out; the terminal shows {seen!r}"
            chunk = os.read(controller, 4096)
            assert chunk, seen
            seen += chunk

    def whole_links(data: bytes) -> list[str]:
        return re.findall(r"\?token=([A-Za-z0-9_-]+)\r?\n", data.decode())

    try:
        read_until(lambda data: b"listening on" in data)
        first = PAIRING.search(seen.decode())
        assert first is not None
        origin, token = first.group(1), first.group(2)
        assert get(origin, f"/?token={token}").status == 303
        read_until(lambda data: len(whole_links(data)) == 2)
        assert b"another device can pair with this link" in seen
        tokens = whole_links(seen)
        assert tokens[0] == token and tokens[1] != token
        assert "█" not in seen.decode()  # loopback: no QR code (a phone cannot open 127.0.0.1)
    finally:
        proc.terminate()
        proc.wait(20)
        os.close(controller)
