"""The runner's side of the kernel wiring: where each extension event comes from.

- Agent and kernel events (``agent_start``, ``turn_*``, ``message_*``, ``tool_execution_*``,
  ``model_changed`` -> ``model_select``, ...) arrive through a session subscription.
- ``tool_call`` / ``tool_result`` / ``context`` are the agent's ``before_tool_call``,
  ``after_tool_call`` and ``transform_context`` hooks.
- ``input`` (with extension commands first), ``before_agent_start`` and the
  ``session_before_*`` gates are called by the kernel.

Failure rules (as Pi): an exception in ``tool_call`` blocks the call (fail closed); in
``tool_result``, ``context``, ``input`` and ``before_agent_start`` it is reported and the
value so far is kept; in a ``session_before_*`` gate it is reported and does not cancel.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .events import Event, from_agent_event, result_field
from .loader import summarize_error

if TYPE_CHECKING:
    from .runner import ExtensionRunner

_FORWARDED = frozenset({
    "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end", "message_start", "message_update",
    "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end",
    "session_info_changed",
})
_SWITCH_REASONS = {"new": "new", "switch": "resume", "fork": "fork", "clone": "fork"}


class KernelHooksMixin:
    # ------------------------------------------------------------------ session subscription

    async def _on_session_event(self: ExtensionRunner, event: Any) -> None:
        kind = event.type
        if kind == "extension_error":
            return
        if not self._started:
            await self.start()
        if kind in _FORWARDED:
            if kind == "agent_start":
                self._turn_index = -1
            elif kind == "turn_start":
                self._turn_index = getattr(self, "_turn_index", -1) + 1
            if not self.has_handlers(kind):
                return
            extra: dict[str, Any] = {}
            if kind in ("turn_start", "turn_end"):
                extra = {"turn_index": max(0, getattr(self, "_turn_index", 0)), "timestamp": int(time.time() * 1000)}
            await self.emit(kind, from_agent_event(event, **extra))
        elif kind == "model_changed":
            previous = getattr(self, "_last_model", None)
            self._last_model = event.model
            await self.emit("model_select", Event("model_select", model=event.model, previous_model=previous, source="set"))
        elif kind == "thinking_level_changed":
            previous = getattr(self, "_last_level", None)
            self._last_level = event.level
            await self.emit("thinking_level_select", Event("thinking_level_select", level=event.level, previous_level=previous))
        elif kind == "session_changed" and event.reason in _SWITCH_REASONS:
            previous, self._previous_session_file = self._previous_session_file, self._session.session_file
            await self.emit("session_start", Event(
                "session_start", reason=_SWITCH_REASONS[event.reason], previous_session_file=previous))

    # ------------------------------------------------------------------ agent hooks

    def install_agent_hooks(self: ExtensionRunner, agent: Any) -> None:
        """Put the runner in the agent's tool and context hooks (chaining any hook already there)."""
        self._last_model = agent.state.model
        self._last_level = agent.state.thinking_level
        self._prior_before = agent.before_tool_call
        self._prior_after = agent.after_tool_call
        self._prior_transform = agent.transform_context
        agent.before_tool_call = self.before_tool_call
        agent.after_tool_call = self.after_tool_call
        # A tool_call handler must judge each call on the state it runs in.
        agent.checks_each_call = lambda: self.has_handlers("tool_call")
        agent.transform_context = self.transform_context

    async def before_tool_call(self: ExtensionRunner, call_ctx: Any) -> Any:
        """``tool_call``: a handler may change ``event.input`` in place or block the call.

        Raises:
            RuntimeError: A handler raised (the agent then blocks the call: fail closed).
        """
        from ..agent.tool_exec import BeforeToolCallResult

        if self._prior_before is not None:
            decision = await self._prior_before(call_ctx)
            if decision is not None and decision.block:
                return decision
        if not self.has_handlers("tool_call"):
            return None
        if not self._started:
            await self.start()
        call = call_ctx.tool_call
        original = dict(call.arguments or {})
        event = Event("tool_call", tool_name=call.name, tool_call_id=call.id, input=dict(original))
        for ext, handler in self.handlers("tool_call"):
            try:
                result = await self.call(ext, handler, event)
            except Exception as exc:
                await self.report_error(ext.path, "tool_call", summarize_error(exc, ext.path))
                raise RuntimeError(f"extension {ext.path} failed while checking this call: {exc}") from exc
            if result_field(result, "block", False):
                reason = result_field(result, "reason") or f"Blocked by extension {ext.path}"
                return BeforeToolCallResult(block=True, reason=reason, terminate=bool(result_field(result, "terminate", False)))
        if event.input != original:
            self._apply_input(call_ctx, event.input)
        return None

    def _apply_input(self: ExtensionRunner, call_ctx: Any, new_input: dict[str, Any]) -> None:
        """Validate changed arguments and copy them onto the params the tool will receive."""
        params = call_ctx.args
        validated = type(params).model_validate(new_input)  # an invalid change blocks the call
        for name in type(validated).model_fields:
            setattr(params, name, getattr(validated, name))

    async def after_tool_call(self: ExtensionRunner, call_ctx: Any) -> Any:
        """``tool_result``: handlers chain patches to content, details and the error flag."""
        from ..agent.tool_exec import AfterToolCallResult
        from .tools import content_blocks

        change = None
        if self._prior_after is not None:
            change = await self._prior_after(call_ctx)
        if not self.has_handlers("tool_result"):
            return change
        result = call_ctx.result
        event = Event(
            "tool_result", tool_name=call_ctx.tool_call.name, tool_call_id=call_ctx.tool_call.id,
            input=dict(call_ctx.tool_call.arguments or {}),
            content=list(change.content if change and change.content is not None else result.content),
            details=change.details if change and change.details is not None else result.details,
            is_error=change.is_error if change and change.is_error is not None else call_ctx.is_error,
        )
        touched = change is not None
        for ext, handler in self.handlers("tool_result"):
            try:
                patch = await self.call(ext, handler, event)
            except Exception as exc:  # noqa: BLE001 - reported and ignored
                await self.report_error(ext.path, "tool_result", summarize_error(exc, ext.path))
                continue
            if not patch:
                continue
            touched = True
            if result_field(patch, "content") is not None:
                event.content = content_blocks(result_field(patch, "content"))
            if result_field(patch, "details") is not None:
                event.details = result_field(patch, "details")
            if result_field(patch, "is_error") is not None:
                event.is_error = bool(result_field(patch, "is_error"))
        if not touched:
            return None
        return AfterToolCallResult(content=event.content, details=event.details, is_error=event.is_error,
                                   terminate=change.terminate if change else None)

    async def transform_context(self: ExtensionRunner, messages: list[Any], signal: Any) -> list[Any]:
        """``context``: handlers may return ``{"messages": [...]}`` to replace what is sent."""
        if self._prior_transform is not None:
            messages = await self._prior_transform(messages, signal)
        if not self.has_handlers("context"):
            return messages
        # As in Pi the prompt belongs to pi: handlers see the conversation without system
        # messages, and those are put back in front of whatever they return.
        system = [m for m in messages if getattr(m, "role", None) == "system"]
        current = [m.model_copy(deep=True) if hasattr(m, "model_copy") else m
                   for m in messages if getattr(m, "role", None) != "system"]
        for ext, handler in self.handlers("context"):
            event = Event("context", messages=list(current))
            try:
                result = await self.call(ext, handler, event)
            except Exception as exc:  # noqa: BLE001 - reported; the previous list is kept
                await self.report_error(ext.path, "context", summarize_error(exc, ext.path))
                continue
            replaced = result_field(result, "messages")
            if replaced is not None:
                from ..ai.types import parse_message

                current = [parse_message(m) if isinstance(m, dict) else m for m in replaced]
        return system + current

    # ------------------------------------------------------------------ kernel call points

    async def handle_input(
        self: ExtensionRunner, text: str, images: list[Any] | None = None, streaming_behavior: str | None = None
    ) -> str | None:
        """Extension commands first, then ``input`` handlers.

        Returns:
            None when a command or handler consumed the input, else the (transformed) text.
        """
        from .runner import INPUT_SOURCE

        if not self._started:
            await self.start()
        source = INPUT_SOURCE.get()
        if text.startswith("/") and source != "extension":
            name, _, args = text[1:].partition(" ")
            if name and await self.run_command(name, args.strip()):
                return None
        if not self.has_handlers("input"):
            return text
        event = Event("input", text=text, images=images, source=source, streaming_behavior=streaming_behavior)
        for ext, handler in self.handlers("input"):
            try:
                result = await self.call(ext, handler, event)
            except Exception as exc:  # noqa: BLE001 - reported; the text so far goes on
                await self.report_error(ext.path, "input", summarize_error(exc, ext.path))
                continue
            action = result_field(result, "action", "continue")
            if action == "handled":
                return None
            if action == "transform" and result_field(result, "text") is not None:
                event.text = str(result_field(result, "text"))
        return event.text

    async def before_agent_start(self: ExtensionRunner, prompts: list[Any]) -> list[Any]:
        """Run ``before_agent_start`` for a run about to start; returns the messages to send.

        Handlers may edit ``event.sections`` (the system prompt's named sections) and
        ``event.selected_tools`` in place, return ``{"systemPrompt": str}`` to replace the
        prompt for this run, or ``{"message": {...}}`` to add a custom message.
        """
        prompts = list(prompts) + self._next_turn
        self._next_turn = []
        if not self.has_handlers("before_agent_start"):
            return prompts
        session = self._session
        first = prompts[0] if prompts else None
        is_user = getattr(first, "role", None) == "user"
        sections = getattr(session, "system_prompt_sections", None)
        before_sections = dict(sections.sections) if sections is not None else {}
        active = self.active_tool_names()
        event = Event(
            "before_agent_start", message_type="user" if is_user else "custom",
            prompt=_text(first) if is_user else None, message=None if is_user else first,
            images=[b for b in getattr(first, "content", []) if getattr(b, "type", "") == "image"] if is_user and isinstance(first.content, list) else None,
            system_prompt=session.system_prompt, sections=sections, selected_tools=list(active),
        )
        forced: str | None = None
        for ext, handler in self.handlers("before_agent_start"):
            try:
                result = await self.call(ext, handler, event)
            except Exception as exc:  # noqa: BLE001
                await self.report_error(ext.path, "before_agent_start", summarize_error(exc, ext.path))
                continue
            message = result_field(result, "message")
            if message is not None:
                prompts.append(self.custom_message(message))
            replacement = result_field(result, "system_prompt")
            if replacement is not None:
                forced = str(replacement)
            # Later handlers (and ctx.get_system_prompt()) see the prompt as chained so far.
            if forced is not None or sections is not None:
                event.system_prompt = forced if forced is not None else sections.render()
                session.agent.state.system_prompt = event.system_prompt
        if event.selected_tools != active:
            self.set_active_tools(event.selected_tools)  # rebuilds the sections from scratch
        if sections is not None and dict(sections.sections) != before_sections:
            fresh = getattr(session, "system_prompt_sections", sections)
            if fresh is not sections:  # re-apply the handlers' section edits to the rebuilt prompt
                for name in before_sections:
                    if name not in sections.sections:
                        fresh.remove(name)
                for name, text in sections.sections.items():
                    if before_sections.get(name) != text:
                        fresh.set(name, text)
            session.agent.state.system_prompt = fresh.render()
        if forced is not None:
            session.agent.state.system_prompt = forced
        return prompts

    async def emit_cancellable(self: ExtensionRunner, name: str, **fields: Any) -> bool:
        """Run a ``session_before_*`` gate. Returns True when a handler cancelled.

        When a switch or fork goes ahead, ``session_shutdown`` follows at once.
        """
        if not self._started:
            await self.start()
        event = Event(name, **fields)
        for ext, handler in self.handlers(name):
            try:
                result = await self.call(ext, handler, event)
            except Exception as exc:  # noqa: BLE001
                await self.report_error(ext.path, name, summarize_error(exc, ext.path))
                continue
            if result_field(result, "cancel", False):
                return True
        if name in ("session_before_switch", "session_before_fork"):
            self._previous_session_file = self._session.session_file if self._session else None
            reason = fields.get("reason") or "fork"
            await self.emit("session_shutdown", Event("session_shutdown", reason=reason,
                                                      target_session_file=fields.get("target_session_file")))
        return False

    async def emit_named(self: ExtensionRunner, name: str, **fields: Any) -> None:
        """Notify ``name`` (e.g. ``session_tree``, ``session_compact``) with ``fields``."""
        if not self._started:
            await self.start()
        await self.emit(name, Event(name, **fields))

    # ------------------------------------------------------------------ tools and prompt

    def active_tool_names(self: ExtensionRunner) -> list[str]:
        """Names of the active tools."""
        return [t.name for t in self.require_session().agent.state.tools]

    def set_active_tools(self: ExtensionRunner, names: list[str]) -> list[str]:
        """Activate exactly ``names`` (unknown names are ignored); rebuilds the system prompt."""
        session = self.require_session()
        chosen = list(dict.fromkeys(n for n in names if n in self.all_tools))
        session.agent.state.tools = [self.all_tools[n] for n in chosen]
        session.refresh_system_prompt()
        return chosen

    def add_tool(self: ExtensionRunner, tool: Any) -> None:
        """Make a tool registered after binding available (and active unless ``default_active`` is False)."""
        session = self.require_session()
        self.all_tools[tool.name] = tool
        tools = session.agent.state.tools
        names = [t.name for t in tools]
        if tool.name in names:
            tools[names.index(tool.name)] = tool
        elif getattr(tool, "default_active", True):
            tools.append(tool)
        else:
            return
        session.refresh_system_prompt()

    def prompt_guidelines(self: ExtensionRunner, active: list[str]) -> list[str]:
        """Rules from the active extension tools' ``prompt_guidelines``."""
        out: list[str] = []
        for name in active:
            out.extend(getattr(self.all_tools.get(name), "prompt_guidelines", None) or [])
        return out

    def prompt_snippets(self: ExtensionRunner, active: list[str]) -> dict[str, str]:
        """One-line ``prompt_snippet`` of active extension tools that set one."""
        out = {}
        for name in active:
            snippet = getattr(self.all_tools.get(name), "prompt_snippet", None)
            if snippet:
                out[name] = snippet
        return out

    def custom_message(self: ExtensionRunner, message: Any) -> Any:
        """A ``CustomMessage`` from a dict with Pi's fields (``customType``, ``content``, ``display``, ``details``)."""
        from ..ai.types import CustomMessage
        from .tools import content_blocks

        if isinstance(message, CustomMessage):
            return message
        if not isinstance(message, dict):
            raise ValueError("a custom message is a dict with customType and content")
        custom_type = result_field(message, "custom_type")
        if not custom_type:
            raise ValueError("a custom message needs a customType")
        content = result_field(message, "content", "")
        return CustomMessage(
            custom_type=str(custom_type),
            content=content if isinstance(content, str) else content_blocks(content),
            display=bool(result_field(message, "display", True)),
            details=result_field(message, "details"),
        )


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")
