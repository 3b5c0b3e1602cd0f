"""The sign-in's loopback callback: the redirect URI it announces (callbackPort, callbackUrl with
and without a port), the page the browser gets, and the state check."""

from __future__ import annotations

import asyncio
import socket
import urllib.error
import urllib.request

import pytest

from pi_runtime.mcp.config import McpServerEntry
from pi_runtime.mcp.oauth import McpSignInError
from pi_runtime.mcp.oauth_login import SignIn


def entry(**oauth: object) -> McpServerEntry:
    return McpServerEntry("notes", {"url": "https://mcp.example.com/mcp", "oauth": oauth}, "mcp.json", "global")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def test_redirect_uris_follow_the_configuration():
    port = free_port()
    fixed = SignIn(entry(callbackPort=port), print)
    await fixed.listen(None)
    assert fixed.redirect_uri == f"http://127.0.0.1:{port}/callback"
    await fixed.close()
    written = SignIn(entry(callbackUrl=f"http://localhost:{port}/oauth/done"), print)
    await written.listen(None)
    assert written.redirect_uri == f"http://localhost:{port}/oauth/done"
    await written.close()
    portless = SignIn(entry(callbackUrl="http://localhost/callback"), print)
    await portless.listen(None)
    assert portless.redirect_uri.startswith("http://localhost:") and portless.redirect_uri.endswith("/callback")
    await portless.close()


async def test_the_callback_page_and_the_state_check():
    attempt = SignIn(entry(), print, open_browser=False)
    await attempt.listen(None)
    try:
        await attempt._redirect("https://auth.example.com/authorize?state=abc&client_id=x")
        base = attempt.redirect_uri
        status, _ = await asyncio.to_thread(get, base.replace("/callback", "/favicon.ico"))
        assert status == 404
        status, page = await asyncio.to_thread(get, f"{base}?code=c1&state=abc")
        assert status == 200 and "You may close this tab" in page
        result = await attempt._callback()
        assert (result.code, result.state) == ("c1", "abc")
    finally:
        await attempt.close()


async def test_a_forged_state_ends_the_sign_in():
    attempt = SignIn(entry(), print, open_browser=False)
    await attempt.listen(None)
    try:
        await attempt._redirect("https://auth.example.com/authorize?state=abc")
        status, page = await asyncio.to_thread(get, f"{attempt.redirect_uri}?code=c1&state=forged")
        assert status == 400 and "wrong state" in page
        with pytest.raises(McpSignInError, match="wrong state"):
            await attempt._callback()
    finally:
        await attempt.close()
