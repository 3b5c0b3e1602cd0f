"""Headless Chromium driven over the DevTools protocol (CDP), for the browser tests.

Debian's ``chromium`` is started with ``--remote-debugging-port=0`` and a private profile; it
prints the browser's DevTools websocket address on stderr, and every command goes over that one
websocket (``websockets``' sync client), to a page reached through a flat session id. Chromium
may resolve no name but 127.0.0.1 (``--host-resolver-rules``) and its background services
(updates, sync, safe browsing) are off, so a test talks to nothing else.

``Page.watch_terminal`` taps the page's websocket before any script of the page runs, so a test
can read what the app drew (the screen as text, escape sequences removed) without pixels.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """The chromium binary, or a skip saying how to install it."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium)")
    return CHROMIUM


# The page's websocket, tapped: every binary frame (screen output) decoded into window.__piDrawn.
_TAP = """
(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  window.__piDrawn = "";
  window.__piSize = null;
  window.WebSocket = class extends Native {
    send(data) {
      if (typeof data === "string" && data.startsWith('["resize"')) {
        window.__piSize = JSON.parse(data)[1];
      }
      return super.send(data);
    }
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data !== "string") {
          window.__piDrawn += decoder.decode(event.data, {stream: true});
        }
      });
    }
  };
})();
"""
# The drawn text without escape sequences (CSI, OSC, charset selections).
_PLAIN = r"""window.__piDrawn
  .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "")
  .replace(/\x1b\[[0-9;?<>=]*[ -\/]*[@-~]/g, "")
  .replace(/\x1b[()][0-9A-Za-z]/g, "")
  .replace(/\x1b[=>78]/g, "")"""


# Cursor positioning (CSI row;col H), other escape sequences (skipped), and runs of text.
_TERMINAL_TOKENS = re.compile(
    r"\x1b\[(?P<cup>[0-9;]*)H|\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]"
    r"|\x1b[=>78]|(?P<text>[^\x1b]+)"
)


class CdpError(RuntimeError):
    pass


class Chromium:
    """A headless Chromium and its DevTools connection; use as a context manager."""

    def __init__(self) -> None:
        binary = require_chromium()
        self.profile = tempfile.mkdtemp(prefix="pi-chromium-")
        args = [
            binary, "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1280,800",
        ]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        address = self._devtools_address()
        # Entered by hand: it lives as long as this object (websockets 17 wants connect() entered).
        self.ws = connect(address, max_size=None, open_timeout=30).__enter__()
        self._ids = itertools.count(1)
        self._answers: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _devtools_address(self) -> str:
        assert self.proc.stderr is not None
        seen = []
        for line in self.proc.stderr:
            seen.append(line)
            if line.startswith("DevTools listening on "):
                # Keep draining stderr so Chromium never blocks on a full pipe.
                threading.Thread(target=self.proc.stderr.read, daemon=True).start()
                return line.split(" on ", 1)[1].strip()
        raise AssertionError(f"chromium did not start: {''.join(seen)[-2000:]}")

    def _read(self) -> None:
        for raw in self.ws:
            message = json.loads(raw)
            with self._changed:
                if "id" in message:
                    self._answers[message["id"]] = message
                else:
                    self.events.append(message)
                self._changed.notify_all()

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 30) -> dict[str, Any]:
        """Send one command and wait for its answer's ``result``."""
        command_id = next(self._ids)
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        with self._changed:
            while command_id not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CdpError(f"no answer to {method}")
                self._changed.wait(left)
            answer = self._answers.pop(command_id)
        if "error" in answer:
            raise CdpError(f"{method}: {answer['error']}")
        return dict(answer.get("result") or {})

    def new_page(self) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call("Log.enable")  # the browser's own messages: a blocked resource, a policy violation
        return page

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(20)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab, through its flat CDP session."""

    def __init__(self, browser: Chromium, session: str, target: str) -> None:
        self.browser = browser
        self.session = session
        self.target = target

    def close(self) -> None:
        """Close the tab, as a user does (its websocket closes with it)."""
        self.browser.call("Target.closeTarget", {"targetId": self.target})

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30) -> dict[str, Any]:
        return self.browser.call(method, params, self.session, timeout)

    def watch_terminal(self) -> None:
        """From the next navigation on, record what the page's websocket brings (see the module doc)."""
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": _TAP})

    def go(self, url: str) -> None:
        result = self.call("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise CdpError(f"navigation to the page failed: {result['errorText']}")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise CdpError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screen_text(self) -> str:
        return str(self.evaluate(f"(window.__piDrawn === undefined ? '' : {_PLAIN})"))

    def wait_for(self, condition: Callable[[], Any], what: str, timeout: float = 60) -> Any:
        """Poll ``condition`` (each call is a CDP round trip) until it is truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            with self.browser._changed:
                # Woken by any DevTools event (the page draws, logs, loads); the timeout bounds a quiet page.
                self.browser._changed.wait(0.1)

    def wait_for_text(self, text: str, timeout: float = 60) -> str:
        return str(self.wait_for(lambda: screen if text in (screen := self.screen_text()) else None,
                                 f"{text!r} on the page", timeout))

    def screen_cells(self) -> list[str]:
        """The terminal's screen as rows of characters, replayed from what was drawn (cursor
        positioning and text; styles ignored): enough to find where a word is."""
        size = self.evaluate("window.__piSize")
        drawn = str(self.evaluate("window.__piDrawn"))
        cols, rows = int(size["width"]), int(size["height"])
        grid = [[" "] * cols for _ in range(rows)]
        row = col = 0
        for match in _TERMINAL_TOKENS.finditer(drawn):
            if match.group("cup") is not None:
                numbers = [int(n) if n else 1 for n in (match.group("cup").split(";") + ["1"])[:2]]
                row, col = numbers[0] - 1, numbers[1] - 1
            elif match.group("text"):
                for char in match.group("text"):
                    if char in "\r\n":
                        row, col = (row + 1, 0) if char == "\n" else (row, 0)
                    elif 0 <= row < rows and 0 <= col < cols:
                        grid[row][col] = char
                        col += 1
        return ["".join(line) for line in grid]

    def tap_text(self, text: str) -> None:
        """Tap (touch, as on a phone) the middle of the first place ``text`` is on the screen."""
        lines = self.screen_cells()
        row, col = next((r, line.index(text)) for r, line in enumerate(lines) if text in line)
        box = self.evaluate("(() => { const r = document.querySelector('.xterm-screen').getBoundingClientRect();"
                            " return [r.left, r.top, r.width, r.height]; })()")
        cell_w, cell_h = box[2] / len(lines[0]), box[3] / len(lines)
        x, y = box[0] + (col + len(text) / 2) * cell_w, box[1] + (row + 0.5) * cell_h
        for kind in ("touchStart", "touchEnd"):
            points = [{"x": x, "y": y}] if kind == "touchStart" else []
            self.call("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def type_text(self, text: str) -> None:
        """Type into the terminal (xterm's hidden textarea has the focus)."""
        self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        self.call("Input.insertText", {"text": text})

    def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            params = {"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
            if kind == "keyDown":
                params["text"] = "\r"
            self.call("Input.dispatchKeyEvent", params)

    def cookies(self) -> list[dict[str, Any]]:
        return list(self.call("Network.getCookies").get("cookies", []))


def plain(text: str) -> str:
    """Collapse whitespace (the screen's text is laid out in cells)."""
    return re.sub(r"\s+", " ", text)
