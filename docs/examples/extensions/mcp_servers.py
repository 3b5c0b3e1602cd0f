"""MCP servers from this extension's own setting, for the session only, and ``/extra-mcp`` to
list them, take one away or bring it back.

Not one of Pi's examples: it shows what Pi's docs suggest for ``pi.register_mcp_server``.
Registrations are not saved, so the extension registers its servers again each time it loads,
here from ``"extraMcpServers"`` in settings.json (entries shaped like ``mcp.json``'s)::

    {"extraMcpServers": {"time": {"command": "mcp-server-time", "exposure": "direct"}}}

An entry the validator rejects is shown as a warning and the others still register. A server in
``mcp.json`` with the same name wins, and ``/mcp`` shows the registration as overridden.

    pi -e docs/examples/extensions/mcp_servers.py
"""

from __future__ import annotations

from typing import Any

SETTING = "extraMcpServers"


def extension(pi: Any) -> None:
    raw = pi.get_setting(SETTING, {})
    configured = raw if isinstance(raw, dict) else {}
    problems = [] if isinstance(raw, dict) else [f"{SETTING} must map server names to mcpServers entries"]

    def register(name: str) -> str | None:
        """Register one configured server; the reason when it cannot be."""
        try:
            pi.register_mcp_server(name, configured[name])
        except ValueError as exc:
            return str(exc)
        return None

    for name in configured:
        problem = register(name)
        if problem:
            problems.append(problem)

    def started(_event: Any, ctx: Any) -> None:
        for problem in problems:
            ctx.ui.notify(problem, "warning")

    def extra_mcp(args: str, ctx: Any) -> None:
        action, _, name = args.strip().partition(" ")
        name = name.strip()
        if action == "off" and name:
            pi.unregister_mcp_server(name)
            ctx.ui.notify(f"{name}: removed for this session")
        elif action == "on" and name in configured:
            ctx.ui.notify(register(name) or f"{name}: registered")
        else:
            names = ", ".join(server.name for server in pi.get_mcp_servers()) or "none"
            ctx.ui.notify(f"registered: {names} (/extra-mcp on|off <name>)")

    def complete(prefix: str) -> list[str]:
        words = [f"{action} {name}" for action in ("on", "off") for name in configured]
        return [w for w in words if w.startswith(prefix)]

    pi.on("session_start", started)
    pi.register_command("extra-mcp", extra_mcp, description=f"MCP servers from the {SETTING} setting",
                        get_argument_completions=complete)
