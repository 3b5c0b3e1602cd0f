"""``pi attach``: list the sessions a folder's ``pi serve`` runs, or attach one headless.

    pi attach --list [--json]                 the running sessions: id, state, model, name, last answer
    pi attach <id> --mode rpc                 Pi's RPC protocol for that session on stdin/stdout
    pi attach --new|--continue --mode rpc     open a session on the server first, then the same

``--folder DIR`` names another folder's server, ``--socket PATH`` a server by its socket. Attaching
the full app is the next step (phase 2 of issue 38).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

USAGE = """Usage: pi attach --list [--json] | pi attach <id> --mode rpc | pi attach --new|--continue --mode rpc

  --list           Print the sessions the folder's pi serve runs
  --json           With --list: one JSON object per session
  --mode rpc       Speak Pi's RPC protocol for the session on stdin/stdout (any RPC client works)
  --new            Open a new session on the server and attach it
  -c, --continue   Open (or find) the folder's most recent session and attach it
  --folder DIR     The server of this folder (default: the current folder)
  --socket PATH    The server listening here
"""

STATES = {"working": "working", "waiting": "waiting (a question or permission)", "idle": "idle", "failed": "failed"}


def _fail(message: str, code: int = 1) -> int:
    print(f"pi: {message}", file=sys.stderr)
    return code


def run(argv: list[str]) -> int:
    """Run ``pi attach`` with ``argv`` (the words after ``attach``); returns the exit status."""
    options: dict[str, Any] = {"list": False, "json": False, "new": False, "continue": False}
    mode = folder = socket_arg = ref = None
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        if word in ("--list", "--json", "--new"):
            options[word[2:]] = True
        elif word in ("-c", "--continue"):
            options["continue"] = True
        elif word in ("--mode", "--folder", "--socket"):
            value = next(words, None)
            if value is None:
                return _fail(f"{word} needs a value", 2)
            if word == "--mode":
                mode = value
            elif word == "--folder":
                folder = value
            else:
                socket_arg = value
        elif word.startswith("-"):
            return _fail(f"unknown option {word} (pi attach --help)", 2)
        elif ref is None:
            ref = word
        else:
            return _fail("pi attach takes one session id", 2)
    path = Path(socket_arg).absolute() if socket_arg else _socket_of(folder)
    if options["list"]:
        return _list(path, options["json"])
    if ref is None and not (options["new"] or options["continue"]):
        return _fail("which session? (pi attach --list names them; --new opens one)", 2)
    if mode != "rpc":
        return _fail("only --mode rpc can attach for now; the app attaches in a later version", 2)
    from .bridge import BridgeError, open_bridge, run_bridge

    try:
        sock, reader, _handle = open_bridge(path, ref, new=options["new"], continue_recent=options["continue"])
    except BridgeError as exc:
        return _fail(str(exc))
    return run_bridge(sock, reader)


def _socket_of(folder: str | None) -> Path:
    from .client import default_socket

    return default_socket(os.path.abspath(folder or os.getcwd()))


def _list(path: Path, as_json: bool) -> int:
    import asyncio

    from .client import NoServer, ServeClient

    async def fetch() -> list[dict[str, Any]]:
        client = await ServeClient.connect(path, client="pi attach --list")
        try:
            return await client.list_sessions()
        finally:
            await client.close()

    try:
        sessions = asyncio.run(fetch())
    except NoServer as exc:
        return _fail(str(exc))
    if as_json:
        lines = [json.dumps(row, ensure_ascii=False) for row in sessions]
    else:
        lines = [_row(row) for row in sessions] or ["No sessions running (open one: pi attach --new --mode rpc)"]
    try:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:
        # Whoever read stdout stopped (| head -1): quiet, as a tool killed by SIGPIPE would be.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _row(row: dict[str, Any]) -> str:
    from ..text_safety import terminal_safe

    state = STATES.get(row.get("status") or "", str(row.get("status")))
    name = row.get("name") or os.path.basename(row.get("sessionFile") or "") or "(in memory)"
    answer = " ".join(str(row.get("lastAnswer") or row.get("error") or "").split())
    if len(answer) > 100:
        answer = answer[:99] + "…"
    parts = [row["session"], state, str(row.get("model") or "-"), name, f"{row.get('viewers', 0)} viewer(s)"]
    line = "  ".join(parts)
    return terminal_safe(f"{line}\n    {answer}" if answer else line, multiline=True)
