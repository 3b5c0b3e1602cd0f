"""The TLS trust store for pi's HTTP requests (providers, OAuth, extensions).

The system store (OpenSSL's default paths, so ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` are
honoured), plus the file in ``NODE_EXTRA_CA_CERTS`` — the variable Pi's users already set for
a corporate proxy's CA — so one setting serves both programs. When the system has no CA
bundle at all (some minimal containers, python.org builds on macOS) certifi's bundle is used
if it is installed.

One context per process. Loading the CA bundle costs 20–40 ms, which a plain-http request (a
local model server) never needs: the client is built with the context as soon as it exists
(``client_context``), and the bundle is loaded into it before the first TLS connection
(``tls_context``). A context without its bundle trusts nothing, so a path that forgot to load
it fails the handshake; it never skips verification.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading

_context: ssl.SSLContext | None = None
_loaded = False
_lock = threading.Lock()


def _system_store_present() -> bool:
    paths = ssl.get_default_verify_paths()
    if paths.cafile and os.path.isfile(paths.cafile):
        return True
    return bool(paths.capath and os.path.isdir(paths.capath) and any(os.scandir(paths.capath)))


def _new_context() -> ssl.SSLContext:
    """What ``ssl.create_default_context()`` makes, before it loads the default certificates."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies the certificate and the host name
    if sys.version_info >= (3, 13):  # what create_default_context adds there
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:
        context.keylog_filename = keylog
    return context


def _load_trust(context: ssl.SSLContext) -> None:
    context.load_default_certs(ssl.Purpose.SERVER_AUTH)
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


def build_context() -> ssl.SSLContext:
    """A fresh client context with the trust store described above."""
    context = _new_context()
    _load_trust(context)
    return context


def client_context() -> ssl.SSLContext:
    """The process's client context, its trust store possibly not loaded yet (``tls_context``)."""
    global _context
    with _lock:
        if _context is None:
            _context = _new_context()
        return _context


def tls_context() -> ssl.SSLContext:
    """The process's client context with its trust store loaded (once; a second caller waits)."""
    global _loaded
    context = client_context()
    if not _loaded:
        with _lock:
            if not _loaded:
                _load_trust(context)
                _loaded = True
    return context


def forget() -> None:
    """Drop the cached context, so the next request reads the environment again (tests)."""
    global _context, _loaded
    with _lock:
        _context = None
        _loaded = False
