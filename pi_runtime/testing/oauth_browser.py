"""A stand-in web browser for sign-in tests: ``BROWSER=<script>`` makes :mod:`webbrowser` run it.

The script GETs the authorization URL (the test authorization server approves at once and
redirects) and follows the redirect to pi's callback, as a browser whose user clicked "Allow"
would. With ``tamper=True`` it changes ``state`` before following, as a forged redirect would.
Each visited URL is appended to ``<folder>/browser.log``.

Example:
    env["BROWSER"] = str(write_browser(tmp_path))
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def redirect_target(url: str) -> str:
    """Where the authorization endpoint sends the browser (its ``Location``), without going there."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=20) as response:
            return response.geturl()
    except urllib.error.HTTPError as exc:
        if exc.code in (301, 302, 303, 307, 308):
            return str(exc.headers["Location"])
        raise


def browse(url: str, log: Path, tamper: bool = False) -> None:
    target = redirect_target(url)
    if tamper:
        parts = urlsplit(target)
        query = [(k, "forged" if k == "state" else v) for k, v in parse_qsl(parts.query)]
        target = urlunsplit(parts._replace(query=urlencode(query)))
    with log.open("a", encoding="utf-8") as handle:
        handle.write(f"{url}\n{target}\n")
    try:
        with urllib.request.urlopen(target, timeout=20) as response:
            response.read()
    except urllib.error.HTTPError as exc:  # the callback's error page is still a page
        exc.read()


def write_browser(folder: Path, *, tamper: bool = False) -> Path:
    """An executable script to use as ``BROWSER``."""
    script = folder / ("forging-browser" if tamper else "browser")
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m pi_runtime.testing.oauth_browser "
                      f"{'--tamper ' if tamper else ''}\"$1\" {folder / 'browser.log'}\n", encoding="utf-8")
    script.chmod(0o755)
    return script


if __name__ == "__main__":
    arguments = sys.argv[1:]
    forged = arguments[0] == "--tamper"
    browse(arguments[int(forged)], Path(arguments[int(forged) + 1]), tamper=forged)
