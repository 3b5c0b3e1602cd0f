"""``ctx.model_registry``: the session's models, with Pi's calls for extensions that ask a model.

Pi's summarize, handoff, qna and custom-compaction examples call ``ctx.modelRegistry.complete``:
a request through the configured provider with its credentials resolved (keys, ``!commands``,
models.json headers, an OAuth token refreshed first, an extension's own provider). This wrapper
adds those calls in Python's spelling and passes everything else to the ``ModelRegistry``.

``context`` is a ``Context`` or Pi's shape as a dict (``messages``, ``systemPrompt``, ``tools``;
messages as objects or wire dicts). ``options`` is ``StreamOptions`` or a dict in either
spelling (``maxTokens``/``max_tokens``, ``signal``, ``temperature``, ``reasoning`` or
``reasoningEffort``, ``headers``, ``sessionId``, ``apiKey``); ``cacheRetention`` is ignored and any
other key goes to the provider as a provider-specific option (``StreamOptions.extra``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..ai.abort import AbortSignal
from ..ai.options import StreamOptions
from ..ai.stream import AssistantMessageStream, stream
from ..ai.types import Context, Model, UnknownMessage, is_virtual

_OPTION_NAMES = {"maxTokens": "max_tokens", "sessionId": "session_id", "apiKey": "api_key",
                 # complete()'s API-specific spelling of the thinking level (Pi's summarize example)
                 "reasoningEffort": "reasoning", "reasoning_effort": "reasoning"}
_IGNORED_OPTIONS = frozenset({"cacheRetention", "cache_retention"})
_FIELDS = frozenset(f.name for f in dataclasses.fields(StreamOptions))


class ModelCallError(TypeError):
    """An extension's arguments to ``complete``/``stream_simple`` that no provider could take."""


def _context(value: Any) -> Context:
    if isinstance(value, dict):
        try:
            value = Context.model_validate(value)
        except ValueError as exc:  # pydantic's ValidationError: its first problem, on one line
            errors: list[dict[str, Any]] = getattr(exc, "errors", list)()
            where = ".".join(str(part) for part in errors[0]["loc"]) if errors else "context"
            why = errors[0]["msg"] if errors else str(exc)
            raise ModelCallError(f"context is not valid at {where}: {why}") from None
    if not isinstance(value, Context):
        raise ModelCallError(f"context must be a Context or a dict with 'messages', not {type(value).__name__}")
    for index, message in enumerate(value.messages):
        if isinstance(message, UnknownMessage):  # would reach the provider as nothing it knows
            raise ModelCallError(f"context.messages[{index}] has role {message.role!r}; "
                                 "a model call takes user, assistant and toolResult messages")
    return value


# Option fields and what each must be: a provider given ``maxTokens: "x"`` fails in its own words
# (or sends it on); the extension's author is better served by naming the option.
_OPTION_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "api_key": ((str,), "a string"), "max_tokens": ((int,), "a whole number > 0"),
    "temperature": ((int, float), "a number"), "reasoning": ((str,), "a string"),
    "session_id": ((str,), "a string"), "signal": ((AbortSignal,), "an AbortSignal"),
    "headers": ((dict,), "an object of strings"), "extra": ((dict,), "an object"),
}


def _check_option(name: str, item: Any) -> None:
    kinds, wanted = _OPTION_KINDS.get(name, ((object,), ""))
    bad = item is not None and (not isinstance(item, kinds) or (isinstance(item, bool) and bool not in kinds))
    bad = bad or (name == "max_tokens" and isinstance(item, int) and item <= 0)
    bad = bad or (name == "headers" and isinstance(item, dict)
                  and not all(isinstance(k, str) and isinstance(v, str) for k, v in item.items()))
    if bad:
        raise ModelCallError(f"option {name} must be {wanted}, not {item!r:.60}")


def _options(value: Any) -> StreamOptions:
    if value is None:
        return StreamOptions()
    if isinstance(value, StreamOptions):
        return value
    if not isinstance(value, dict):
        raise ModelCallError(f"options must be StreamOptions or a dict, not {type(value).__name__}")
    _check_option("extra", value.get("extra"))
    known: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, item in value.items():
        name = _OPTION_NAMES.get(key, key)
        if name in _IGNORED_OPTIONS or name == "extra":
            continue
        if name in _FIELDS:
            _check_option(name, item)
            known[name] = item
        else:
            extra[key] = item  # a provider-specific knob: the provider reads what it knows
    extra.update(value.get("extra") or {})
    return StreamOptions(**known, extra=extra)


async def _route_direct(registry: Any, model: Model, ctx: Context, opts: StreamOptions) -> tuple[Model, StreamOptions]:
    """A call made with a virtual model goes where its router sends a ``direct`` request (as Pi): the
    output budget capped to the routed model, its level as the reasoning effort, and credentials
    given for the virtual model's provider kept from any other provider."""
    from ..ai.virtual import ModelRouteRequest

    request = ModelRouteRequest(model=model, thinking_level=opts.reasoning or "off", reason="direct",
                                messages=list(ctx.messages), signal=opts.signal)
    route = await registry.route_virtual(model, request)
    target: Model = route.model
    limit = target.max_tokens
    max_tokens = min(opts.max_tokens, limit) if opts.max_tokens and limit > 0 else opts.max_tokens
    reasoning = None if route.thinking_level == "off" else route.thinking_level
    same_provider = target.provider == model.provider
    return target, dataclasses.replace(
        opts, max_tokens=max_tokens, reasoning=reasoning,
        api_key=opts.api_key if same_provider else None, headers=opts.headers if same_provider else {})


class ExtensionModelRegistry:
    """The session's ``ModelRegistry`` plus Pi's ``complete``/``stream_simple``/auth look-ups."""

    def __init__(self, registry: Any, call: Callable[[Any, str], Any]) -> None:
        self._registry = registry
        self._call = call

    def __getattr__(self, name: str) -> Any:
        return getattr(self._registry, name)

    def get_all(self) -> list[Any]:
        return list(self._registry.all())

    def get_available(self) -> list[Any]:
        """Models whose provider has credentials (what ``/model`` offers)."""
        return list(self._registry.available())

    def has_configured_auth(self, model: Any) -> bool:
        return bool(self._registry.has_credentials(model))

    def get_api_key(self, model: Any) -> Any:
        """``await`` it: the key a request to ``model`` would carry (an OAuth token refreshed first)."""

        async def key() -> str | None:
            return (await self._registry.request_auth_async(model)).api_key

        return self._call(key(), "ctx.model_registry.get_api_key(...)")

    def get_api_key_and_headers(self, model: Any) -> Any:
        """``await`` it: ``{"api_key", "headers"}`` for a request to ``model``."""

        async def auth() -> dict[str, Any]:
            resolved = await self._registry.request_auth_async(model)
            return {"api_key": resolved.api_key, "headers": dict(resolved.headers or {})}

        return self._call(auth(), "ctx.model_registry.get_api_key_and_headers(...)")

    def stream_simple(self, model: Any, context: Any, options: Any = None) -> AssistantMessageStream:
        """Stream one answer: iterate the events, ``await .result()`` for the final message.

        A failure to set up (no credentials, a bad context) is an error event and an error
        result, never an exception, as with every provider stream.
        """
        return AssistantMessageStream(model, self._events(model, context, options))

    def complete(self, model: Any, context: Any, options: Any = None) -> Any:
        """``await`` it: the final assistant message (``stop_reason`` ``error`` when it failed)."""
        return self._call(self.stream_simple(model, context, options).result(), "ctx.model_registry.complete(...)")

    async def _events(self, model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        if not isinstance(model, Model):
            raise ModelCallError("no model given (ctx.model is None until a model is selected)" if model is None
                                 else f"model must be a Model, not {type(model).__name__}")
        opts = _options(options)
        ctx = _context(context)
        if is_virtual(model):
            model, opts = await _route_direct(self._registry, model, ctx, opts)
        if opts.api_key is None:
            auth = await self._registry.request_auth_async(model, opts.signal)  # reaches an OAuth refresh_token
            headers = {**dict(auth.headers or {}), **opts.headers}
            opts = dataclasses.replace(opts, api_key=auth.api_key, headers=headers)
            if getattr(auth, "base_url", None):
                model = model.model_copy(update={"base_url": auth.base_url})  # the credential's own endpoint
        async for event in stream(model, ctx, opts):
            yield event
