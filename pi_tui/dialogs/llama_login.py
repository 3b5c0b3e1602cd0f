"""``/login llama.cpp``: the router's URL, then an optional key, checked against the router and stored
as Pi stores them (auth.json ``llama.cpp``: ``env.LLAMA_BASE_URL`` and ``key`` when one was given).

An empty URL takes ``LLAMA_BASE_URL``, else ``http://127.0.0.1:9931``. A router that cannot be
reached (or is not a router) stores nothing and says why. After saving, the session's llama.cpp
models are refreshed; when none is loaded, the notice points at ``/llama`` before ``/model`` (Pi).
When ``builtin:llama.cpp`` was not loaded (no router configured at start), the notice says to restart.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_runtime.frontend import SessionPort

PROVIDER = "llama.cpp"
DEFAULT_URL = "http://127.0.0.1:9931"


def ask_llama_server(app: Any, session: SessionPort, back: Callable[[], None] | None) -> None:
    """Ask for the URL, then the key, then save (each Esc goes back one step)."""
    from .text_prompt import TextPrompt

    suggested = os.environ.get("LLAMA_BASE_URL") or DEFAULT_URL

    def url_entered(url: str | None) -> None:
        if url is None:
            if back is not None:
                back()
            return
        _ask_key(app, session, url, lambda: ask_llama_server(app, session, back))

    app.push_screen(TextPrompt("Login to llama.cpp — llama.cpp server URL", placeholder=f"e.g., {suggested}",
                               hint="enter to continue · esc to cancel"), url_entered)


def _ask_key(app: Any, session: SessionPort, url: str, back: Callable[[], None]) -> None:
    from .login_prompt import ApiKeyPrompt

    def key_entered(key: str | None) -> None:
        if key is None:
            back()
            return
        app.run_worker(_save(app, session, url, key), name="llama-login", group="login", exit_on_error=False)

    app.push_screen(ApiKeyPrompt(PROVIDER, PROVIDER, [], "API key (optional)", optional=True), key_entered)


async def _save(app: Any, session: SessionPort, url: str, key: str) -> None:
    from pi_runtime.frontend.app_support import llama_login

    from .login_prompt import say

    registry = session.model_registry
    if registry is None:  # a served session: its registry lives in pi serve
        say(app, session, "llama.cpp can be configured only in a session of this process", "error")
        return
    try:
        await llama_login(registry, url, key)
    except Exception as exc:  # noqa: BLE001 - unreachable, not a router, a bad URL, auth.json unwritable: never the key
        say(app, session, f"Failed to save llama.cpp server: {exc}", "error")
        return
    say(app, session, f"Saved API key for {PROVIDER}. Credentials saved to {registry.auth.path}")
    runner = getattr(session, "extension_runner", None)
    if runner is None or "llama" not in runner.commands():
        # Not loaded while no router was configured: the next start loads it.
        say(app, session, "Restart pi to list the llama.cpp models and use /llama.", "warning")
        return
    await runner.refresh_models(PROVIDER)
    if not registry.models_of(PROVIDER):
        say(app, session, "No llama.cpp models are loaded. Use /llama to load a model, then /model to select it.",
            "warning")
    app.call_later(app.chrome.refresh_model, session)
