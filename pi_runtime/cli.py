"""The ``pi`` command. ``--version`` is answered before anything heavy is imported."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-v"):
        from . import __version__

        print(__version__)
        return 0
    import gc
    import os

    # Start-up creates tens of thousands of long-lived objects (modules, classes, the model
    # catalogue) and no garbage worth a collection; each collection on the way rescans them
    # all (~25 ms of a 0.25 s run). cli_main turns the collector back on, with what was loaded
    # frozen, before a mode runs.
    gc.disable()
    # pydantic looks for plugins through importlib.metadata on first use (~30 ms); pi has none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from .cli_main import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
