"""``pi mcp add|remove|list|login|logout``: configure and check MCP servers without a session (cli.md, "MCP commands").

Agents run these through ``bash`` too, so messages and exit statuses follow Pi's. ``add`` and
``remove`` edit ``<agent dir>/mcp.json``, or ``.pi/mcp.json`` with ``-l``/``--local``; ``add`` does
not connect. ``list`` connects to every enabled server and exits 1 when an entry is invalid or an
enabled server did not connect. ``login``/``logout`` are in :mod:`.login_cli`. Shell commands do not
load extensions.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .config import McpConfigError, global_path, load_config, project_path, validate_server
from .config_edit import add_server, remove_server

HELP = """Usage:
  pi mcp add <server> [options] -- <command> [args...]
  pi mcp add <server> [options] --url <url>
  pi mcp remove <server> [-l]
  pi mcp list [--json]
  pi mcp login <server> [-l] [--timeout <seconds>]
  pi mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json (stored OAuth credentials are kept)
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in to an OAuth server: opens the authorization page ($BROWSER
                          is honoured) and waits for it; the redirected URL can also be
                          pasted here. Credentials go to ~/.pi/agent/mcp-auth.json
  logout <server>         Delete the stored OAuth credentials of the server

Options for add, remove, login, and logout:
  -l, --local             Use .pi/mcp.json in the current project instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     Time limit for the whole sign-in (default: 300)"""
HINT = 'Use "pi mcp --help" for usage.'
_ADD_OPTIONS = {
    "local": "flag", "url": "value", "env": "list", "cwd": "value", "header": "list",
    "bearer-token-env-var": "value", "oauth-client-id": "value", "oauth-client-secret": "value",
    "oauth-callback-port": "value", "oauth-client-name": "value", "oauth-client-registration": "value",
    "exposure": "value", "description": "value",
}
_HTTP_ONLY = ("header", "bearer-token-env-var", "oauth-client-id", "oauth-client-secret", "oauth-callback-port",
              "oauth-client-name", "oauth-client-registration")
_STDIO_ONLY = ("env", "cwd")

Out = Callable[[str], None]


class _Options:
    def __init__(self) -> None:
        self.positional: list[str] = []
        self.values: dict[str, str | bool] = {}
        self.lists: dict[str, list[str]] = {}

    def value(self, name: str) -> str | None:
        found = self.values.get(name)
        return found if isinstance(found, str) else None


def _parse(args: list[str], known: dict[str, str], error: Out, max_positionals: int | None = None) -> _Options | None:
    """``--name value`` options; ``--`` (or reaching ``max_positionals``) makes the rest positional,
    so a server command's own options pass through."""
    out = _Options()
    i = 0
    while i < len(args):
        typed = args[i]
        arg = "--local" if typed == "-l" else typed
        if arg == "--" or (max_positionals is not None and len(out.positional) >= max_positionals):
            out.positional.extend(args[i + 1:] if arg == "--" else args[i:])
            break
        i += 1
        if not arg.startswith("--"):
            out.positional.append(arg)
            continue
        name = arg[2:]
        kind = known.get(name)
        if kind is None:
            error(f"Unknown option {typed}.\n{HINT}")
            return None
        if kind == "flag":
            out.values[name] = True
            continue
        if i >= len(args):
            error(f"{arg} needs a value.")
            return None
        value = args[i]
        i += 1
        if kind == "list":
            out.lists.setdefault(name, []).append(value)
        else:
            out.values[name] = value
    return out


def _pairs(option: str, pairs: list[str], error: Out) -> dict[str, str] | None:
    record: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            error(f'--{option} expects KEY=VALUE, got "{pair}".')
            return None
        record[key] = value
    return record


def _project_trusted(agent_dir: Path, cwd: str) -> bool:
    from ..resources.trust import TrustStore, TrustStoreError

    try:
        return TrustStore(agent_dir).get(cwd) is True
    except TrustStoreError:
        return False


def _add(args: list[str], agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    usage = f"Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\n{HINT}"
    parsed = _parse(args, _ADD_OPTIONS, error, max_positionals=2)
    if parsed is None:
        return 1
    name, command = (parsed.positional[0], parsed.positional[1:]) if parsed.positional else ("", [])
    url = parsed.value("url")
    if not name or (url is None) == (not command):
        error(usage)
        return 1
    misplaced = next((o for o in (_HTTP_ONLY if url is None else _STDIO_ONLY) if o in parsed.values or o in parsed.lists), None)
    if misplaced:
        error(f"--{misplaced} only applies to {'HTTP servers (--url)' if url is None else 'stdio servers'}.")
        return 1
    entry: dict[str, Any]
    if url is not None:
        headers = _pairs("header", parsed.lists.get("header", []), error)
        if headers is None:
            return 1
        bearer = parsed.value("bearer-token-env-var")
        if bearer is not None:
            headers["Authorization"] = f"Bearer ${{{bearer}}}"
        oauth: dict[str, Any] = {}
        for option, key in (("oauth-client-id", "clientId"), ("oauth-client-secret", "clientSecret"),
                            ("oauth-callback-port", "callbackPort"), ("oauth-client-name", "clientName"),
                            ("oauth-client-registration", "clientRegistration")):
            value = parsed.value(option)
            if value is not None:
                oauth[key] = (int(value) if value.isdigit() else value) if key == "callbackPort" else value
        entry = {"url": url, **({"headers": headers} if headers else {}), **({"oauth": oauth} if oauth else {})}
    else:
        env = _pairs("env", parsed.lists.get("env", []), error)
        if env is None:
            return 1
        entry = {"command": command[0], **({"args": command[1:]} if command[1:] else {}),
                 **({"env": env} if env else {}),
                 **({"cwd": parsed.value("cwd")} if parsed.value("cwd") is not None else {})}
    for option in ("exposure", "description"):
        if parsed.value(option) is not None:
            entry[option] = parsed.value(option)
    checked = validate_server(name, entry)
    if isinstance(checked, str):
        error(checked)
        return 1
    local = "local" in parsed.values
    path = project_path(cwd) if local else global_path(agent_dir)
    scope = "project" if local else "global"
    try:
        replaced = add_server(path, name, checked)
    except McpConfigError as exc:
        error(f"Could not update {path}: {exc}")
        return 1
    out(f'{"Replaced" if replaced else "Added"} {scope} MCP server "{name}" in {path}.')
    if local and not _project_trusted(agent_dir, cwd):
        out(f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it.")
    oauth_possible = url is not None and not any(k.lower() == "authorization" for k in checked.get("headers", {}))
    out("Check it with: pi mcp list" + (f". If it requires sign-in: pi mcp login {name}" if oauth_possible else ""))
    return 0


def _remove(args: list[str], agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    parsed = _parse(args, {"local": "flag"}, error)
    if parsed is None:
        return 1
    if len(parsed.positional) != 1:
        error(f"Usage: pi mcp remove <server> [-l]\n{HINT}")
        return 1
    name = parsed.positional[0]
    local = "local" in parsed.values
    path = project_path(cwd) if local else global_path(agent_dir)
    scope = "project" if local else "global"
    try:
        removed = remove_server(path, name)
    except McpConfigError as exc:
        error(f"Could not update {path}: {exc}")
        return 1
    if removed:
        out(f'Removed {scope} MCP server "{name}" from {path}.')
        return 0
    other = next((s for s in load_config(agent_dir, cwd, project_trusted=True).servers
                  if s.name == name and s.scope != scope), None)
    hint = f" It is defined in {other.source}{'; use --local' if other.scope == 'project' else '; omit --local'}." if other else ""
    error(f'No {scope} MCP server named "{name}" in {path}.{hint}')
    return 1


async def _check_all(agent_dir: Path, cwd: str, trusted: bool) -> tuple[list[dict[str, Any]], list[str]]:
    from .. import __version__
    from .manager import McpManager

    manager = McpManager.load(cwd, agent_dir, project_trusted=trusted, version=__version__)
    try:
        await manager.wait_connected()
        rows = manager.status()
        for row in rows:
            connection = manager.connections.get(row["name"])
            if connection is None:
                continue
            entry = connection.entry
            differs = {t: entry.tool_exposure(t) for t in row["tools"] if entry.tool_exposure(t) != entry.exposure}
            if differs:
                row["toolExposure"] = differs
    finally:
        await manager.close()
    order = {entry.name: i for i, entry in enumerate(manager.config.servers)}
    return sorted(rows, key=lambda r: order[r["name"]]), manager.config.errors


def _list(args: list[str], agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    parsed = _parse(args, {"json": "flag"}, error)
    if parsed is None:
        return 1
    if parsed.positional:
        error(f"Usage: pi mcp list [--json]\n{HINT}")
        return 1
    trusted = _project_trusted(agent_dir, cwd)
    note = None
    if not trusted and project_path(cwd).is_file():
        note = f"{project_path(cwd)} is ignored because the project is not trusted. Start pi in the project to trust it."
    rows, errors = asyncio.run(_check_all(agent_dir, cwd, trusted))
    failed = bool(errors) or any(r["enabled"] and r["state"] != "connected" for r in rows)
    if "json" in parsed.values:
        servers = []
        for row in rows:
            report: dict[str, Any] = {k: row[k] for k in ("name", "scope", "source")}
            if row.get("override"):
                report["override"] = row["override"]
            report.update(enabled=row["enabled"], exposure=row["exposure"], transport=row["transport"],
                          state=row["state"], tools=row["tools"])
            for key in ("toolExposure",):
                if key in row:
                    report[key] = row[key]
            if row["resources"]:
                report["resources"] = True
            if row["state"] != "connected" and row.get("error"):
                report["error"] = row["error"]
            servers.append(report)
        out(json.dumps({"servers": servers, "errors": errors, **({"note": note} if note else {})}, indent=2))
        return 1 if failed else 0
    if not rows and not errors:
        out(f"No MCP servers configured. Add them to {global_path(agent_dir)} or .pi/mcp.json.")
    for row in rows:
        count = len(row["tools"])
        state = f"connected, {count} tool{'' if count == 1 else 's'}" if row["state"] == "connected" else row["state"]
        out(f"{row['name']}: {state} ({row['exposure']}, {row['scope']})")
        out(f"  {row['transport']}")
        if row.get("override"):
            out(f"  project override: {row['override']}")
        if row["tools"]:
            marked = [f"{t} [{row['toolExposure'][t]}]" if t in row.get("toolExposure", {}) else t for t in row["tools"]]
            out(f"  tools: {', '.join(marked)}")
        if row["resources"]:
            out("  offers resources")
        if row["state"] != "connected" and row.get("error"):
            out("  " + row["error"].replace("\n", "\n  "))
    for problem in errors:
        out(f"config error: {problem}")
    if note:
        out(note)
    return 1 if failed else 0


def run(args: list[str], *, agent_dir: Path | None = None, cwd: str | None = None) -> int:
    """Run ``pi mcp <args>``; returns the exit status."""
    from ..paths import agent_dir as default_agent_dir

    def out(line: str) -> None:
        print(line, flush=True)

    def error(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    base = agent_dir or default_agent_dir()
    folder = cwd or os.getcwd()
    command, rest = (args[0], args[1:]) if args else (None, [])
    if command in (None, "help") or "--help" in args or "-h" in args:
        out(HELP)
        return 0
    if command == "add":
        return _add(rest, base, folder, out, error)
    if command == "remove":
        return _remove(rest, base, folder, out, error)
    if command == "list":
        return _list(rest, base, folder, out, error)
    if command == "login":
        from .login_cli import login

        return login(rest, base, folder, out, error)
    if command == "logout":
        from .login_cli import logout

        return logout(rest, base, folder, out, error)
    error(f'Unknown mcp command "{command}".\n{HINT}')
    return 1
