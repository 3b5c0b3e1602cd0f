"""Talking to a llama.cpp router: its model list, loads and unloads, and ``/props``.

The router (``llama serve`` started without a model) lists every model it can serve at
``GET /models`` with a ``status.value`` of ``unloaded``, ``loading``, ``loaded``, ``sleeping``
(idle, woken by the next request) or ``downloading``. ``POST /models/load`` and
``/models/unload`` take ``{"model": id}`` and return at once; the client then polls ``/models``
until the model gets where it was sent. Chat goes to ``<server>/v1`` (OpenAI-compatible).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypedDict
from urllib.parse import urlsplit, urlunsplit

REQUEST_TIMEOUT = 15.0
"""Seconds for each request to the router (Pi's limit too)."""
LOAD_POLL_SECONDS = 0.25
UNLOAD_POLL_SECONDS = 0.1


class LlamaError(Exception):
    """The router could not be reached, refused a request, or is not a llama.cpp router."""

    def __init__(self, message: str, *, connection: bool = False) -> None:
        super().__init__(message)
        self.connection = connection
        """The server could not be reached (``/llama`` then offers Retry / Close)."""


class RouterModel(TypedDict, total=False):
    """One entry of the router's ``GET /models`` (``list`` checks ``id`` and ``status.value``)."""

    id: str
    source: str
    """``cache``, ``preset``…: a preset may be loaded on demand (autoload)."""
    status: dict[str, Any]
    """``value`` (loaded, sleeping, loading, unloaded), ``args``, ``progress``, ``failed``, ``exit_code``."""
    meta: dict[str, Any]
    """``n_ctx``, ``n_ctx_train``."""
    architecture: dict[str, Any]
    """``output_modalities`` (``decisions`` for a decision model)."""


class LoadProgress(TypedDict, total=False):
    """What a load in progress shows."""

    message: str
    ratio: float


def normalize_server_url(value: str) -> str:
    """The router's base URL without a trailing ``/`` or ``/v1``, query or fragment.

    Raises:
        ValueError: Not an http(s) URL.
    """
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("Server URL must use http or https")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[:-3].rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def inference_url(server_url: str) -> str:
    """Where chat completions go: ``<server>/v1``."""
    return normalize_server_url(server_url) + "/v1"


def is_loaded(model: RouterModel) -> bool:
    """Loaded or sleeping (a sleeping model wakes on the next request)."""
    return state_of(model) in ("loaded", "sleeping")


def state_of(model: RouterModel) -> str:
    """The model's ``status.value``."""
    return str((model.get("status") or {}).get("value", ""))


def load_progress(model: RouterModel) -> LoadProgress:
    """What a loading model's ``status.progress`` says: its stage and how far along it is."""
    progress = (model.get("status") or {}).get("progress")
    if not isinstance(progress, dict):
        return {"message": "Loading model"}
    stage = progress.get("current") or progress.get("stage")
    stages = [s for s in progress.get("stages") or [] if isinstance(s, str)]
    value = progress.get("value")
    ratio = max(0.0, min(1.0, float(value))) if isinstance(value, (int, float)) else None
    out: LoadProgress = {"message": f"Loading {stage.replace('_', ' ')}" if isinstance(stage, str) else "Loading model"}
    if isinstance(stage, str) and stage in stages:
        ratio = (stages.index(stage) + (ratio or 0.0)) / len(stages)
    if ratio is not None:
        out["ratio"] = ratio
    return out


class LlamaClient:
    """One router, reached with an optional API key.

    Args:
        server_url: The router's URL (``http://127.0.0.1:9931``; a trailing ``/v1`` is dropped).
        api_key: Sent as ``Authorization: Bearer`` when given.
    """

    def __init__(self, server_url: str, api_key: str | None = None) -> None:
        self.server_url = normalize_server_url(server_url)
        self.api_key = api_key or None

    async def _request(self, method: str, path: str, body: Any = None) -> Any:
        from ..http import Aborted, HTTPError, request

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            response = await request(method, self.server_url + path, headers=headers, json=body,
                                     timeout=REQUEST_TIMEOUT)
        except (HTTPError, OSError) as exc:
            raise LlamaError(f"Could not reach llama.cpp server at {self.server_url}: {exc}", connection=True) from exc
        except Aborted:
            raise
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if response.status_code >= 400:
            error = payload.get("error") if isinstance(payload, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            raise LlamaError(message if isinstance(message, str) and message
                             else f"llama.cpp returned HTTP {response.status_code}")
        return payload

    async def list(self) -> list[RouterModel]:
        """Every model the router knows, with its state.

        Raises:
            LlamaError: Unreachable, an error status, or not a router's answer.
        """
        payload = await self._request("GET", "/models")
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise LlamaError("llama.cpp returned an invalid model catalog")
        for entry in data:
            status = entry.get("status") if isinstance(entry, dict) else None
            if not (isinstance(entry, dict) and isinstance(entry.get("id"), str)
                    and isinstance(status, dict) and isinstance(status.get("value"), str)):
                raise LlamaError("Server is not running in llama.cpp router mode")
        return data

    async def props(self, model: str | None = None) -> dict[str, Any]:
        """``/props``: the router's (``models_autoload``) or, with ``model``, that model's (``chat_template``)."""
        from urllib.parse import urlencode

        query = "?" + urlencode({"model": model, "autoload": "false"}) if model else ""
        payload = await self._request("GET", "/props" + query)
        return payload if isinstance(payload, dict) else {}

    async def load(self, model: str) -> None:
        """Ask the router to start loading ``model`` (returns before it is loaded)."""
        await self._request("POST", "/models/load", {"model": model})

    async def unload(self, model: str) -> None:
        """Ask the router to unload ``model``."""
        await self._request("POST", "/models/unload", {"model": model})

    async def load_and_wait(self, model: str, on_progress: Callable[[LoadProgress], object]) -> RouterModel:
        """Load ``model`` and poll until it is loaded; cancel the task to stop waiting.

        Raises:
            LlamaError: The load failed (the router reports ``failed`` or the model vanished).
        """
        await self.load(model)
        on_progress({"message": "Loading model"})
        while True:
            entry = next((m for m in await self.list() if m["id"] == model), None)
            if entry is None:
                raise LlamaError(f"{model} is no longer listed by the router")
            status = entry.get("status") or {}
            if status.get("value") == "loaded":
                return entry
            if status.get("failed"):
                code = status.get("exit_code")
                raise LlamaError("Model failed to load" if code is None else f"Model exited with code {code}")
            on_progress(load_progress(entry))
            await asyncio.sleep(LOAD_POLL_SECONDS)

    async def unload_and_wait(self, model: str) -> None:
        """Unload ``model`` and poll until the router says it is unloaded."""
        await self.unload(model)
        while True:
            entry = next((m for m in await self.list() if m["id"] == model), None)
            if entry is None or state_of(entry) == "unloaded":
                return
            await asyncio.sleep(UNLOAD_POLL_SECONDS)
