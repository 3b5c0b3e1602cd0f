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
    payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()

    async def produce() -> None:
        import httpx

        from ..http import shared_client

        client = options.client or shared_client()
        timeout = httpx.Timeout(options.timeout, connect=options.connect_timeout)
        try:
            async with client.stream(
                "POST", url, headers=headers, content=payload, timeout=timeout
            ) as response:
                if response.status_code >= 400:
                    raw = await response.aread()
                    detail = redact(_error_detail(raw), options.api_key)
                    queue.put_nowait(
                        ProviderError(
                            f"{response.status_code} {detail}".strip(),
                            status=response.status_code,
                            retry_after=_retry_after(response.headers),
                        )
                    )
                    return
                decoder = SSEDecoder()
                async for chunk in response.aiter_raw():
                    events = decoder.feed(chunk)
                    if events:
                        queue.put_nowait(events)
                tail = decoder.flush()
                if tail:
                    queue.put_nowait(tail)
                queue.put_nowait(_DONE)
        except asyncio.CancelledError:
            raise
        except httpx.TimeoutException as exc:
            queue.put_nowait(ProviderError(f"Request timed out ({type(exc).__name__})"))
        except httpx.RemoteProtocolError as exc:
            queue.put_nowait(ProviderError(f"Connection closed by the server mid-response: {exc}"))
        except httpx.HTTPError as exc:
            queue.put_nowait(
                ProviderError(redact(f"Connection error: {type(exc).__name__}: {exc}", options.api_key))
            )
        except Exception as exc:  # noqa: BLE001
            queue.put_nowait(ProviderError(redact(f"{type(exc).__name__}: {exc}", options.api_key)))

    async def produce_fast() -> None:
        from . import _fasthttp as fh

        response = None
        try:
            response = await fh.post(
                url, headers, payload, connect_timeout=options.connect_timeout, read_timeout=options.timeout
            )
            if response.status >= 400:
                raw = await response.read_all(options.timeout)
                detail = redact(_error_detail(raw), options.api_key)
                queue.put_nowait(
                    ProviderError(
                        f"{response.status} {detail}".strip(),
                        status=response.status,
                        retry_after=_retry_after(response.headers),
                    )
                )
                return
            decoder = SSEDecoder()
            async for chunk in response.iter_body(options.timeout):
                events = decoder.feed(chunk)
                if events:
                    queue.put_nowait(events)
            tail = decoder.flush()
            if tail:
                queue.put_nowait(tail)
            queue.put_nowait(_DONE)
        except asyncio.CancelledError:
            raise
        except fh.HTTPTimeout as exc:
            queue.put_nowait(ProviderError(f"Request timed out ({exc})"))
        except fh.ProtocolCut as exc:
            queue.put_nowait(ProviderError(f"Connection closed by the server mid-response: {exc}"))
        except fh.HTTPError as exc:
            queue.put_nowait(ProviderError(redact(f"Connection error: {exc}", options.api_key)))
        except Exception as exc:  # noqa: BLE001
            queue.put_nowait(ProviderError(redact(f"{type(exc).__name__}: {exc}", options.api_key)))
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
