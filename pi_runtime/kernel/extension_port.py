"""The two narrow seams between the kernel and the extension runner.

``ExtensionGate`` is what the kernel asks of extensions (input hooks, ``before_agent_start``,
the ``session_before_*`` vetoes, notifications); with no runner attached every question has
the neutral answer. ``SessionActions`` is what the runner may do to the session (start a run,
queue or store a message, emit an event, rebuild the system prompt) instead of reaching into
the session's fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .events import KernelEvent


class ExtensionHooks(Protocol):
    """The part of ``ExtensionRunner`` the kernel calls."""

    async def handle_input(self, text: str, images: list[Any] | None, streaming_behavior: str | None) -> str | None: ...
    async def before_agent_start(self, prompts: list[Any]) -> list[Any]: ...
    async def emit_cancellable(self, name: str, **fields: Any) -> bool: ...
    async def emit_named(self, name: str, **fields: Any) -> None: ...
    async def shutdown(self, reason: str) -> None: ...


class ExtensionGate:
    """Forwards the kernel's questions to the attached runner, if any."""

    def __init__(self) -> None:
        self.runner: ExtensionHooks | None = None

    async def handle_input(self, text: str, images: list[Any] | None, streaming_behavior: str | None) -> str | None:
        """The text to send (possibly transformed), or None when an extension handled it."""
        if self.runner is None:
            return text
        return await self.runner.handle_input(text, images, streaming_behavior)

    async def before_agent_start(self, prompts: list[Any]) -> list[Any]:
        if self.runner is None:
            return prompts
        return await self.runner.before_agent_start(prompts)

    async def cancels(self, name: str, **fields: Any) -> bool:
        """Whether an extension vetoes a ``session_before_*`` operation."""
        return self.runner is not None and await self.runner.emit_cancellable(name, **fields)

    async def notify(self, name: str, **fields: Any) -> None:
        if self.runner is not None:
            await self.runner.emit_named(name, **fields)

    async def shutdown(self, reason: str) -> None:
        if self.runner is not None:
            await self.runner.shutdown(reason)


class SessionActions(Protocol):
    """What an extension runner may do to its session."""

    @property
    def is_streaming(self) -> bool: ...
    def check_ready(self) -> None: ...
    def start_run(self, messages: list[Any]) -> None: ...
    def steer_message(self, message: Any) -> None: ...
    def follow_up_message(self, message: Any) -> None: ...
    def defer_message(self, message: Any) -> None: ...
    def store_message(self, message: Any) -> None: ...
    async def emit(self, event: KernelEvent) -> None: ...
    def emit_soon(self, event: KernelEvent) -> None: ...
    def refresh_system_prompt(self) -> None: ...
