"""Request plumbing shared by the HTTP providers: POST, check status, decode SSE, abort.

The response is read by a producer task that hands decoded events over a queue, one batch
per network chunk. Aborting cancels that task, which closes the connection at once even
when the server has stalled, without adding a per-event cost to the consumer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from ..options import StreamOptions
from ..sse import SSEDecoder

_DONE = object()


class ProviderError(Exception):
    """A request failed; ``str()`` is the message shown to the user (never holds a key)."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class Aborted(Exception):
    """The request was cancelled through its abort signal."""


class StreamFormatError(Exception):
    """The server sent something that is not the protocol's stream format."""


def missing_key_message(provider: str) -> str:
    """The error shown when no credential is configured for ``provider``."""
    from ..env_keys import env_var_names

    names = env_var_names(provider)
    hint = f"set {' or '.join(names)}" if names else "configure a key in auth.json or models.json"
    return f"No API key for provider '{provider}': {hint}."


def keyed_request(model: Any, context: Any, options: StreamOptions, build: Any) -> tuple[Any, str | None]:
    """Resolve the key and build the request: ``((options, request), None)`` or ``(None, problem)``.

    The resolved key goes into the returned options, so error texts are redacted against it.
    ``build(model, context, options, api_key)`` may raise ValueError for a request it cannot make.
    """
    from dataclasses import replace

    from ..env_keys import env_api_key

    api_key = options.api_key or env_api_key(model.provider)
    if not api_key:
        return None, missing_key_message(model.provider)
    options = replace(options, api_key=api_key)
    try:
        return (options, build(model, context, options, api_key)), None
    except ValueError as exc:
        return None, str(exc)


def failure_events(builder: Any, exc: BaseException, api_key: str | None = None) -> list[Any]:
    """The terminal events for a failed request; partial content stays on the message.

    Every provider ends a failed stream through here, so the wording is the same
    whichever protocol failed, and a server's retry hint survives into the message (the
    only part of a failure that is persisted, and what the retry logic reads).
    """
    if isinstance(exc, Aborted):
        return builder.fail("Request was aborted", aborted=True)
    if isinstance(exc, (ProviderError, StreamFormatError)):
        message = redact(str(exc), api_key) or type(exc).__name__
        if isinstance(exc, ProviderError) and exc.retry_after is not None:
            message += f" (retry after {exc.retry_after:g}s)"
        return builder.fail(message)
    return builder.fail(redact(f"{type(exc).__name__}: {exc}", api_key))


def redact(text: str, secret: str | None) -> str:
    if secret and len(secret) >= 4:
        return text.replace(secret, "[redacted]")
    return text


def _error_detail(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:500]
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("type") or json.dumps(err)[:500]
            return str(msg)
        if isinstance(err, str):
            return err
    return text[:500]


def _retry_after(headers: Any) -> float | None:
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value)
        except ValueError:
            continue
        return seconds / 1000 if name == "retry-after-ms" else seconds
    return None


def _structured(event: tuple[str | None, str]) -> dict[str, Any]:
    """An SSE event as extensions see it: its name and its data, parsed when it is JSON."""
    name, data = event
    try:
        parsed: Any = json.loads(data)
    except ValueError:
        parsed = data
    return {"event": name, "data": parsed}


_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")


def use_fast_client(options: StreamOptions) -> bool:
    """The lean client serves plain requests; proxies and injected clients go through httpx."""
    import os

    if options.client is not None or os.environ.get("PI_HTTP_CLIENT") == "httpx":
        return False
    return not any(os.environ.get(name) for name in _PROXY_VARS)


async def post_sse(
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    options: StreamOptions,
) -> AsyncIterator[tuple[str | None, str]]:
    """POST ``body`` and yield SSE ``(event, data)`` pairs.

    Raises:
        ProviderError: HTTP error status, connection failure, timeout.
        Aborted: the options' signal fired.
    """
    signal = options.signal
    if signal is not None and signal.aborted:
        raise Aborted()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    # Extension hooks (before_provider_headers / before_provider_request): the one place every
    # HTTP provider's request passes before it is sent.
    if options.on_headers is not None:
        headers = await options.on_headers(dict(headers))
    if options.on_payload is not None:
        body = await options.on_payload(body)
    payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    on_response = options.on_response
    on_event = options.on_stream_event

    def status_error(status: int, headers: Any, raw: bytes) -> ProviderError:
        detail = redact(_error_detail(raw), options.api_key)
        return ProviderError(f"{status} {detail}".strip(), status=status, retry_after=_retry_after(headers))

    async def relay(chunks: AsyncIterator[bytes]) -> None:
        """Decode the body and hand events over, one batch per network chunk."""
        decoder = SSEDecoder()
        async for chunk in chunks:
            events = decoder.feed(chunk)
            if events:
                queue.put_nowait(events)
        tail = decoder.flush()
        if tail:
            queue.put_nowait(tail)
        queue.put_nowait(_DONE)

    def connection_error(kind: str, detail: str) -> ProviderError:
        prefix = {
            "timeout": "Request timed out: ",
            "cut": "Connection closed by the server mid-response: ",
            "connect": "Connection error: ",
        }.get(kind, "")
        return ProviderError(redact(prefix + detail, options.api_key))

    def describe(exc: BaseException) -> str:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__

    async def produce() -> None:
        import httpx

        from ..http import shared_client

        client = options.client or shared_client()
        timeout = httpx.Timeout(options.timeout, connect=options.connect_timeout)
        try:
            async with client.stream("POST", url, headers=headers, content=payload, timeout=timeout) as response:
                if on_response is not None:
                    await on_response(response.status_code, {k.lower(): v for k, v in response.headers.items()})
                if response.status_code >= 400:
                    queue.put_nowait(status_error(response.status_code, response.headers, await response.aread()))
                    return
                await relay(response.aiter_raw())
        except asyncio.CancelledError:
            raise
        except httpx.TimeoutException as exc:
            queue.put_nowait(connection_error("timeout", describe(exc)))
        except httpx.RemoteProtocolError as exc:
            queue.put_nowait(connection_error("cut", str(exc)))
        except httpx.HTTPError as exc:
            queue.put_nowait(connection_error("connect", describe(exc)))
        except Exception as exc:  # noqa: BLE001
            queue.put_nowait(connection_error("other", describe(exc)))

    async def produce_fast() -> None:
        from . import _fasthttp as fh

        response = None
        try:
            response = await fh.post(
                url, headers, payload, connect_timeout=options.connect_timeout, read_timeout=options.timeout
            )
            if on_response is not None:
                await on_response(response.status, {str(k).lower(): str(v) for k, v in dict(response.headers).items()})
            if response.status >= 400:
                queue.put_nowait(status_error(response.status, response.headers, await response.read_all(options.timeout)))
                return
            await relay(response.iter_body(options.timeout))
        except asyncio.CancelledError:
            raise
        except fh.HTTPTimeout as exc:
            queue.put_nowait(connection_error("timeout", str(exc)))
        except fh.ProtocolCut as exc:
            queue.put_nowait(connection_error("cut", str(exc)))
        except fh.HTTPError as exc:
            queue.put_nowait(connection_error("connect", str(exc)))
        except Exception as exc:  # noqa: BLE001
            queue.put_nowait(connection_error("other", describe(exc)))
        finally:
            if response is not None:
                fh.release(response)

    task = asyncio.create_task(produce_fast() if use_fast_client(options) else produce())
    remove = None
    if signal is not None:
        def on_abort() -> None:
            task.cancel()
            queue.put_nowait(Aborted())

        remove = signal.add_listener(on_abort)
    try:
        while True:
            item = await queue.get()
            if item is _DONE:
                return
            if isinstance(item, Exception):
                raise item
            for event in item:
                if on_event is not None:
                    await on_event(_structured(event))
                yield event
    finally:
        if remove is not None:
            remove()
        if not task.done():
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
