"""``builtin:llama.cpp``: the router's models as the ``llama.cpp`` provider, and ``/llama``.

The CLI loads it when a router is configured (``/login llama.cpp`` or ``LLAMA_BASE_URL``), and in
RPC mode (whose ``get_commands`` lists ``/llama`` as Pi's does), unless the settings say
``-builtin:llama.cpp`` or ``--no-extensions`` is given. Until a router is configured the app does
not load it (an extension runner costs its start-up ~100 M instructions); ``/login llama.cpp``
works without it and the next start loads it.

- The provider's models come from ``refresh_models`` (at start-up and after ``/login`` or a
  load): the router's loaded and sleeping models, and unloaded presets when it autoloads. An
  unreachable router leaves the provider without models and says why (never a hang: each request
  has a 15 s limit, a refused connection fails at once).
- ``/llama`` outside the app answers as Pi's does there: it is for interactive mode. The app
  opens its own screen for it (``pi_tui/dialogs/llama_screen.py``).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import LlamaClient

from . import DEFAULT_SERVER_URL, PROVIDER_ID, connection

COMMAND_DESCRIPTION = "Manage llama.cpp router models"


def _registry(pi: Any) -> Any:
    return pi._runner.providers.registry


def llama_client_for(registry: object) -> LlamaClient | None:
    """A client for the configured router, or None when none is configured."""
    from .client import LlamaClient

    found = connection(getattr(registry, "auth", None))
    return None if found is None else LlamaClient(found.server_url, found.api_key)


async def llama_login(registry: Any, server_url: str, api_key: str) -> str:
    """Check the router answers, then store it as Pi does (``env.LLAMA_BASE_URL``, the key when given).

    Returns:
        The normalised server URL.

    Raises:
        ValueError: Not an http(s) URL.
        LlamaError: The router cannot be reached or is not a router.
    """
    from .client import LlamaClient, normalize_server_url

    url = normalize_server_url(server_url.strip() or os.environ.get("LLAMA_BASE_URL") or DEFAULT_SERVER_URL)
    await LlamaClient(url, api_key.strip() or None).list()
    entry: dict[str, Any] = {"type": "api_key", "env": {"LLAMA_BASE_URL": url}}
    if api_key.strip():
        entry["key"] = api_key.strip()
    registry.auth.set(PROVIDER_ID, entry)
    return url


def extension(pi: Any) -> None:
    """Register the provider and ``/llama`` (see the module docstring)."""

    async def refresh(_context: Any) -> list[dict[str, Any]]:
        from .catalog import chat_models
        from .client import LlamaClient, LlamaError

        registry = _registry(pi)
        found = connection(getattr(registry, "auth", None))
        problems = getattr(registry, "provider_problems", {})
        problems.pop(PROVIDER_ID, None)
        if found is None:
            return []
        # The key requests carry; "local" when none is set, as Pi sends.
        registry.set_runtime_api_key(PROVIDER_ID, found.api_key or "local")
        try:
            return await chat_models(LlamaClient(found.server_url, found.api_key))
        except (LlamaError, ValueError) as exc:
            # No models, and a reason that --model and --list-models can give.
            problems[PROVIDER_ID] = str(exc)
            return []
        except asyncio.CancelledError:
            # The start-up refresh's time is up (a router that accepts but never answers).
            problems[PROVIDER_ID] = f"Could not reach llama.cpp server at {found.server_url}: no answer in time"
            raise

    async def llama_command(_args: str, ctx: Any) -> None:
        if ctx.mode != "tui":
            ctx.ui.notify("/llama is available in interactive mode", "warning")
            return
        # The app opens its own /llama screen and never sends the command here; another host
        # that does gets the same hint as an unconfigured run.
        if connection(getattr(_registry(pi), "auth", None)) is None:
            ctx.ui.notify(f"Configure llama.cpp with /login {PROVIDER_ID}", "warning")

    registry = _registry(pi)
    if registry is not None and hasattr(registry, "login_providers"):
        registry.login_providers.add(PROVIDER_ID)  # /login llama.cpp before the router has told its models
    pi.register_provider(PROVIDER_ID, api="openai-completions", base_url=f"{DEFAULT_SERVER_URL}/v1",
                         refresh_models=refresh)
    pi.register_command("llama", llama_command, description=COMMAND_DESCRIPTION)
