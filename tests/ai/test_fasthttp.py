"""The lean HTTP/1.1 client against a raw socket server that controls every byte."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess

import pytest

from pi_runtime.ai.providers import _fasthttp as fh
from pi_runtime.ai.providers import _tls


class RawServer:
    """Answers each request on a connection with the next scripted list of bytes/pauses."""

    def __init__(self, scripts, tls=None):
        self.scripts = list(scripts)
        self.requests: list[bytes] = []
        self.connections = 0
        self.tls = tls

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, ssl=self.tls)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self.server.close()

    async def handle(self, reader, writer):
        self.connections += 1
        try:
            while self.scripts:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int([line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")][0].split(b":")[1])
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                script = self.scripts.pop(0)
                for piece in script:
                    if piece == "close":
                        writer.close()
                        return
                    if isinstance(piece, float):
                        await writer.drain()
                        await asyncio.sleep(piece)
                    else:
                        writer.write(piece)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def fetch(url, payload=b"{}"):
    response = await fh.post(url, {"content-type": "application/json"}, payload, connect_timeout=5, read_timeout=5)
    body = b"".join([b async for b in response.iter_body(5)])
    fh.release(response)
    return response, body


HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


async def test_chunked_body_split_anywhere_is_reassembled():
    body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in [b"data: one\n\n", b"data: two\n\n", b"x" * 70000])
    body += b"0\r\n\r\n"
    # Deliver in awkward pieces: inside size fields, inside CRLFs, inside data.
    pieces = [HEAD[:10], 0.01, HEAD[10:] + body[:1], 0.01, body[1:5], 0.01, body[5:17], 0.01, body[17:]]
    async with RawServer([pieces]) as server:
        response, data = await fetch(f"http://127.0.0.1:{server.port}/v1/x")
    assert response.status == 200 and response.headers["content-type"] == "text/event-stream"
    assert data == b"data: one\n\ndata: two\n\n" + b"x" * 70000
    request = server.requests[0]
    assert request.startswith(b"POST /v1/x HTTP/1.1\r\n") and b"host: 127.0.0.1:" in request
    assert request.endswith(b"\r\n\r\n{}")


async def test_trailers_and_chunk_extensions():
    body = b"5;ext=1\r\nhello\r\n0\r\nx-trailer: yes\r\n\r\n"
    async with RawServer([[HEAD + body]]) as server:
        _, data = await fetch(f"http://127.0.0.1:{server.port}/")
    assert data == b"hello"


async def test_content_length_and_read_until_close():
    fixed = b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 11\r\nretry-after: 3\r\n\r\nslow down!!"
    until_close = [b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\npart one ", 0.01, b"part two", "close"]
    async with RawServer([[fixed], until_close]) as server:
        response, data = await fetch(f"http://127.0.0.1:{server.port}/")
        assert response.status == 429 and response.headers["retry-after"] == "3" and data == b"slow down!!"
        _, data2 = await fetch(f"http://127.0.0.1:{server.port}/")
    assert data2 == b"part one part two"


async def test_keep_alive_reuses_the_connection_and_recovers_from_a_stale_one():
    ok = HEAD + b"2\r\nok\r\n0\r\n\r\n"
    async with RawServer([[ok], [ok]]) as server:
        await fetch(f"http://127.0.0.1:{server.port}/")
        await fetch(f"http://127.0.0.1:{server.port}/")
        assert server.connections == 1
    # The server went away while the connection sat in the pool: the next request must
    # open a fresh connection instead of failing.
    async with RawServer([[ok]]) as server2:
        pool = fh._pool()
        stale_key = next(iter(pool))
        pool.setdefault(("http", "127.0.0.1", server2.port), []).extend(pool.pop(stale_key))
        _, data = await fetch(f"http://127.0.0.1:{server2.port}/")
    assert data == b"ok"


async def test_cut_stream_and_refused_connection_are_errors():
    async with RawServer([[HEAD + b"5\r\nhel", "close"]]) as server:
        response = await fh.post(f"http://127.0.0.1:{server.port}/", {}, b"{}", connect_timeout=5, read_timeout=5)
        with pytest.raises(fh.ProtocolCut):
            async for _ in response.iter_body(5):
                pass
        fh.release(response)
        port = server.port
    with pytest.raises(fh.HTTPError, match="cannot connect"):
        await fh.post(f"http://127.0.0.1:{port}/", {}, b"{}", connect_timeout=2, read_timeout=2)


async def test_read_timeout():
    async with RawServer([[HEAD, 3.0]]) as server:
        response = await fh.post(f"http://127.0.0.1:{server.port}/", {}, b"{}", connect_timeout=2, read_timeout=0.2)
        with pytest.raises(fh.HTTPTimeout):
            async for _ in response.iter_body(0.2):
                pass
        fh.release(response)


@pytest.fixture
def fresh_trust_store():
    _tls.forget()
    yield
    _tls.forget()


def make_cert(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    return cert, server_ctx


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")
async def test_tls_with_a_trusted_certificate(tmp_path, monkeypatch, fresh_trust_store):
    cert, server_ctx = make_cert(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    async with RawServer([[HEAD + b"6\r\nsecret\r\n0\r\n\r\n"]], tls=server_ctx) as server:
        _, data = await fetch(f"https://localhost:{server.port}/")
    assert data == b"secret"
    # And an untrusted certificate is refused.
    monkeypatch.delenv("SSL_CERT_FILE")
    _tls.forget()
    async with RawServer([[HEAD + b"0\r\n\r\n"]], tls=server_ctx) as server:
        with pytest.raises(fh.HTTPError, match="certificate"):
            await fh.post(f"https://localhost:{server.port}/", {}, b"{}", connect_timeout=5, read_timeout=5)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")
async def test_node_extra_ca_certs_is_trusted_too(tmp_path, monkeypatch, fresh_trust_store):
    # The variable Pi's users set for a corporate CA works for pi as well, on top of the system store.
    cert, server_ctx = make_cert(tmp_path)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(cert))
    async with RawServer([[HEAD + b"2\r\nok\r\n0\r\n\r\n"]], tls=server_ctx) as server:
        _, data = await fetch(f"https://localhost:{server.port}/")
    assert data == b"ok"


async def test_each_timeout_phase_is_reported_with_its_limit():
    # No response head at all: the head limit applies (retry.provider.timeoutMs).
    async with RawServer([[3.0]]) as server:
        with pytest.raises(fh.HTTPTimeout) as info:
            await fh.post(f"http://127.0.0.1:{server.port}/", {}, b"{}", connect_timeout=2, read_timeout=0.2)
    assert info.value.phase == "head" and info.value.seconds == 0.2
    # A head, then silence: the body's idle limit (httpIdleTimeoutMs).
    async with RawServer([[HEAD + b"2\r\nok\r\n", 3.0]]) as server:
        response = await fh.post(f"http://127.0.0.1:{server.port}/", {}, b"{}", connect_timeout=2, read_timeout=2)
        got = []
        with pytest.raises(fh.HTTPTimeout) as info:
            async for block in response.iter_body(0.3):
                got.append(block)
        fh.release(response)
    assert got == [b"ok"] and info.value.phase == "body" and info.value.seconds == 0.3
