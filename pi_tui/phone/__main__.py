"""``python -m pi_tui.phone --socket PATH``: the phone layout on a ``pi serve`` (see ``__init__``)."""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--socket":
        print("usage: python -m pi_tui.phone --socket PATH", file=sys.stderr)
        return 2
    from .app import PhoneApp

    return int(PhoneApp(Path(argv[1])).run() or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
