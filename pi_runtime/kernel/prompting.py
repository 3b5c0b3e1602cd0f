"""Prompt, steer and follow-up: input expansion, acceptance checks and the run driver."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..ai.types import ImageContent, TextContent, UserMessage
from .budget import BudgetMeter
from .events import AgentSettledEvent

if TYPE_CHECKING:
    from .session import AgentSession

log = logging.getLogger("pi")


def no_credentials_message(provider: str) -> str:
    from ..ai.env_keys import env_var_names

    names = env_var_names(provider)
    how = f"set {names[0]}" if names else f"add an apiKey for '{provider}' to models.json"
    return f"No API key for provider '{provider}': {how}, or use /login {provider}."


class PromptError(Exception):
    """A prompt was refused before it started (busy, no model, no credentials)."""


class PromptingMixin:
    # ------------------------------------------------------------------ input

    def expand_input(self: "AgentSession", text: str) -> str:
        """Expand ``/skill:name args`` and ``/template args`` the way Pi does before sending."""
        # A ResourceLoader holds the current Resources (which change on /reload).
        resources = getattr(self.resources, "resources", self.resources)
        if resources is None or not text.startswith("/"):
            return text
        expand = getattr(resources, "expand_input", None)
        if expand is not None:
            return expand(text)
        return text

    def _user_message(self, text: str, images: list[Any] | None) -> UserMessage:
        if images:
            blocks: list[Any] = [TextContent(text=text)]
            blocks += [i if isinstance(i, ImageContent) else ImageContent.model_validate(i) for i in images]
            return UserMessage(content=blocks)
        return UserMessage(content=text)

    def check_ready(self: "AgentSession") -> None:
        """Raise PromptError when a prompt could not be sent (no model, no credentials)."""
        model = self.agent.state.model
        if model is None:
            raise PromptError("No model selected. Use --model, /model, or configure a provider.")
        registry = self.model_registry
        if registry is not None and not registry.has_credentials(model):
            raise PromptError(no_credentials_message(model.provider))

    # ------------------------------------------------------------------ public API

    async def prompt(
        self: "AgentSession",
        text: str,
        images: list[Any] | None = None,
        streaming_behavior: str | None = None,
        *,
        wait: bool = True,
    ) -> str:
        """Send a prompt. Returns the disposition: ``started``, ``queued`` or ``handled``.

        While a run is in progress a ``streaming_behavior`` (``steer`` or ``followUp``) is
        required. With ``wait`` the call returns once everything has settled; without it,
        once the prompt was accepted (RPC).

        Raises:
            PromptError: busy without a streaming behaviour, compacting, no model or key.
        """
        handled = await self._handle_input_hooks(text, images, streaming_behavior if self.is_streaming else None)
        if handled is None:
            return "handled"
        text = handled
        if self.is_streaming:
            if streaming_behavior == "steer":
                return await self.steer(text, images)
            if streaming_behavior in ("followUp", "follow_up"):
                return await self.follow_up(text, images)
            raise PromptError(
                "The agent is busy. Send it as a steer or a follow-up (streamingBehavior 'steer' or 'followUp')."
            )
        if self.is_compacting:
            raise PromptError("Cannot submit a prompt while compaction is in progress")
        self.check_ready()
        message = self._user_message(self.expand_input(text), images)
        self._start([message])
        if wait:
            await self.wait_for_idle()
        return "started"

    async def steer(self: "AgentSession", text: str, images: list[Any] | None = None) -> str:
        """Queue a message for after the current tool calls (or start a run when idle)."""
        expanded = self.expand_input(text)
        self.agent.steer(self._user_message(expanded, images))
        await self._emit_queue()
        return "queued"

    async def follow_up(self: "AgentSession", text: str, images: list[Any] | None = None) -> str:
        """Queue a message for when the agent would otherwise stop."""
        expanded = self.expand_input(text)
        self.agent.follow_up(self._user_message(expanded, images))
        await self._emit_queue()
        return "queued"

    async def _handle_input_hooks(
        self: "AgentSession", text: str, images: list[Any] | None = None, streaming_behavior: str | None = None
    ) -> str | None:
        """Extensions may transform or consume input; None means it was handled."""
        runner = getattr(self, "extension_runner", None)
        if runner is None:
            return text
        return await runner.handle_input(text, images, streaming_behavior)

    # ------------------------------------------------------------------ the driver

    def _start(self: "AgentSession", prompts: list[Any], *, continue_run: bool = False) -> None:
        sm = self.session_manager
        if not sm.raw_entries():
            # Like Pi, a session's history starts with the model and thinking level in force.
            model = self.agent.state.model
            sm.append_model_change(model.provider, model.id)
            sm.append_thinking_level_change(self.agent.state.thinking_level)
        self._settled.clear()
        self._meter = BudgetMeter(self.budget) if self.budget.active else None
        self._budget_stop = None
        self._retry_attempt = 0
        self._overflow_tried = False
        self._runner = asyncio.ensure_future(self._drive(prompts, continue_run))

    async def _drive(self: "AgentSession", prompts: list[Any], continue_run: bool) -> None:
        aborted = False
        try:
            self._refresh_system_prompt()
            runner = getattr(self, "extension_runner", None)
            if runner is not None and not continue_run:
                prompts = await runner.before_agent_start(prompts)
            if self.auto_compaction_enabled and not continue_run:
                await self._maybe_compact_threshold()
            if continue_run:
                await self.agent.continue_()
            else:
                if not any(getattr(m, "role", None) == "system" for m in self.agent.state.messages):
                    prompts = [self._leading_system_message(), *prompts]
                await self.agent.prompt(prompts)
            await self._recover_after_run()
            # Messages queued after the loop last looked (during a retry wait or a
            # compaction) would otherwise sit in the queue until the next prompt.
            while (
                (self.agent.steering_queue or self.agent.follow_up_queue)
                and not self._aborting
                and self._budget_stop is None
            ):
                await self.agent.continue_()
                await self._recover_after_run()
            if self.auto_compaction_enabled and not self._aborting:
                await self._maybe_compact_threshold()
        except asyncio.CancelledError:
            aborted = True
        except Exception as exc:  # noqa: BLE001 - a kernel bug must not wedge the host
            log.exception("run failed")
            self.agent.state.error_message = f"{type(exc).__name__}: {exc}"
        finally:
            last = self._last_assistant()
            aborted = aborted or self._aborting or (last is not None and last.stop_reason == "aborted")
            if self._budget_stop is not None:
                # The budget stop is a clean end, not a user abort.
                aborted = self._aborting
            self._flush_deferred()
            await self._emit(AgentSettledEvent(aborted=aborted))
            self._settled.set()

    def _refresh_system_prompt(self: "AgentSession") -> None:
        if self.system_prompt_builder is None:
            return
        built = self.system_prompt_builder(self)
        if hasattr(built, "render"):
            self.system_prompt_sections = built
            built = built.render()
        self.agent.state.system_prompt = built

    def _leading_system_message(self: "AgentSession") -> Any:
        """Pi 1.6 opens a session's transcript with the prompt it declared: sections and tools."""
        from ..ai.types import SystemMessage

        sections = getattr(self, "system_prompt_sections", None)
        return SystemMessage(
            content="" if sections is not None else self.agent.state.system_prompt,
            sections=sections.wrapped() if sections is not None else None,
            tools_added=[t.to_tool().to_wire() for t in self.agent.state.tools] or None,
        )

    def _last_assistant(self: "AgentSession") -> Any:
        for message in reversed(self.agent.state.messages):
            if getattr(message, "role", None) == "assistant":
                return message
        return None
