"""Hidden thinking label: what collapsed thinking blocks say (Pi's ``hidden-thinking-label.ts``,
in Python).

Ctrl+T hides thinking; the blocks then read "Pondering..." (``ctx.ui.set_hidden_thinking_label``).
``/thinking-label <text>`` changes it, ``/thinking-label`` brings back pi's own marker. Outside
the app the calls do nothing.

    pi -e docs/examples/extensions/hidden_thinking_label.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI

DEFAULT_LABEL = "Pondering..."


def extension(pi: ExtensionAPI) -> None:
    state = {"label": DEFAULT_LABEL}  # set again in every session_start (/new, /resume, /reload)
    pi.on("session_start", lambda e, ctx: ctx.ui.set_hidden_thinking_label(state["label"]))

    def command(args, ctx):
        nxt = args.strip()
        if not nxt:
            state["label"] = DEFAULT_LABEL
            ctx.ui.set_hidden_thinking_label()
            ctx.ui.notify(f"Hidden thinking label reset to: {DEFAULT_LABEL}")
            return
        state["label"] = nxt
        ctx.ui.set_hidden_thinking_label(nxt)
        ctx.ui.notify(f"Hidden thinking label set to: {nxt}")

    pi.register_command("thinking-label", command, description="Set the hidden thinking label. Use without args to reset.")
