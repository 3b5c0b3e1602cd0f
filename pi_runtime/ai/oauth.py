"""OAuth logins: an extension's (``register_provider(..., oauth=...)``) and pi's own (``signin/``);
stored tokens and their refresh.

An extension passes ``oauth=`` to ``pi.register_provider`` (see :func:`oauth_config` for the
accepted shapes). The provider then appears in ``/login``; :func:`run_login` runs its flow with
:class:`LoginCallbacks` wired to the front end's dialogs (a :class:`LoginUI`; both in
``oauth_ui.py``, re-exported here) and stores the result in auth.json as ``{"type": "oauth",
"access": ..., "refresh": ..., "expires": ...}`` (``expires`` in Unix milliseconds, like Pi; any
other keys the flow returns are kept).

At request time :func:`fresh_credentials` refreshes a credential that expires within
:data:`MIN_VALIDITY_MS` (Pi's five minutes) through the provider's ``refresh_token``: under
auth.json's file lock, re-checked after the lock is taken (another process may have
refreshed already), saved atomically before the lock is released. Once a refresh has
started it is shielded from cancellation, because the server may already have rotated the
refresh token; it is bounded by :data:`REFRESH_TIMEOUT` instead. ``refresh_token(credentials,
signal)`` gets an abort signal (Pi's contract) that fires when the request is aborted (the
session's abort or shutdown) or the time is up; the request then stops waiting at once. A
failed refresh raises :class:`OAuthRefreshError`, whose message tells the user to ``/login``
again.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..records import record
from . import redaction
from .abort import AbortController, AbortError, AbortSignal, done_before_abort
from .credentials import CredentialError
from .oauth_ui import LoginCallbacks, LoginUI, OAuthPrompt, OAuthSelectOption, PromptKind

MIN_VALIDITY_MS = 5 * 60 * 1000
"""A stored token with less than this left (ms) is refreshed before use (Pi's default)."""
REFRESH_TIMEOUT = 15.0
"""Seconds a provider's ``refresh_token`` may take (Pi's bound as well)."""


class OAuthError(CredentialError):
    """An OAuth login or credential is unusable (the message never holds a token)."""


class OAuthLoginCancelled(OAuthError):
    """The user cancelled a login (Esc in a dialog, or the abort signal fired)."""


class OAuthRefreshError(OAuthError):
    """Refreshing a stored token failed; the user has to log in again."""


@record
class OAuthConfig:
    """An extension provider's OAuth support.

    Attributes:
        name: Display name in ``/login``.
        login: ``async login(callbacks: LoginCallbacks) -> dict`` returning the credentials
            (``access``, ``refresh``, ``expires`` in Unix ms, plus anything else to keep).
        refresh_token: ``async refresh_token(credentials: dict, signal: AbortSignal) -> dict``
            returning new ones (a function taking only ``credentials`` is called without it).
        get_api_key: ``get_api_key(credentials: dict) -> str``, the key requests carry.
        modify_models: Optional ``modify_models(models, credentials) -> models``, applied
            to the provider's models while credentials are stored (again after each login
            and each token refresh).
    """

    name: str
    login: Callable[[LoginCallbacks], Any]
    refresh_token: Callable[..., Any]
    get_api_key: Callable[[dict[str, Any]], Any]
    modify_models: Callable[[list[Any], dict[str, Any]], Any] | None = None


_ALIASES = {"refresh_token": "refreshToken", "get_api_key": "getApiKey", "modify_models": "modifyModels"}


def oauth_config(value: Any, provider: str) -> OAuthConfig:
    """An :class:`OAuthConfig` from one, a dict, or any object with the same attributes.

    Pi's camelCase names (``refreshToken``, ``getApiKey``, ``modifyModels``) are accepted too.

    Raises:
        ValueError: A required member is missing or not callable.
    """
    if isinstance(value, OAuthConfig):
        return value

    def member(name: str) -> Any:
        for key in (name, _ALIASES.get(name, name)):
            found = value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)
            if found is not None:
                return found
        return None

    where = f"register_provider({provider!r}).oauth"
    name = member("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: needs a 'name' (the display name in /login)")
    funcs = {key: member(key) for key in ("login", "refresh_token", "get_api_key", "modify_models")}
    for key in ("login", "refresh_token", "get_api_key"):
        if not callable(funcs[key]):
            raise ValueError(f"{where}: '{key}' must be a function")
    if funcs["modify_models"] is not None and not callable(funcs["modify_models"]):
        raise ValueError(f"{where}: 'modify_models' must be a function")
    return OAuthConfig(name, funcs["login"], funcs["refresh_token"], funcs["get_api_key"], funcs["modify_models"])


def now_ms() -> int:
    return int(time.time() * 1000)


def needs_refresh(credentials: Mapping[str, Any], at_ms: int | None = None) -> bool:
    """Whether a stored credential expires within :data:`MIN_VALIDITY_MS` (or has no expiry)."""
    expires = credentials.get("expires")
    if isinstance(expires, bool) or not isinstance(expires, (int, float)):
        return True
    return (now_ms() if at_ms is None else at_ms) + MIN_VALIDITY_MS >= expires


def checked_credentials(value: Any, what: str, *, require_refresh: bool = True) -> dict[str, Any]:
    """``value`` as an auth.json oauth entry, or OAuthError naming what is wrong with it.

    ``require_refresh=False`` accepts an empty ``refresh`` (OpenRouter's sign-in gives a lasting key
    and no refresh token).
    """
    if not isinstance(value, Mapping):
        raise OAuthError(f"{what} returned {type(value).__name__}, not a credentials dict")
    out = dict(value)
    for key in ("access", "refresh"):
        empty_ok = key == "refresh" and not require_refresh and out.get(key) == ""
        if not empty_ok and (not isinstance(out.get(key), str) or not out[key]):
            raise OAuthError(f"{what} returned credentials without a string '{key}'")
    expires = out.get("expires")
    if isinstance(expires, bool) or not isinstance(expires, (int, float)):
        raise OAuthError(f"{what} returned credentials without a numeric 'expires' (Unix ms)")
    redaction.remember(out["access"], out["refresh"])
    # "type" first, as Pi's flows write it, so an entry reads the same from either program.
    return {"type": "oauth", **{k: v for k, v in out.items() if k != "type"}}


async def _result(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _problem(exc: BaseException, secrets: list[str | None]) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer within {REFRESH_TIMEOUT:g}s"
    text = redaction.redact(str(exc), secrets)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def run_login(storage: Any, provider: str, oauth: OAuthConfig, ui: LoginUI,
                signal: AbortSignal | None = None, *, device_id: Callable[[], str] | None = None) -> dict[str, Any]:
    """Run ``oauth.login`` and store what it returns in ``storage`` (an ``AuthStorage``).

    ``device_id`` gives this installation's id to flows that send one (Sign in with ChatGPT).

    Returns:
        The stored entry.

    Raises:
        OAuthLoginCancelled: The user cancelled (or ``signal`` fired).
        OAuthError: The flow failed or returned unusable credentials.
        AuthFileError: auth.json could not be written.
    """
    callbacks = LoginCallbacks(ui, signal, device_id=device_id)
    flow = asyncio.ensure_future(_result(oauth.login(callbacks)))

    def cancel() -> None:
        flow.cancel()

    remove = callbacks.signal.add_listener(cancel)
    try:
        value = await flow
    except asyncio.CancelledError:
        if callbacks.signal.aborted:
            raise OAuthLoginCancelled("login cancelled") from None
        raise
    except OAuthError:
        raise
    except Exception as exc:  # noqa: BLE001 - the extension's flow failed; say how
        raise OAuthError(f"login to {oauth.name} failed: {_problem(exc, [])}") from None
    finally:
        remove()
    entry = checked_credentials(value, f"{oauth.name} login", require_refresh=not _builtin(oauth))
    await asyncio.to_thread(storage.set, provider, entry)
    return entry


_locks: dict[tuple[int, str, str], asyncio.Lock] = {}
_running: set[asyncio.Future[Any]] = set()
"""Refreshes whose requester stopped waiting (aborted): kept so they run to their end."""


def _finished(task: asyncio.Future[Any]) -> None:
    _running.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: a refresh nobody waits for any more fails quietly


def _builtin(oauth: Any) -> bool:
    """Whether ``oauth`` is one of pi's own sign-ins (``signin``), not an extension's."""
    return getattr(oauth, "builtin", False) is True


def _takes_signal(fn: Callable[..., Any]) -> bool:
    """Whether ``refresh_token`` accepts Pi's second argument, the abort signal (extensions
    written before it take the credentials only, and keep working)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return len([p for p in params if p.kind in positional]) >= 2


async def fresh_credentials(storage: Any, provider: str, oauth: OAuthConfig,
                            signal: AbortSignal | None = None, *,
                            needs: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any] | None:
    """The stored oauth credential of ``provider``, refreshed first when it (nearly) expired.

    ``needs`` replaces the expiry test (asked before and again under the lock): a credential a
    server refused is renewed although it is not yet due.

    ``refresh_token(credentials, signal)`` gets an abort signal, as Pi's does: it fires when
    ``signal`` (the request's) fires or after :data:`REFRESH_TIMEOUT`. When ``signal`` fires
    this returns at once with :class:`AbortError`; the refresh itself is left to finish or
    honour its signal (its result is still saved if it succeeds), so a rotated refresh token
    is not lost to a cancelled wait.

    Returns:
        The credential, or None when none of type oauth is stored.

    Raises:
        OAuthRefreshError: The provider's ``refresh_token`` failed or returned garbage.
        AbortError: ``signal`` fired first.
    """
    due = needs or needs_refresh
    cred = storage.get(provider)
    if cred is None or cred.type != "oauth":
        return None
    if not due(cred.data):
        return dict(cred.data)
    if signal is not None:
        signal.throw_if_aborted()
    key = (id(asyncio.get_running_loop()), str(storage.path), provider)
    lock = _locks.setdefault(key, asyncio.Lock())
    controller = AbortController()
    """What ``refresh_token`` is given: fired by the request's signal or the time limit."""

    async def refresh(current: dict[str, Any]) -> dict[str, Any]:
        if controller.signal.aborted:
            raise AbortError("aborted before the OAuth token refresh started")
        secrets = [current.get("access"), current.get("refresh")]
        timer = asyncio.get_running_loop().call_later(REFRESH_TIMEOUT, controller.abort, "timeout")
        try:
            fn = oauth.refresh_token
            call = fn(dict(current), controller.signal) if _takes_signal(fn) else fn(dict(current))
            value = await asyncio.wait_for(_result(call), REFRESH_TIMEOUT)
            return checked_credentials(value, f"{oauth.name} refresh_token", require_refresh=not _builtin(oauth))
        except Exception as exc:  # noqa: BLE001 - any failure means: log in again
            if signal is not None and signal.aborted:
                raise AbortError("aborted during the OAuth token refresh") from None
            raise OAuthRefreshError(
                f"Refreshing the OAuth token for {oauth.name} ({provider}) failed "
                f"({_problem(exc, secrets)}). Run /login {provider} to log in again "
                f"(outside pi: pi auth login {provider})."
            ) from None
        finally:
            timer.cancel()

    async def locked() -> dict[str, Any] | None:
        async with lock:  # one refresh per provider in this process; the file lock covers others
            return await storage.refresh_oauth(provider, due, refresh)

    unlink = signal.add_listener(lambda: controller.abort(signal.reason)) if signal is not None else None
    task = asyncio.ensure_future(locked())
    _running.add(task)
    task.add_done_callback(_finished)
    try:
        if signal is None:
            # Shielded: cancelling the request must not cancel a refresh the server may have done.
            return await asyncio.shield(task)
        # The refresh is left running on abort: the server may already have rotated the token.
        if await done_before_abort(task, signal):
            return task.result()
        raise AbortError("aborted during the OAuth token refresh")
    finally:
        if unlink is not None:
            unlink()


def api_key(oauth: OAuthConfig, provider: str, credentials: Mapping[str, Any]) -> str:
    """The request key ``oauth.get_api_key`` derives from stored credentials."""
    try:
        key = oauth.get_api_key(dict(credentials))
    except Exception as exc:  # noqa: BLE001
        secrets = [credentials.get("access"), credentials.get("refresh")]
        raise OAuthError(f"{oauth.name} ({provider}): get_api_key failed: {_problem(exc, secrets)}") from None
    if not isinstance(key, str) or not key:
        raise OAuthError(f"{oauth.name} ({provider}): get_api_key returned no key; run /login {provider}")
    redaction.remember(key)
    return key


def request_credentials(oauth: Any, provider: str, credentials: Mapping[str, Any]) -> Any:
    """What a request carries for a stored credential (``signin.RequestCredentials``): pi's own sign-ins
    say it themselves (the key, and GitHub Copilot's endpoint); an extension's ``get_api_key`` gives the key.

    Raises:
        OAuthError: No key can be derived (the message says to log in again).
    """
    from .signin import RequestCredentials

    if not _builtin(oauth):
        return RequestCredentials(api_key=api_key(oauth, provider, credentials))
    auth = oauth.to_auth(dict(credentials))
    if not auth.api_key and not auth.headers:
        raise OAuthError(f"{oauth.name} ({provider}): the stored sign-in holds no token; run /login {provider}")
    redaction.remember(auth.api_key, *auth.headers.values())
    return auth


def modified_models(oauth: OAuthConfig, models: list[Any], credentials: Mapping[str, Any]) -> list[Any]:
    """``oauth.modify_models(models, credentials)``, or ``models`` when it has none."""
    if oauth.modify_models is None:
        return models
    return list(oauth.modify_models(list(models), dict(credentials)))


__all__ = [
    "MIN_VALIDITY_MS",
    "REFRESH_TIMEOUT",
    "AbortError",
    "LoginCallbacks",
    "LoginUI",
    "OAuthConfig",
    "OAuthError",
    "OAuthLoginCancelled",
    "OAuthPrompt",
    "OAuthRefreshError",
    "OAuthSelectOption",
    "PromptKind",
    "api_key",
    "checked_credentials",
    "fresh_credentials",
    "modified_models",
    "needs_refresh",
    "oauth_config",
    "request_credentials",
    "run_login",
]
