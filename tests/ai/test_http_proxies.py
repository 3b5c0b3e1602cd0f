"""Proxies that misbehave or are not there (issue #34): a socks5 ``ALL_PROXY`` with ``NO_PROXY``,
a closed proxy, a proxy that answers nonsense. Real servers on 127.0.0.1: a SOCKS5 proxy written
here, raw sockets for the broken ones."""

from __future__ import annotations

import asyncio
import socket
import struct

import pytest

from pi_runtime import http
from pi_runtime.testing.loopback import LoopbackServer, Reply

PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY",
              "https_proxy", "http_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def clean_proxy_env(monkeypatch):
    for name in PROXY_VARS:
        # Set, then removed: monkeypatch puts back the state from before the test at its end, even
        # for a variable pi itself sets (apply_proxy_setting).
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setattr(http, "PROXY_SETTING_VARIABLES", set(), raising=False)


class Socks5Proxy:
    """A SOCKS5 proxy (no authentication, CONNECT only) that records where it was asked to go."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    async def __aenter__(self) -> Socks5Proxy:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _version, count = await reader.readexactly(2)
        await reader.readexactly(count)
        writer.write(b"\x05\x00")  # no authentication
        _v, _cmd, _rsv, kind = await reader.readexactly(4)
        if kind == 1:
            host = socket.inet_ntoa(await reader.readexactly(4))
        else:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        port = struct.unpack("!H", await reader.readexactly(2))[0]
        self.seen.append((host, port))
        up_reader, up_writer = await asyncio.open_connection(host, port)
        writer.write(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack("!H", port))
        await writer.drain()
        await asyncio.gather(self.pipe(reader, up_writer), self.pipe(up_reader, writer))

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


async def get(url: str) -> int:
    return (await http.request("GET", url, timeout=10)).status_code


async def test_a_socks5_all_proxy_carries_requests_and_no_proxy_targets_go_direct(monkeypatch):
    with LoopbackServer() as server:
        server.push(Reply.json(200, {"via": "proxy"}), Reply.json(200, {"via": "direct"}))
        async with Socks5Proxy() as proxy:
            monkeypatch.setenv("ALL_PROXY", f"socks5://127.0.0.1:{proxy.port}")
            assert await get(server.url + "/a") == 200
            assert proxy.seen == [("127.0.0.1", server.port)]
            monkeypatch.setenv("NO_PROXY", "127.0.0.1")
            for client in http._client._clients.values():  # the environment is read when a client is made
                await client.aclose()
            assert await get(server.url + "/b") == 200  # used to be refused: the socks proxy "needs socksio"
            assert len(proxy.seen) == 1 and len(server.requests) == 2


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_a_closed_proxy_is_named_as_the_proxy_not_as_the_server(monkeypatch, scheme):
    port = closed_port()
    monkeypatch.setenv("HTTP_PROXY", f"{scheme}://127.0.0.1:{port}")
    with LoopbackServer() as server, pytest.raises(http.HTTPError) as caught:
        await get(server.url + "/x")
    message = str(caught.value)
    assert message.startswith(f"cannot connect to the proxy 127.0.0.1:{port} (HTTP_PROXY): ")
    assert message.endswith(f"127.0.0.1:{server.port} was not reached")


async def test_the_http_proxy_setting_is_named_when_its_proxy_is_closed(monkeypatch):
    port = closed_port()
    http.apply_proxy_setting(f"http://127.0.0.1:{port}")
    with pytest.raises(http.HTTPError, match=rf"the proxy 127.0.0.1:{port} \(the httpProxy setting\)"):
        await get("http://127.0.0.1:9/x")


def test_the_setting_fills_only_unset_variables(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://mine:1")
    http.apply_proxy_setting("  http://setting:2 ")
    import os

    assert (os.environ["HTTP_PROXY"], os.environ["HTTPS_PROXY"]) == ("http://setting:2", "http://mine:1")
    assert {"HTTP_PROXY"} == http.PROXY_SETTING_VARIABLES
    http.apply_proxy_setting("")  # unset: nothing changes
    assert os.environ["HTTP_PROXY"] == "http://setting:2"


async def garbage_proxy(answer: bytes) -> tuple[asyncio.AbstractServer, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 407 " + bytes(range(33, 127)) * 44 + b"\r\n\r\n",  # a 4 KB reason phrase
    bytes(range(1, 256)) * 16 + b"\r\n\r\n",  # not HTTP at all
], ids=["long-reason", "binary"])
async def test_a_garbage_proxy_answer_is_quoted_short(monkeypatch, answer):
    server, port = await garbage_proxy(answer)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    try:
        with pytest.raises(http.HTTPError) as caught:
            await get("https://api.example.test/v1")
    finally:
        server.close()
    message = str(caught.value)
    assert f"proxy 127.0.0.1:{port} (HTTPS_PROXY)" in message and len(message) < 400 and "\n" not in message
