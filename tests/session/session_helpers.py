"""Message makers for session tests (imported as a plain module: pytest puts this folder on sys.path)."""

from __future__ import annotations

from pi_runtime.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage


def user(text: str) -> UserMessage:
    return UserMessage(content=text)


def assistant(text: str = "", *, calls: list[ToolCall] | None = None, total: int = 0,
              provider: str = "anthropic", model: str = "claude-sonnet-4-5", stop: str = "stop") -> AssistantMessage:
    content: list = [TextContent(text=text)] if text else []
    content.extend(calls or [])
    return AssistantMessage(content=content, api="anthropic-messages", provider=provider, model=model,
                            usage=Usage(input=total, total_tokens=total), stop_reason=stop)  # type: ignore[arg-type]


def tool_result(call_id: str, text: str, name: str = "read") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])
