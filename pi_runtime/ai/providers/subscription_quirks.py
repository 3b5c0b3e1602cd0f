"""What requests made with a subscription sign-in must carry, as Pi 1.6 sends it.

- **Claude Pro/Max** (an ``sk-ant-oat`` token from the Anthropic sign-in): the token goes as a
  bearer token with Claude Code's identity: its user agent and ``x-app`` header, the
  ``claude-code-20250219`` and ``oauth-2025-04-20`` betas, Claude Code's identity as the first
  system block, and tool names in Claude Code's spelling (``Read``, ``Bash``, ...; answers are
  mapped back to pi's own tool names).
- **GitHub Copilot**: each request says whether the user or the agent started it (``X-Initiator``:
  agent once the last message is not the user's), ``Openai-Intent: conversation-edits``, and
  ``Copilot-Vision-Request: true`` when images are sent. Anthropic models on Copilot take the
  Copilot token as a bearer token and none of Claude Code's identity.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

CLAUDE_CODE_VERSION = "2.1.322"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
CLAUDE_CODE_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
COPILOT = "github-copilot"

_CLAUDE_CODE_TOOLS = (
    "Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
    "KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite", "WebFetch", "WebSearch",
)
_BY_LOWER = {name.lower(): name for name in _CLAUDE_CODE_TOOLS}


def is_claude_subscription(provider: str, api_key: str | None) -> bool:
    """Whether a request to ``provider`` with ``api_key`` goes out as Claude Code (a Claude Pro/Max token)."""
    return provider != COPILOT and bool(api_key) and "sk-ant-oat" in (api_key or "")


def claude_code_headers() -> dict[str, str]:
    """The headers a Claude Pro/Max request carries besides the bearer token."""
    return {
        "accept": "application/json",
        "anthropic-dangerous-direct-browser-access": "true",
        "user-agent": f"claude-cli/{CLAUDE_CODE_VERSION}",
        "x-app": "cli",
    }


def to_claude_code(name: str) -> str:
    """A tool name as Claude Code spells it (``read`` -> ``Read``); other names are unchanged."""
    return _BY_LOWER.get(name.lower(), name)


def from_claude_code(name: str, tools: Iterable[Any] | None) -> str:
    """The name of the request's tool a Claude Code spelling stands for (case-insensitive), else ``name``."""
    wanted = name.lower()
    for tool in tools or ():
        tool_name = getattr(tool, "name", None)
        if isinstance(tool_name, str) and tool_name.lower() == wanted:
            return tool_name
    return name


def _role(message: Any) -> str | None:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def _has_image(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    if not isinstance(content, list):
        return False
    return any((part.get("type") if isinstance(part, dict) else getattr(part, "type", None)) == "image"
               for part in content)


def copilot_headers(messages: Sequence[Any]) -> dict[str, str]:
    """The per-request headers GitHub Copilot expects for this conversation."""
    last = messages[-1] if messages else None
    headers = {
        "X-Initiator": "agent" if last is not None and _role(last) != "user" else "user",
        "Openai-Intent": "conversation-edits",
    }
    if any(_role(m) in ("user", "toolResult") and _has_image(m) for m in messages):
        headers["Copilot-Vision-Request"] = "true"
    return headers
