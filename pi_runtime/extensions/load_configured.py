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
        mcp: Add the built-in MCP extension when an ``mcp.json`` exists.
        tools: ``--tools``, whose ``mcp__…`` entries choose MCP tools.
        exclude_tools: ``--exclude-tools``, applied to MCP tools too.
    """
    from ..packages import has_packages
    from .loader import discover_extensions

    paths = list(paths)
    if not no_extensions and has_packages(settings, trusted):
        from ..packages.resolve import resolve_packages

        # As -e paths, so /reload (which discovers again) loads them again.
        paths += [str(p) for p in resolve_packages(settings, cwd, project_trusted=trusted).paths("extensions")]
    if "builtin:mcp" in paths or (mcp and _has_mcp_config(agent_dir, cwd, trusted)):
        from ..mcp.extension import set_tool_filter
        from ..mcp.manager import ToolFilter

        set_tool_filter(ToolFilter(tools, list(exclude_tools)))
        if "builtin:mcp" not in paths:
            paths.append("builtin:mcp")
    sources, failures = discover_extensions(cwd, agent_dir, settings=settings, project_trusted=trusted,
                                            paths=paths, no_extensions=no_extensions)
    if not sources and not failures:
        return None  # nothing to load: the runner's modules are not even imported
    from .runner import ExtensionRunner

    runner = ExtensionRunner.discover(
        cwd=cwd, agent_dir=agent_dir, paths=paths, no_extensions=no_extensions,
        settings=settings, model_registry=registry, project_trusted=trusted,
    )
    return runner if runner.extensions or runner.failures else None


def _has_mcp_config(agent_dir: str, cwd: str, trusted: bool) -> bool:
    from ..mcp import has_config

    return has_config(agent_dir, cwd, trusted)
