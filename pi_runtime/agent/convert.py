"""The default ``convert_to_llm``: turn every stored message into what a model understands.

Only user, assistant and toolResult reach a provider. The coding agent's own roles become
user text: a shell command run with ``!cmd`` (unless excluded), a compaction or branch
summary wrapped in tags, an extension's custom message. System and unknown roles are
dropped (the system prompt travels separately), except system messages for a provider that
reads the transcript as Pi holds it (``keep_system``).
"""

from __future__ import annotations

from typing import Any

from ..ai.types import TextContent, UserMessage, parse_message

COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
BRANCH_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
SUMMARY_SUFFIX = "\n</summary>"


def bash_execution_text(message: Any) -> str:
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output.rstrip()}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code not in (None, 0):
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


_SENT_AS_IS = frozenset({"user", "assistant", "toolResult"})


def convert_transcript(stored: list[dict[str, Any]], stored_roles: frozenset[object], added: list[Any], *,
                       keep_system: bool = False) -> list[Any]:
    """``convert_to_llm([*stored, *added])`` for a transcript whose stored part is wire dicts (see
    ``Transcript``), knowing the roles among them: when each is one a provider takes as it is, the
    stored part is not stepped through message by message (20,000 of them on a long session)."""
    sent = stored_roles - {"system"} if keep_system else stored_roles
    if sent <= _SENT_AS_IS:
        return [*stored, *convert_to_llm(added, keep_system=keep_system)]
    if stored_roles - {"system"} <= _SENT_AS_IS:  # Pi 1.6's system messages, which this provider does not read
        return [*[m for m in stored if m.get("role") != "system"], *convert_to_llm(added, keep_system=keep_system)]
    return convert_to_llm([*stored, *added], keep_system=keep_system)


def convert_to_llm(messages: list[Any], *, keep_system: bool = False) -> list[Any]:
    """The messages a provider is sent; a wire dict (a stored message not yet validated, see
    ``Transcript``) of a model-facing role stays a dict, the providers take those as they are.
    ``keep_system``: system messages stay, in place (for a provider that reads them, Pi's own API)."""
    out: list[Any] = []
    kept = ("user", "assistant", "toolResult", "system") if keep_system else ("user", "assistant", "toolResult")
    for m in messages:
        if isinstance(m, dict):
            role = m.get("role")
            if role in kept:
                out.append(m)
                continue
            if role not in ("bashExecution", "compactionSummary", "branchSummary", "custom"):
                continue
            m = parse_message(m)  # rare roles: validated one by one, then converted as below
        role = getattr(m, "role", None)
        if role in kept:
            out.append(m)
        elif role == "bashExecution":
            if not m.exclude_from_context:
                out.append(UserMessage(content=[TextContent(text=bash_execution_text(m))], timestamp=m.timestamp))
        elif role == "compactionSummary":
            out.append(UserMessage(content=[TextContent(text=COMPACTION_PREFIX + m.summary + SUMMARY_SUFFIX)], timestamp=m.timestamp))
        elif role == "branchSummary":
            out.append(UserMessage(content=[TextContent(text=BRANCH_PREFIX + m.summary + SUMMARY_SUFFIX)], timestamp=m.timestamp))
        elif role == "custom":
            content = m.content if isinstance(m.content, list) else [TextContent(text=m.content)]
            out.append(UserMessage(content=content, timestamp=m.timestamp))
    return out
