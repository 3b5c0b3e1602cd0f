"""The ``--demo`` model: a scripted provider that answers without credentials or network.

New users and screenshot scenes run ``pi --demo`` to see the whole loop work: prompts get
a short markdown answer, and prompts about files make the model call ``ls`` or ``read``
first, then summarise what the tool returned.
"""

from __future__ import annotations

import re

from ..ai.providers.scripted import ScriptedProvider, ScriptedResponse, scripted_text, scripted_tool_call
from ..ai.types import Context, Model

DEMO_PROVIDER = "demo"
DEMO_MODEL_ID = "demo-model"

_FILE_WORDS = re.compile(r"\b(files?|folders?|directory|directories|ls|list|read|open|show)\b", re.I)
_PATH = re.compile(r"(?<![\w/.-])((?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)*\.[A-Za-z0-9]{1,8})\b")


def _text_of(message: object) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(b, "text", "") for b in content or [] if getattr(b, "type", "") == "text")


def _tool_names(context: Context) -> set[str]:
    return {t.name for t in context.tools or []}


def respond(context: Context, _options: object = None) -> ScriptedResponse:
    """The demo model's reply to a context (also usable directly in tests).

    Args:
        context: What the model was sent.

    Returns:
        A scripted text answer, or an ``ls``/``read`` tool call for prompts about files.
    """
    last = context.messages[-1] if context.messages else None
    role = getattr(last, "role", None)
    if role == "toolResult":
        output = _text_of(last).strip()
        lines = output.splitlines()
        preview = "\n".join(lines[:12]) + ("\n…" if len(lines) > 12 else "")
        name = getattr(last, "tool_name", "tool")
        state = "failed" if getattr(last, "is_error", False) else "returned"
        return scripted_text(
            f"The `{name}` tool {state} {len(lines)} line(s):\n\n```\n{preview}\n```\n\n"
            "That is what I found. *(This is the scripted demo model.)*",
            chunk_size=6,
            delay=0.01,
        )
    # Only the start matters, and scanning a huge prompt (a compaction request) would be slow.
    prompt = _text_of(last)[:2000]
    tools = _tool_names(context)
    if _FILE_WORDS.search(prompt) or _PATH.search(prompt):
        match = _PATH.search(prompt)
        if match and "read" in tools:
            return scripted_tool_call("read", {"path": match.group(1)}, text="Let me read that file.")
        if "ls" in tools:
            return scripted_tool_call("ls", {"path": "."}, text="Let me look at the files here.")
        if "bash" in tools:
            return scripted_tool_call("bash", {"command": "ls -la"}, text="Let me look at the files here.")
    first_line = prompt.strip().splitlines()[0][:80] if prompt.strip() else "(empty prompt)"
    return scripted_text(
        f"## Demo answer\n\nYou asked: *{first_line}*\n\n"
        "- I am the **scripted demo model**: no API key, no network.\n"
        "- Mention a file (say `README.md`) and I will use the `read` tool.\n"
        "- Use `--model provider/id` with a real key for real answers.",
        chunk_size=6,
        delay=0.01,
    )


def demo_model() -> Model:
    """Register the demo provider (once per process) and return its model."""
    from ..ai.providers.scripted import get_provider

    provider = get_provider(DEMO_PROVIDER) or ScriptedProvider(DEMO_PROVIDER, responder=respond)
    return provider.model(DEMO_MODEL_ID, name="Demo (scripted)")
