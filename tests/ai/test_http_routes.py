"""Where a provider request goes: proxies from the environment and redirects, on real sockets.

A small forward proxy runs on 127.0.0.1 (CONNECT tunnels and absolute-form requests), in front
of the loopback provider server, so each rule is checked on the bytes that travel.
"""

from __future__ import annotations

import asyncio
import base64
import shutil
import ssl
import subprocess

import pytest

from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers._http import ProviderError, post_sse
from pi_runtime.http import _tls
from pi_runtime.testing.loopback import LoopbackServer, Reply

PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY",
              "https_proxy", "http_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def clean_proxy_env(monkeypatch):
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


class ForwardProxy:
    """An HTTP proxy: CONNECT opens a tunnel; an absolute-form request is forwarded once."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        """(method, target, headers) of each request the proxy received."""

    async def __aenter__(self) -> ForwardProxy:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        self.seen.append((method, target, headers))
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await asyncio.gather(self.pipe(reader, up_writer), self.pipe(up_reader, writer))
            return
        # Absolute form: forward this one request in origin form, then relay the answer.
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        rest = target.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.rpartition(":")
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        kept = [line for line in lines[1:] if line and not line.lower().startswith(("proxy-", "connection"))]
        up_writer.write(("\r\n".join([f"{method} /{path} HTTP/1.1", *kept, "connection: close"]) + "\r\n\r\n").encode()
                        + body)
        await up_writer.drain()
        await self.pipe(up_reader, writer)

    @staticmethod
    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


def sse_ok() -> Reply:
    return Reply.sse([{"ok": 1}, "[DONE]"])


async def collect(url: str) -> list[tuple[str | None, str]]:
    return [e async for e in post_sse(url, {"content-type": "application/json"}, {"q": 1}, StreamOptions())]


async def test_http_proxy_from_the_environment_carries_the_request(monkeypatch):
    with LoopbackServer() as server:
        server.push(sse_ok())
        async with ForwardProxy() as proxy:
            monkeypatch.setenv("HTTP_PROXY", f"http://user:p%40ss@127.0.0.1:{proxy.port}")
            events = await collect(server.url + "/v1/chat")
    assert events == [(None, '{"ok":1}'), (None, "[DONE]")]
    method, target, headers = proxy.seen[0]
    assert (method, target) == ("POST", f"{server.url}/v1/chat")
    assert headers["proxy-authorization"] == "Basic " + base64.b64encode(b"user:p@ss").decode()
    # The proxy's credentials stay with the proxy.
    assert "proxy-authorization" not in server.requests[0].headers
    assert server.requests[0].json() == {"q": 1}


async def test_no_proxy_sends_matching_hosts_direct(monkeypatch):
    with LoopbackServer() as server:
        server.push(sse_ok())
        async with ForwardProxy() as proxy:
            monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
            monkeypatch.setenv("NO_PROXY", "example.com, 127.0.0.0/8")
            await collect(server.url + "/v1/chat")
    assert proxy.seen == [] and len(server.requests) == 1


async def routed(monkeypatch, env: dict[str, str]) -> tuple[bool, int]:
    """Send one request under ``env`` (``{proxy}``/``{port}`` filled in): (went through the proxy, requests served)."""
    with LoopbackServer() as server:
        server.push(sse_ok())
        async with ForwardProxy() as proxy:
            for name, value in env.items():
                monkeypatch.setenv(name, value.format(proxy=proxy.port, port=server.port))
            await collect(server.url + "/v1/chat")
    return bool(proxy.seen), len(server.requests)


@pytest.mark.parametrize(("env", "proxied"), [
    ({"HTTPS_PROXY": "http://127.0.0.1:{proxy}"}, False),  # HTTPS_PROXY is for https URLs only
    ({"ALL_PROXY": "127.0.0.1:{proxy}"}, True),  # no scheme: an http:// proxy
    ({"HTTP_PROXY": "http://127.0.0.1:{proxy}", "NO_PROXY": "127.0.0.1:{port}"}, False),  # host:port
    ({"HTTP_PROXY": "http://127.0.0.1:{proxy}", "NO_PROXY": "127.0.0.1:1"}, True),  # another port is not bypassed
    ({"HTTP_PROXY": "http://127.0.0.1:{proxy}", "NO_PROXY": "*"}, False),
    ({"HTTP_PROXY": "http://127.0.0.1:{proxy}", "NO_PROXY": "example.com,localhost"}, True),
])
async def test_proxy_choice_rules(monkeypatch, env, proxied):
    assert await routed(monkeypatch, env) == (proxied, 1)


@pytest.mark.parametrize(("value", "message"), [
    # socks5 is supported (socksio is a dependency): a closed one is named as the proxy.
    ("socks5://127.0.0.1:1", r"cannot connect to the proxy 127.0.0.1:1 \(HTTP_PROXY\)"),
    ("ftp://127.0.0.1:1", "HTTP_PROXY: only http://, https:// and socks5:// proxies are supported"),
])
async def test_an_unusable_proxy_is_a_clear_request_error(monkeypatch, value, message):
    monkeypatch.setenv("HTTP_PROXY", value)
    with pytest.raises(ProviderError, match=f"Connection error: {message}"):
        await collect("http://127.0.0.1:9/v1/chat")


async def test_307_and_308_on_the_same_server_are_followed_with_the_body():
    with LoopbackServer() as server:
        server.push(Reply(status=307, headers={"location": "/v2/chat"}),
                    Reply(status=308, headers={"location": server.url + "/v3/chat"}), sse_ok())
        events = await collect(server.url + "/v1/chat")
    assert events[-1] == (None, "[DONE]")
    assert [(r.method, r.path) for r in server.requests] == [("POST", "/v1/chat"), ("POST", "/v2/chat"),
                                                             ("POST", "/v3/chat")]
    assert all(r.json() == {"q": 1} for r in server.requests)


async def test_a_redirect_to_another_server_is_refused_and_names_the_address():
    with LoopbackServer() as other, LoopbackServer() as server:
        server.push(Reply(status=307, headers={"location": other.url + "/v1/chat"}))
        with pytest.raises(ProviderError, match=rf"redirected \(307\) to {other.url}/v1/chat; set the provider's baseUrl"):
            await collect(server.url + "/v1/chat")
        server.push(Reply(status=301, headers={"location": "/moved"}))
        with pytest.raises(ProviderError, match=r"redirected \(301\) to http://127.0.0.1:\d+/moved"):
            await collect(server.url + "/v1/chat")
    assert other.requests == []  # the key never went to the other server


async def test_a_redirect_loop_ends():
    loop = LoopbackServer(lambda request: Reply(status=307, headers={"location": "/again"}))
    with loop as server, pytest.raises(ProviderError, match="more than 5 redirects"):
        await collect(server.url + "/v1/chat")
    assert len(server.requests) == 6


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")
async def test_https_goes_through_a_connect_tunnel(monkeypatch, tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    received: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 12\r\n\r\ndata: done\n\n")
        await writer.drain()
        writer.close()

    origin = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=tls)
    port = origin.sockets[0].getsockname()[1]
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    _tls.forget()
    try:
        async with ForwardProxy() as proxy:
            monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.port}")
            events = await collect(f"https://localhost:{port}/v1/chat")
    finally:
        origin.close()
        _tls.forget()
    assert events == [(None, "done")]
    assert proxy.seen[0][:2] == ("CONNECT", f"localhost:{port}")
    assert received[0].startswith(b"POST /v1/chat HTTP/1.1\r\n")  # origin form inside the tunnel
