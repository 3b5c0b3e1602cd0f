"""``/mcp``: the configured MCP servers, their state, tools and errors; ``r`` reconnects one, ``s``
signs in to an OAuth server (a server in ``needs-auth`` says so) and ``o`` signs out. ``e`` turns a
server on or off and ``x`` picks its exposure, saved to the mcp.json that defines it (Pi's Enable,
Disable and Exposure); ``p`` turns a global server on or off in this project only.

Rows read like ``pi mcp list`` (``time: connected, 2 tools (codemode, global)``), servers that need
attention first. The highlighted server's transport, tools (with their agent names) and last error
show below the list. The screen follows the session's MCP manager while it is open, so a server
that connects, fails or drops updates in place.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .modal import Modal
from .pick_list import PICKER_CSS


def server_line(row: dict[str, Any]) -> str:
    """One server as ``pi mcp list`` prints it."""
    count = len(row["tools"])
    if row["state"] == "connected":
        state = f"connected, {count} tool{'' if count == 1 else 's'}"
    else:
        state = "needs sign-in (s: Sign in)" if row["state"] == "needs-auth" else row["state"]
    return f"{row['name']}: {state} ({row['exposure']}, {row['scope']})"


def server_detail(row: dict[str, Any], tool_names: dict[str, str]) -> str:
    """Transport, source, tools and the last error of one server."""
    lines = [row["transport"], f"from {row['source']}" + (f", overridden by {row['override']}" if row.get("override") else "")]
    if row["tools"]:
        lines.append("tools: " + ", ".join(f"{t} ({tool_names[t]})" if t in tool_names else t for t in row["tools"]))
    if row["resources"]:
        lines.append("offers resources (list_mcp_resources, read_mcp_resource)")
    if row.get("error") and row["state"] != "connected":
        lines.append(row["error"])
    return "\n".join(lines)


class McpScreen(Modal[None]):
    """The servers of one session's MCP manager."""

    DEFAULT_CSS = PICKER_CSS.replace("PickList", "McpScreen") + """
    McpScreen #mcp-detail { color: $pi-muted; height: auto; max-height: 12; margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape,ctrl+c", "dismiss(None)", "Close", id="tui.select.cancel"),
        Binding("r", "reconnect", "Reconnect"),
        Binding("s", "sign_in", "Sign in"),
        Binding("o", "sign_out", "Sign out"),
        Binding("e", "switch", "Enable or disable"),
        Binding("p", "switch_in_project", "Enable or disable in this project"),
        Binding("x", "exposure", "Exposure"),
    ]

    def __init__(self, manager: Any) -> None:
        super().__init__(id="mcp-screen")
        self.manager = manager
        self._rows: list[dict[str, Any]] = []
        self._previous: Any = None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("MCP servers", classes="picker-title")
            yield OptionList(id="mcp-servers")
            yield Static("", id="mcp-detail")
            yield Static("↑↓ select · e on/off · p on/off in this project only · x exposure\n"
                         "r reconnect · s sign in · o sign out · esc close", classes="picker-hint")

    def on_mount(self) -> None:
        self._previous = self.manager.on_state
        self.manager.on_state = self._state_changed
        self.manager.start()  # normally running already; /mcp before the first prompt starts it
        self._refresh_rows()
        self.query_one(OptionList).focus()

    def on_unmount(self) -> None:
        self.manager.on_state = self._previous

    def _state_changed(self, connection: Any) -> None:
        if self._previous is not None:
            self._previous(connection)
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        servers = self.query_one(OptionList)
        selected = self._selected_name()
        self._rows = self.manager.status()
        servers.clear_options()
        # An overridden registration shares its name with the mcp.json server: no id of its own.
        servers.add_options([Option(server_line(r), id=None if r["state"] == "overridden" else r["name"])
                             for r in self._rows])
        if not self._rows:
            servers.add_option(Option("No MCP servers configured (mcp.json)", disabled=True))
        names = [r["name"] for r in self._rows]
        if names:
            servers.highlighted = names.index(selected) if selected in names else 0
        self._show_detail()

    def _selected_name(self) -> str | None:
        servers = self.query_one(OptionList)
        index = servers.highlighted
        return self._rows[index]["name"] if index is not None and index < len(self._rows) else None

    def _show_detail(self) -> None:
        index = self.query_one(OptionList).highlighted
        row = self._rows[index] if index is not None and index < len(self._rows) else None
        name = row["name"] if row is not None else None
        tools = {getattr(t, "tool", ""): t.name for t in self.manager.tools() if getattr(t, "server", None) == name}
        errors = "\n".join(f"config error: {e}" for e in self.manager.config.errors)
        text = server_detail(row, tools) if row is not None else ""
        self.query_one("#mcp-detail", Static).update("\n".join(t for t in (text, errors) if t))

    def on_option_list_option_highlighted(self, _event: OptionList.OptionHighlighted) -> None:
        self._show_detail()

    def action_reconnect(self) -> None:
        name = self._selected_name()
        if name is None or name not in self.manager.connections:
            self.app.notify("That server is disabled: e enables it", severity="warning")
            return
        self.run_worker(self._reconnect(name), name="mcp-reconnect", exit_on_error=False)

    def action_sign_in(self) -> None:
        from .mcp_actions import start_sign_in

        name = self._selected_name()
        problem = start_sign_in(self.app, self.manager, name) if name is not None else "No server selected"
        if problem:
            self.app.notify(problem, severity="warning")

    def action_sign_out(self) -> None:
        name = self._selected_name()
        if name is not None:
            self.run_worker(self._sign_out(name), name="mcp-sign-out", exit_on_error=False)

    def _switchable(self) -> dict[str, Any] | None:
        index = self.query_one(OptionList).highlighted
        row = self._rows[index] if index is not None and index < len(self._rows) else None
        if row is None or row["state"] == "overridden":
            return None  # an overridden registration is not in use: the mcp.json server is
        return row

    def action_switch(self) -> None:
        row = self._switchable()
        if row is not None:
            self.run_worker(self._switch(row["name"], not row["enabled"], in_project=False), name="mcp-switch",
                            exit_on_error=False)

    def action_switch_in_project(self) -> None:
        row = self._switchable()
        if row is None:
            return
        if row["scope"] != "global" or self.manager.config.project_config is None:
            self.app.notify("Only a global server can be turned on or off for a trusted project alone",
                            severity="warning")
            return
        # Overridden by the project already: the override is where e saves too.
        in_project = not row.get("override")
        self.run_worker(self._switch(row["name"], not row["enabled"], in_project=in_project), name="mcp-switch",
                        exit_on_error=False)

    def action_exposure(self) -> None:
        from .mcp_actions import choose_exposure

        row = self._switchable()
        if row is not None:
            choose_exposure(self.app, self.manager, row, self._refresh_rows)

    async def _switch(self, name: str, enabled: bool, *, in_project: bool) -> None:
        from .mcp_actions import switch_server

        await switch_server(self.app, self.manager, name, enabled, in_project=in_project)
        self._refresh_rows()

    async def _sign_out(self, name: str) -> None:
        from .mcp_actions import sign_out

        ok, message = await sign_out(self.manager, name)
        self.app.notify(message, severity="information" if ok else "error", timeout=6)

    async def _reconnect(self, name: str) -> None:
        try:
            await self.manager.reconnect(name)
        except Exception as exc:  # noqa: BLE001 - shown to the user; the row shows the state
            self.app.notify(str(exc).split("\n", 1)[0], severity="error", timeout=6)
        else:
            self.app.notify(f'Reconnected to MCP server "{name}"', timeout=3)
