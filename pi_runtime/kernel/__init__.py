"""The session kernel: AgentSession and its events."""

from .session import AgentSession

__all__ = ["AgentSession"]
