"""``pi serve --web`` in headless Chromium: pair, type a prompt, read the loopback model's answer.

Needs Debian's ``chromium`` (skipped with the install command when it is absent). The page is
driven as a user would: the pairing link opened in the address bar, keys typed into the terminal.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from cdp_support import Chromium, Page, plain, require_chromium
from e2e_support import MODEL, Reply, chunk, text_reply, tool_reply, usage
from serve_support import ServeProcess, short_runtime_dir
from web_support import child_pids, pairing_url

from pi_runtime.serve.web.child import attach_opens_app
from pi_runtime.testing.waiting import wait_until


@pytest.fixture
def web(env):
    require_chromium()
    runtime = short_runtime_dir()
    process = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "--web")
    yield process
    process.stop()
    shutil.rmtree(runtime, ignore_errors=True)


def test_a_prompt_typed_in_the_browser_gets_the_answer(web, loopback):
    origin, token = pairing_url(web)
    loopback.push(text_reply("Greetings from the loopback model."))
    with Chromium() as browser:
        page = browser.new_page()
        page.watch_terminal()
        page.call("Network.enable")
        page.go(f"{origin}/?token={token}")
        page.wait_for(lambda: page.evaluate("location.href") == origin + "/", "the redirect to the page")
        cookie = next(c for c in page.cookies() if c["name"] == "pi_web_" + origin.rsplit(":", 1)[1])
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == ""  # HttpOnly: the page's scripts cannot read it
        page.wait_for_text("loop-model")  # the app is up: its footer names the model
        page.type_text("Say hello in the browser")
        page.press_enter()
        screen = page.wait_for_text("Greetings from the loopback model.")
        assert "Say hello in the browser" in plain(screen)
        # Everything the page asked for came from pi serve, and nothing broke its policy.
        requested = [e["params"]["request"]["url"] for e in browser.events
                     if e.get("method") == "Network.requestWillBeSent"]
        assert requested and all(url.startswith((origin + "/", "data:")) for url in requested), requested
        logged = [e["params"] for e in browser.events if e.get("method") in (
            "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")]
        assert not [entry for entry in logged if "Content Security Policy" in json.dumps(entry)], logged
        assert not [entry for entry in logged if "exceptionDetails" in entry], logged
    prompt = loopback.requests[-1].json()["messages"][-1]["content"]
    assert "Say hello in the browser" in str(prompt)


class _ForeignSite:
    """Another site on 127.0.0.1 (another port: the same *site* for cookies, another *origin*)
    whose page tries to open pi serve's websocket: the browser sends the cookie along, so only
    the Origin check stands in the way."""

    def __init__(self, target_ws: str) -> None:
        import http.server
        import threading

        page = f"""<!DOCTYPE html><script>
        window.outcome = "pending";
        const ws = new WebSocket("{target_ws}");
        ws.onopen = () => {{ window.outcome = "open"; }};
        ws.onerror = () => {{ window.outcome = "refused"; }};
        </script>""".encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_foreign_page_cannot_open_the_websocket(web):
    origin, token = pairing_url(web)
    foreign = _ForeignSite(origin.replace("http", "ws", 1) + "/ws")
    try:
        with Chromium() as browser:
            page = browser.new_page()
            page.go(f"{origin}/?token={token}")  # paired: the browser holds the cookie
            page.wait_for(lambda: page.evaluate("location.href") == origin + "/", "the redirect to the page")
            page.go(foreign.url)
            outcome = page.wait_for(lambda: (o := page.evaluate("window.outcome")) != "pending" and o,
                                    "the foreign page's websocket to settle")
            assert outcome == "refused"
            # The same attempt from the page's own origin opens (the refusal was the Origin's doing).
            page.go(origin + "/")
            page.wait_for(lambda: page.evaluate("!!document.querySelector('.textual-terminal.-connected')"),
                          "the page's own websocket")
    finally:
        foreign.close()


def open_app(browser: Chromium, origin: str, token: str) -> Page:
    """A paired tab showing the app, once its footer is drawn."""
    page = browser.new_page()
    page.watch_terminal()
    page.go(f"{origin}/?token={token}")
    page.wait_for_text("loop-model")
    return page


@pytest.mark.skipif(not attach_opens_app(), reason="a page shows the served sessions once pi attach opens the app "
                    "(issue 38, the app as a client); until then it runs its own session")
def test_closing_the_page_leaves_its_run_going_in_the_server(web, loopback):
    gate = threading.Event()
    events = [chunk({"content": "The first half, "}), chunk({"content": "then the second."}), chunk(finish="stop"),
              usage(), "[DONE]"]
    loopback.push(Reply.sse(events, gate_at=1, gate=gate))
    origin, token = pairing_url(web)
    with Chromium() as browser:
        page = open_app(browser, origin, token)
        page.type_text("Start a long answer")
        page.press_enter()
        page.wait_for_text("The first half,")
        assert wait_until(lambda: child_pids(web.proc.pid), timeout=5)
        page.close()
        # The page's app leaves with the tab...
        assert wait_until(lambda: not child_pids(web.proc.pid), timeout=30), "the page's app is still running"
    # ...and the run it started goes on in pi serve, to the end.
    viewer = web.viewer()
    rows = viewer.ok({"type": "list_sessions"})["sessions"]
    assert [row["status"] for row in rows] == ["working"]
    gate.set()
    assert wait_until(lambda: viewer.ok({"type": "list_sessions"})["sessions"][0]["lastAnswer"]
                      == "The first half, then the second.", timeout=30)
    viewer.close()


@pytest.mark.skipif(not attach_opens_app(), reason="a page shows the served sessions once pi attach opens the app")
def test_a_browser_and_a_socket_viewer_share_the_session(web, loopback):
    viewer = web.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    viewer.ok({"type": "attach", "session": handle})
    origin, token = pairing_url(web)
    loopback.push(text_reply("Seen by both viewers."))
    with Chromium() as browser:
        page = open_app(browser, origin, token)
        page.type_text("Hello from the browser")
        page.press_enter()
        page.wait_for_text("Seen by both viewers.")
    start = viewer.wait_event("agent_start")
    settled = viewer.wait_event("agent_settled")
    assert start["cursor"] < settled["cursor"]
    assert viewer.ok({"type": "get_last_assistant_text", "session": handle})["text"] == "Seen by both viewers."
    viewer.close()


def test_a_phone_approves_a_permission_question(env, loopback):
    require_chromium()
    data = Path(env["PI_TEST_PROJECT"]) / "data"
    data.mkdir()
    runtime = short_runtime_dir()
    serve = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime}, "--model", MODEL, "--web", "-e", "builtin:permission-gate")
    try:
        viewer = serve.viewer()
        handle = viewer.ok({"type": "open_session"})["session"]
        viewer.ok({"type": "attach", "session": handle})
        loopback.push(tool_reply("bash", {"command": "rm -rf data"}), text_reply("Cleaned up the data folder."))
        viewer.ok({"type": "prompt", "session": handle, "message": "clean up"})
        viewer.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "confirm")
        origin, token = pairing_url(serve)
        with Chromium() as browser:
            page = browser.new_page()
            # A phone held upright: 390 x 844 CSS pixels, touch.
            page.call("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2,
                                                              "mobile": True})
            page.call("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
            page.watch_terminal()
            page.go(f"{origin}/?token={token}")
            page.wait_for_text("Allow risky tool call?")  # the phone layout, with the gate's question
            assert page.evaluate("window.__piSize.width") < 60
            page.wait_for(lambda: any("Approve" in line for line in page.screen_cells()), "the Approve button")
            page.tap_text("Approve")
            viewer.wait_event("agent_settled", timeout=30)
            page.wait_for_text("Cleaned up the data folder.")
        assert not data.exists()
        viewer.close()
    finally:
        serve.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def test_two_servers_paired_in_one_browser_keep_their_own_cookies(web, env, tmp_path):
    # Browsers keep cookies per host, not per port: two servers on 127.0.0.1 must not share a name.
    other_project = tmp_path / "other-project"
    other_project.mkdir()
    runtime = short_runtime_dir()
    other = ServeProcess({**env, "XDG_RUNTIME_DIR": runtime, "PI_TEST_PROJECT": str(other_project)},
                         "--model", MODEL, "--web")
    try:
        with Chromium() as browser:
            page = browser.new_page()
            for server in (web, other):
                origin, token = pairing_url(server)
                page.go(f"{origin}/?token={token}")
                page.wait_for(lambda origin=origin: page.evaluate("location.href") == origin + "/", "the page")
            first = pairing_url(web)[0]
            page.go(first + "/")
            page.wait_for(lambda: page.evaluate("!!document.querySelector('.textual-terminal')"),
                          "the first server's page, still paired")
    finally:
        other.stop()
        shutil.rmtree(runtime, ignore_errors=True)
