"""Input transform: rewrite or answer what the user types (Pi's ``input-transform.ts``, in Python).

    ?quick What is Python?   -> "Respond briefly in 1-2 sentences: What is Python?"
    ping                     -> "pong" (no model call)
    time                     -> the current time (no model call)

    pi -e docs/examples/extensions/input_transform.py
"""

from __future__ import annotations

from datetime import datetime

from pi_runtime.extensions import ExtensionAPI


def extension(pi: ExtensionAPI) -> None:
    def on_input(event, ctx):
        if event.source == "extension":  # leave messages other extensions send alone
            return {"action": "continue"}
        if event.text.startswith("?quick "):
            query = event.text[7:].strip()
            if not query:
                ctx.ui.notify("Usage: ?quick <question>", "warning")
                return {"action": "handled"}
            return {"action": "transform", "text": f"Respond briefly in 1-2 sentences: {query}"}
        if event.text.lower() == "ping":
            ctx.ui.notify("pong", "info")
            return {"action": "handled"}
        if event.text.lower() == "time":
            ctx.ui.notify(datetime.now().strftime("%c"), "info")
            return {"action": "handled"}
        return {"action": "continue"}

    pi.on("input", on_input)
