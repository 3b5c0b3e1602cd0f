"""How pi names itself to a provider: the ``User-Agent`` Pi 1.6 sends, in the same form, and the
attribution headers Pi adds for the providers that credit the client.

Pi sends ``pi/<version> (<platform>; node/<version>; <arch>)``; pi sends its own version and
runtime in that shape, with Node's platform and architecture names so a server that reads them
sees the same words (``linux``, ``x64``). OpenRouter, NVIDIA NIM and OpenCode are told the client's
name as Pi tells them (``X-OpenRouter-Title: pi``, ``X-BILLING-INVOKE-ORIGIN: Pi``,
``x-opencode-client: pi``), and OpenCode the conversation (``x-opencode-session``). Configured
headers override all of these (they come later).
"""

from __future__ import annotations

import os
import sys
from functools import cache
from typing import Any
from urllib.parse import urlsplit

_ARCH_NAMES = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "i386": "ia32", "i686": "ia32"}


@cache
def user_agent() -> str:
    """``pi/0.1.0 (linux; python/3.11.7; x64)``."""
    from ... import __version__

    machine = os.uname().machine if hasattr(os, "uname") else os.environ.get("PROCESSOR_ARCHITECTURE", "")
    arch = _ARCH_NAMES.get(machine.lower(), machine.lower() or "unknown")
    runtime = "python/{}.{}.{}".format(*sys.version_info[:3])
    return f"pi/{__version__} ({sys.platform}; {runtime}; {arch})"


NAME, URL, CATEGORIES = "pi", "https://pi.dev", ("cli-agent",)
"""Pi's attribution: the name, site and categories it credits itself with."""


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def _is_openrouter(model: Any) -> bool:
    return model.provider == "openrouter" or "openrouter.ai" in model.base_url


def _is_nvidia(model: Any) -> bool:
    return model.provider == "nvidia" or _host(model.base_url) == "integrate.api.nvidia.com"


def _is_opencode(model: Any) -> bool:
    return model.provider in ("opencode", "opencode-go") or _host(model.base_url) == "opencode.ai"


def attribution_headers(model: Any) -> dict[str, str]:
    """The headers that credit pi to the providers that ask for it (none for the others)."""
    if _is_openrouter(model):
        return {"HTTP-Referer": URL, "X-OpenRouter-Title": NAME, "X-OpenRouter-Categories": ",".join(CATEGORIES)}
    if _is_nvidia(model):
        return {"X-BILLING-INVOKE-ORIGIN": NAME[:1].upper() + NAME[1:]}
    if _is_opencode(model):
        return {"x-opencode-client": NAME}
    return {}


def identity_headers(model: Any = None) -> dict[str, str]:
    """The headers every request starts from (before model, provider and request headers): the user
    agent and, for ``model``'s provider, the attribution headers."""
    headers = {"user-agent": user_agent()}
    if model is not None:
        headers.update(attribution_headers(model))
    return headers


def session_headers(model: Any, session_id: str | None) -> dict[str, str]:
    """The conversation's routing header OpenCode takes (Pi adds it with the credentials, so it
    comes after the wire API's own headers)."""
    return {"x-opencode-session": session_id} if session_id and _is_opencode(model) else {}
