"""Custom compaction: the summary written by a model of your choice, with a prompt of your own
(Pi's ``custom-compaction.ts``, in Python).

Everything pi is about to compact (the older turns and the start of a split turn) goes to one
(cheaper) model in one request, and its answer becomes the compaction summary; the recent
messages pi keeps stay as they are. Set
``PI_COMPACTION_MODEL=provider/model`` to choose the model; without it the session's model writes
the summary. When the request fails or comes back empty, pi's own compaction runs instead.

    pi -e docs/examples/extensions/custom_compaction.py
"""

from __future__ import annotations

import os
import uuid

from pi_runtime.extensions import ExtensionAPI, convert_to_llm, serialize_conversation

PROMPT = """You are a conversation summarizer. Create a comprehensive summary of this conversation that captures:{previous}

1. The main goals and objectives discussed
2. Key decisions made and their rationale
3. Important code changes, file modifications, or technical details
4. Current state of any ongoing work
5. Any blockers, issues, or open questions
6. Next steps that were planned or suggested

Be thorough but concise. The summary will replace the ENTIRE conversation history, so include all \
information needed to continue the work effectively.

Format the summary as structured markdown with clear sections.

<conversation>
{conversation}
</conversation>"""


def summary_model(ctx):
    ref = os.environ.get("PI_COMPACTION_MODEL")
    if not ref or "/" not in ref:
        return ctx.model
    provider, model_id = ref.split("/", 1)
    return ctx.model_registry.find(provider, model_id)


def extension(pi: ExtensionAPI) -> None:
    async def before_compact(event, ctx):
        prep = event.preparation
        if prep is None:
            return None  # nothing to summarise: pi says so
        model = summary_model(ctx)
        if model is None:
            ctx.ui.notify("Compaction model not found, using default compaction", "warning")
            return None
        messages = prep.messages_to_summarize + prep.turn_prefix_messages
        ctx.ui.notify(f"Custom compaction: summarizing {len(messages)} messages "
                      f"({prep.tokens_before:,} tokens) with {model.id}...", "info")
        previous = f"\n\nPrevious session summary for context:\n{prep.previous_summary}" if prep.previous_summary else ""
        text = PROMPT.format(previous=previous, conversation=serialize_conversation(convert_to_llm(messages)))
        response = await ctx.model_registry.complete(
            model,
            {"messages": [{"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}]},
            {"maxTokens": 8192, "signal": event.signal, "cacheRetention": "none", "sessionId": str(uuid.uuid4())},
        )
        if response.stop_reason in ("error", "aborted"):
            if response.stop_reason == "error":
                ctx.ui.notify(f"Compaction failed: {response.error_message}", "error")
            return None  # pi's own compaction runs
        summary = "\n".join(block.text for block in response.content if block.type == "text")
        if not summary.strip():
            ctx.ui.notify("Compaction summary was empty, using default compaction", "warning")
            return None
        return {"compaction": {"summary": summary, "firstKeptEntryId": prep.first_kept_entry_id,
                               "tokensBefore": prep.tokens_before, "usage": response.usage}}

    pi.on("session_before_compact", before_compact)
