"""Helpers for the tests of ``pi attach``'s app (``pi_tui.attach_app``) against the installed
``pi serve``: the app's environment, a run held mid-answer, and what a transcript shows."""

from __future__ import annotations

import html
import re
import threading
from typing import Any

from e2e_support import Reply, chunk, usage
from serve_support import ServeProcess

from pi_runtime.testing.waiting import eventually


def app_environment(env: dict[str, str], monkeypatch: Any) -> None:
    """The app reads settings, themes and the model registry from the test's agent dir, as the
    server does, and runs in the test project."""
    for name in ("PI_CODING_AGENT_DIR", "HOME"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.chdir(env["PI_TEST_PROJECT"])


def held(first: str, rest: str, gate: threading.Event) -> Reply:
    """An answer whose first piece streams at once and whose rest waits for ``gate``."""
    return Reply.sse([chunk({"content": first}), chunk({"content": rest}), chunk(finish="stop"), usage(), "[DONE]"],
                     gate_at=1, gate=gate)


def transcript_text(app: Any) -> str:
    """The text on screen (the shown tab, as far as it fits), from the app's screenshot."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def until(pilot, check, timeout: float = 20.0) -> bool:
    """``check`` polled while the app goes on (no fixed wait)."""
    return await eventually(check, timeout=timeout)


def started_run(serve: ServeProcess, loopback, gate: threading.Event, first: str, rest: str):
    """A session on the server with a run streaming ``first`` and holding ``rest`` at ``gate``."""
    viewer = serve.viewer()
    handle = viewer.ok({"type": "open_session"})["session"]
    viewer.ok({"type": "attach", "session": handle})
    loopback.push(held(first, rest, gate))
    viewer.ok({"type": "prompt", "session": handle, "message": "start"})
    viewer.wait(lambda r: r.get("type") == "message_update"
                and r.get("assistantMessageEvent", {}).get("delta") == first)
    return viewer, handle


async def attached_as_pi_attach_does(socket: Any, handles: list[str]) -> Any:
    """The sessions attached before the app exists, as ``pi attach`` attaches them (the
    connection's tasks then run outside the app's context); for ``AttachedApp(attached=...)``."""
    from pi_runtime.frontend import ServeClient

    client = await ServeClient.connect(socket)
    sessions = [await client.attach(handle) for handle in handles]

    async def attaching() -> list[Any]:
        return sessions

    return attaching()
