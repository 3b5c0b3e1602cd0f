"""``pi auth login <provider> [--api-key] [--no-browser]`` and ``pi auth logout <provider>`` (cli.md).

``login`` signs in with the provider's account (the browser, or with ``--no-browser`` its other
method such as a device code) or, with ``--api-key`` or for a provider without account sign-in,
asks for an API key without echoing it; either way the credential goes to auth.json and the
command exits. It needs an interactive terminal. ``logout`` removes what ``login`` or ``/login``
stored; environment variables and models.json stay. Exit status 0 on success (and for a logout
with nothing stored), 1 otherwise; messages as Pi words them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..auth_methods import account_only, api_key_name, login_options, matching_options, provider_name
from ..text_safety import terminal_safe
from .terminal import Terminal, TerminalLoginUI, interrupt_cancels

LOGIN_USAGE = "pi auth login <provider> [--api-key] [--no-browser]"
LOGOUT_USAGE = "pi auth logout <provider>"


def _registry(agent_dir: Path) -> Any:
    from ..ai.models import ModelRegistry
    from ..auth import AuthStorage

    return ModelRegistry(agent_dir / "models.json", AuthStorage(agent_dir / "auth.json"))


def login(args: list[str], agent_dir: Path, terminal: Terminal) -> int:
    """Run ``pi auth login``; returns the exit status."""
    provider_ref, want_key, browser = "", False, True
    for arg in args:
        if arg == "--api-key":
            want_key = True
        elif arg == "--no-browser":
            browser = False
        elif arg.startswith("-") or provider_ref:
            terminal.error(f"Usage: {LOGIN_USAGE}")
            return 1
        else:
            provider_ref = arg
    if not provider_ref:
        terminal.error(f"Usage: {LOGIN_USAGE}")
        return 1
    if want_key and not browser:
        terminal.error("--no-browser only applies to account sign-in; omit it with --api-key.")
        return 1
    registry = _registry(agent_dir)
    options = login_options(registry)
    found = matching_options(options, provider_ref)
    if not found:
        terminal.error(f'Unknown provider "{terminal_safe(provider_ref)}".')
        terminal.error(f"Providers: {', '.join(sorted({o.provider for o in options}))}")
        return 1
    provider = found[0].provider
    if not terminal.interactive:
        terminal.error(f'"{LOGIN_USAGE}" requires an interactive terminal')
        return 1
    name = provider_name(registry, provider)
    account = registry.oauth_config(provider)
    if want_key and account_only(registry, provider):
        terminal.error(f"{name} has no API key login. Omit --api-key to sign in.")
        return 1
    if account is not None and not want_key:
        return asyncio.run(_sign_in(registry, provider, name, browser, agent_dir, terminal))
    return asyncio.run(_save_key(registry, provider, name, terminal))


async def _sign_in(registry: Any, provider: str, name: str, browser: bool, agent_dir: Path, terminal: Terminal) -> int:
    from ..ai.abort import AbortController
    from ..ai.oauth import OAuthError, OAuthLoginCancelled
    from ..auth import AuthFileError
    from ..auth_methods import device_id_getter

    controller = AbortController()
    undo = interrupt_cancels(lambda: controller.abort("interrupted"))
    ui = TerminalLoginUI(terminal, provider, browser=browser)
    try:
        await registry.login_oauth(provider, ui, controller.signal, device_id=device_id_getter(agent_dir))
    except OAuthLoginCancelled:
        terminal.error("Login cancelled.")
        return 1
    except (OAuthError, AuthFileError) as exc:
        if controller.signal.aborted:
            terminal.error("Login cancelled.")
        else:
            terminal.error(f"Failed to log in to {name}: {terminal_safe(str(exc), multiline=True)}")
        return 1
    finally:
        undo()
    terminal.write(f"Logged in to {name}. Credentials saved to {registry.auth.path}")
    if provider == "radius":
        _add_radius_mcp(provider, name, agent_dir, terminal)
    return 0


def _add_radius_mcp(provider: str, name: str, agent_dir: Path, terminal: Terminal) -> None:
    """Point the global Radius MCP server at this login, without asking (``/login`` asks)."""
    import os

    from ..mcp.config import McpConfigError
    from ..mcp.radius_server import add_radius_server, plan_radius_server

    plan = plan_radius_server(provider, agent_dir, os.getcwd())
    if plan is None:
        return
    try:
        replaced = add_radius_server(plan)
    except McpConfigError as exc:
        terminal.error(f"Could not update {plan.path}: {exc}")
        return
    terminal.write(f'{"Updated" if replaced else "Added"} MCP server "{plan.name}" in {plan.path} to use the {name} login.')


async def _save_key(registry: Any, provider: str, name: str, terminal: Terminal) -> int:
    from ..auth import AuthFileError
    from .terminal import Cancelled

    task = asyncio.ensure_future(terminal.secret(f"Enter {api_key_name(registry, provider)}: "))
    def stop() -> None:
        task.cancel()

    undo = interrupt_cancels(stop)
    try:
        key = await task
    except (Cancelled, asyncio.CancelledError):
        terminal.error("Login cancelled.")
        return 1
    finally:
        undo()
    try:
        registry.auth.set_api_key(provider, key.strip())
    except (AuthFileError, ValueError) as exc:
        terminal.error(f"Failed to save API key for {name}: {exc}")
        return 1
    terminal.write(f"Saved API key for {name}. Credentials saved to {registry.auth.path}")
    return 0


def logout(args: list[str], agent_dir: Path, terminal: Terminal) -> int:
    """Run ``pi auth logout``; returns the exit status."""
    from ..auth import AuthFileError

    if len(args) != 1 or args[0].startswith("-"):
        terminal.error(f"Usage: {LOGOUT_USAGE}")
        return 1
    ref = args[0]
    registry = _registry(agent_dir)
    auth = registry.auth
    stored = auth.list()
    if auth.errors:
        terminal.error(f"Could not read stored credentials: {auth.errors[0]}")
        return 1
    found = matching_options(login_options(registry), ref)
    provider = found[0].provider if found else None
    target = provider or ref
    if provider is None and target not in stored:
        terminal.error(f'Unknown provider "{terminal_safe(ref)}".')
        terminal.error(f"Stored credentials: {', '.join(sorted(stored)) or 'none'}")
        return 1
    name = provider_name(registry, provider) if provider else ref
    cred = auth.get(target)
    if cred is None:
        terminal.write(f"No stored credentials for {name}. Environment variables and models.json config are unchanged.")
        return 0
    try:
        auth.remove(target)
    except AuthFileError as exc:
        terminal.error(f"Logout failed: {exc}")
        return 1
    terminal.write(f"Logged out of {name}." if cred.type == "oauth" else
                   f"Removed stored API key for {name}. Environment variables and models.json config are unchanged.")
    return 0
