"""``AgentHooks``: the agent's tool, context and provider hooks, answered by extension handlers.

- ``tool_call`` / ``tool_result`` / ``context`` are the agent's ``before_tool_call``,
  ``after_tool_call`` and ``transform_context`` hooks;
- ``before_provider_headers`` / ``before_provider_request`` / ``after_provider_response`` /
  ``provider_stream_event`` ride on the request through a wrapped stream function (the HTTP
  providers call them; in-process providers have no such stages).

Failure rules (as Pi): a ``tool_call`` handler that raises, overruns, is aborted or returns
something that is not a decision blocks the call (fail closed); in ``tool_result``,
``context`` and the provider hooks a failure is reported and the value so far is kept. A hook
already installed on the agent (the SDK's) runs first and is chained.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .dispatch import Dispatcher
from .events import (
    AfterProviderResponseEvent,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    ContextEvent,
    ProviderStreamEventEvent,
    ToolCallEvent,
    ToolResultEvent,
    result_field,
)
from .json_values import json_value
from .registry import ExtensionRegistry
from .reporter import ErrorReporter

if TYPE_CHECKING:
    from ..agent.tool_exec import AfterToolCallResult, BeforeToolCallResult, ToolCallContext
    from ..kernel.extension_port import AgentHookSet, SessionActions

PROVIDER_EVENTS = ("before_provider_headers", "before_provider_request", "after_provider_response",
                   "provider_stream_event")


class ResultShapeError(TypeError):
    """A handler returned something its event cannot use."""


def tool_call_decision(value: Any) -> tuple[bool, str | None, bool]:
    """``(block, reason, terminate)`` from a ``tool_call`` handler's result.

    Raises:
        ResultShapeError: Not None, a dict or an object with a ``block`` attribute.
    """
    if value is None:
        return False, None, False
    if not isinstance(value, dict) and not hasattr(value, "block"):
        raise ResultShapeError(
            f"a tool_call handler returned {type(value).__name__}; expected None or "
            "{'block': True, 'reason': str} (the call was blocked)"
        )
    reason = result_field(value, "reason")
    return bool(result_field(value, "block", False)), (None if reason is None else str(reason)), \
        bool(result_field(value, "terminate", False))


def _first_line(text: str | None) -> str:
    return (text or "").split("\n", 1)[0]


class AgentHooks:
    """Installs the runner into the agent's hooks and answers them.

    Args:
        registry: Who handles which event.
        dispatcher: Calls handlers safely.
        reporter: Where shape errors go.
        ensure_started: Starts the runner (``session_start``) before the first event.
        nested_call_id: The parent id when the tool call is a nested ``ctx.execute_tool`` call.
        nested_record: The ``nestedCalls`` record of the calls a finished tool made (None: none).
    """

    def __init__(
        self,
        registry: ExtensionRegistry,
        dispatcher: Dispatcher,
        reporter: ErrorReporter,
        ensure_started: Callable[[], Awaitable[None]],
        nested_call_id: Callable[[str], str | None] = lambda call_id: None,
        nested_record: Callable[[str], dict[str, Any] | None] = lambda call_id: None,
    ) -> None:
        self._registry = registry
        self._dispatcher = dispatcher
        self._reporter = reporter
        self._ensure_started = ensure_started
        self._parent_of = nested_call_id
        self._nested_record = nested_record
        self._prior: AgentHookSet | None = None
        self._actions: SessionActions | None = None

    def install(self, actions: SessionActions) -> None:
        """Put the runner in the agent's hooks (chaining the hooks already there)."""
        from ..kernel.extension_port import AgentHookSet

        self._actions = actions
        self._prior = actions.swap_agent_hooks(AgentHookSet())
        prior_stream = self._prior.stream_fn
        actions.swap_agent_hooks(AgentHookSet(
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            transform_context=self.transform_context,
            stream_fn=self.wrap_stream(prior_stream) if prior_stream is not None else None,
            # A tool_call handler must judge each call on the state it runs in (a later call of
            # a batch may use what an earlier one created).
            checks_each_call=lambda: self._registry.has_handlers("tool_call"),
        ))

    def uninstall(self) -> None:
        """Put the hooks back as they were."""
        if self._actions is not None and self._prior is not None:
            self._actions.swap_agent_hooks(self._prior)
        self._actions = None

    # ------------------------------------------------------------------ tool_call

    async def before_tool_call(self, call_ctx: ToolCallContext) -> BeforeToolCallResult | None:
        """``tool_call``: a handler may change ``event.input`` in place or block the call."""
        from ..agent.tool_exec import BeforeToolCallResult

        prior = self._prior.before_tool_call if self._prior else None
        if prior is not None:
            decision = await prior(call_ctx)
            if decision is not None and decision.block:
                return decision
        call = call_ctx.tool_call
        return await self.check_call(call.name, call.id, call.arguments, call_ctx.args, BeforeToolCallResult)

    async def check_call(self, name: str, call_id: str, arguments: dict[str, Any] | None, params: Any,
                         result_class: Any) -> Any:
        """Run ``tool_call`` handlers for one call; copy changed input onto ``params``.

        Returns:
            ``result_class(block=True, ...)`` to block, else None.
        """
        if not self._registry.has_handlers("tool_call"):
            return None
        await self._ensure_started()
        original = dict(arguments or {})
        event = ToolCallEvent(tool_name=name, tool_call_id=call_id, input=dict(original),
                              parent_tool_call_id=self._parent_of(call_id))
        for ext, handler in self._registry.handlers("tool_call"):
            outcome = await self._dispatcher.call(ext, handler, (event,), event="tool_call")
            if outcome.aborted:
                return result_class(block=True, reason="Tool call aborted")
            if outcome.failed:
                return result_class(
                    block=True, reason=f"Tool call blocked: extension {ext.path} failed while checking it: "
                                       f"{_first_line(outcome.error)}")
            try:
                block, reason, terminate = tool_call_decision(outcome.value)
            except ResultShapeError as exc:
                await self._reporter.report(ext.path, "tool_call", f"{type(exc).__name__}: {exc}")
                return result_class(block=True, reason=f"Tool call blocked: extension {ext.path} returned an invalid decision")
            if block:
                return result_class(block=True, reason=reason or f"Blocked by extension {ext.path}", terminate=terminate)
        if event.input != original:
            problem = _apply_input(params, event.input)
            if problem is not None:
                await self._reporter.report("(tool_call)", "tool_call", problem)
                return result_class(block=True, reason=f"Tool call blocked: {problem}")
        return None

    # ------------------------------------------------------------------ tool_result

    async def after_tool_call(self, call_ctx: ToolCallContext) -> AfterToolCallResult | None:
        """``tool_result``: handlers chain patches to content, details and the error flag."""
        from ..agent.tool_exec import AfterToolCallResult

        record = self._nested_record(call_ctx.tool_call.id)
        if record is not None and call_ctx.result is not None:
            call_ctx.result.nested_calls = record  # for its result message (Pi's nestedCalls)
        prior = self._prior.after_tool_call if self._prior else None
        change = await prior(call_ctx) if prior is not None else None
        if not self._registry.has_handlers("tool_result"):
            return change
        result = call_ctx.result
        assert result is not None  # after_tool_call always has the result
        call = call_ctx.tool_call
        patched = await self.patch_result(
            call.name, call.id, call.arguments,
            list(change.content if change and change.content is not None else result.content),
            change.details if change and change.details is not None else result.details,
            change.is_error if change and change.is_error is not None else call_ctx.is_error,
        )
        if patched is None:
            return change
        content, details, is_error = patched
        return AfterToolCallResult(content=content, details=details, is_error=is_error,
                                   terminate=change.terminate if change else None)

    async def patch_result(self, name: str, call_id: str, arguments: dict[str, Any] | None, content: list[Any],
                           details: Any, is_error: bool) -> tuple[list[Any], Any, bool] | None:
        """Run ``tool_result`` handlers; the patched (content, details, is_error), or None if untouched."""
        from .tools import content_blocks

        event = ToolResultEvent(tool_name=name, tool_call_id=call_id, input=dict(arguments or {}), content=content,
                                details=details, is_error=is_error, parent_tool_call_id=self._parent_of(call_id))
        touched = False
        for ext, handler in self._registry.handlers("tool_result"):
            outcome = await self._dispatcher.call(ext, handler, (event,), event="tool_result")
            if outcome.aborted:
                break
            patch = outcome.value
            if outcome.failed or not patch:
                continue
            if not isinstance(patch, dict) and not any(hasattr(patch, f) for f in ("content", "details", "is_error")):
                await self._reporter.report(ext.path, "tool_result",
                                            f"ResultShapeError: a tool_result handler returned {type(patch).__name__}; "
                                            "expected None or a dict with content/details/isError (ignored)")
                continue
            try:
                new_content = result_field(patch, "content")
                blocks = content_blocks(new_content) if new_content is not None else None
            except (TypeError, ValueError) as exc:
                await self._reporter.report(ext.path, "tool_result", f"ResultShapeError: unusable content: {exc}")
                continue
            touched = True
            if blocks is not None:
                event.content = blocks
            if result_field(patch, "details") is not None:
                event.details = json_value(result_field(patch, "details"))  # it is stored in the session
            if result_field(patch, "is_error") is not None:
                event.is_error = bool(result_field(patch, "is_error"))
        return (event.content, event.details, event.is_error) if touched else None

    # ------------------------------------------------------------------ context

    async def transform_context(self, messages: list[Any], signal: Any) -> list[Any]:
        """``context``: handlers may return ``{"messages": [...]}`` to replace what is sent."""
        from ..ai.types import parse_message

        prior = self._prior.transform_context if self._prior else None
        if prior is not None:
            messages = await prior(messages, signal)
        if not self._registry.has_handlers("context"):
            return messages
        # As in Pi the prompt belongs to pi: handlers see the conversation without system
        # messages, and those are put back in front of whatever they return.
        system = [m for m in messages if getattr(m, "role", None) == "system"]
        current = [m.model_copy(deep=True) if hasattr(m, "model_copy") else m
                   for m in messages if getattr(m, "role", None) != "system"]
        for ext, handler in self._registry.handlers("context"):
            outcome = await self._dispatcher.call(ext, handler, (ContextEvent(messages=list(current)),), event="context")
            if outcome.aborted:
                break
            replaced = result_field(outcome.value, "messages")
            if outcome.failed or replaced is None:
                continue
            try:
                current = [parse_message(m) if isinstance(m, dict) else m for m in replaced]
            except Exception as exc:  # noqa: BLE001 - a bad list keeps the previous one
                await self._reporter.report(ext.path, "context", f"ResultShapeError: unusable messages: {exc}")
        return system + current

    # ------------------------------------------------------------------ provider hooks

    def wrap_stream(self, inner: Callable[..., Any]) -> Callable[..., Any]:
        """A stream function that gives providers the extensions' request/response hooks."""

        def stream(model: Any, context: Any, options: Any) -> Any:
            if options is not None and any(self._registry.has_handlers(n) for n in PROVIDER_EVENTS):
                options = dataclasses.replace(
                    options,
                    on_headers=self._on_headers(model) if self._registry.has_handlers("before_provider_headers") else None,
                    on_payload=self._on_payload(model) if self._registry.has_handlers("before_provider_request") else None,
                    on_response=self._on_response(model) if self._registry.has_handlers("after_provider_response") else None,
                    on_stream_event=self._on_stream_event(model) if self._registry.has_handlers("provider_stream_event") else None,
                )
            return inner(model, context, options)

        return stream

    def _on_headers(self, model: Any) -> Callable[[dict[str, str]], Awaitable[dict[str, str]]]:
        async def hook(headers: dict[str, str]) -> dict[str, str]:
            event = BeforeProviderHeadersEvent(headers=dict(headers), model=model)
            await self._dispatcher.emit("before_provider_headers", event)
            return {k: str(v) for k, v in event.headers.items() if v is not None}

        return hook

    def _on_payload(self, model: Any) -> Callable[[Any], Awaitable[Any]]:
        async def hook(payload: Any) -> Any:
            for ext, handler in self._registry.handlers("before_provider_request"):
                event = BeforeProviderRequestEvent(payload=payload, model=model)
                outcome = await self._dispatcher.call(ext, handler, (event,), event="before_provider_request")
                if outcome.aborted:
                    break
                if not outcome.failed and outcome.value is not None:
                    payload = outcome.value
            return payload

        return hook

    def _on_response(self, model: Any) -> Callable[[int, dict[str, str]], Awaitable[None]]:
        async def hook(status: int, headers: dict[str, str]) -> None:
            await self._dispatcher.emit("after_provider_response",
                                        AfterProviderResponseEvent(status=status, headers=headers, model=model))

        return hook

    def _on_stream_event(self, model: Any) -> Callable[[Any], Awaitable[None]]:
        async def hook(data: Any) -> None:
            await self._dispatcher.emit("provider_stream_event", ProviderStreamEventEvent(
                provider=model.provider, api=model.api, model=model.id, data=data))

        return hook


def _apply_input(params: Any, new_input: dict[str, Any]) -> str | None:
    """Validate changed arguments and copy them onto the params the tool receives; the problem, if any."""
    try:
        validated = type(params).model_validate(new_input)
    except ValueError as exc:  # a jsonmodel or pydantic ValidationError
        errors = exc.errors() if callable(getattr(exc, "errors", None)) else [{"msg": str(exc)}]  # type: ignore[attr-defined]
        return f"the arguments changed by tool_call handlers are invalid: {errors[0].get('msg')}"
    for name in type(validated).model_fields:
        setattr(params, name, getattr(validated, name))
    return None
