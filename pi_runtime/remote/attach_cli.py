"""``pi attach``: the sessions a folder's ``pi serve`` runs, in the full app or headless.

    pi attach                                 every running session in the app, one tab each
    pi attach <id or index>                   that session in the app
    pi attach --new|--continue                a new (or the folder's most recent) session, in the app
    pi attach --list [--json]                 the running sessions: index, id, state, model, name, last answer
    pi attach <id> --mode rpc                 Pi's RPC protocol for that session on stdin/stdout
    pi attach --new|--continue --mode rpc     open a session on the server first, then the same

``--folder DIR`` names another folder's server, ``--socket PATH`` a server by its socket. The app
is imported only when it is asked for (``pi_tui.attach_app``): the headless forms never load it.
A mistake (no server, an unknown or ambiguous id) is one line before the app takes the terminal.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

USAGE = """Usage: pi attach [<id or index>] | pi attach --new|--continue | pi attach --list [--json]
       pi attach <id> --mode rpc | pi attach --new|--continue --mode rpc

  (no id)          Every session the folder's pi serve runs, in the app, one tab each
  <id or index>    One session: a prefix of its id, or its number in pi attach --list
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
    if mode is None:
        return _app(path, ref, new=options["new"], continue_recent=options["continue"])
    if mode != "rpc":
        return _fail(f"--mode {mode}: pi attach speaks rpc (or opens the app without --mode)", 2)
    if ref is None and not (options["new"] or options["continue"]):
        return _fail("which session? (pi attach --list names them; --new opens one)", 2)
    from .bridge import BridgeError, open_bridge, run_bridge

    try:
        sock, reader, _handle = open_bridge(path, ref, new=options["new"], continue_recent=options["continue"])
    except BridgeError as exc:
        return _fail(str(exc))
    return run_bridge(sock, reader)


def _app(path: Path, ref: str | None, *, new: bool, continue_recent: bool) -> int:
    """The full app on the chosen sessions; quitting it leaves their runs going on the server.

    The app's imports (a thread) overlap the server building and sending the sessions' snapshots;
    the app paints its first frame (the editor takes keys from then on) before it shows them, and
    runs on the loop and the connection that attached them.
    """
    import asyncio
    import importlib

    from .attach_choice import AttachChoiceError, attach_for_app
    from .client import NoServer
    from .errors import RemoteError

    def load_app() -> Any:
        return importlib.import_module("pi_tui.attach_app")

    async def main() -> int:
        try:
            attaching, module = await attach_for_app(path, ref, new=new, continue_recent=continue_recent,
                                                     load_app=load_app)
        except (NoServer, AttachChoiceError, RemoteError) as exc:
            return _fail(str(exc))
        except ImportError as exc:
            return _fail(f"the app cannot start: {exc} (pi attach --mode rpc works without it)")
        return int(await module.run_attached(path, attaching) or 0)

    return asyncio.run(main())


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
        lines = [_row(index, row) for index, row in enumerate(sessions, 1)] or ["No sessions running (open one: pi attach --new)"]
    try:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:
        # Whoever read stdout stopped (| head -1): quiet, as a tool killed by SIGPIPE would be.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _row(index: int, row: dict[str, Any]) -> str:
    from ..text_safety import terminal_safe

    state = STATES.get(row.get("status") or "", str(row.get("status")))
    name = row.get("name") or os.path.basename(row.get("sessionFile") or "") or "(in memory)"
    answer = " ".join(str(row.get("lastAnswer") or row.get("error") or "").split())
    if len(answer) > 100:
        answer = answer[:99] + "…"
    parts = [f"{index:>2}", row["session"], state, str(row.get("model") or "-"), name, f"{row.get('viewers', 0)} viewer(s)"]
    line = "  ".join(parts)
    return terminal_safe(f"{line}\n    {answer}" if answer else line, multiline=True)
