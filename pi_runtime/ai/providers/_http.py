"""Request plumbing shared by the HTTP providers: POST, check status, decode the stream (SSE or another
framing), abort.

The response is read by a producer task that hands decoded events over a queue, one batch
per network chunk. Aborting cancels that task, which closes the connection at once even
when the server has stalled, without adding a per-event cost to the consumer.

Error texts are built here and in the providers; secrets are blanked once, for every
provider, where the stream ends (``AssistantMessageStream`` and ``redaction.py``).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, Protocol

from ... import deep_json
from ...http import Aborted, HTTPError, HTTPTimeout, MalformedResponse, ProtocolCut
from ...text_safety import terminal_safe
from ..builder import truncate_error_text
from ..options import StreamOptions
from ..sse import SSEDecoder, SSEEventTooLarge

_DONE = object()
_OPENED = object()


class _Opened(tuple):
    """A pair of its own class, so it is never a cached constant equal to a real event."""


OPENED: tuple[str | None, str] = _Opened(("", ""))
"""What ``post_sse(..., announce_open=True)`` yields first, once the server accepted the request
(status below 400): the moment a provider sends ``start``, as Pi's do. Compared by identity."""
_LONGEST_RETRY_HINT = 86400.0
"""A server's retry hint is read as at most a day (``retry-after-ms: 1e300`` is not a message to print)."""
_ERROR_BODY_LIMIT = 1 << 20
"""Bytes of an error body kept: enough for any real message, bounded for a hostile one."""

__all__ = [
    "OPENED", "Aborted", "ProviderError", "StreamFormatError", "failure_events", "keyed_request", "post_sse",
    "post_stream",
]


class ProviderError(Exception):
    """A request failed; ``str()`` is the message shown to the user."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class StreamFormatError(Exception):
    """The server sent something that is not the protocol's stream format."""


def missing_key_message(provider: str) -> str:
    """The error shown when no credential is configured for ``provider``."""
    from ..env_keys import describe_env

    ways = describe_env(provider)
    hint = f"set {ways}" if ways else "configure a key in auth.json or models.json"
    return f"No API key for provider '{provider}': {hint}."


def keyed_request(model: Any, context: Any, options: StreamOptions, build: Any) -> tuple[Any, str | None]:
    """Resolve the key and build the request: ``((options, request), None)`` or ``(None, problem)``.

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


def too_long_to_wait(delay: float | None, options: StreamOptions | None) -> bool:
    """Whether a server-requested ``delay`` exceeds the request's ``max_retry_delay``."""
    cap = options.max_retry_delay if options is not None else None
    return bool(delay is not None and cap and delay > cap)


def failure_events(builder: Any, exc: BaseException, options: StreamOptions | None = None) -> list[Any]:
    """The terminal events for a failed request; partial content stays on the message.

    Every provider ends a failed stream through here, so the wording is the same
    whichever protocol failed, and a server's retry hint survives into the message (the
    only part of a failure that is persisted, and what the retry logic reads). A hint
    longer than ``options.max_retry_delay`` is reported in Pi's words and not retried.
    """
    if isinstance(exc, Aborted):
        return builder.fail("Request was aborted", aborted=True)
    if not isinstance(exc, (ProviderError, StreamFormatError)):
        return builder.fail(f"{type(exc).__name__}: {exc}")
    # The server's own text keeps Pi's head of it; pi's words around it (a retry hint) stay whole.
    message = truncate_error_text(str(exc)) or type(exc).__name__
    hint: float | None = exc.retry_after if isinstance(exc, ProviderError) else None
    if hint is None:
        from ..errors import parse_retry_after

        hint = parse_retry_after(message)
    if too_long_to_wait(hint, options):
        assert hint is not None and options is not None and options.max_retry_delay is not None
        return builder.fail(server_delay_message(hint, options.max_retry_delay, message))
    if isinstance(exc, ProviderError) and exc.retry_after is not None:
        message += f" (retry after {exc.retry_after:g}s)"
    return builder.fail(message)


def server_delay_message(delay: float, cap: float, message: str) -> str:
    """Pi's text for a server that asks to wait longer than ``retry.provider.maxRetryDelayMs``."""
    return f"Server requested {math.ceil(delay)}s retry delay (max: {math.ceil(cap)}s). {message}"


def _error_detail(body: bytes) -> str:
    """The message in an error body (JSON ``error.message`` and the like), safe to print."""
    return terminal_safe(_message_in(body), multiline=True).strip()


def _message_in(body: bytes) -> str:
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
    """Seconds the server asks to wait: ``retry-after-ms``, else ``retry-after`` (seconds or a date)."""
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        seconds: float | None
        try:
            seconds = float(value)
        except ValueError:
            seconds = _http_date_delay(value) if name == "retry-after" else None
        if seconds is None or not math.isfinite(seconds):
            continue
        return min(_LONGEST_RETRY_HINT, max(0.0, seconds / 1000 if name == "retry-after-ms" else seconds))
    return None


def _structured(event: tuple[str | None, str]) -> dict[str, Any]:
    """An SSE event as extensions see it: its name and its data, parsed when it is JSON."""
    name, data = event
    try:
        parsed: Any = json.loads(data)
    except ValueError:
        parsed = data
    return {"event": name, "data": parsed}



def _http_date_delay(value: str) -> float | None:
    """Seconds until an HTTP date (``Retry-After: Wed, 21 Oct 2015 07:28:00 GMT``)."""
    import time
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when.timestamp() - time.time()


def _timeout_message(exc: Any) -> str:
    seconds = exc.seconds
    if exc.phase == "head":
        return f"Request timed out: no response from the server within {seconds:g}s"
    if exc.phase == "body":
        return f"Request timed out: the server sent nothing for {seconds:g}s (httpIdleTimeoutMs)"
    return f"Request timed out: {exc}" + (f" after {seconds:g}s" if seconds is not None else "")


class StreamDecoder(Protocol):
    """Turns body bytes into events: ``feed`` each chunk, ``flush`` at the end (``SSEDecoder`` is one)."""

    def feed(self, chunk: bytes) -> list[Any]: ...

    def flush(self) -> list[Any]: ...


Signer = Callable[[dict[str, str], bytes], dict[str, str]]
"""Gets the final headers and body bytes (after the extension hooks) and returns the headers to send:
for a signature over both (AWS SigV4)."""
ErrorWording = Callable[[int, Mapping[str, str], bytes], str]
"""``(status, headers, body)`` of an error response -> the message (without any retry hint)."""


def _default_error_text(status: int, _headers: Mapping[str, str], body: bytes) -> str:
    return f"{status} {_error_detail(body)}".strip()


async def post_sse(
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    options: StreamOptions,
    *,
    announce_open: bool = False,
    compress: Callable[[bytes], bytes] | None = None,
    error_text: Callable[[int, bytes], str] | None = None,
) -> AsyncGenerator[tuple[str | None, str], None]:
    """POST ``body`` and yield SSE ``(event, data)`` pairs.

    ``announce_open``: yield ``OPENED`` (test with ``is``) as soon as the response status says
    the request was accepted, before any event. ``compress``: applied to the encoded body (the
    caller sets the matching ``content-encoding``). ``error_text``: the message for an error
    status and its body (by default the status and the body's message).

    Raises:
        ProviderError: HTTP error status, connection failure, timeout.
        Aborted: the options' signal fired.
    """
    wording: ErrorWording | None = None
    if error_text is not None:
        word = error_text

        def wording(status: int, _headers: Mapping[str, str], raw: bytes) -> str:
            return word(status, raw)

    async for event in post_stream(url, headers, body, options, announce_open=announce_open, compress=compress,
                                   error_text=wording):
        yield event


async def post_stream(
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    options: StreamOptions,
    *,
    announce_open: bool = False,
    compress: Callable[[bytes], bytes] | None = None,
    decoder: Callable[[], StreamDecoder] | None = None,
    sign: Signer | None = None,
    error_text: ErrorWording | None = None,
    structured: Callable[[Any], Any] | None = None,
) -> AsyncGenerator[Any, None]:
    """POST ``body`` as JSON and yield the events ``decoder`` makes of the response (SSE by default).

    Args:
        url: Where to send it.
        headers: Request headers (extensions' ``on_headers`` may change them).
        body: The JSON body (extensions' ``on_payload`` may change it).
        options: Timeouts, abort signal and the extension hooks.
        announce_open: Yield ``OPENED`` (test with ``is``) once the status says the request was accepted.
        compress: Applied to the encoded body (the caller sets the matching ``content-encoding``).
        decoder: Makes the body decoder; ``SSEDecoder`` when None.
        sign: Called last, with the headers and body bytes as sent (a signature must cover the hooks' changes).
        error_text: Words an error response; ``"<status> <message from the body>"`` when None.
        structured: An event as ``on_stream_event`` receives it; SSE's ``{"event", "data"}`` when None.

    Raises:
        ProviderError: HTTP error status, connection failure, timeout.
        StreamFormatError: The decoder refused the body.
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
    # Any depth: a resumed session may hold tool arguments nested thousands deep (as Pi writes them).
    payload = deep_json.encode(body)
    if compress is not None:
        payload = compress(payload)
    if sign is not None:
        headers = sign(headers, payload)
    on_response = options.on_response
    on_event = options.on_stream_event
    describe = structured or _structured
    make_decoder = decoder or SSEDecoder
    word_error = error_text or _default_error_text

    async def produce() -> None:
        from ...http import load_client

        response = None
        try:
            _client = await load_client()
            response = await _client.open_response(
                "POST", url, headers, payload, connect_timeout=options.connect_timeout,
                head_timeout=options.request_timeout,
            )
            if on_response is not None:
                await on_response(response.status_code, {k.lower(): v for k, v in response.headers.items()})
            if response.status_code >= 400:
                raw = bytearray()

                def keep(chunk: bytes) -> bool:
                    raw.extend(chunk)
                    return len(raw) > _ERROR_BODY_LIMIT

                await _client.read_body(response, options.timeout, keep)
                lowered = {k.lower(): v for k, v in response.headers.items()}
                kept = bytes(raw[:_ERROR_BODY_LIMIT])
                detail = terminal_safe(word_error(response.status_code, lowered, kept), multiline=True).strip()
                queue.put_nowait(ProviderError(detail, response.status_code, _retry_after(response.headers)))
                return
            queue.put_nowait(_OPENED)
            stream_decoder = make_decoder()

            def relay(chunk: bytes) -> None:
                # One batch per network chunk: the consumer wakes once however many events it held.
                events = stream_decoder.feed(chunk)
                if events:
                    queue.put_nowait(events)

            await _client.read_body(response, options.timeout, relay)
            tail = stream_decoder.flush()
            if tail:
                queue.put_nowait(tail)
            queue.put_nowait(_DONE)
        except asyncio.CancelledError:
            raise
        except HTTPTimeout as exc:
            queue.put_nowait(ProviderError(_timeout_message(exc)))
        except ProtocolCut as exc:
            queue.put_nowait(ProviderError(f"Connection closed by the server mid-response: {exc}"))
        except MalformedResponse as exc:
            # Worded so the retry logic leaves it alone, as Pi does: the same server will
            # send the same broken answer again.
            queue.put_nowait(ProviderError(f"Invalid HTTP response: {exc}"))
        except HTTPError as exc:
            queue.put_nowait(ProviderError(f"Connection error: {exc}"))
        except (SSEEventTooLarge, StreamFormatError) as exc:
            queue.put_nowait(StreamFormatError(str(exc)))
        except Exception as exc:  # noqa: BLE001 - reported as the request's error, never raised past here
            text = terminal_safe(str(exc), multiline=True)
            queue.put_nowait(ProviderError(f"{type(exc).__name__}: {text}" if text else type(exc).__name__))
        finally:
            if response is not None:
                await response.aclose()

    task = asyncio.create_task(produce())
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
            if item is _OPENED:
                if announce_open:
                    yield OPENED
                continue
            if isinstance(item, Exception):
                raise item
            for event in item:
                if on_event is not None:
                    await on_event(describe(event))
                yield event
    finally:
        if remove is not None:
            remove()
        if not task.done():
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - the request is being abandoned
                pass
