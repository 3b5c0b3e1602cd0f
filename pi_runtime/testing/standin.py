"""A loopback stand-in for providers' real hosts: a CONNECT proxy that answers as any HTTPS host.

Tests must never leave 127.0.0.1, yet a provider's real host name (``api.anthropic.com``,
``github.com/login/device/code``, a sign-in server) is part of what pi and Pi send. The stand-in
plays every such host: pi and the real Pi reach it through ``HTTPS_PROXY``; for each ``CONNECT
host:443`` it answers "200", then speaks TLS with a certificate for that host, signed by a
certificate authority made for the test run and trusted through ``SSL_CERT_FILE`` (pi) and
``NODE_EXTRA_CA_CERTS`` (both). Behind the TLS it is a :class:`LoopbackServer`: scripted replies,
a responder, recorded requests — each request also names the host it was sent to, so one
responder can play several services. It never opens a connection anywhere.

Plain-HTTP requests sent through the proxy (``GET http://host/path``) are served the same way.

Example:
    with ProviderStandIn(responder=answer) as standin:
        subprocess.run(["pi", "-p", "hi"], env={**os.environ, **standin.env()})
        assert standin.requests[0].host == "api.anthropic.com"
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import tempfile
import threading
from pathlib import Path
from typing import Any

from .loopback import LoopbackServer, RecordedRequest, Responder

_VALIDITY = datetime.timedelta(days=2)


class TestAuthority:
    """A certificate authority for one test run, and a certificate per host name it is asked for.

    Keys are elliptic-curve (P-256): making one takes well under a millisecond, so a
    certificate is minted on demand for whatever host a client names (TLS SNI).

    Args:
        directory: Where ``ca.pem`` and the per-host files go; a new temporary folder when None.
    """

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, directory: str | Path | None = None) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        self._x509, self._hashes, self._ec, self._serialization = x509, hashes, ec, serialization
        if directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="pi-standin-")
            directory = self._tmp.name
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pi test authority")])
        now = datetime.datetime.now(datetime.UTC)
        public = self._key.public_key()
        self._cert = (
            x509.CertificateBuilder()
            .subject_name(name).issuer_name(name).public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + _VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        self.ca_file = self.directory / "ca.pem"
        self.ca_file.write_bytes(self._cert.public_bytes(serialization.Encoding.PEM))
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def server_context(self, host: str) -> ssl.SSLContext:
        """A TLS server context presenting a certificate for ``host`` (made once per host)."""
        with self._lock:
            context = self._contexts.get(host)
            if context is None:
                context = self._contexts[host] = self._make_context(host)
            return context

    def _make_context(self, host: str) -> ssl.SSLContext:
        x509, ec, serialization = self._x509, self._ec, self._serialization
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        try:
            alt: Any = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            alt = x509.DNSName(host)
        issuer_key_id = self._cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, host)]))
            .issuer_name(self._cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + _VALIDITY)
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(issuer_key_id),
                           critical=False)
            .sign(self._key, self._hashes.SHA256())
        )
        stem = "".join(c if c.isalnum() or c in ".-" else "_" for c in host)
        cert_file, key_file = self.directory / f"{stem}.pem", self.directory / f"{stem}.key"
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        # HTTP/1.1 only: the server behind the TLS speaks nothing else, and a client offered h2
        # falls back to it when the server names it.
        context.set_alpn_protocols(["http/1.1"])
        return context


class ProviderStandIn(LoopbackServer):
    """A :class:`LoopbackServer` that is also an HTTPS proxy playing every host it is asked for.

    Args:
        responder: As for :class:`LoopbackServer`; ``request.host`` names the host the client meant.
        directory: Where the test authority's files go (a temporary folder when None).
    """

    def __init__(self, responder: Responder | None = None, directory: str | Path | None = None) -> None:
        super().__init__(responder)
        self.authority = TestAuthority(directory)
        self.connects: list[str] = []
        """Every ``host:port`` a client asked the proxy for, in order."""

    @property
    def ca_file(self) -> Path:
        """The PEM file of the test authority (what clients must trust)."""
        return self.authority.ca_file

    @property
    def proxy_url(self) -> str:
        return self.url

    def env(self, *, no_proxy: str = "127.0.0.1,localhost,::1") -> dict[str, str]:
        """Environment variables that send pi's and Pi's HTTPS traffic here and trust the test CA.

        Loopback addresses stay direct (``no_proxy``), so a test may mix the stand-in with
        plain loopback servers.
        """
        proxy, ca = self.proxy_url, str(self.ca_file)
        return {
            "HTTPS_PROXY": proxy, "https_proxy": proxy, "HTTP_PROXY": proxy, "http_proxy": proxy,
            "NO_PROXY": no_proxy, "no_proxy": no_proxy,
            "SSL_CERT_FILE": ca, "NODE_EXTRA_CA_CERTS": ca,
        }

    def requests_to(self, host: str) -> list[RecordedRequest]:
        """The recorded requests sent to ``host``."""
        return [r for r in self.requests if r.host == host]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
        except (ConnectionError, asyncio.IncompleteReadError):
            writer.close()
            return
        if not line.startswith(b"CONNECT "):
            # A plain-HTTP request (direct, or through the proxy with an absolute URL): hand it on
            # with its first line given back.
            await super()._handle(_Replayed(line, reader), writer)  # type: ignore[arg-type]
            return
        target = line.split(b" ")[1].decode("latin-1")
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        self.connects.append(target)
        host = target.rpartition(":")[0].strip("[]") or target
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        try:
            await writer.drain()
            await writer.start_tls(self.authority.server_context(host))
        except (ConnectionError, ssl.SSLError, OSError):
            writer.close()
            return
        await super()._handle(reader, writer)


class _Replayed:
    """A stream reader whose first ``readline`` gives back a line already read."""

    def __init__(self, first: bytes, reader: asyncio.StreamReader) -> None:
        self._first: bytes | None = first
        self._reader = reader

    async def readline(self) -> bytes:
        if self._first is not None:
            line, self._first = self._first, None
            return line
        return await self._reader.readline()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)
