"""The ``bedrock-converse-stream`` wire protocol: Amazon Bedrock's ConverseStream, as Pi 1.6 speaks it.

``POST {endpoint}/model/{modelId}/converse-stream`` with a JSON body (``request.py``), signed with
AWS SigV4 or sent with a Bedrock bearer token (``aws.py``); the answer streams back in the AWS
event-stream binary framing (``response.py``). Endpoint, region and credentials are resolved in a
worker thread (profiles may read files, run a ``credential_process`` or call AWS SSO), where
botocore is imported too, so the event loop never waits on either.

Request failures never raise: the stream ends with an ``error``/``aborted`` message that keeps
whatever arrived before.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from ... import redaction
from ...builder import MessageBuilder
from ...events import AssistantMessageEvent
from ...options import StreamOptions
from ...types import Context, Model
from .._http import Aborted, failure_events, final_headers, post_stream
from . import aws
from .request import build_body
from .response import FrameDecoder, StreamParser, as_item, error_text

API = "bedrock-converse-stream"
DEFAULT_BASE_URL = "https://bedrock-runtime.us-east-1.amazonaws.com"


def _prepare(model: Model, options: StreamOptions, env: dict[str, str]) -> aws.Target:
    """Resolve the target and load botocore's signer and frame decoder (in a worker thread)."""
    target = aws.resolve_target(model, options, env)
    if target.keys is not None:
        aws.load_signer()
    import botocore.eventstream  # noqa: F401 - loaded here, off the event loop

    return target


async def _resolve(model: Model, options: StreamOptions, env: dict[str, str]) -> aws.Target:
    """``_prepare`` in a worker thread, given up at once when the request is aborted (a
    ``credential_process`` or an SSO call may take long; the thread finishes on its own)."""
    signal = options.signal
    work = asyncio.ensure_future(asyncio.to_thread(_prepare, model, options, env))
    if signal is None:
        return await work
    if signal.aborted:
        work.cancel()
        raise Aborted()
    def give_up() -> None:
        work.cancel()

    remove = signal.add_listener(give_up)
    try:
        return await work
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if signal.aborted and not (current is not None and current.cancelling()):
            raise Aborted() from None
        raise
    finally:
        remove()


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """The unsigned headers: JSON, then the model's and the request's own (minus the signature's)."""
    headers = {"content-type": "application/json"}
    headers.update(aws.request_headers(model.headers or {}))
    headers.update(aws.request_headers(final_headers(options.headers)))
    return headers


async def stream(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant message from Bedrock's ConverseStream.

    Args:
        model: A model whose ``api`` is ``bedrock-converse-stream``.
        context: System prompt, history and tools.
        options: Bearer token (``api_key``), limits, reasoning level, abort signal; ``extra`` may
            hold ``region``, ``profile``, ``cacheRetention`` and a provider-scoped ``env``.

    Returns:
        An async iterator of events ending with exactly one ``done`` or ``error``.
    """
    builder = MessageBuilder(model)
    env = aws.environment(options)
    try:
        target = await _resolve(model, options, env)
        body: dict[str, Any] = build_body(model, context, options, region=target.region, env=env)
    except (aws.AwsConfigError, ValueError) as exc:
        for event in builder.fail(str(exc)):
            yield event
        return
    except Aborted:
        for event in builder.fail("Request was aborted", aborted=True):
            yield event
        return
    redaction.remember(*target.secrets())
    parser = StreamParser(builder)
    try:
        async with aclosing(post_stream(
            target.url, request_headers(model, options), body, options,
            decoder=FrameDecoder, sign=lambda headers, payload: aws.authorize(target, headers, payload),
            error_text=error_text, structured=as_item,
        )) as frames:
            async for frame in frames:
                for event in parser.handle(frame):
                    yield event
        tail = parser.finish()
    except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
        tail = failure_events(builder, exc, options)
    for event in tail:
        yield event
