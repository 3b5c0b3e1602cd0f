"""A stand-in for the llama.cpp router server (``llama serve`` without a model), on 127.0.0.1.

It keeps a list of models in the router's states and answers what Pi's llama.cpp extension (and
pi's) asks: ``GET /models`` (``{"data": [{"id", "status": {"value", ...}, "source", "meta"}]}``),
``POST /models/load`` and ``/models/unload`` (``{"model": id}``), ``GET /props`` (``models_autoload``;
with ``?model=`` the model's ``chat_template``), ``GET /health``, and OpenAI-compatible streaming
``POST /v1/chat/completions`` for a loaded (or sleeping, or autoloadable) model. ``GET /models/sse``
is held open without events: clients fall back to polling ``/models``, which shows a loading
model's ``status.progress``.

A load takes ``load_polls`` reads of ``/models`` (each shows the next stage), or waits for the
``hold`` event when a test sets one, so a test can look at a load in progress without sleeping.

Run it alone to point the real Pi or pi at it::

    python -m pi_runtime.testing.llama_router --port 9931
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from ..records import record
from .loopback import LoopbackServer, RecordedRequest, Reply

RouterState = Literal["unloaded", "loading", "loaded", "sleeping", "downloading"]
LOAD_STAGES = ["weights", "kv_cache", "warmup"]
"""The stages a load goes through (reported in ``status.progress``)."""


@record
class RouterModel:
    """One model the router knows."""

    id: str
    state: RouterState = "unloaded"
    source: str = "cache"
    """``cache``, ``local`` or ``preset`` (only unloaded presets are autoloaded on first use)."""
    n_ctx: int | None = None
    """Runtime context window of a loaded model (``meta.n_ctx``)."""
    n_ctx_train: int | None = 32768
    failed: bool = False
    """The last load failed (``status.failed`` with ``exit_code`` 1)."""
    chat_template: str = "{{ messages }}"
    polls_left: int = 0

    def wire(self) -> dict[str, Any]:
        """The model as ``GET /models`` lists it."""
        status: dict[str, Any] = {"value": self.state, "args": ["llama-server", "--ctx-size", "8192"]}
        if self.failed:
            status.update(failed=True, exit_code=1)
        if self.state == "loading":
            done = max(0, len(LOAD_STAGES) - 1 - self.polls_left)
            status["progress"] = {"current": LOAD_STAGES[min(done, len(LOAD_STAGES) - 1)],
                                  "stages": LOAD_STAGES, "value": 0.5}
        meta: dict[str, Any] = {}
        if self.n_ctx_train:
            meta["n_ctx_train"] = self.n_ctx_train
        if self.state in ("loaded", "sleeping") and self.n_ctx:
            meta["n_ctx"] = self.n_ctx
        entry: dict[str, Any] = {"id": self.id, "object": "model", "owned_by": "llamacpp", "source": self.source,
                                 "status": status}
        if meta:
            entry["meta"] = meta
        return entry


class LlamaRouterStandIn:
    """The router: a :class:`LoopbackServer` whose replies come from the models' state.

    Args:
        models: The models and their states.
        api_key: When set, every request must carry ``Authorization: Bearer <api_key>``.
        autoload: What ``/props`` says of ``models_autoload``.
        load_polls: Reads of ``/models`` a load takes before the model is loaded.
        reply_text: What a chat completion answers.
        fail_loads: Model ids whose load fails (back to unloaded with ``failed``).
    """

    def __init__(self, models: list[RouterModel], *, api_key: str | None = None, autoload: bool = False,
                 load_polls: int = 2, reply_text: str = "Hello from llama.cpp",
                 fail_loads: tuple[str, ...] = ()) -> None:
        self.models = {m.id: m for m in models}
        self.api_key = api_key
        self.autoload = autoload
        self.load_polls = load_polls
        self.reply_text = reply_text
        self.fail_loads = set(fail_loads)
        self.hold: threading.Event | None = None
        """While set to an unset event, a load stays in ``loading``."""
        self.loads: list[str] = []
        self.unloads: list[str] = []
        self._lock = threading.Lock()
        self.server = LoopbackServer(self._respond)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return self.server.url

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in order."""
        return self.server.requests

    def start(self) -> LlamaRouterStandIn:
        """Start serving (in a daemon thread)."""
        self.server.start()
        return self

    def stop(self) -> None:
        """Stop serving and cut open connections."""
        self.server.stop()

    def __enter__(self) -> LlamaRouterStandIn:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def state_of(self, model_id: str) -> str:
        """A model's state now."""
        with self._lock:
            return self.models[model_id].state

    # ------------------------------------------------------------------ replies

    def _respond(self, request: RecordedRequest) -> Reply:
        if self.api_key and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return Reply.json(401, {"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}})
        parts = urlsplit(request.path)
        route = (request.method, parts.path.rstrip("/") or "/")
        with self._lock:
            if route == ("GET", "/health"):
                return Reply.json(200, {"status": "ok"})
            if route == ("GET", "/models"):
                self._advance_loads()
                return Reply.json(200, {"object": "list", "data": [m.wire() for m in self.models.values()]})
            if route == ("GET", "/models/sse"):
                return Reply(headers={"content-type": "text/event-stream"}, stall=True)
            if route == ("GET", "/props"):
                return self._props(parse_qs(parts.query).get("model", [None])[0])
            if route == ("POST", "/models/load"):
                return self._load(_model_of(request))
            if route == ("POST", "/models/unload"):
                return self._unload(_model_of(request))
            if route == ("POST", "/v1/chat/completions"):
                return self._chat(request)
        return Reply.json(404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})

    def _props(self, model_id: str | None) -> Reply:
        if model_id is None:
            return Reply.json(200, {"role": "router", "models_autoload": self.autoload})
        model = self.models.get(model_id)
        if model is None:
            return Reply.json(404, {"error": {"code": 404, "message": "model not found"}})
        return Reply.json(200, {"chat_template": model.chat_template, "default_generation_settings": {}})

    def _load(self, model_id: str) -> Reply:
        model = self.models.get(model_id)
        if model is None:
            return Reply.json(400, {"error": {"code": 400, "message": f"model {model_id} not found"}})
        if model.state in ("loaded", "loading"):
            return Reply.json(400, {"error": {"code": 400, "message": "model is already loaded"}})
        self.loads.append(model_id)
        model.state, model.failed, model.polls_left = "loading", False, self.load_polls
        return Reply.json(200, {"success": True})

    def _unload(self, model_id: str) -> Reply:
        model = self.models.get(model_id)
        if model is None or model.state == "unloaded":
            return Reply.json(400, {"error": {"code": 400, "message": "model is not running"}})
        self.unloads.append(model_id)
        model.state = "unloaded"
        return Reply.json(200, {"success": True})

    def _advance_loads(self) -> None:
        for model in self.models.values():
            if model.state != "loading" or (self.hold is not None and not self.hold.is_set()):
                continue
            if model.polls_left > 0:
                model.polls_left -= 1
            elif model.id in self.fail_loads:
                model.state, model.failed = "unloaded", True
            else:
                model.state = "loaded"
                model.n_ctx = model.n_ctx or 8192

    def _chat(self, request: RecordedRequest) -> Reply:
        body = request.json() or {}
        model = self.models.get(str(body.get("model")))
        if model is None:
            return Reply.json(400, {"error": {"code": 400, "message": f"model {body.get('model')} not found"}})
        if model.state == "sleeping" or (model.state == "unloaded" and self.autoload and model.source == "preset"):
            model.state, model.n_ctx = "loaded", model.n_ctx or 8192  # woken or autoloaded by the request
        if model.state != "loaded":
            return Reply.json(400, {"error": {"code": 400, "message": "model is not loaded"}})
        base = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": model.id}
        words = self.reply_text.split(" ")
        chunks: list[Any] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
        chunks += [{**base, "choices": [{"index": 0, "delta": {"content": (" " if i else "") + word}}]}
                   for i, word in enumerate(words)]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        chunks.append({**base, "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": len(words),
                                                        "total_tokens": 12 + len(words)}})
        return Reply.sse([*chunks, "[DONE]"])


def _model_of(request: RecordedRequest) -> str:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return ""
    return str(body.get("model", "")) if isinstance(body, dict) else ""


def sample_models() -> list[RouterModel]:
    """A router with one model in each state the screens show."""
    return [
        RouterModel("qwen3-4b-Q4_K_M", "loaded", n_ctx=32768),
        RouterModel("gemma-3-4b-it-Q4_K_M", "sleeping", n_ctx=16384),
        RouterModel("llama-3.2-1b-Q4_K_M", "unloaded"),
        RouterModel("phi-4-mini-Q4_K_M", "unloaded", source="preset"),
    ]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="A llama.cpp router stand-in on 127.0.0.1 (for comparing Pi and pi)")
    parser.add_argument("--port-file", help="write the port here once serving")
    parser.add_argument("--api-key")
    parser.add_argument("--autoload", action="store_true")
    options = parser.parse_args()
    router = LlamaRouterStandIn(sample_models(), api_key=options.api_key, autoload=options.autoload).start()
    print(router.url, flush=True)
    if options.port_file:
        with open(options.port_file, "w") as handle:
            handle.write(str(router.server.port))
    threading.Event().wait()
