"""``pi.register_provider``: models from an extension, on an existing wire protocol or its own.

Two forms:

- models on an existing api (``api="openai-completions"``, ``base_url=...``,
  ``api_key="$MY_KEY"``): the models join the registry like models.json ones;
- a custom protocol (``stream=fn``): ``fn(model, context, options)`` is an async generator
  of stream events, registered with ``pi_runtime.ai.stream.register_api``.
  :func:`text_stream` turns a plain ``async def reply(model, context, options) -> str`` into
  such a generator.

With ``base_url`` and no ``models`` the provider's existing models are re-pointed (a proxy).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..ai.builder import MessageBuilder
from ..ai.events import AssistantMessageEvent
from ..ai.types import Model

IN_PROCESS_URL = "http://extension.localhost"
"""Base URL of models served by an in-process stream function. A ``.localhost`` host is
what the registry treats as needing no key, which is true of a function in this process."""


def text_stream(reply: Callable[..., Any]) -> Callable[..., AsyncIterator[AssistantMessageEvent]]:
    """Adapt ``reply(model, context, options) -> str`` (sync or async) into a stream function.

    Args:
        reply: Returns the whole answer text; raising ends the response with an error.

    Returns:
        A provider stream function for ``register_provider(stream=...)``.
    """

    async def stream(model: Model, context: Any, options: Any) -> AsyncIterator[AssistantMessageEvent]:
        builder = MessageBuilder(model)
        for event in builder.start():
            yield event
        try:
            text = reply(model, context, options)
            if inspect.isawaitable(text):
                text = await text
        except Exception as exc:  # noqa: BLE001 - providers end with an error, never raise
            for event in builder.fail(f"{type(exc).__name__}: {exc}"):
                yield event
            return
        index, events = builder.text_start()
        for event in events:
            yield event
        for event in builder.text_delta(index, str(text)):
            yield event
        for event in builder.end_block(index):
            yield event
        for event in builder.finish("stop"):
            yield event

    return stream


def _model(data: Any, provider: str, api: str | None, base_url: str | None) -> Model:
    if isinstance(data, Model):
        values = data.to_wire()
    elif isinstance(data, dict):
        values = dict(data)
    else:
        raise ValueError(f"register_provider({provider!r}): a model must be a dict or Model, not {type(data).__name__}")
    if not values.get("id"):
        raise ValueError(f"register_provider({provider!r}): every model needs an 'id'")
    values["provider"] = provider
    values.setdefault("api", api)
    if not values.get("api"):
        raise ValueError(f"register_provider({provider!r}): model {values['id']!r} has no 'api' (set api= or stream=)")
    url = values.pop("base_url", None) or values.get("baseUrl") or base_url
    if not url:
        raise ValueError(f"register_provider({provider!r}): model {values['id']!r} has no base_url")
    values["baseUrl"] = url
    values.setdefault("name", values["id"])
    return Model.model_validate(values)


def register_provider(
    registry: Any,
    name: str,
    *,
    models: list[Any] | None = None,
    api: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    headers: dict[str, str] | None = None,
    stream: Callable[..., Any] | None = None,
) -> list[Model]:
    """Add (or re-point) a provider's models in ``registry``.

    Args:
        registry: The session's ``ModelRegistry``.
        name: Provider id (``provider/model`` refs use it).
        models: Model definitions (dicts with Pi's fields, or ``Model``).
        api: Wire protocol of the models; defaults to ``ext:<name>`` with ``stream``.
        base_url: Endpoint for models that do not set their own.
        api_key: Key literal, ``$ENV`` / ``${ENV}`` reference or ``!command``.
        headers: Extra request headers for these models.
        stream: A provider stream function (see :func:`text_stream`).

    Returns:
        The models added or changed.

    Raises:
        ValueError: Missing model ids, api or base URL, or nothing to register.
    """
    from ..ai.credentials import resolve_value
    from ..ai.stream import register_api

    if not name or not isinstance(name, str):
        raise ValueError("register_provider: a provider needs a name")
    if stream is not None:
        api = api or f"ext:{name}"
        register_api(api, stream)
        base_url = base_url or IN_PROCESS_URL
    changed: list[Model] = []
    if models is not None:
        changed = [_model(m, name, api, base_url) for m in models]
    elif base_url:
        changed = [m.model_copy(update={"base_url": base_url}) for m in registry.all() if m.provider == name]
    if not changed and stream is None and api_key is None:
        raise ValueError(f"register_provider({name!r}): give models, a base_url for existing models, or a stream")
    if headers:
        changed = [m.model_copy(update={"headers": {**(m.headers or {}), **headers}}) for m in changed]
    for model in changed:
        registry.add_model(model)
    if api_key:
        registry.set_runtime_api_key(name, resolve_value(api_key, where=f"register_provider({name!r}).api_key"))
    return changed
