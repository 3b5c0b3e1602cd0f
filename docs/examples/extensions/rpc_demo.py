"""RPC demo: every extension UI call RPC clients receive (Pi's ``rpc-demo.ts``, in Python).

- ``select`` on dangerous bash commands, ``confirm`` before ``/new``;
- ``/rpc-input``, ``/rpc-editor`` and ``/rpc-prefill`` for ``input``, ``editor`` and ``set_editor_text``;
- ``notify`` after each dialog, ``set_status`` per turn, ``set_widget`` and ``set_title`` at start.

    pi --mode rpc -e docs/examples/extensions/rpc_demo.py
"""

from __future__ import annotations

import re

from pi_runtime.extensions import ExtensionAPI

DANGEROUS = (re.compile(r"\brm\s+(-rf?|--recursive)", re.I), re.compile(r"\bsudo\b", re.I))


def extension(pi: ExtensionAPI) -> None:
    turns = {"count": 0}

    def on_start(event, ctx):
        ctx.ui.set_title("pi RPC Demo (new session)" if event.reason == "new" else "pi RPC Demo")
        ctx.ui.set_widget("rpc-demo", ["--- RPC Extension UI Demo ---", "Loaded and ready."])
        ctx.ui.set_status("rpc-demo", f"Turns: {turns['count']}")

    def on_turn_start(event, ctx):
        turns["count"] += 1
        ctx.ui.set_status("rpc-demo", f"Turn {turns['count']} running...")

    def on_turn_end(event, ctx):
        ctx.ui.set_status("rpc-demo", f"Turn {turns['count']} done")

    async def on_tool_call(event, ctx):
        if event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        if not any(p.search(command) for p in DANGEROUS):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": "Dangerous command blocked (no UI)"}
        if await ctx.ui.select(f"Dangerous command: {command}", ["Allow", "Block"]) != "Allow":
            ctx.ui.notify("Command blocked by user", "warning")
            return {"block": True, "reason": "Blocked by user"}
        ctx.ui.notify("Command allowed", "info")
        return None

    async def before_switch(event, ctx):
        if event.reason != "new" or not ctx.has_ui:
            return None
        if not await ctx.ui.confirm("Clear session?", "All messages will be lost."):
            ctx.ui.notify("Clear cancelled", "info")
            return {"cancel": True}
        return None

    async def rpc_input(args, ctx):
        value = await ctx.ui.input("Enter a value", "type something...")
        ctx.ui.notify(f"You entered: {value}" if value else "Input cancelled", "info")

    async def rpc_editor(args, ctx):
        text = await ctx.ui.editor("Edit some text", "Line 1\nLine 2\nLine 3")
        ctx.ui.notify(f"Editor submitted ({len(text.split(chr(10)))} lines)" if text else "Editor cancelled", "info")

    def rpc_prefill(args, ctx):
        ctx.ui.set_editor_text("This text was set by the rpc-demo extension.")
        ctx.ui.notify("Editor prefilled", "info")

    pi.on("session_start", on_start)
    pi.on("turn_start", on_turn_start)
    pi.on("turn_end", on_turn_end)
    pi.on("tool_call", on_tool_call)
    pi.on("session_before_switch", before_switch)
    pi.register_command("rpc-input", rpc_input, description="Prompt for text input (ctx.ui.input in RPC)")
    pi.register_command("rpc-editor", rpc_editor, description="Open multi-line editor (ctx.ui.editor in RPC)")
    pi.register_command("rpc-prefill", rpc_prefill, description="Prefill the input editor (ctx.ui.set_editor_text)")
