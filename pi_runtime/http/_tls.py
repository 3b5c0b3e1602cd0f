"""The TLS trust store for pi's HTTP requests (providers, OAuth, extensions).

The system store (OpenSSL's default paths, so ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` are
honoured), plus the file in ``NODE_EXTRA_CA_CERTS`` — the variable Pi's users already set for
a corporate proxy's CA — so one setting serves both programs. When the system has no CA
bundle at all (some minimal containers, python.org builds on macOS) certifi's bundle is used
if it is installed. Built once per process.
"""

from __future__ import annotations

import os
import ssl

_context: ssl.SSLContext | None = None


def _system_store_present() -> bool:
    paths = ssl.get_default_verify_paths()
    if paths.cafile and os.path.isfile(paths.cafile):
        return True
    return bool(paths.capath and os.path.isdir(paths.capath) and any(os.scandir(paths.capath)))


def build_context() -> ssl.SSLContext:
    """A fresh client context with the trust store described above."""
    context = ssl.create_default_context()
    if not _system_store_present():
        try:
            import certifi
        except ImportError:
            pass
        else:
            context.load_verify_locations(cafile=certifi.where())
    extra = os.environ.get("NODE_EXTRA_CA_CERTS")
    if extra and os.path.isfile(extra):
        context.load_verify_locations(cafile=extra)
    return context


def tls_context() -> ssl.SSLContext:
    """The process's client context (built on first use)."""
    global _context
    if _context is None:
        _context = build_context()
    return _context


def forget() -> None:
    """Drop the cached context, so the next request reads the environment again (tests)."""
    global _context
    _context = None
