"""Handoff: carry what matters into a new, focused session (Pi's ``handoff.ts``, in Python).

Instead of compacting, ``/handoff <goal>`` asks the model for a self-contained prompt for the
next task, lets you edit it, and opens a new session (its parent is this one) with the prompt
waiting in the editor.

    pi -e docs/examples/extensions/handoff.py
    /handoff now implement this for teams as well
"""

from __future__ import annotations

import asyncio
import uuid

from pi_runtime.extensions import ExtensionAPI, convert_to_llm, serialize_conversation

SYSTEM_PROMPT = """You are a context transfer assistant. Given a conversation history and the user's goal \
for a new thread, generate a focused prompt that:

1. Summarizes relevant context from the conversation (decisions made, approaches taken, key findings)
2. Lists any relevant files that were discussed or modified
3. Clearly states the next task based on the user's goal
4. Is self-contained - the new thread should be able to proceed without the old conversation

Format your response as a prompt the user can send to start the new thread. Be concise but include all \
necessary context. Do not include any preamble like "Here's the prompt" - just output the prompt itself.

Example output format:
## Context
We've been working on X. Key decisions:
- Decision 1
- Decision 2

Files involved:
- path/to/file1.py
- path/to/file2.py

## Task
[Clear description of what to do next based on user's goal]"""


def entry_message(entry):
    if entry.type == "message":
        return entry.message
    if entry.type == "compaction":
        return {"role": "compactionSummary", "summary": entry.summary, "tokensBefore": entry.tokens_before,
                "timestamp": 0}
    return None


def handoff_messages(branch):
    """The branch as the model saw it: from the last compaction (its summary and kept entries) on."""
    last = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].type == "compaction"), None)
    if last is not None:
        compaction = branch[last]
        kept = next((i for i, e in enumerate(branch) if e.id == compaction.first_kept_entry_id), None)
        branch = [compaction, *(branch[kept:last] if kept is not None else []), *branch[last + 1:]]
    return [m for m in map(entry_message, branch) if m is not None]


def extension(pi: ExtensionAPI) -> None:
    async def handoff(args, ctx):
        if ctx.mode != "tui":
            ctx.ui.notify("handoff requires interactive mode", "error")
            return
        if ctx.model is None:
            ctx.ui.notify("No model selected", "error")
            return
        goal = args.strip()
        if not goal:
            ctx.ui.notify("Usage: /handoff <goal for new thread>", "error")
            return
        messages = handoff_messages(ctx.session_manager.get_branch())
        if not messages:
            ctx.ui.notify("No conversation to hand off", "error")
            return
        conversation = serialize_conversation(convert_to_llm(messages))
        current_file = ctx.session_manager.session_file

        def loader_screen(tui, theme, keybindings, done):
            from pi_tui.extension_ui import BorderedLoader

            loader = BorderedLoader(tui, theme, "Generating handoff prompt...")
            loader.on_abort = lambda: done(None)

            async def generate():
                text = f"## Conversation History\n\n{conversation}\n\n## User's Goal for New Thread\n\n{goal}"
                response = await ctx.model_registry.complete(
                    ctx.model,
                    {"systemPrompt": SYSTEM_PROMPT,
                     "messages": [{"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}]},
                    {"signal": loader.signal, "cacheRetention": "none", "sessionId": str(uuid.uuid4())},
                )
                if response.stop_reason in ("aborted", "error"):
                    if response.stop_reason == "error":
                        ctx.ui.notify(f"Handoff failed: {response.error_message}", "error")
                    done(None)
                    return
                done("\n".join(block.text for block in response.content if block.type == "text"))

            loader.work = asyncio.ensure_future(generate())  # kept: a task nobody holds may be collected
            return loader

        prompt = await ctx.ui.custom(loader_screen)
        if prompt is None:
            ctx.ui.notify("Cancelled", "info")
            return
        edited = await ctx.ui.editor("Edit handoff prompt", prompt)
        if edited is None:
            ctx.ui.notify("Cancelled", "info")
            return

        def ready(new_ctx):
            new_ctx.ui.set_editor_text(edited)
            new_ctx.ui.notify("Handoff ready. Submit when ready.", "info")

        result = await ctx.new_session(parent_session=current_file, with_session=ready)
        if getattr(result, "cancelled", False):
            ctx.ui.notify("New session cancelled", "info")

    pi.register_command("handoff", handoff, description="Transfer context to a new focused session")
