"""``BrowserBridge`` between a real websocket and a real Textual app under Textual's web driver.

The child is a small Textual app (``ECHO_APP``) that draws the last key it got and its size, so
the test sees both directions of the framing: keys and resizes in, screen output out; closing
the websocket makes the app quit.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from pi_runtime.serve.web.bridge import BrowserBridge

ECHO_APP = textwrap.dedent("""
    from textual.app import App
    from textual.widgets import Static

    class Echo(App):
        def compose(self):
            yield Static("ready", id="out")

        def on_key(self, event):
            self.query_one("#out").update(f"key={event.key}")

        def on_resize(self, event):
            self.query_one("#out").update(f"size={event.size.width}x{event.size.height}")

    Echo().run()
""")


async def _run(argv: list[str], talk) -> list[BrowserBridge]:
    bridges: list[BrowserBridge] = []

    async def handler(websocket: ServerConnection) -> None:
        bridge = BrowserBridge(websocket, argv, ".", 60, 20)
        bridges.append(bridge)
        await bridge.run()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/", max_size=None) as ws:
            await talk(ws)
    return bridges


async def _until_drawn(ws, text: str) -> None:
    drawn = b""
    while text.encode() not in drawn:
        frame = await asyncio.wait_for(ws.recv(), 60)
        if isinstance(frame, bytes):
            drawn += frame


async def test_keys_and_resizes_reach_the_app_and_its_screen_comes_back():
    async def talk(ws) -> None:
        await _until_drawn(ws, "size=60x20")  # the page's size reached the app, which is running
        await ws.send(json.dumps(["stdin", "q"]))
        await _until_drawn(ws, "key=q")
        await ws.send(json.dumps(["resize", {"width": 50, "height": 12}]))
        await _until_drawn(ws, "size=50x12")
        await ws.send(json.dumps(["ping", "7"]))
        while (frame := await asyncio.wait_for(ws.recv(), 30)) != '["pong", "7"]':
            assert isinstance(frame, bytes)
        await ws.send("not json")  # ignored, the connection goes on
        await ws.send(json.dumps(["resize", {"width": -1, "height": "x"}]))
        await ws.send(json.dumps(["stdin", "z"]))
        await _until_drawn(ws, "key=z")

    bridges = await _run([sys.executable, "-c", ECHO_APP], talk)
    [bridge] = bridges
    # The page closed: the app was asked to quit and did (not terminated, not killed).
    assert bridge.exit_status == 0


async def test_an_app_that_cannot_start_says_why_on_the_page():
    failing = [sys.executable, "-c", "import sys; print('starting'); sys.stderr.write('no server here\\n'); sys.exit(1)"]
    said: list[str] = []

    async def talk(ws) -> None:
        try:
            while True:
                frame = await asyncio.wait_for(ws.recv(), 60)
                said.append(frame.decode() if isinstance(frame, bytes) else frame)
        except ConnectionClosed:
            pass

    await _run(failing, talk)
    text = "".join(said)
    assert "pi could not open the app here" in text and "starting" in text and "no server here" in text
