"""Helpers for the ``pi serve --web`` tests: the pairing URL, plain HTTP requests, websocket attempts.

Requests are made with ``http.client`` and ``websockets``' client, so every header (Host, Origin,
Cookie) is exactly what the test says: no cookie jar or browser policy stands between the test and
the server's rules.
"""

from __future__ import annotations

import http.client
import os
import re
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from serve_support import ServeProcess
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

PAIRING = re.compile(r"(https?://[^\s/]+)/\?token=([A-Za-z0-9_-]+)")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def pairing_url(serve: ServeProcess) -> tuple[str, str]:
    """``(origin, token)`` of the first pairing URL the server printed."""
    for line in serve.lines:
        found = PAIRING.search(line)
        if found:
            return found.group(1), found.group(2)
    raise AssertionError(f"no pairing URL in {serve.lines}")


def get(origin: str, path: str, *, cookie: str | None = None, host: str | None = None,
        tls: ssl.SSLContext | None = None) -> Answer:
    """One GET request with only the headers named here (over TLS with ``tls``)."""
    parts = urlsplit(origin)
    conn = (http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=20, context=tls) if tls
            else http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20))
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host or parts.netloc)
        if cookie is not None:
            conn.putheader("Cookie", cookie)
        conn.endheaders()
        response = conn.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        conn.close()


def pair(origin: str, token: str, tls: ssl.SSLContext | None = None) -> str:
    """Spend ``token``; the ``Cookie`` header value the browser would send from then on."""
    answer = get(origin, f"/?token={token}", tls=tls)
    assert answer.status == 303, answer
    return answer.headers["set-cookie"].split(";", 1)[0]


def open_ws(origin: str, *, cookie: str | None, page_origin: str | None, query: str = "?width=100&height=30",
            tls: ssl.SSLContext | None = None) -> ClientConnection:
    """The page's websocket as a browser would open it (``page_origin`` None: no Origin header)."""
    url = origin.replace("http", "ws", 1) + "/ws" + query
    headers = {"Cookie": cookie} if cookie is not None else {}
    return connect(url, origin=page_origin, additional_headers=headers, open_timeout=20,  # type: ignore[arg-type]
                   max_size=None, ssl=tls)


def ws_refusal(origin: str, *, cookie: str | None, page_origin: str | None, tls: ssl.SSLContext | None = None) -> int:
    """The HTTP status a refused websocket upgrade got (fails the test if it was accepted)."""
    try:
        conn = open_ws(origin, cookie=cookie, page_origin=page_origin, tls=tls)
    except InvalidStatus as exc:
        return exc.response.status_code
    conn.close()
    raise AssertionError("the websocket upgrade was accepted")


def child_pids(pid: int) -> set[int]:
    """The processes ``pid`` started that are still running (Linux: /proc's children lists)."""
    out: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return out
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                out.update(int(word) for word in listing.read().split())
        except FileNotFoundError:
            continue
    return out
