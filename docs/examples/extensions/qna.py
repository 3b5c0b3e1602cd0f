"""Q&A extraction: ``/qna`` puts the questions of the last answer into the editor, for you to
answer (Pi's ``qna.ts``, in Python).

The model that is selected extracts them (``ctx.model_registry.complete``) while a
``BorderedLoader`` spins; Esc cancels the request. App only (``ctx.mode == "tui"``).

    pi -e docs/examples/extensions/qna.py
    /qna
"""
from __future__ import annotations

import asyncio

from pi_runtime.extensions import ExtensionAPI

SYSTEM_PROMPT = """You are a question extractor. Given text from a conversation, extract any questions that need \
answering and format them for the user to fill in.

Output format:
- List each question on its own line, prefixed with "Q: "
- After each question, add a blank line for the answer prefixed with "A: "
- If no questions are found, output "No questions found in the last message."

Example output:
Q: What is your preferred database?
A: \n
Q: Should we use TypeScript or JavaScript?
A: \n
Keep questions in the order they appeared. Be concise."""


def last_assistant_text(branch):
    """(text, None) for the newest assistant message with text, or (None, error)."""
    for entry in reversed(branch):
        if entry.type != "message" or entry.message.role != "assistant":
            continue
        message = entry.message
        if message.stop_reason != "stop":
            return None, f"Last assistant message incomplete ({message.stop_reason})"
        texts = [block.text for block in message.content if block.type == "text"]
        if texts:
            return "\n".join(texts), None
    return None, "No assistant messages found"


def extension(pi: ExtensionAPI) -> None:
    async def qna(args, ctx):
        if ctx.mode != "tui":
            ctx.ui.notify("qna requires interactive mode", "error")
            return
        if ctx.model is None:
            ctx.ui.notify("No model selected", "error")
            return
        text, error = last_assistant_text(ctx.session_manager.get_branch())
        if error:
            ctx.ui.notify(error, "error")
            return

        def loader_screen(tui, theme, keybindings, done):
            from pi_tui.extension_ui import BorderedLoader  # app only: import it here

            loader = BorderedLoader(tui, theme, f"Extracting questions using {ctx.model.id}...")
            loader.on_abort = lambda: done(None)

            async def extract():
                try:
                    response = await ctx.model_registry.complete(
                        ctx.model,
                        {"systemPrompt": SYSTEM_PROMPT,
                         "messages": [{"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}]},
                        {"signal": loader.signal},
                    )
                except Exception:  # noqa: BLE001 - as Pi's .catch(() => done(null))
                    done(None)
                    return
                if response.stop_reason == "aborted":
                    done(None)
                    return
                done("\n".join(block.text for block in response.content if block.type == "text"))

            loader.work = asyncio.ensure_future(extract())  # kept: a task nobody holds may be collected
            return loader

        result = await ctx.ui.custom(loader_screen)
        if result is None:
            ctx.ui.notify("Cancelled", "info")
            return
        ctx.ui.set_editor_text(result)
        ctx.ui.notify("Questions loaded. Edit and submit when ready.", "info")

    pi.register_command("qna", qna, description="Extract questions from last assistant message into editor")
