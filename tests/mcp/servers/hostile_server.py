"""A misbehaving stdio MCP server, speaking raw newline-delimited JSON-RPC (no SDK: it starts in
milliseconds and can send what the SDK would refuse to).

Options (command-line flags):
  --tools N           offer N well-formed tools ``tool_0``..``tool_<N-1>`` (default 1)
  --start-delay S     sleep S seconds before answering ``initialize`` (a slow-to-start server)
  --malformed         also offer malformed tool definitions (no name, a name that is not a string,
                      an inputSchema that is not an object) beside the good ones
  --hostile-names     give tool ``tool_0`` a name/description with control characters (RTL override,
                      newline, an ANSI escape)
  --pid-file PATH     write the server's pid there once it runs
  --starts-file PATH  append the server's pid there, one line per start
  --gate PATH         answer ``initialize`` only once PATH exists (a start the test holds open)

Every tool ``tool_<i>`` answers ``ok <i>``. These tools send something the SDK cannot parse:
  ``huge``            one text block of ``size`` MB (argument, default 100)
  ``surrogate``       a text with a lone surrogate escape (``\\ud800``)
  ``bad_image``       an image block whose ``data`` is not base64 and whose ``mimeType`` is a number
  ``flood``           100,000 progress notifications for the request, then a normal answer
  ``no_content``      a result without ``content`` (a schema violation)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

HOSTILE = ["huge", "surrogate", "bad_image", "flood", "no_content"]


def send(out: Any, message: dict[str, Any] | str) -> None:
    text = message if isinstance(message, str) else json.dumps(message)
    out.write(text.encode("utf-8", "surrogatepass") + b"\n")
    out.flush()


def tool_list(args: argparse.Namespace) -> list[Any]:
    schema = {"type": "object", "properties": {"size": {"type": "number"}}}
    tools: list[Any] = [{"name": f"tool_{i}", "description": f"Tool number {i}", "inputSchema": schema}
                        for i in range(args.tools)]
    tools += [{"name": name, "description": f"Sends {name}", "inputSchema": schema} for name in HOSTILE]
    if args.hostile_names and tools:
        tools[0] = {"name": "tool_0\u202egnp.exe\nINJECTED", "description": "evil\x1b]0;pwned\x07\x1b[31mred\u202e",
                    "inputSchema": schema}
    if args.malformed:
        tools += [{"description": "no name", "inputSchema": schema},
                  {"name": 42, "inputSchema": schema},
                  {"name": "bad_schema", "inputSchema": "not an object"}]
    return tools


def answer_call(out: Any, request_id: Any, params: dict[str, Any]) -> None:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "huge":
        size = int(float(arguments.get("size", 100)) * 1024 * 1024)
        head = '{"jsonrpc":"2.0","id":' + json.dumps(request_id) + ',"result":{"content":[{"type":"text","text":"'
        out.write(head.encode())
        block = b"x" * 65536
        for _ in range(size // len(block)):
            out.write(block)
        out.write(b'"}]}}\n')
        out.flush()
        return
    if name == "surrogate":
        # The escape of a lone surrogate: valid JSON to Python's json, not to pydantic (or the SDK).
        send(out, '{"jsonrpc":"2.0","id":' + json.dumps(request_id)
             + ',"result":{"content":[{"type":"text","text":"bad \\ud800 half"}]}}')
        return
    if name == "bad_image":
        result = {"content": [{"type": "image", "data": "!!not base64!!", "mimeType": 7}]}
        send(out, {"jsonrpc": "2.0", "id": request_id, "result": result})
        return
    if name == "flood":
        token = (params.get("_meta") or {}).get("progressToken", request_id)
        for i in range(100_000):
            send(out, {"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": token, "progress": i}})
        send(out, {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": "flooded"}]}})
        return
    if name == "no_content":
        send(out, {"jsonrpc": "2.0", "id": request_id, "result": {"isError": "sometimes"}})
        return
    text = f"ok {str(name).removeprefix('tool_')}"
    send(out, {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1)
    parser.add_argument("--start-delay", type=float, default=0.0)
    parser.add_argument("--malformed", action="store_true")
    parser.add_argument("--hostile-names", action="store_true")
    parser.add_argument("--pid-file")
    parser.add_argument("--starts-file")
    parser.add_argument("--gate")
    args = parser.parse_args()
    if args.pid_file:
        with open(args.pid_file, "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid()))
    if args.starts_file:
        with open(args.starts_file, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue  # a notification (initialized, cancelled)
        if method == "initialize":
            time.sleep(args.start_delay)
            while args.gate and not os.path.exists(args.gate):
                time.sleep(0.01)  # the server's own wait for the test to let it finish starting
            result = {"protocolVersion": message["params"]["protocolVersion"],
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"}}
            send(out, {"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/list":
            send(out, {"jsonrpc": "2.0", "id": request_id, "result": {"tools": tool_list(args)}})
        elif method == "tools/call":
            answer_call(out, request_id, message.get("params") or {})
        elif method == "ping":
            send(out, {"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            send(out, {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no such method"}})


if __name__ == "__main__":
    main()
