"""Errors the session's commands raise, in one place for front ends to catch."""

from __future__ import annotations

from .compactor import CompactionError


class SessionBusyError(Exception):
    """The operation needs an idle session (tree navigation, a fork, a switch while a run goes on)."""


class PromptError(Exception):
    """A prompt was refused before it started (busy, compacting, no model, no credentials)."""


def no_credentials_message(provider: str, auth_errors: list[str] | None = None) -> str:
    """Pi's "No API key" text; ``auth_errors`` (auth.json unreadable) are the likelier cause, told first."""
    from ..ai.env_keys import credential_hint, suggested_env_var

    name = suggested_env_var(provider)
    hint = credential_hint(provider)  # cloud credentials (AWS, Google): more than a key
    how = hint or (f"set {name}" if name else f"add an apiKey for '{provider}' to models.json")
    unread = f" (stored keys were not read: {'; '.join(auth_errors)})" if auth_errors else ""
    what = "credentials" if hint else "API key"
    return f"No {what} for provider '{provider}'{unread}: {how}, or use /login {provider}."


__all__ = ["CompactionError", "PromptError", "SessionBusyError", "no_credentials_message"]
