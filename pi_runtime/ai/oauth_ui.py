"""How a login flow talks to the user: the questions it asks and the front end's side (``LoginUI``).

A flow (pi's own sign-ins in ``signin/``, or an extension's ``login``) gets :class:`LoginCallbacks`;
each front end (the app's sign-in dialog, ``pi auth login``'s terminal, a test) implements
:class:`LoginUI`. Re-exported by :mod:`pi_runtime.ai.oauth`, where extensions find them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from ..records import record
from .abort import AbortSignal

PromptKind = Literal["text", "manual_code"]


@record(frozen=True)
class OAuthPrompt:
    """A question for the user during login (``on_prompt``)."""

    message: str
    placeholder: str | None = None
    allow_empty: bool = False
    kind: PromptKind = "text"
    """``manual_code``: the code or redirect URL pasted instead of the browser's callback. The flow
    cancels the question (the awaiting task) when the callback arrives first."""


@record(frozen=True)
class OAuthSelectOption:
    id: str
    label: str


class LoginUI(Protocol):
    """What a front end supplies so a login flow can talk to the user."""

    def show_auth(self, url: str, instructions: str | None) -> None:
        """Show (and offer to open) an authorization URL."""

    def show_device_code(self, user_code: str, verification_uri: str) -> None:
        """Show a device code and where to enter it."""

    def show_progress(self, message: str) -> None:
        """Report progress (``Waiting for the browser...``)."""

    async def prompt(self, prompt: OAuthPrompt) -> str | None:
        """Ask for text; None when the user cancelled."""

    async def select(self, message: str, options: list[OAuthSelectOption]) -> str | None:
        """Ask for one of ``options`` (returns its id); None when cancelled."""


class LoginCallbacks:
    """What an OAuth ``login`` function receives (Pi's ``OAuthLoginCallbacks``, in Python).

    ``signal`` is an :class:`~pi_runtime.ai.abort.AbortSignal` that fires when the user
    cancels; pass it to your network waits (``await signal.wait()``) or check ``aborted``.
    """

    def __init__(self, ui: LoginUI, signal: AbortSignal | None = None, *,
                 device_id: Callable[[], str] | None = None, agent_name: str | None = None) -> None:
        self._ui = ui
        self.signal = signal or AbortSignal()
        self.device_id = device_id
        """Gives this installation's stable id (settings ``deviceId``); Sign in with ChatGPT sends it."""
        self.agent_name = agent_name
        """The name pi introduces itself with to a provider (None: ``pi``/``Pi``, as Pi does)."""

    def on_auth(self, url: str, instructions: str | None = None) -> None:
        """Ask the user to open ``url`` (in a browser) and follow ``instructions``."""
        self._ui.show_auth(str(url), instructions)

    def on_device_code(self, user_code: str, verification_uri: str, **_: Any) -> None:
        """Show a device code the user enters at ``verification_uri``."""
        self._ui.show_device_code(str(user_code), str(verification_uri))

    def on_progress(self, message: str) -> None:
        """Report what the flow is doing."""
        self._ui.show_progress(str(message))

    async def on_prompt(self, message: str, *, placeholder: str | None = None, allow_empty: bool = False) -> str:
        """Ask the user for text (e.g. a pasted code).

        Raises:
            OAuthLoginCancelled: The user cancelled.
        """
        answer = await self._ui.prompt(OAuthPrompt(str(message), placeholder, allow_empty))
        if answer is None or self.signal.aborted:
            from .oauth import OAuthLoginCancelled

            raise OAuthLoginCancelled("login cancelled")
        return answer

    async def on_manual_code_input(self) -> str:
        """Ask the user to paste the authorization code by hand."""
        return await self.on_prompt("Paste the authorization code")

    async def on_manual_code(self, message: str, *, placeholder: str | None = None) -> str:
        """Ask for the redirect URL or code while the browser's callback is awaited too.

        The flow cancels this (the task awaiting it) when the callback arrives first; the front end
        then takes its question down.

        Raises:
            OAuthLoginCancelled: The user cancelled.
        """
        answer = await self._ui.prompt(OAuthPrompt(str(message), placeholder, False, "manual_code"))
        if answer is None or self.signal.aborted:
            from .oauth import OAuthLoginCancelled

            raise OAuthLoginCancelled("login cancelled")
        return answer

    async def on_select(self, message: str, options: list[Any]) -> str | None:
        """Ask the user to choose; ``options`` are ``{"id", "label"}`` dicts or ``(id, label)``.

        Returns:
            The chosen id, or None when the user cancelled.
        """
        return await self._ui.select(str(message), [_option(o) for o in options])


def _option(value: Any) -> OAuthSelectOption:
    if isinstance(value, OAuthSelectOption):
        return value
    if isinstance(value, Mapping):
        return OAuthSelectOption(str(value["id"]), str(value.get("label", value["id"])))
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return OAuthSelectOption(str(value[0]), str(value[1]))
    return OAuthSelectOption(str(value), str(value))
