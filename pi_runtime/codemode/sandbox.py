"""Run one script in a worker: the host side of the sandbox.

The host owns what the script must not influence: the tools it may call, the records of those
calls, the output, the deadline and the abort signal. The first of these ends a run: the script's
``done``, a broken worker, the deadline, or an abort. Calls still running then are aborted and
reported as ``cancelled``; a run that did not end by itself kills its worker.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..ai.abort import AbortController, AbortSignal
from ..background import spawn
from .pool import WorkerPool, shared_pool

MEMORY_LIMIT_BYTES = 256 * 1024 * 1024
"""Heap of one script's VM (Pi's figure); past it the script gets ``InternalError: out of memory``."""
MAX_OUTPUT_CHARS = 16 * 1024 * 1024
MAX_OUTPUT_ITEMS = 100_000
MAX_STORE_VALUE_CHARS = 256 * 1024
MAX_STORE_TOTAL_CHARS = 1024 * 1024

Execute = Callable[[Any, AbortSignal], Awaitable[Any]]
"""A tool or global as the sandbox calls it: ``(args, signal) -> JSON value``; raising rejects the call."""


@dataclass
class CallRecord:
    """One tool call a script made."""

    name: str
    status: Literal["ok", "error", "cancelled", "running"] = "running"
    started: float = field(default_factory=time.monotonic)
    duration_ms: float = 0.0


@dataclass
class ScriptError:
    """Why a run failed: ``script`` (it threw), ``timeout``, ``aborted`` or ``sandbox`` (the worker broke)."""

    kind: Literal["script", "timeout", "aborted", "sandbox"]
    message: str
    name: str | None = None
    stack: str | None = None


@dataclass
class OutputItem:
    """A text or image item the script produced, in order."""

    type: Literal["text", "image"]
    text: str = ""
    console: bool = False
    data: str = ""
    mime_type: str = ""


@dataclass
class RunResult:
    """What a run produced; ``error`` is None when it succeeded."""

    output: list[OutputItem]
    calls: list[CallRecord]
    error: ScriptError | None = None
    value: Any = None
    has_value: bool = False
    """Whether the script returned a value (``undefined`` is none; ``null`` is one)."""
    store_set: dict[str, Any] = field(default_factory=dict)
    store_delete: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class ScriptFunction:
    """A name the script may call, with how it runs."""

    name: str
    execute: Execute
    description: str = ""
    js_name: str = ""
    spread: bool = False


class _BridgeBroken(Exception):
    """The worker sent something that is not the protocol (a script patched the prelude's helpers)."""


def _json(text: Any, what: str) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        raise _BridgeBroken(f"{what} is not valid JSON") from None


class _Run:
    def __init__(self, worker: Any, tools: dict[str, ScriptFunction], globals_: dict[str, ScriptFunction],
                 on_call: Callable[[CallRecord], None] | None) -> None:
        self.worker = worker
        self.tools = tools
        self.globals = globals_
        self.on_call = on_call
        self.output: list[OutputItem] = []
        self.calls: list[CallRecord] = []
        self.pending: dict[int, tuple[asyncio.Task[Any], AbortController, CallRecord | None]] = {}
        self.finished = False

    def reply(self, call_id: int, ok: bool, payload: str | None) -> None:
        if self.finished:
            return
        line = json.dumps({"op": "result", "id": call_id, "ok": ok, "payload": payload}) + "\n"
        self.worker.send(line.encode())

    def start_call(self, message: dict[str, Any]) -> None:
        call_id = int(message["id"])
        is_tool = message.get("target") == "tool"
        name = str(message.get("name"))
        record = CallRecord(name) if is_tool else None
        if record is not None:
            self.calls.append(record)
            if self.on_call is not None:
                self.on_call(record)
        controller = AbortController()
        task = spawn(self._call(call_id, is_tool, name, message.get("args"), controller.signal, record),
                     name=f"codemode-call-{name}")
        self.pending[call_id] = (task, controller, record)

    async def _call(self, call_id: int, is_tool: bool, name: str, args: Any, signal: AbortSignal,
                    record: CallRecord | None) -> None:
        table = self.tools if is_tool else self.globals
        entry = table.get(name)
        ok, payload = True, None
        try:
            if entry is None:
                raise LookupError(f'Unknown {"tool" if is_tool else "global"} "{name}"')
            value = await entry.execute(json.loads(args) if isinstance(args, str) else None, signal)
            payload = None if value is None else json.dumps(value, ensure_ascii=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure rejects the script's promise with its text
            ok, payload = False, str(exc) or type(exc).__name__
        if self.pending.pop(call_id, None) is None:
            return
        if record is not None:
            record.status = "ok" if ok else "error"
            record.duration_ms = (time.monotonic() - record.started) * 1000
            if self.on_call is not None:
                self.on_call(record)
        self.reply(call_id, ok, payload)

    def finish(self) -> None:
        self.finished = True
        now = time.monotonic()
        for task, controller, record in self.pending.values():
            controller.abort("Execution ended")
            if record is not None:
                record.status = "cancelled"
                record.duration_ms = (now - record.started) * 1000
            spawn(_reap(task), name="codemode-cancelled-call")
        self.pending.clear()


async def _reap(task: asyncio.Task[Any]) -> None:
    """Let an aborted call end on its own (its tool sees the abort); cancel it if it lingers."""
    try:
        await asyncio.wait_for(asyncio.shield(task), 5.0)
    except (TimeoutError, asyncio.CancelledError):
        task.cancel()


async def run_script(
    code: str,
    *,
    tools: list[ScriptFunction] = (),  # type: ignore[assignment]
    globals_: list[ScriptFunction] = (),  # type: ignore[assignment]
    store: dict[str, Any] | None = None,
    timeout_ms: float | None = None,
    signal: AbortSignal | None = None,
    memory_limit: int = MEMORY_LIMIT_BYTES,
    pool: WorkerPool | None = None,
    worker_wait: float | None = None,
    on_call: Callable[[CallRecord], None] | None = None,
) -> RunResult | Literal["aborted", "timeout", "no-worker"]:
    """Run ``code`` (an async function body) in a worker.

    Returns the run's result, or why it never started: ``aborted`` (the signal fired while it
    waited for a worker), ``timeout`` (its deadline passed first) or ``no-worker`` (none became free
    within the wait). ``timeout_ms`` counts the wait for a worker too.
    """
    from .pool import WORKER_WAIT_SECONDS

    pool = pool or shared_pool()
    started = time.monotonic()
    deadline = None if timeout_ms is None else started + timeout_ms / 1000
    wait = WORKER_WAIT_SECONDS if worker_wait is None else worker_wait
    if deadline is not None:
        wait = min(wait, max(0.0, deadline - started))
    worker = await pool.acquire(signal, wait)
    if worker == "aborted":
        return "aborted"
    if worker == "timeout":
        timed_out = deadline is not None and time.monotonic() >= deadline - 0.001
        return "timeout" if timed_out else "no-worker"
    tool_table = {t.name: t for t in tools}
    run = _Run(worker, tool_table, {g.name: g for g in globals_}, on_call)
    request = {
        "op": "run",
        "code": code,
        "tools": [{"name": t.name, "jsName": t.js_name or t.name, "description": t.description} for t in tools],
        "globals": [{"name": g.name, "spread": g.spread} for g in globals_],
        "store": {key: json.dumps(value, ensure_ascii=False) for key, value in (store or {}).items()},
        "limits": {"storeValue": MAX_STORE_VALUE_CHARS, "storeTotal": MAX_STORE_TOTAL_CHARS,
                   "outputChars": MAX_OUTPUT_CHARS, "outputItems": MAX_OUTPUT_ITEMS},
        "memory": memory_limit,
    }
    worker.send((json.dumps(request) + "\n").encode())
    result: RunResult | None = None
    clean = False
    reader = asyncio.ensure_future(_read_until_done(run))
    aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
    try:
        waits: set[asyncio.Future[Any]] = {reader} | ({aborted} if aborted is not None else set())
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        done, _ = await asyncio.wait(waits, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        if reader in done:
            result, clean = reader.result()
        elif aborted is not None and aborted in done:
            reason = signal.reason if signal is not None else None
            result = RunResult(run.output, run.calls, ScriptError("aborted", reason or "This operation was aborted"))
        else:
            result = RunResult(run.output, run.calls, ScriptError("timeout", f"Execution timed out after {timeout_ms:g} ms"))
    finally:
        run.finish()
        for future in (reader, aborted):
            if future is not None and not future.done():
                future.cancel()
        await pool.release(worker, reusable=clean)
    return result


async def _read_until_done(run: _Run) -> tuple[RunResult, bool]:
    """Serve the worker's messages until the script ends; (result, whether the worker can be reused)."""
    try:
        while True:
            line = await run.worker.receive()
            if not line:
                return RunResult(run.output, run.calls, ScriptError("sandbox", "The codemode worker exited")), False
            message = _json(line, "worker message")
            if not isinstance(message, dict):
                raise _BridgeBroken("unknown message from the worker")
            kind = message.get("t")
            if kind == "out":
                _output(run, message)
            elif kind == "call":
                run.start_call(message)
            elif kind == "done":
                return _done(run, message), True
            elif kind == "crash":
                return RunResult(run.output, run.calls, ScriptError("sandbox", str(message.get("message")))), False
    except _BridgeBroken as exc:
        error = ScriptError("sandbox", f"Sandbox bridge broken: {exc}. The script may have modified built-ins such "
                                       "as a prototype's toJSON.")
        return RunResult(run.output, run.calls, error), False


def _output(run: _Run, message: dict[str, Any]) -> None:
    kind, data = message.get("kind"), str(message.get("data", ""))
    if kind == "image":
        run.output.append(OutputItem("image", data=data, mime_type=str(message.get("mime"))))
    else:
        run.output.append(OutputItem("text", text=data, console=kind == "console"))


def _done(run: _Run, message: dict[str, Any]) -> RunResult:
    if not message.get("ok"):
        error = _json(message.get("error"), "script error")
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            raise _BridgeBroken("script error is malformed")
        return RunResult(run.output, run.calls, ScriptError("script", error["message"], error.get("name"),
                                                              error.get("stack")))
    entries = _json(message.get("writes") or "[]", "store writes")
    raw = message.get("value")
    result = RunResult(run.output, run.calls, value=_json(raw, "return value"), has_value=raw is not None)
    if not isinstance(entries, list):
        raise _BridgeBroken("store writes are not an array")
    for entry in entries:
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
            raise _BridgeBroken("store writes contain a malformed entry")
        if len(entry) == 1:
            result.store_delete.append(entry[0])
        else:
            result.store_set[entry[0]] = _json(entry[1], f"store value for {json.dumps(entry[0])}")
    return result
