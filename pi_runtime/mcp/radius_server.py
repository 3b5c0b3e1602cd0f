"""The Radius MCP server that uses the Radius login (cli.md: logging in to Radius adds it).

After ``pi auth login radius`` (and, when the user agrees, after ``/login radius``) the global
``mcp.json`` gets ``{"url": "https://radius.pi.dev/mcp", "auth": {"provider": "radius"}}``: named
``radius``, or ``radius-mcp`` (then ``radius-mcp-2``, ...) when that name's namespace is taken; a
global server already at that URL is pointed at the login instead of its own OAuth. Nothing changes
when a global server already uses the login.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..records import record

RADIUS_MCP_URL = "https://radius.pi.dev/mcp"


@record(frozen=True)
class RadiusMcpPlan:
    path: Path
    """The global mcp.json."""
    name: str
    config: dict[str, Any]


def plan_radius_server(provider: str, agent_dir: str | Path, cwd: str | Path) -> RadiusMcpPlan | None:
    """What to write to the global mcp.json, or None when a global server already uses the login."""
    from .config import global_path, load_config, namespace

    servers = [s for s in load_config(agent_dir, cwd, project_trusted=False).servers if s.scope == "global"]

    def plain(url: Any) -> str:
        return str(url).rstrip("/")

    existing = next((s for s in servers if "url" in s.config and plain(s.config["url"]) == plain(RADIUS_MCP_URL)), None)
    if existing is not None and (existing.config.get("auth") or {}).get("provider") == provider:
        return None
    name = existing.name if existing is not None else "radius"
    if existing is None:
        taken = {namespace(s.name) for s in servers}
        suffix = 1
        while namespace(name) in taken:
            name = "radius-mcp" if suffix == 1 else f"radius-mcp-{suffix}"
            suffix += 1
    config: dict[str, Any] = dict(existing.config) if existing is not None else {"url": RADIUS_MCP_URL}
    config["auth"] = {"provider": provider}
    config.pop("oauth", None)  # the login replaces the server's own sign-in
    return RadiusMcpPlan(global_path(agent_dir), name, config)


def add_radius_server(plan: RadiusMcpPlan) -> bool:
    """Write the plan; True when it replaced an entry."""
    from .config_edit import add_server

    return add_server(plan.path, plan.name, plan.config)
