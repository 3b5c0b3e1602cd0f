"""pi_runtime.http on real sockets: trust store, keep-alive, abort, the request helper, shutdown.

(The framing cases are in test_http_conformance.py, proxies and redirects in test_http_routes.py.)
"""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import ssl
import subprocess
import sys

import pytest

from pi_runtime import http
from pi_runtime.ai.abort import AbortController
from pi_runtime.ai.options import StreamOptions
from pi_runtime.ai.providers._http import ProviderError, post_sse
from pi_runtime.http import _tls
from pi_runtime.testing.raw_http import CLOSE, RawServer

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
OK = HEAD + b"a\r\ndata: ok\n\n\r\n0\r\n\r\n"


async def events(url: str, **options) -> list[tuple[str | None, str]]:
    return [e async for e in post_sse(url, {"content-type": "application/json"}, {}, StreamOptions(**options))]


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


needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl CLI not installed")


@needs_openssl
async def test_tls_with_a_certificate_from_ssl_cert_file(tmp_path, monkeypatch, fresh_trust_store):
    cert, server_ctx = make_cert(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.delenv("NODE_EXTRA_CA_CERTS", raising=False)
    async with RawServer([OK], tls=server_ctx) as server:
        assert await events(f"https://localhost:{server.port}/") == [(None, "ok")]


@needs_openssl
async def test_an_untrusted_certificate_is_refused(tmp_path, monkeypatch, fresh_trust_store):
    _, server_ctx = make_cert(tmp_path)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("NODE_EXTRA_CA_CERTS", raising=False)
    async with RawServer([OK], tls=server_ctx) as server:
        with pytest.raises(ProviderError, match=r"Connection error: cannot connect to localhost:\d+: .*certificate"):
            await events(f"https://localhost:{server.port}/")


@needs_openssl
async def test_node_extra_ca_certs_is_trusted_too(tmp_path, monkeypatch, fresh_trust_store):
    # The variable Pi's users set for a corporate CA works for pi as well, on top of the system store.
    cert, server_ctx = make_cert(tmp_path)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(cert))
    async with RawServer([OK], tls=server_ctx) as server:
        assert await events(f"https://localhost:{server.port}/") == [(None, "ok")]


@needs_openssl
async def test_plain_http_skips_loading_the_trust_store_and_tls_after_it_still_verifies(tmp_path, monkeypatch, fresh_trust_store):
    # A local model server over http never pays for the CA bundle; the same client then goes
    # to an https server and verifies it (the bundle is loaded into the client's context first).
    cert, server_ctx = make_cert(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.delenv("NODE_EXTRA_CA_CERTS", raising=False)
    for name in ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    async with RawServer([OK]) as plain:
        assert await events(plain.url) == [(None, "ok")]
    assert not _tls._loaded
    async with RawServer([OK], tls=server_ctx) as server:
        assert await events(f"https://localhost:{server.port}/") == [(None, "ok")]
    assert _tls._loaded


async def test_keep_alive_reuses_the_connection():
    async with RawServer([OK], [OK], [OK]) as server:
        for _ in range(3):
            assert await events(server.url) == [(None, "ok")]
    assert server.connections == 1


async def test_a_connection_the_server_closed_while_idle_is_replaced():
    async with RawServer([OK, CLOSE], [OK]) as server:
        await events(server.url)
        await asyncio.sleep(0)  # (the close may or may not have been seen yet: both must work)
        assert await events(server.url) == [(None, "ok")]
    assert server.connections == 2


async def test_abort_closes_a_stalled_connection_at_once():
    closed = asyncio.Event()

    async def stall_then_watch(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(HEAD + b"a\r\ndata: ok\n\n\r\n")
        await writer.drain()
        await reader.read()  # returns when the client closes its end
        closed.set()

    controller = AbortController()
    async with RawServer([stall_then_watch]) as server:
        stream = post_sse(server.url, {}, {}, StreamOptions(signal=controller.signal))
        assert await anext(stream) == (None, "ok")
        controller.abort()
        with pytest.raises(http.Aborted):
            await anext(stream)
        # Closed because of the abort: the server only reads, so nothing else would ever close it
        # (a bound, not a figure: "< 2" failed on a loaded machine).
        async with asyncio.timeout(30):
            await closed.wait()


async def test_request_helper_sends_json_and_decodes_gzip():
    body = gzip.compress(json.dumps({"access_token": "t"}).encode())
    async with RawServer([b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\n"
                          b"content-length: %d\r\n\r\n%s" % (len(body), body)]) as server:
        response = await http.request("POST", server.url + "/token", json={"grant_type": "x"})
    assert response.status_code == 200 and response.json() == {"access_token": "t"}
    sent = server.requests[0]
    assert sent.startswith(b"POST /token HTTP/1.1\r\n") and b"content-type: application/json" in sent.lower()
    assert sent.endswith(b'{"grant_type":"x"}')


async def test_request_helper_limits_size_and_time_and_honours_abort():
    async with RawServer([b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n" + b"x" * 100]) as server:
        with pytest.raises(http.HTTPError, match="longer than 10 bytes"):
            await http.request("GET", server.url, max_bytes=10)
    async with RawServer([30.0]) as server:
        with pytest.raises(http.HTTPTimeout) as info:
            await http.request("GET", server.url, timeout=0.3)
        assert info.value.phase == "head"
    controller = AbortController()
    async with RawServer([30.0]) as server:
        asyncio.get_running_loop().call_later(0.1, controller.abort)
        with pytest.raises(http.Aborted):
            await http.request("GET", server.url, signal=controller.signal)


async def test_an_extension_can_use_the_shared_client_or_its_own_httpx2():
    import httpx2

    async with RawServer([b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi"],
                         [b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nyou"]) as server:
        shared = await http.shared_client().get(server.url)
        async with httpx2.AsyncClient(trust_env=False) as own:
            theirs = await own.get(server.url)
    assert (shared.text, theirs.text) == ("hi", "you")


def test_the_client_closes_with_its_event_loop_without_tracebacks():
    # asyncio.run cancels the client's closer task at shutdown; nothing may be left to
    # complain on stderr ("Event loop is closed", "Unclosed client", "Task was destroyed").
    code = """
import asyncio, warnings
warnings.simplefilter("always")
from pi_runtime import http
from pi_runtime.testing.raw_http import RawServer

async def main():
    async with RawServer([b"HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\nhi"]) as server:
        response = await http.request("GET", server.url)
        print(response.text)

asyncio.run(main())
import gc; gc.collect()
"""
    out = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "hi" and out.returncode == 0
    assert out.stderr == ""
