"""``pi mcp login <server>`` and ``pi mcp logout <server>`` (cli.md, "MCP commands").

``login`` runs :func:`.oauth_login.mcp_sign_in` for a configured HTTP server: it prints the
authorization URL, opens the browser, and also reads standard input, so a redirected URL pasted
into the terminal (the browser is on another machine) completes the sign-in too. ``logout``
deletes the stored credentials of the server's name and URL. ``-l`` requires the server to be
defined in the project's ``.pi/mcp.json``. Exit status 0 on success, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

from .cli import HINT, Out, _parse, _project_trusted
from .config import McpServerEntry, load_config, project_path
from .oauth import McpSignInError
from .oauth_login import DEFAULT_TIMEOUT, SignIn, mcp_sign_in
from .oauth_store import McpAuthFileError, McpAuthStore


def _find(name: str, local: bool, agent_dir: Path, cwd: str, error: Out) -> McpServerEntry | None:
    trusted = _project_trusted(agent_dir, cwd)
    if local and not trusted:
        error(f"{project_path(cwd)} is ignored because the project is not trusted. Start pi in the project to trust it.")
        return None
    entry = load_config(agent_dir, cwd, project_trusted=trusted).get(name)
    if entry is None or (local and entry.scope != "project"):
        where = f" in {project_path(cwd)}" if local else ""
        error(f'No MCP server named "{name}"{where}.\n{HINT}')
        return None
    if entry.transport != "http":
        error(f'MCP server "{name}" is a stdio server; only HTTP servers sign in with OAuth.')
        return None
    return entry


def _read_pasted(attempt: SignIn, loop: asyncio.AbstractEventLoop, out: Out) -> None:
    """Feed lines typed or piped into stdin to the sign-in (a daemon thread: stdin has no async read)."""
    def give(line: str) -> None:
        problem = attempt.deliver(line)
        if problem is not None and line.strip():
            out(problem)

    def run() -> None:
        for line in sys.stdin:
            if line.strip():
                try:
                    loop.call_soon_threadsafe(give, line)
                except RuntimeError:  # the sign-in is over and its loop closed
                    return

    if sys.stdin is not None and not sys.stdin.closed:
        threading.Thread(target=run, name="pi-mcp-login-stdin", daemon=True).start()


def login(args: list[str], agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    parsed = _parse(args, {"local": "flag", "timeout": "value"}, error)
    if parsed is None:
        return 1
    if len(parsed.positional) != 1:
        error(f"Usage: pi mcp login <server> [-l] [--timeout <seconds>]\n{HINT}")
        return 1
    raw_timeout = parsed.value("timeout")
    try:
        timeout = float(raw_timeout) if raw_timeout is not None else DEFAULT_TIMEOUT
        if timeout <= 0:
            raise ValueError
    except ValueError:
        error(f'--timeout expects a positive number of seconds, got "{raw_timeout}".')
        return 1
    entry = _find(parsed.positional[0], "local" in parsed.values, agent_dir, cwd, error)
    if entry is None:
        return 1

    async def main() -> bool:
        loop = asyncio.get_running_loop()
        return await mcp_sign_in(entry, agent_dir, out, timeout=timeout,
                             started=lambda attempt: _read_pasted(attempt, loop, out))

    try:
        signed_in = asyncio.run(main())
    except (McpSignInError, McpAuthFileError) as exc:
        error(str(exc))
        return 1
    except KeyboardInterrupt:
        error("Sign-in cancelled.")
        return 1
    if signed_in:
        out(f'Signed in to MCP server "{entry.name}". Credentials are stored in {McpAuthStore(agent_dir).path}.')
    else:
        out(f'MCP server "{entry.name}" did not ask for sign-in; nothing was stored.')
    return 0


def logout(args: list[str], agent_dir: Path, cwd: str, out: Out, error: Out) -> int:
    parsed = _parse(args, {"local": "flag"}, error)
    if parsed is None:
        return 1
    if len(parsed.positional) != 1:
        error(f"Usage: pi mcp logout <server> [-l]\n{HINT}")
        return 1
    entry = _find(parsed.positional[0], "local" in parsed.values, agent_dir, cwd, error)
    if entry is None:
        return 1
    store = McpAuthStore(agent_dir)
    try:
        removed = store.remove(entry.name, str(entry.config["url"]))
    except McpAuthFileError as exc:
        error(str(exc))
        return 1
    if removed:
        out(f'Signed out of MCP server "{entry.name}": deleted its credentials from {store.path}.')
    else:
        out(f'No stored credentials for MCP server "{entry.name}".')
    return 0
