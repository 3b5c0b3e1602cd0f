"""``KernelHooks``: the questions only the kernel can ask, answered by extension handlers.

The kernel calls these through its ``ExtensionGate`` (``pi_runtime.kernel.extension_port``):

- ``input``, with extension commands first (``handle_input``), and whether the text may expand
  ``/skill:`` and ``/template`` (``expand_templates``);
- ``before_agent_start`` for a run about to start;
- the ``session_before_*`` gates (``emit_cancellable``) and notifications (``emit_named``);
- ``user_bash`` for the user's own ``!``/``!!`` commands.

Failure rules (as Pi): in ``input`` and ``before_agent_start`` a failure is reported and the
value so far is kept; in a ``session_before_*`` gate it is reported and does not cancel; in
``user_bash`` it blocks the command rather than running it locally.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .commands import Commands
from .dispatch import Dispatcher
from .events import BeforeAgentStartEvent, InputEvent, UserBashEvent, make_event, result_field
from .prompt_options import system_prompt_options
from .registry import ExtensionRegistry
from .reporter import ErrorReporter
from .toolset import ToolSet

if TYPE_CHECKING:
    from ..kernel.extension_port import GateDecision, SessionActions
    from .sending import ExtensionMessages

INPUT_SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar("pi_input_source", default="interactive")
"""Where the text reaching ``input`` came from: ``interactive``, ``rpc`` or ``extension``."""
EXPAND_TEMPLATES: contextvars.ContextVar[bool] = contextvars.ContextVar("pi_expand_templates", default=True)
"""False while ``pi.send_user_message`` routes text that must reach the model as written."""


class KernelHooks:
    """Answers the kernel's extension questions for one runner.

    Args:
        registry: Who handles which event.
        dispatcher: Calls handlers safely.
        reporter: Where shape errors go.
        commands: Extension commands (run before ``input``).
        tools: The active tools (``before_agent_start`` may change them).
        messages: Messages queued with ``deliver_as="nextTurn"``.
        ensure_started: Starts the runner before the first event.
        session: The session (its system prompt and sections are read).
        actions: The session's actions port (the run's system prompt is set through it).
        on_switch: Called before ``session_shutdown`` when a switch or fork goes ahead.
    """

    def __init__(
        self,
        *,
        registry: ExtensionRegistry,
        dispatcher: Dispatcher,
        reporter: ErrorReporter,
        commands: Commands,
        tools: ToolSet,
        messages: ExtensionMessages,
        ensure_started: Callable[[], Awaitable[None]],
        session: Callable[[], Any],
        actions: Callable[[], SessionActions],
        on_switch: Callable[[], None],
    ) -> None:
        self._registry = registry
        self._dispatcher = dispatcher
        self._reporter = reporter
        self._commands = commands
        self._tools = tools
        self._messages = messages
        self._ensure_started = ensure_started
        self._session = session
        self._actions = actions
        self._on_switch = on_switch

    # ------------------------------------------------------------------ input

    async def handle_input(self, text: str, images: list[Any] | None = None,
                           streaming_behavior: str | None = None) -> str | None:
        """Extension commands first, then ``input`` handlers.

        Returns:
            None when a command or handler consumed the input, else the (transformed) text.
        """
        await self._ensure_started()
        source = INPUT_SOURCE.get()
        # Text from pi.send_user_message runs commands only when it asked to expand templates.
        if text.startswith("/") and (source != "extension" or EXPAND_TEMPLATES.get()):
            name, _, args = text[1:].partition(" ")
            if name and await self._commands.run(name, args.strip()):
                return None
        if not self._registry.has_handlers("input"):
            return text
        event = InputEvent(text=text, images=images, source=source, streaming_behavior=streaming_behavior)
        for ext, handler in self._registry.handlers("input"):
            outcome = await self._dispatcher.call(ext, handler, (event,), event="input")
            if outcome.aborted:
                return None
            if outcome.failed:
                continue
            problem = input_result_problem(outcome.value)
            if problem is not None:
                # Kept going with the text so far, as for a handler that raised (documented).
                await self._reporter.report(ext.path, "input", f"ResultShapeError: {problem}")
                continue
            action = result_field(outcome.value, "action", "continue")
            if action == "handled":
                return None
            if action == "transform":
                event.text = result_field(outcome.value, "text")
        return event.text

    def expand_templates(self) -> bool:
        """Whether the input being routed may expand skills and templates (see :data:`EXPAND_TEMPLATES`)."""
        return INPUT_SOURCE.get() != "extension" or EXPAND_TEMPLATES.get()

    # ------------------------------------------------------------------ before_agent_start

    async def before_agent_start(self, prompts: list[Any]) -> list[Any]:
        """Run ``before_agent_start`` for a run about to start; returns the messages to send.

        Handlers may edit ``event.sections`` (the system prompt's named sections) and
        ``event.selected_tools`` in place, return ``{"systemPrompt": str}`` to replace the
        prompt for this run, or ``{"message": {...}}`` to add a custom message.
        """
        from .sending import custom_message

        self._dispatcher.settled()  # a new run: whatever was aborted before is over
        prompts = list(prompts) + self._messages.take_next_turn()
        if not self._registry.has_handlers("before_agent_start"):
            return prompts
        session = self._session()
        actions = self._actions()
        first = prompts[0] if prompts else None
        is_user = getattr(first, "role", None) == "user"
        sections = getattr(session, "system_prompt_sections", None)
        before_sections = dict(sections.sections) if sections is not None else {}
        active = self._tools.active_names()
        content = getattr(first, "content", None)
        event = BeforeAgentStartEvent(
            message_type="user" if is_user else "custom",
            prompt=_text(first) if is_user else None, message=None if is_user else first,
            images=[b for b in content if getattr(b, "type", "") == "image"] if is_user and isinstance(content, list) else None,
            system_prompt=session.system_prompt, sections=sections, selected_tools=list(active),
        )
        event.system_prompt_options = system_prompt_options(session, str(getattr(session, "cwd", "")), sections, event.selected_tools)
        forced: str | None = None
        for ext, handler in self._registry.handlers("before_agent_start"):
            outcome = await self._dispatcher.call(ext, handler, (event,), event="before_agent_start")
            if outcome.aborted:
                break
            if outcome.failed:
                continue
            message = result_field(outcome.value, "message")
            if message is not None:
                try:
                    prompts.append(custom_message(message))
                except ValueError as exc:
                    await self._reporter.report(ext.path, "before_agent_start", f"ResultShapeError: {exc}")
            replacement = result_field(outcome.value, "system_prompt")
            if replacement is not None:
                forced = str(replacement)
            # Later handlers (and ctx.get_system_prompt()) see the prompt as chained so far.
            if forced is not None:
                event.system_prompt = forced
            elif sections is not None:
                event.system_prompt = sections.render()
            if forced is not None or sections is not None:
                actions.set_system_prompt(event.system_prompt)
        if event.selected_tools != active:
            self._tools.set_active(list(event.selected_tools))  # rebuilds the sections from scratch
        if sections is not None and dict(sections.sections) != before_sections:
            edits: dict[str, str | None] = {name: None for name in before_sections if name not in sections.sections}
            edits.update((name, text) for name, text in sections.sections.items() if before_sections.get(name) != text)
            keep = getattr(session, "keep_section_edits", None)
            if keep is not None:  # through this run's later rebuilds (a tool loaded mid-run)
                keep(edits)
            fresh = getattr(session, "system_prompt_sections", sections)
            if fresh is not sections:  # re-apply the handlers' section edits to the rebuilt prompt
                for name in before_sections:
                    if name not in sections.sections:
                        fresh.remove(name)
                for name, text in sections.sections.items():
                    if before_sections.get(name) != text:
                        fresh.set(name, text)
            actions.set_system_prompt(fresh.render())
        if forced is not None:
            actions.set_system_prompt(forced)
        return prompts

    # ------------------------------------------------------------------ gates and notifications

    async def emit_cancellable(self, name: str, **fields: Any) -> bool:
        """Run a ``session_before_*`` gate. Returns True when a handler cancelled.

        When a switch or fork goes ahead, ``session_shutdown`` follows at once.
        """
        return (await self.emit_gate(name, **fields)).cancelled

    async def emit_gate(self, name: str, supplies: str | None = None, **fields: Any) -> GateDecision:
        """Run a ``session_before_*`` gate whose handlers may cancel or supply ``supplies``
        (``compaction`` for ``session_before_compact``, ``summary`` for ``session_before_tree``).

        A cancel stops the remaining handlers; of the supplied results the last one counts.
        """
        from ..kernel.extension_port import GateDecision

        await self._ensure_started()
        event = make_event(name, **fields)
        supplied = None
        for ext, handler in self._registry.handlers(name):
            # A handler that writes the summary itself may take as long as a model call does;
            # it gets the operation's signal, and Esc cancels the operation, not a timer.
            outcome = await self._dispatcher.call(ext, handler, (event,), event=name, abortable=False,
                                                  timeout=None if supplies else True)
            if outcome.failed:
                continue
            if result_field(outcome.value, "cancel", False):
                return GateDecision(cancelled=True)
            if supplies is not None and result_field(outcome.value, supplies) is not None:
                supplied = result_field(outcome.value, supplies)
        if name in ("session_before_switch", "session_before_fork"):
            self._on_switch()
            reason = fields.get("reason") or "fork"
            await self._dispatcher.emit("session_shutdown", make_event(
                "session_shutdown", reason=reason, target_session_file=fields.get("target_session_file")),
                abortable=False)
        return GateDecision(supplied=supplied)

    async def emit_named(self, name: str, **fields: Any) -> None:
        """Notify ``name`` (e.g. ``session_tree``, ``session_compact``) with ``fields``."""
        await self._ensure_started()
        await self._dispatcher.emit(name, make_event(name, **fields), abortable=False)

    # ------------------------------------------------------------------ user_bash

    async def user_bash(self, command: str, exclude_from_context: bool, cwd: str) -> Any:
        """``user_bash``: None runs the command here; else a ``UserBashDecision``."""
        from ..kernel.extension_port import UserBashDecision

        if not self._registry.has_handlers("user_bash"):
            return None
        await self._ensure_started()
        event = UserBashEvent(command=command, exclude_from_context=exclude_from_context, cwd=cwd)
        for ext, handler in self._registry.handlers("user_bash"):
            outcome = await self._dispatcher.call(ext, handler, (event,), event="user_bash")
            if outcome.failed:
                return UserBashDecision(blocked=f"Blocked: extension {ext.path} failed in user_bash")
            value = outcome.value
            if value is None:
                continue
            operations = result_field(value, "operations")
            result = result_field(value, "result")
            if operations is not None and callable(getattr(operations, "exec", None)):
                return UserBashDecision(operations=operations)
            if isinstance(result, dict):
                return UserBashDecision(result=result)
            await self._reporter.report(ext.path, "user_bash",
                                        "ResultShapeError: a user_bash handler must return None, "
                                        "{'operations': obj with exec()} or {'result': {...}}")
            return UserBashDecision(blocked=f"Blocked: extension {ext.path} returned an invalid user_bash result")
        return None


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


INPUT_ACTIONS = ("continue", "transform", "handled")


def input_result_problem(value: Any) -> str | None:
    """What is wrong with an ``input`` handler's result, or None when pi can use it.

    Usable: None, or a dict (or object) whose ``action`` is ``continue`` (also when left out),
    ``handled``, or ``transform`` with a string ``text``.
    """
    if value is None:
        return None
    if not isinstance(value, dict) and not hasattr(value, "action"):
        return f"an input handler returned {type(value).__name__} {value!r:.60}; expected None or {{'action': ...}}"
    action = result_field(value, "action", "continue")
    if action not in INPUT_ACTIONS:
        return f"an input handler returned action {action!r}; expected one of {', '.join(INPUT_ACTIONS)}"
    if action == "transform" and not isinstance(result_field(value, "text"), str):
        return "an input handler returned action 'transform' without a string 'text'"
    return None
