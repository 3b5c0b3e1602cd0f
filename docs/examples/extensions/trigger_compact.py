"""Trigger compaction: compact when the context crosses a token threshold, or on ``/trigger-compact``
(Pi's ``trigger-compact.ts``, in Python).

The check runs at every ``turn_end``, so it fires in the middle of a run: ``ctx.compact()`` then
aborts the run and compacts, as in Pi. It is not awaited: the handler returns at once and the
callbacks report the outcome.

    pi -e docs/examples/extensions/trigger_compact.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI

COMPACT_THRESHOLD_TOKENS = 100_000


def extension(pi: ExtensionAPI) -> None:
    state = {"previous_tokens": None}

    def trigger_compaction(ctx, custom_instructions=None):
        if ctx.has_ui:
            ctx.ui.notify("Compaction started", "info")

        def on_complete(result):
            if ctx.has_ui:
                ctx.ui.notify("Compaction completed", "info")

        def on_error(error):
            if ctx.has_ui:
                ctx.ui.notify(f"Compaction failed: {error}", "error")

        ctx.compact(custom_instructions, on_complete=on_complete, on_error=on_error)

    def on_turn_end(event, ctx):
        usage = ctx.get_context_usage()
        current_tokens = usage.tokens if usage is not None else None
        if current_tokens is None:
            return
        previous = state["previous_tokens"]
        crossed_threshold = previous is not None and previous <= COMPACT_THRESHOLD_TOKENS
        state["previous_tokens"] = current_tokens
        if not crossed_threshold or current_tokens <= COMPACT_THRESHOLD_TOKENS:
            return
        trigger_compaction(ctx)

    async def trigger_compact(args, ctx):
        trigger_compaction(ctx, args.strip() or None)

    pi.on("turn_end", on_turn_end)
    pi.register_command("trigger-compact", trigger_compact, description="Trigger compaction immediately")
