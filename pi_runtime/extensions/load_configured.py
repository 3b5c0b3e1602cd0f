"""Load the extensions a run is configured with: discovery, packages, ``-e`` paths, built-in MCP.

Kept apart from ``pi_runtime.sdk`` (which imports the agent and the kernel, ~0.25 s) so the
commands that only need extensions' flags or providers (``--help``, ``--list-models``,
``--export``) load them without paying for a session they never build.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def load_extensions(
    cwd: str, agent_dir: str, settings: Any, registry: Any, trusted: bool, paths: list[str], no_extensions: bool,
    *, mcp: bool = False, tools: Iterable[str] | str | None = None, exclude_tools: Iterable[str] = (),
    keep_tool_filter: bool = False, llama_offered: bool = False,
) -> Any:
    """Discover and load extensions; None when there are none (no runner, no overhead).

    Args:
        cwd: Working directory (its trusted ``.pi/extensions`` is read).
        agent_dir: Agent dir (its ``extensions/`` is read).
        settings: The ``SettingsManager`` (``extensions`` and ``packages`` lists).
        registry: Where extensions' providers go.
        trusted: Whether project extensions may load.
        paths: ``-e`` paths or ``builtin:<name>``.
        no_extensions: Skip discovery (``-ne``), configured packages' extensions included.
        mcp: Add the built-in MCP extension when an ``mcp.json`` exists, or once an extension
            registers an MCP server (unless the settings say ``-builtin:mcp``).
        tools: ``--tools``, whose ``mcp__…`` entries choose MCP tools.
        exclude_tools: ``--exclude-tools``, applied to MCP tools too.
        keep_tool_filter: Leave the MCP tool filter the first session's command line set (a
            second session of the same process, ``pi_runtime.sibling``, has no command line).
        llama_offered: Load ``builtin:llama.cpp`` even before a router is configured (RPC, whose
            ``get_commands`` lists ``/llama`` as Pi's does); otherwise it loads only once one is
            (auth.json or ``LLAMA_BASE_URL``), so the app and ``pi -p`` pay nothing for it until then.
            ``-builtin:llama.cpp`` and ``-ne`` leave it out.
    """
    from ..packages import has_packages
    from .discovery import find_extensions

    paths = list(paths)
    if not no_extensions and has_packages(settings, trusted):
        from ..packages.resolve import resolve_packages

        # As -e paths, so /reload (which discovers again) loads them again.
        paths += [str(p) for p in resolve_packages(settings, cwd, project_trusted=trusted).paths("extensions")]
    mcp = mcp and not builtin_disabled(settings, trusted, "mcp")
    if "builtin:mcp" in paths or (mcp and _has_mcp_config(agent_dir, cwd, trusted)):
        from ..mcp.extension import set_tool_filter
        from ..mcp.manager import ToolFilter

        if not keep_tool_filter:
            set_tool_filter(ToolFilter(tools, list(exclude_tools)))
        if "builtin:mcp" not in paths:
            paths.append("builtin:mcp")
        mcp = False  # loaded already: nothing to add on demand
    if not no_extensions:
        _add_llama(paths, settings, trusted, registry, llama_offered)
        _add_tool_builtins(paths, settings, trusted, tools, mcp_loaded="builtin:mcp" in paths)
    sources, failures = find_extensions(cwd, agent_dir, settings=settings, project_trusted=trusted,
                                        paths=paths, no_extensions=no_extensions)
    if not sources and not failures:
        return None  # nothing to load: the loader's and the runner's modules are not even imported
    from .runner import ExtensionRunner

    runner = ExtensionRunner.discover(
        cwd=cwd, agent_dir=agent_dir, paths=paths, no_extensions=no_extensions,
        settings=settings, model_registry=registry, project_trusted=trusted,
    )
    if mcp:
        # No mcp.json: the built-in MCP support comes when an extension registers a server.
        runner.mcp_servers.builtin_on_demand = (tools, list(exclude_tools))
    return runner if runner.extensions or runner.failures else None


_TOOL_BUILTINS = {"codemode": "codemode", "tool-search": "tool_search"}
"""The built-in extensions that only register a tool, by the tool's name."""


def _add_tool_builtins(paths: list[str], settings: Any, trusted: bool, tools: Any, mcp_loaded: bool) -> None:
    """Add ``builtin:codemode`` and ``builtin:tool-search`` when something can use their tools.

    Pi always loads them (their tools are registered inactive); pi loads them when a tool list
    names their tool (``--tools +codemode``, ``defaultTools``), when MCP is on (servers' tools are
    reached through them), or when the ``extensions`` setting says ``+builtin:<name>``, so a run
    that cannot use them does not pay for an extension runner. ``-builtin:<name>`` leaves them out.
    """
    named: set[str] = set()
    for spec in [tools, *_default_tools(settings, trusted)]:
        items = spec.split(",") if isinstance(spec, str) else list(spec or ())
        named.update(str(item).strip().lstrip("+") for item in items)
    for builtin, tool in _TOOL_BUILTINS.items():
        path = f"builtin:{builtin}"
        if path in paths or builtin_disabled(settings, trusted, builtin):
            continue
        if tool in named or mcp_loaded or builtin_enabled(settings, trusted, builtin):
            paths.insert(0, path)  # before other -e paths: an extension's tool of the same name replaces it


def _add_llama(paths: list[str], settings: Any, trusted: bool, registry: Any, offered: bool) -> None:
    """Add ``builtin:llama.cpp`` when it is offered or a router is configured, unless turned off.

    While it is allowed, ``/login`` offers llama.cpp even when the extension is not loaded (no router
    yet): signing in needs no extension runner, and the next start loads it."""
    from ..llama import EXTENSION_PATH, PROVIDER_ID, configured

    if EXTENSION_PATH in paths or builtin_disabled(settings, trusted, "llama.cpp"):
        return
    login_providers = getattr(registry, "login_providers", None)
    if login_providers is not None:
        login_providers.add(PROVIDER_ID)
    if offered or configured(getattr(registry, "auth", None)):
        paths.insert(0, EXTENSION_PATH)  # Pi loads its built-ins first: /llama leads get_commands


def _default_tools(settings: Any, trusted: bool) -> list[Any]:
    if settings is None or not hasattr(settings, "raw"):
        return []
    lists = [settings.raw(scope).get("defaultTools") for scope in (("global", "project") if trusted else ("global",))]
    return [entries for entries in lists if isinstance(entries, list)]


def builtin_enabled(settings: Any, trusted: bool, name: str) -> bool:
    """Whether the settings' ``extensions`` lists say ``+builtin:<name>`` last."""
    if settings is None or not hasattr(settings, "raw"):
        return False
    enabled = False
    for scope in ("global", "project") if trusted else ("global",):
        entries = settings.raw(scope).get("extensions")
        for entry in entries if isinstance(entries, list) else []:
            text = entry.strip() if isinstance(entry, str) else ""
            if text[1:] == f"builtin:{name}" and text[0] in "+-":
                enabled = text[0] == "+"
    return enabled


def builtin_disabled(settings: Any, trusted: bool, name: str) -> bool:
    """Whether the settings' ``extensions`` lists turn ``builtin:<name>`` off: the last
    ``-builtin:<name>`` or ``+builtin:<name>`` entry decides, the project's (when trusted) over the user's."""
    disabled = False
    if settings is None or not hasattr(settings, "raw"):
        return disabled
    for scope in ("global", "project") if trusted else ("global",):
        entries = settings.raw(scope).get("extensions")
        for entry in entries if isinstance(entries, list) else []:
            text = entry.strip() if isinstance(entry, str) else ""
            if text[1:] == f"builtin:{name}" and text[0] in "+-":
                disabled = text[0] == "-"
    return disabled


def _has_mcp_config(agent_dir: str, cwd: str, trusted: bool) -> bool:
    from ..mcp import has_config

    return has_config(agent_dir, cwd, trusted)
