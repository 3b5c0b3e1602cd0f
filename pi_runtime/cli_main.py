"""The ``pi`` command after ``--version``: parse, pick a mode, build the session, run it.

Mode choice as Pi: ``--mode rpc`` → RPC; ``--mode json`` → JSON; ``-p`` or a redirected
stdin/stdout → print; otherwise the interactive app (``pi_tui``, imported only then, so
headless runs never load Textual or Rich). User mistakes print one line on stderr and exit
non-zero; signals end the run in order (abort, flush) with ``128 + signal``. When
stdout's reader goes away (``| head -1``), the run is aborted the same way and pi exits
quietly with 141, as a tool killed by SIGPIPE would.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

from .cli_args import HELP, CliArgs, UsageError, parse_args
from .modes.output_guard import real_stdout, restore_stdout, take_over_stdout


def _fail(message: str, code: int = 1) -> int:
    text = " ".join(str(message).split("\n")[:1]) or "error"
    print(f"pi: {text}" if not text.startswith("pi:") else text, file=sys.stderr)
    return code


def collector_on() -> None:
    """Turn the garbage collector back on (``cli.main`` starts with it off) before a mode
    runs, keeping what start-up loaded out of its reach: it lives as long as the process.
    The one-shot ``--list-models`` and ``--export`` end without it. While the HTTP client still
    loads on its own thread, it comes on when that ends (``collector_pause``)."""
    from .collector_pause import enable_collector

    enable_collector()


def choose_mode(args: CliArgs) -> str:
    """``rpc``, ``json``, ``print`` or ``interactive``."""
    if args.mode in ("rpc", "json"):
        return args.mode
    if args.print_mode:
        return "print"
    if os.environ.get("TEXTUAL_DRIVER"):
        return "interactive"  # a browser (pi serve --web) draws the app: stdin and stdout are its pipes
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return "print"
    except (AttributeError, ValueError):
        return "print"
    return "interactive"


def run(argv: list[str]) -> int:
    """Run ``pi`` with ``argv`` (without the program name); returns the exit status."""
    os.environ.setdefault("AI_AGENT", "pi")
    os.environ.setdefault("PI_CODING_AGENT", "true")
    try:
        args = parse_args(argv)
    except UsageError as exc:
        return _fail(str(exc), 2)
    if args.help:
        from .modes.cli_extensions import help_text

        sys.stdout.write(help_text(args, HELP))  # with extensions' flags, as Pi lists them
        return 0
    if args.version:
        from . import __version__

        print(__version__)
        return 0
    if not args.list_models and not args.export and choose_mode(args) == "interactive":
        # The app paints first and builds the session (and reports its errors) itself, so
        # the kernel's modules are not imported before the first frame.
        try:
            return _interactive(args)
        except KeyboardInterrupt:
            return 130
        except Exception as exc:
            from .modes.startup import user_errors

            if isinstance(exc, user_errors()):
                return _fail(str(exc), 2 if isinstance(exc, UsageError) else 1)
            raise
    from .modes.startup import user_errors

    errors = user_errors()
    try:
        if args.list_models:
            from .modes.oneshot import list_models

            code = list_models(args)
        elif args.export:
            from .modes.oneshot import export_html

            code = export_html(args)
        else:
            code = _headless(args, choose_mode(args))
        real_stdout().flush()  # here, where a reader that went away can be handled
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except errors as exc:
        return _fail(str(exc), 2 if isinstance(exc, UsageError) else 1)


def _reader_gone() -> int:
    """stdout's reader went away: exit quietly, as a tool killed by SIGPIPE would."""
    from .modes.writer import READER_GONE_EXIT

    # Whatever is still buffered for stdout would fail again when Python exits.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, real_stdout().fileno())
    os.close(devnull)
    return READER_GONE_EXIT


def _interactive(args: CliArgs) -> int:
    # The one place the runtime reaches the UI package: by name, at run time, only for the
    # interactive mode (DESIGN.md: the launcher imports pi_tui lazily; headless never does).
    import importlib

    from .modes.typeahead import TerminalHold, Typeahead

    # Before the ~0.5 s of imports: keys typed from now on reach the app as typed, and what
    # was typed before is handed to it (see typeahead.py).
    hold = TerminalHold.start()
    typeahead = hold.take_typeahead() if hold is not None else Typeahead()
    try:
        from .modes.cli_extensions import preload_for_app

        # Extensions' flags are checked before the first frame (a mistake is a usage error on
        # the normal screen, exit 2); this loads extensions only when such flags were given.
        preloaded = preload_for_app(args)
        try:
            run_interactive = importlib.import_module("pi_tui.launch").run_interactive
        except ImportError as exc:
            if str(getattr(exc, "name", "") or "").startswith("pi_tui"):
                return _fail("interactive mode is not available yet (use -p, --mode json or --mode rpc)")
            return _fail(f"interactive mode cannot start: {exc}")
        # Only now: the app's imports (Textual, pi_tui: a million allocations, hardly any garbage)
        # ran without a collection every 700 of them, and are frozen out of the collector's reach
        # (4 % of the CPU time to a first answer).
        collector_on()
        return int(run_interactive(args, typeahead, preloaded=preloaded) or 0)
    finally:
        if hold is not None:
            hold.restore()


def _headless(args: CliArgs, mode: str) -> int:
    # Before extensions load: a print() at import time must not land in the answer either.
    take_over_stdout()
    try:
        return _headless_run(args, mode)
    finally:
        real_stdout().flush()
        restore_stdout()


def _headless_run(args: CliArgs, mode: str) -> int:
    if mode != "rpc" and (args.messages or args.files or not _stdin_is_terminal()):
        from .http import prepare_in_background

        prepare_in_background()  # a request is all but certain: set it up while the session opens
    from .modes.inputs import initial_prompts, read_piped_stdin
    from .modes.startup import build_session

    stdin_text = None if mode == "rpc" else read_piped_stdin()
    cwd = os.getcwd()
    if mode == "print" and not (args.messages or args.files or stdin_text is not None or args.extension_flags):
        return _fail("no prompt given (pass a message, @file or pipe text on stdin)")
    import gc

    from .modes.session_notices import final_status, print_startup_notices
    from .session.entries import gc_paused

    with gc_paused():  # tens of thousands of entries of a long session are built here
        session = build_session(args)
    # A one-shot run keeps what it loaded (modules, the session) to the end: the collector
    # need not rescan it at every collection (that doubled the time to build the request).
    gc.freeze()
    print_startup_notices(session)  # bad config values, lines skipped in the session file
    # After the build: an extension's boolean flag may give back the word the parser took as its value.
    prompts = initial_prompts(args.messages, args.files, stdin_text, cwd)
    if mode == "print" and not prompts:
        session.session_manager.close()
        return _fail("no prompt given (pass a message, @file or pipe text on stdin)")
    if mode != "rpc" and prompts:
        session.check_ready()  # no credentials: say so before anything is written
    return final_status(session, asyncio.run(_run_mode(session, mode, prompts)))


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is None or sys.stdin.isatty()
    except (OSError, ValueError):
        return True


async def _run_mode(session: Any, mode: str, prompts: list[Any]) -> int:
    collector_on()
    from .modes.shutdown import Shutdown

    loop = asyncio.get_running_loop()
    shutdown = Shutdown()
    signals = {signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGINT: 130}

    def on_signal(code: int) -> None:
        if shutdown.event.is_set():
            os._exit(code)  # a second signal: leave now (every session entry is already a whole line)
        shutdown.request(code)

    for sig, code in signals.items():
        try:
            loop.add_signal_handler(sig, on_signal, code)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    from .modes.writer import READER_GONE_EXIT, JsonlWriter, watch_reader

    def reader_gone() -> None:
        # From the writer's or the watcher's thread: nobody reads stdout any more, so
        # stop the run (it is saved as aborted) rather than pay for calls nobody sees.
        try:
            loop.call_soon_threadsafe(shutdown.request, READER_GONE_EXIT)
        except RuntimeError:  # the loop has already closed
            pass

    watch_reader(1, reader_gone)
    writer = None
    try:
        if mode == "print":
            from .modes.print_mode import run_print

            return await _until_shutdown(session, run_print(session, prompts), shutdown)
        writer = JsonlWriter(1, on_broken=reader_gone)
        if mode == "json":
            from .modes.json_mode import run_json

            return await _until_shutdown(session, run_json(session, prompts, writer), shutdown)
        from .modes.rpc_mode import run_rpc

        runner = session.extension_runner
        if runner is not None:  # ctx.shutdown(): RPC ends as on end of input, once the agent is idle
            runner.on_shutdown_request = lambda: shutdown.request(0)
        return await run_rpc(session, writer, shutdown)
    finally:
        try:
            await asyncio.wait_for(session.dispose(), 5)
        except Exception:  # noqa: BLE001 - exiting anyway; the session file is append-only
            pass
        if writer is not None:
            await asyncio.to_thread(writer.close)


async def _until_shutdown(session: Any, work: Any, shutdown: Any) -> int:
    """Run a one-shot mode; a signal aborts the run and the exit status becomes 128 + signal."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(shutdown.event.wait())
    await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        stop.cancel()
        return task.result()
    try:
        await asyncio.wait_for(session.abort(), 5)
        await asyncio.wait_for(task, 5)
    except Exception:  # noqa: BLE001 - the signal decides the exit status
        task.cancel()
    return shutdown.code
