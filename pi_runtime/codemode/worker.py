"""The codemode worker: a child process that runs one script at a time in a fresh QuickJS context.

Started as ``python -I <this file>`` by :mod:`pi_runtime.codemode.pool`; it imports nothing of pi
(only the standard library and ``quickjs``), so it starts in a few tens of milliseconds and a
crash or a runaway script cannot take pi down. The host kills the process to stop a script (abort,
deadline); a script that ended normally leaves the process ready for the next one.

Protocol: one JSON object per line. The host sends ``{"op": "run", ...}`` and, for each call the
script makes, ``{"op": "result", "id", "ok", "payload"}``; the worker sends the prelude's messages
(``call``, ``out``, ``done``) and ``crash`` when the VM itself failed.

The VM is given no host function at all: the prelude queues the script's requests and the worker
collects them between runs of the promise job queue (see ``prelude.js``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

PRELUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prelude.js")
STACK_BYTES = 1024 * 1024
"""QuickJS's own stack guard: deep recursion throws a catchable RangeError well before the C stack ends."""


def _send(out: Any, message: dict[str, Any]) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")


def _run(quickjs: Any, prelude: str, request: dict[str, Any], read: Any, out: Any) -> None:
    context = quickjs.Context()
    context.set_memory_limit(int(request["memory"]))
    context.set_max_stack_size(STACK_BYTES)
    control = context.eval(prelude)(
        json.dumps(request["tools"]), json.dumps(request["globals"]), json.dumps(request["store"]),
        json.dumps(request["limits"]),
    )
    try:
        # The wrapper shares the script's first line, so line numbers in stack traces match the script.
        script = context.eval("(async (tools, console) => {" + request["code"] + "\n})")
    except quickjs.JSException as error:
        _send(out, {"t": "done", "ok": False, "error": _exception_json(str(error))})
        out.flush()
        return
    control("run", script)
    while True:
        failure = _run_jobs(quickjs, context)
        batch = json.loads(control("drain"))
        if failure is not None and not any(m.get("t") == "done" for m in batch):
            batch.append({"t": "done", "ok": False, "error": _exception_json(failure)})
        if not any(m.get("t") == "done" for m in batch) and control("stalled"):
            batch += json.loads(control("drain"))
        for message in batch:
            if message.get("t") == "done" and not message.get("ok"):
                message["error"] = _out_of_memory(request["code"], message.get("error"))
            _send(out, message)
        out.flush()
        if any(m.get("t") == "done" for m in batch):
            return
        line = read()
        if not line:
            raise SystemExit(0)  # the host went away
        reply = json.loads(line)
        if reply.get("op") == "result":
            control("settle", int(reply["id"]), bool(reply["ok"]), reply.get("payload"))


def _run_jobs(quickjs: Any, context: Any) -> str | None:
    """Run the promise job queue empty; the text of an error no script code can catch, if any."""
    while True:
        try:
            if not context.execute_pending_job():
                return None
        except quickjs.JSException as error:
            return str(error)


def _out_of_memory(code: str, error: Any) -> Any:
    """The error, or QuickJS's out-of-memory error when the heap ran out so completely that the engine
    could not even make the error object: the script then fails with a bare ``null``. The heap is
    freed again by the time the failure is reported, so the sign is that the script never wrote
    ``null`` itself."""
    if error != '{"message":"null"}' or "null" in code:
        return error
    return json.dumps({"name": "InternalError", "message": "out of memory", "stack": "InternalError: out of memory"})


def _exception_json(text: str) -> str:
    """An engine exception's text ("Name: message\\n    at ...") as the prelude's error JSON."""
    lines = [line for line in text.split("\n") if line.strip()]
    head = lines[0] if lines else "Error"
    name, _, message = head.partition(": ")
    frames = [line.replace("<input>:", "codemode.js:") for line in lines[1:] if "__pi_" not in line]
    return json.dumps({"name": name, "message": message, "stack": "\n".join([head, *frames])})


def main() -> None:
    """Serve run requests on stdin until it closes."""
    import quickjs  # type: ignore[import-not-found,unused-ignore]

    with open(PRELUDE, encoding="utf-8") as handle:
        prelude = handle.read()
    stdin, out = sys.stdin, sys.stdout
    _send(out, {"t": "ready"})
    out.flush()
    while True:
        line = stdin.readline()
        if not line:
            return
        request = json.loads(line)
        if request.get("op") != "run":
            continue
        try:
            _run(quickjs, prelude, request, stdin.readline, out)
        except (quickjs.JSException, MemoryError, ValueError, TypeError) as error:
            _send(out, {"t": "crash", "message": f"{type(error).__name__}: {error}"})
            out.flush()


if __name__ == "__main__":
    main()
