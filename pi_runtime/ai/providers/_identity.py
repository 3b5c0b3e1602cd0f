"""How pi names itself to a provider: the ``User-Agent`` Pi 1.6 sends, in the same form.

Pi sends ``pi/<version> (<platform>; node/<version>; <arch>)``; pi sends its own version and
runtime in that shape, with Node's platform and architecture names so a server that reads them
sees the same words (``linux``, ``x64``). Configured headers override it (they come later).
"""

from __future__ import annotations

import os
import sys
from functools import cache

_ARCH_NAMES = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "i386": "ia32", "i686": "ia32"}


@cache
def user_agent() -> str:
    """``pi/0.1.0 (linux; python/3.11.7; x64)``."""
    from ... import __version__

    machine = os.uname().machine if hasattr(os, "uname") else os.environ.get("PROCESSOR_ARCHITECTURE", "")
    arch = _ARCH_NAMES.get(machine.lower(), machine.lower() or "unknown")
    runtime = "python/{}.{}.{}".format(*sys.version_info[:3])
    return f"pi/{__version__} ({sys.platform}; {runtime}; {arch})"


def identity_headers() -> dict[str, str]:
    """The headers every request starts from (before model, provider and request headers)."""
    return {"user-agent": user_agent()}
