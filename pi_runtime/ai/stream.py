"""The unified streaming entry points: ``stream()`` and ``complete()``.

Each wire protocol is a provider module exposing ``stream(model, context, options)``, an
async generator of ``AssistantMessageEvent``. Built-in modules are imported on first use so
a run only pays for the protocol it talks. ``register_api`` adds custom protocols.

Every stream, whatever its provider, ends here: the final error message is redacted once
(``redaction.py``) before any event carries it, so no configured secret a server echoed
reaches the session file, stderr, an export or an RPC client.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from .events import AssistantMessageEvent, DoneEvent, ErrorEvent
from .options import StreamOptions
from .redaction import MIN_LENGTH, redact
from .types import AssistantMessage, Context, Model

ProviderStream = Callable[[Model, Context, StreamOptions], AsyncIterator[AssistantMessageEvent]]

_BUILTIN_APIS = {
    "openai-completions": "pi_runtime.ai.providers.openai_completions",
    "openai-responses": "pi_runtime.ai.providers.openai_responses",
    "anthropic-messages": "pi_runtime.ai.providers.anthropic_messages",
    "google-generative-ai": "pi_runtime.ai.providers.google_generative",
    "bedrock-converse-stream": "pi_runtime.ai.providers.bedrock_converse",
    "google-vertex": "pi_runtime.ai.providers.google_vertex",
    "mistral-conversations": "pi_runtime.ai.providers.mistral_conversations",
    "azure-openai-responses": "pi_runtime.ai.providers.azure_openai_responses",
    "openai-codex-responses": "pi_runtime.ai.providers.openai_codex_responses",
    "pi-messages": "pi_runtime.ai.providers.pi_messages",
    "scripted": "pi_runtime.ai.providers.scripted",
}
_FITS_OUTPUT_TO_WINDOW = frozenset(_BUILTIN_APIS) - {"pi-messages", "scripted"}
"""The wire APIs whose requests Pi sends with the output limit fitted into the context window
(Pi's own API forwards the caller's limit as it is)."""
_registry: dict[str, ProviderStream] = {}
_takes_wire: set[ProviderStream] = set()
"""Built-in stream functions whose module sets ``ACCEPTS_WIRE_MESSAGES``: they take a stored
message's wire dict in ``context.messages`` as it is; every other one is given objects."""
_takes_system: set[ProviderStream] = set()
"""Built-in stream functions whose module sets ``ACCEPTS_SYSTEM_MESSAGES``: the agent loop leaves
the transcript's system messages (prompt sections, tool declarations) in their context."""


def register_api(api: str, fn: ProviderStream) -> None:
    """Register (or replace) the stream function for a wire protocol id."""
    _registry[api] = fn


def unregister_api(api: str) -> None:
    _registry.pop(api, None)


def get_api(api: str) -> ProviderStream | None:
    fn = _registry.get(api)
    if fn is None and api in _BUILTIN_APIS:
        module = importlib.import_module(_BUILTIN_APIS[api])
        fn = module.stream
        _registry[api] = fn
        if getattr(module, "ACCEPTS_WIRE_MESSAGES", False):
            _takes_wire.add(fn)
        if getattr(module, "ACCEPTS_SYSTEM_MESSAGES", False):
            _takes_system.add(fn)
    return fn


def prepare_requests(model: Model | None = None) -> None:
    """Get ready, on a worker thread, for a first request: the HTTP client
    (``pi_runtime.http.prepare_in_background``) and, once ``model`` is known, its provider module and
    trust store. For a front end whose user is about to prompt: done after the prompt, these imports
    delayed its request by 0.1-0.2 s (and, on the app's loop, its screen)."""
    from ..http import prepare_in_background

    if model is None:
        prepare_in_background()
        return
    module = _BUILTIN_APIS.get(model.api) if model.api not in _registry else None
    prepare_in_background(trust_store=model.base_url.startswith("https:"), modules=(module,) if module else ())


def takes_wire_messages(api: str) -> bool:
    """Whether the provider for ``api`` reads stored messages as wire dicts (else it gets objects)."""
    fn = get_api(api)
    return fn is not None and fn in _takes_wire


def takes_system_messages(api: str) -> bool:
    """Whether the provider for ``api`` reads the transcript's system messages (Pi's own API does)."""
    fn = get_api(api)
    return fn is not None and fn in _takes_system


def known_apis() -> list[str]:
    return sorted(set(_BUILTIN_APIS) | set(_registry))


class AssistantMessageStream:
    """An async iterator of events that also yields the final message via ``result()``.

    Whatever happens inside a provider, the stream ends with exactly one ``done`` or
    ``error`` event: an exception escaping a provider becomes an ``error`` event that keeps
    the partial content seen so far.
    """

    def __init__(
        self, model: Model, events: AsyncIterator[AssistantMessageEvent], secrets: tuple[str | None, ...] = ()
    ) -> None:
        self._model = model
        self._events = events
        self._secrets = secrets
        self._final: AssistantMessage | None = None
        self._iterated = False

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        if self._iterated:
            raise RuntimeError("a stream can be iterated once")
        self._iterated = True
        return self._run()

    async def _run(self) -> AsyncIterator[AssistantMessageEvent]:
        partial: AssistantMessage | None = None
        try:
            async for event in self._events:
                if isinstance(event, (DoneEvent, ErrorEvent)):
                    self._final = event.message if isinstance(event, DoneEvent) else event.error
                    self._redact(self._final)
                    yield event
                    return
                partial = event.partial
                yield event
        except Exception as exc:  # noqa: BLE001 - the contract: providers never raise
            message = partial or _empty_message(self._model)
            message.stop_reason = "error"
            message.error_message = f"{type(exc).__name__}: {exc}"
            self._final = message
            self._redact(message)
            yield ErrorEvent("error", message)
            return
        finally:
            aclose = getattr(self._events, "aclose", None)
            if aclose is not None:
                await aclose()
        # A provider that ended without a terminal event: treat as a cut stream.
        message = partial or _empty_message(self._model)
        message.stop_reason = "error"
        message.error_message = message.error_message or "Stream ended without a final event"
        self._final = message
        yield ErrorEvent("error", message)

    def _redact(self, message: AssistantMessage) -> None:
        if message.error_message:
            message.error_message = redact(message.error_message, self._secrets)

    async def result(self) -> AssistantMessage:
        """Drain the stream (if not yet done) and return the final message."""
        if not self._iterated:
            async for _ in self:
                pass
        assert self._final is not None
        return self._final


def _empty_message(model: Model | None) -> AssistantMessage:
    # ``model`` may be whatever an extension passed (None included): the error result must still be made.
    return AssistantMessage(api=getattr(model, "api", ""), provider=getattr(model, "provider", ""),
                            model=getattr(model, "id", ""))


def stream(
    model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
) -> AssistantMessageStream:
    """Stream one assistant response. Never raises for request failures."""
    opts = options or StreamOptions(**kwargs)
    fn = get_api(model.api)
    if fn is None:
        return AssistantMessageStream(model, _unknown_api(model))
    if fn not in _takes_wire:
        context = with_objects(context)
    if model.api in _FITS_OUTPUT_TO_WINDOW:
        from dataclasses import replace

        from .context_budget import request_max_tokens

        # Pi fits every request's output limit into the window the input leaves (context_budget.py).
        opts = replace(opts, max_tokens=request_max_tokens(model, context, opts.max_tokens))
    if opts.session_id:
        from dataclasses import replace

        from .providers._identity import session_headers

        routing = session_headers(model, opts.session_id)
        if routing:  # OpenCode's conversation header, under the credential's and the caller's (as in Pi)
            opts = replace(opts, headers={**routing, **opts.headers})
    if model.provider == "github-copilot":
        from dataclasses import replace

        from .providers.subscription_quirks import copilot_headers

        # Per-conversation headers Copilot expects; headers the caller set still win.
        opts = replace(opts, headers={**copilot_headers(context.messages), **opts.headers})
    if getattr(model, "base_url", "").startswith("https:"):
        from ..http import prepare_in_background

        prepare_in_background(trust_store=True)  # loads the CA bundle while the request body is built
    return AssistantMessageStream(model, fn(model, context, opts), request_secrets(model, opts))


def with_objects(context: Context) -> Context:
    """``context`` with any wire-dict message (a stored one, see ``agent/transcript.py``) validated."""
    positions = [i for i, m in enumerate(context.messages) if isinstance(m, dict)]
    if not positions:
        return context
    from .types import parse_message_list

    messages = list(context.messages)
    for i, message in zip(positions, parse_message_list([messages[i] for i in positions])):
        messages[i] = message
    return Context.model_construct(system_prompt=context.system_prompt, messages=messages, tools=context.tools)


def request_secrets(model: Model, options: StreamOptions) -> tuple[str | None, ...]:
    """The values one request must never show: its key (or the provider's env key, which a
    provider falls back to), its header values and the secrets the options list."""
    from .env_keys import env_api_key

    headers = tuple(v for v in options.headers.values() if isinstance(v, str) and len(v) >= MIN_LENGTH)
    return (options.api_key, env_api_key(model.provider), *headers, *options.secrets)


async def _unknown_api(model: Model) -> AsyncIterator[AssistantMessageEvent]:
    message = _empty_message(model)
    message.stop_reason = "error"
    message.error_message = f"No provider registered for api '{model.api}' (model {model.ref})"
    yield ErrorEvent("error", message)


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None, **kwargs: Any
) -> AssistantMessage:
    """Run a request to the end and return the final assistant message."""
    return await stream(model, context, options, **kwargs).result()
