"""The ``pi`` command. ``--version`` is answered before anything heavy is imported."""

from __future__ import annotations

import sys

# Shell commands that work without a session (cli.md): name -> module with ``run(args)``.
_SUBCOMMANDS = {
    "mcp": "pi_runtime.mcp.cli", "auth": "pi_runtime.auth_cli",
    "install": "pi_runtime.packages.cli", "remove": "pi_runtime.packages.cli", "uninstall": "pi_runtime.packages.cli",
    "list": "pi_runtime.packages.cli", "update": "pi_runtime.packages.cli",
    "serve": "pi_runtime.serve.cli", "attach": "pi_runtime.remote.attach_cli",
    "config": "pi_runtime.packages.config_cli",
}
_TAKE_REST = ("mcp", "auth", "serve", "attach")
"""Subcommands whose ``run`` gets the words after the subcommand's name (the others get all)."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-v"):
        from . import __version__

        print(__version__)
        return 0
    import gc

    # Start-up creates tens of thousands of long-lived objects (modules, classes, the model
    # catalogue) and no garbage worth a collection; each collection on the way rescans them
    # all (~25 ms of a 0.25 s run). cli_main turns the collector back on, with what was loaded
    # frozen, before a mode runs.
    gc.disable()
    if args and args[0] in _SUBCOMMANDS:
        import importlib

        gc.enable()  # no mode follows to turn it back on
        return int(importlib.import_module(_SUBCOMMANDS[args[0]]).run(args[1:] if args[0] in _TAKE_REST else args))
    from .cli_main import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
