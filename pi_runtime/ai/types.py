"""Wire types shared by every layer: content blocks, messages, usage, models and contexts.

Field names are camelCase on the wire (Pi's JSON) and snake_case in Python. Unknown fields
are kept (``extra="allow"``) so a message written by a newer Pi survives a round trip.
Assignment is not validated: providers mutate one live message while streaming and that
must stay cheap. The base is ``pi_runtime.jsonmodel`` (pydantic's API, without its import).
"""

from __future__ import annotations

import functools
import time
from typing import Annotated, Any, Literal

from ..jsonmodel import ConfigDict, Discriminator, Field, JsonModel, Tag, TypeAdapter, to_camel


class WireModel(JsonModel):
    """Base for everything that is serialised to Pi's JSON."""

    model_config = ConfigDict(alias_generator=to_camel, extra="allow")

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict in Pi's shape (camelCase, unset optionals left out)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


def now_ms() -> int:
    """Message timestamps are Unix milliseconds, as in Pi."""
    return int(time.time() * 1000)


# --------------------------------------------------------------------------- content blocks


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str = ""
    text_signature: str | None = None
    """Opaque provider metadata (OpenAI Responses message id)."""


class ThinkingContent(WireModel):
    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    thinking_signature: str | None = None
    """Opaque replay data (Anthropic signature, encrypted reasoning)."""
    redacted: bool | None = None


class ImageContent(WireModel):
    type: Literal["image"] = "image"
    data: str
    """Base64-encoded image bytes."""
    mime_type: str


class ToolCall(WireModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = None
    namespace: str | None = None


AssistantContent = Annotated[
    TextContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
UserContent = Annotated[TextContent | ImageContent, Field(discriminator="type")]


# --------------------------------------------------------------------------- usage


class Cost(WireModel):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)
    reasoning: int | None = None
    """Reasoning tokens, when the server reports them; already part of ``output``."""

    def compute_cost(self, model: Model) -> None:
        """Fill ``cost`` from the model's per-million-token prices and update ``total_tokens``."""
        prices = model.cost
        c = self.cost
        c.input = self.input * prices.input / 1_000_000
        c.output = self.output * prices.output / 1_000_000
        c.cache_read = self.cache_read * prices.cache_read / 1_000_000
        c.cache_write = self.cache_write * prices.cache_write / 1_000_000
        c.total = c.input + c.output + c.cache_read + c.cache_write
        self.total_tokens = self.input + self.output + self.cache_read + self.cache_write


# --------------------------------------------------------------------------- messages

StopReason = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]


class SystemMessage(WireModel):
    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""
    sections: dict[str, str | None] | None = None
    tools_added: list[dict[str, Any]] | None = None
    tools_removed: list[dict[str, Any]] | None = None
    timestamp: int = Field(default_factory=now_ms)


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    response_model: str | None = None
    response_id: str | None = None
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "pending"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        """All text blocks joined: what a user reads as the answer."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(WireModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)


class BashExecutionMessage(WireModel):
    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str = ""
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(WireModel):
    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContent] = ""
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)


class BranchSummaryMessage(WireModel):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str | None = None
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(WireModel):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int = 0
    timestamp: int = Field(default_factory=now_ms)


class UnknownMessage(WireModel):
    """A role this version does not know (an extension's, or a newer Pi's): kept verbatim."""

    role: str


_KNOWN_ROLES = {
    "system", "user", "assistant", "toolResult", "bashExecution",
    "custom", "branchSummary", "compactionSummary",
}


def _message_tag(value: Any) -> str:
    role = value.get("role") if isinstance(value, dict) else getattr(value, "role", None)
    return role if role in _KNOWN_ROLES else "unknown"


AgentMessage = Annotated[
    Annotated[SystemMessage, Tag("system")] | Annotated[UserMessage, Tag("user")] | Annotated[AssistantMessage, Tag("assistant")] | Annotated[ToolResultMessage, Tag("toolResult")] | Annotated[BashExecutionMessage, Tag("bashExecution")] | Annotated[CustomMessage, Tag("custom")] | Annotated[BranchSummaryMessage, Tag("branchSummary")] | Annotated[CompactionSummaryMessage, Tag("compactionSummary")] | Annotated[UnknownMessage, Tag("unknown")],
    Discriminator(_message_tag),
]
"""Every message the agent keeps; the LLM only ever sees user/assistant/toolResult."""

Message = UserMessage | AssistantMessage | ToolResultMessage


def parse_message(data: dict[str, Any]) -> Any:
    """Validate one wire dict into the matching message class."""
    return message_adapter().validate_python(data)


# --------------------------------------------------------------------------- tools and context


class Tool(WireModel):
    """A tool as the model sees it: name, description and JSON-schema parameters."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Context(WireModel):
    system_prompt: str | None = None
    messages: list[AgentMessage] = Field(default_factory=list)
    tools: list[Tool] | None = None


# --------------------------------------------------------------------------- models

Api = str
"""Wire protocol id: openai-completions, openai-responses, anthropic-messages,
google-generative-ai, scripted, or a custom one registered at run time."""

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")


class ModelCost(WireModel):
    """Prices in dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


_TEXT_ONLY: list[Literal["text", "image"]] = ["text"]


class Model(WireModel):
    id: str
    name: str = ""
    api: Api
    provider: str
    base_url: str = ""
    reasoning: bool = False
    input: list[Literal["text", "image"]] = Field(default_factory=lambda: _TEXT_ONLY.copy())
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128_000
    max_tokens: int = 16_384
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    """OpenAI-compatibility switches (see models-configuration.md)."""

    @property
    def ref(self) -> str:
        """``provider/id``, the form the CLI and settings use."""
        return f"{self.provider}/{self.id}"

    def to_public_wire(self) -> dict[str, Any]:
        """``to_wire()`` for front ends (RPC, JSON mode): no password from the base URL, no header values.

        A ``baseUrl`` may carry ``user:password@`` and headers carry keys; a front end needs
        neither to show or pick a model. ``to_wire()`` itself stays complete (models are
        rebuilt from it).
        """
        from .redaction import MASK, url_for_display

        data = self.to_wire()
        if self.base_url:
            data["baseUrl"] = url_for_display(self.base_url)
        if self.headers:
            data["headers"] = dict.fromkeys(self.headers, MASK)
        return data


@functools.cache
def message_adapter() -> TypeAdapter[Any]:
    """The validator for one AgentMessage, built on first use (start-up stays light)."""
    return TypeAdapter(AgentMessage)


@functools.cache
def message_list_adapter() -> TypeAdapter[list[Any]]:
    """The validator for a list of AgentMessages (batch validation is much faster)."""
    return TypeAdapter(list[AgentMessage])
