"""``pi serve``: keep a folder's sessions running for any number of viewers (docs/serve.md).

    pi serve [--folder DIR] [--socket PATH] [--web [--web-port N] ...] [pi's session flags: --model, -e, ...]

One server per folder (and agent dir): a second one says where the first is and exits 1. The
flags are what every session the server opens is built with; ``--continue`` or ``--session``
opens that session at start. The server prints one line when it listens and runs until SIGTERM,
SIGINT or SIGHUP. It never imports the app (Textual); ``--web`` runs the app for each browser
page in a child process (``serve/web``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket
    from pathlib import Path

    from ..cli_args import CliArgs
    from .web.options import WebSetup

USAGE = """Usage: pi serve [--folder DIR] [--socket PATH] [options]

Run a folder's sessions in the background for any number of viewers (pi attach).

  --folder DIR     The folder whose sessions to run (default: the current folder)
  --socket PATH    Listen here instead of the folder's usual place
  -c, --continue   Open the folder's most recent session at start
  --session REF    Open this session (file or id) at start
  --web            Also serve the app to a browser on 127.0.0.1; prints a one-time pairing URL
  --web-port N     The browser's port (default: any free one)
  --web-host ADDR  Listen on another address (needs --web-cert FILE and --web-key FILE: TLS)

Other options (--model, --provider, --thinking, --tools, -e, --no-extensions, --approve, ...) are
those of `pi` and apply to every session the server opens.
"""


def _fail(message: str, code: int = 1) -> int:
    print(f"pi: {message}", file=sys.stderr)
    return code


def run(argv: list[str]) -> int:
    """Run ``pi serve`` with ``argv`` (the words after ``serve``); returns the exit status."""
    from ..cli_args import UsageError, parse_args
    from .web.options import FLAGS as WEB_FLAGS

    folder: str | None = None
    socket_arg: str | None = None
    web_flags: dict[str, str] = {}
    rest: list[str] = []
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        if word in ("--folder", "--socket"):
            value = next(words, None)
            if value is None:
                return _fail(f"{word} needs a value", 2)
            folder, socket_arg = (value, socket_arg) if word == "--folder" else (folder, value)
        elif word == "--web":
            web_flags[word] = ""
        elif word in WEB_FLAGS:
            value = next(words, None)
            if value is None:
                return _fail(f"{word} needs a value", 2)
            web_flags[word] = value
        else:
            rest.append(word)
    try:
        args = parse_args(rest)
    except UsageError as exc:
        return _fail(str(exc), 2)
    if args.messages or args.files:
        return _fail("pi serve takes no prompt; attach a viewer and prompt there (pi attach)", 2)
    if args.mode or args.print_mode:
        return _fail("pi serve has no --mode or --print; viewers choose theirs (pi attach --mode rpc)", 2)
    folder = os.path.abspath(folder or os.getcwd())
    if not os.path.isdir(folder):
        return _fail(f"no such folder: {folder}", 2)
    web: WebSetup | None = None
    if web_flags:
        from .web.child import page_flags
        from .web.options import WebOptionsError, WebSetup, parse_web_flags

        if "--web" not in web_flags:
            return _fail(f"{next(iter(web_flags))} needs --web", 2)
        try:
            web = WebSetup(parse_web_flags(web_flags), page_flags(rest))
        except WebOptionsError as exc:
            return _fail(str(exc), 2)
    return _serve(folder, socket_arg, args, web)


def _serve(folder: str, socket_arg: str | None, args: CliArgs, web: WebSetup | None = None) -> int:
    from pathlib import Path

    from ..paths import agent_dir
    from .place import ServerLock, ServerPlaceError, bind_socket, socket_path

    os.environ.setdefault("AI_AGENT", "pi")
    os.environ.setdefault("PI_CODING_AGENT", "true")
    path = Path(socket_arg).absolute() if socket_arg else socket_path(folder, agent_dir())
    try:
        lock = ServerLock(path, folder)
    except (ServerPlaceError, OSError) as exc:
        return _fail(str(exc))
    try:
        try:
            listener = bind_socket(path)
        except OSError as exc:
            return _fail(f"cannot listen on {path}: {exc.strerror or exc}")
        return asyncio.run(_main(folder, path, listener, args, web))
    finally:
        lock.release()


async def _main(folder: str, path: Path, listener: socket.socket, args: CliArgs, web: WebSetup | None) -> int:
    from ..modes.startup import user_errors
    from .server import ServeServer

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    code = 0

    def on_signal(number: int) -> None:
        nonlocal code
        if stop.is_set():
            os._exit(128 + number)  # a second signal: leave now (session files are whole lines)
        code = 128 + number
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, on_signal, int(sig))
    base = args.replaced(continue_=False, session=None, name=None)
    server = ServeServer(folder, base, listener, path)
    if args.continue_ or args.session:
        try:
            live = await server.sessions.open(session_path=args.session, continue_recent=args.continue_, name=args.name)
        except user_errors() as exc:
            listener.close()
            return _fail(str(exc))
        print(f"pi serve: session {live.handle} open ({live.session.session_file or 'in memory'})", flush=True)
    site = None
    if web is not None:
        from .web.site import WebStartError, print_new_link, start_site

        try:
            site = await start_site(server, web)
        except WebStartError as exc:
            listener.close()
            await server.sessions.close_all()
            return _fail(str(exc))
        loop.add_signal_handler(signal.SIGUSR1, print_new_link, site)
    print(f"pi serve: listening on {path} (folder {folder})", flush=True)
    _say_if_untrusted(args, folder)
    try:
        await server.run(stop)
    finally:
        if site is not None:
            await site.close()
    return code


def _say_if_untrusted(args: CliArgs, folder: str) -> None:
    """A server cannot ask the trust question the app asks: an open one counts as "not trusted", as
    in Pi's headless modes. Say so once, or a project's own extensions and settings would be
    missing from every session without a word."""
    from ..modes.startup import trust_question, user_errors

    try:
        undecided = trust_question(args, folder)
    except user_errors():  # a broken trust.json or settings file is reported when a session opens
        return
    if undecided is not None:
        print(f"pi serve: {undecided} is not trusted, so its project settings, extensions and other protected "
              "files are not loaded; trust it with /trust in pi, or start pi serve with --approve", flush=True)
