"""Wire types shared by every layer: content blocks, messages, usage, tools and contexts.

The wire types are msgspec structs (``wire.WireStruct``): camelCase on the wire, snake_case
in Python, tagged on ``type`` (content blocks) and ``role`` (messages), so a list of stored
messages is validated in one ``msgspec.convert`` call. ``Model`` (read from models.json) stays
a ``jsonmodel`` class: it keeps the unknown keys a provider reads (``thinkingLevelMap``).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar, Literal

import msgspec
from msgspec import field

from ..jsonmodel import ConfigDict, Field, JsonModel, to_camel
from .wire import WireStruct, attach_wire


def js_number(value: float) -> float | int:
    """A whole number as JavaScript writes it in JSON (``3``, not ``3.0``), for output that must read as Pi's."""
    return int(value) if value.is_integer() else value


class WireModel(JsonModel):
    """Base for the config-side types serialised to Pi's JSON (``Model``); unknown keys kept."""

    model_config = ConfigDict(alias_generator=to_camel, extra="allow")

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict in Pi's shape (camelCase, unset optionals left out)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


def now_ms() -> int:
    """Message timestamps are Unix milliseconds, as in Pi."""
    return int(time.time() * 1000)


# --------------------------------------------------------------------------- content blocks


class ContentBlock(WireStruct, tag_field="type", kw_only=True):
    """A block of a message's content; ``type`` is the tag (``text``, ``image``, ...)."""

    type: ClassVar[str]


class TextContent(ContentBlock, tag="text", kw_only=True):
    type: ClassVar[Literal["text"]] = "text"
    text: str = ""
    text_signature: str | None = None
    """Opaque provider metadata (OpenAI Responses message id)."""


class ThinkingContent(ContentBlock, tag="thinking", kw_only=True):
    type: ClassVar[Literal["thinking"]] = "thinking"
    thinking: str = ""
    thinking_signature: str | None = None
    """Opaque replay data (Anthropic signature, encrypted reasoning)."""
    redacted: bool | None = None


class ImageContent(ContentBlock, tag="image", kw_only=True):
    type: ClassVar[Literal["image"]] = "image"
    data: str
    """Base64-encoded image bytes."""
    mime_type: str


class ToolCall(ContentBlock, tag="toolCall", kw_only=True):
    type: ClassVar[Literal["toolCall"]] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    thought_signature: str | None = None
    namespace: str | None = None
    arguments_error: str | None = None
    """Why the finished call's argument text was not a JSON object (then ``arguments`` is empty
    and the tool is not run), with the text itself; ``ai/tool_arguments.py``."""


AssistantContent = TextContent | ThinkingContent | ToolCall
UserContent = TextContent | ImageContent


# --------------------------------------------------------------------------- usage


class Cost(WireStruct, kw_only=True):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0
    total_from_provider: bool | None = None
    """False once ``total`` was computed from the model's prices, True when it is what the provider
    billed (OpenRouter's reported cost); unset until usage arrived, as in Pi."""


class Usage(WireStruct, kw_only=True):
    # Field order is the key order Pi writes (``reasoning`` before ``totalTokens``).
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int | None = None
    """Reasoning tokens, when the server reports them; already part of ``output``."""
    total_tokens: int = 0
    cost: Cost = field(default_factory=Cost)
    cache_write_1h: int | None = field(default=None, name="cacheWrite1h")
    """Of ``cache_write``, the tokens written with a one-hour lifetime (Anthropic), priced at twice
    the input price (Pi's ``cacheWrite1h``)."""

    def compute_cost(self, model: Model) -> None:
        """Fill ``cost`` from the model's per-million-token prices (``total_tokens`` is the provider's).

        As Pi's ``calculateCost``: a request whose whole input (fresh, cached and written)
        exceeds a pricing tier's threshold is priced at that tier for every token (the highest
        such tier wins), one-hour cache writes cost twice the input price, and each price is
        divided before it multiplies, so the floats, and so the footer's rounding, come out as
        Pi's. ``cost.total_from_provider`` becomes False (the total is ours, not billed).
        """
        prices: ModelCost | CostTier = model.cost
        prompt = self.input + self.cache_read + self.cache_write
        threshold = -1.0
        for tier in model.cost.tiers or ():
            if prompt > tier.input_tokens_above > threshold:
                prices, threshold = tier, tier.input_tokens_above
        c = self.cost
        long_write = self.cache_write_1h or 0
        c.input = (prices.input / 1_000_000) * self.input
        c.output = (prices.output / 1_000_000) * self.output
        c.cache_read = (prices.cache_read / 1_000_000) * self.cache_read
        c.cache_write = (prices.cache_write * (self.cache_write - long_write) + prices.input * 2 * long_write) / 1_000_000
        c.total = c.input + c.output + c.cache_read + c.cache_write
        c.total_from_provider = False


# --------------------------------------------------------------------------- messages

StopReason = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]


class MessageBase(WireStruct, tag_field="role", kw_only=True):
    """A message the agent keeps; ``role`` is the tag."""

    role: ClassVar[str]


class SystemMessage(MessageBase, tag="system", kw_only=True):
    role: ClassVar[Literal["system"]] = "system"
    content: str | list[TextContent] = ""
    sections: dict[str, str | None] | None = None
    timestamp: int = field(default_factory=now_ms)
    tools_added: list[dict[str, Any]] | None = None
    tools_removed: list[dict[str, Any]] | None = None


class UserMessage(MessageBase, tag="user", kw_only=True):
    role: ClassVar[Literal["user"]] = "user"
    content: str | list[UserContent]
    timestamp: int = field(default_factory=now_ms)


class AssistantMessage(MessageBase, tag="assistant", kw_only=True):
    # Field order is the key order Pi writes: what the stream learns comes after ``timestamp``.
    role: ClassVar[Literal["assistant"]] = "assistant"
    content: list[AssistantContent] = field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    provider_thinking_level: str | None = None
    """The effort a Codex model was told mid-conversation (Pi's ``providerThinkingLevel``), replayed
    with the message as a ``configuration_update`` item."""
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "pending"
    timestamp: int = field(default_factory=now_ms)
    response_id: str | None = None
    response_model: str | None = None
    raw_stop_reason: str | None = None
    """The provider's own word for why it stopped (``finish_reason``, ``stop_reason``,
    ``finishReason``, the response's status), as Pi records it."""
    error_message: str | None = None
    duration_ms: int | None = None
    """How long the model call took, set by the agent loop (Pi's ``durationMs``)."""
    thinking_level: str | None = None
    """The thinking level the call asked for ("off" when none), set by the agent loop."""

    def text(self) -> str:
        """All text blocks joined: what a user reads as the answer."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(MessageBase, tag="toolResult", kw_only=True):
    role: ClassVar[Literal["toolResult"]] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    duration_ms: int | None = None
    """How long the tool ran (Pi's ``durationMs``); none when it never ran (unknown, blocked)."""
    timestamp: int = field(default_factory=now_ms)
    nested_calls: dict[str, Any] | None = None
    """Pi's ``nestedCalls``: a bounded record of the calls this tool made to other tools (a codemode
    script's), ``{"calls": [{id, name, status, arguments?, argumentsBytes?, durationMs?, error?}], "complete"}``."""


class BashExecutionMessage(MessageBase, tag="bashExecution", kw_only=True):
    role: ClassVar[Literal["bashExecution"]] = "bashExecution"
    command: str
    output: str = ""
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: int = field(default_factory=now_ms)


class CustomMessage(MessageBase, tag="custom", kw_only=True):
    role: ClassVar[Literal["custom"]] = "custom"
    custom_type: str
    content: str | list[UserContent] = ""
    display: bool = True
    details: Any = None
    timestamp: int = field(default_factory=now_ms)


class BranchSummaryMessage(MessageBase, tag="branchSummary", kw_only=True):
    role: ClassVar[Literal["branchSummary"]] = "branchSummary"
    summary: str
    from_id: str | None = None
    timestamp: int = field(default_factory=now_ms)


class CompactionSummaryMessage(MessageBase, tag="compactionSummary", kw_only=True):
    role: ClassVar[Literal["compactionSummary"]] = "compactionSummary"
    summary: str
    tokens_before: int = 0
    timestamp: int = field(default_factory=now_ms)


class UnknownMessage(msgspec.Struct):
    """A role this version does not know (an extension's, or a newer Pi's), or a stored message
    that does not validate (role ``unreadable``): ``data`` is the wire dict, kept verbatim."""

    role: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return dict(self.data)

    def model_dump(self, **_ignored: Any) -> dict[str, Any]:
        return dict(self.data)

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> UnknownMessage:
        import copy

        data = copy.deepcopy(self.data) if deep else dict(self.data)
        return UnknownMessage(role=self.role, data={**data, **(update or {})})

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup failed: a key of the kept wire dict.
        if not name.startswith("__"):
            data = object.__getattribute__(self, "data")
            if name in data:
                return data[name]
        raise AttributeError(f"'UnknownMessage' object has no attribute {name!r}")


KnownMessage = (
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | BashExecutionMessage
    | CustomMessage | BranchSummaryMessage | CompactionSummaryMessage
)
AgentMessage = KnownMessage | UnknownMessage
"""Every message the agent keeps; the LLM only ever sees user/assistant/toolResult."""

Message = UserMessage | AssistantMessage | ToolResultMessage

_MESSAGE_CLASSES: dict[str, type[MessageBase]] = {
    cls.role: cls for cls in (SystemMessage, UserMessage, AssistantMessage, ToolResultMessage,
                              BashExecutionMessage, CustomMessage, BranchSummaryMessage, CompactionSummaryMessage)
}


def parse_message(data: Any) -> Any:
    """One wire dict as its message class (``UnknownMessage`` for a role this version does not
    know). Raises ``msgspec.ValidationError`` (a ``ValueError``) naming the field."""
    if isinstance(data, MessageBase | UnknownMessage):
        return data
    role = data.get("role") if isinstance(data, dict) else None
    cls = _MESSAGE_CLASSES.get(role) if isinstance(role, str) else None
    if cls is None:
        if not isinstance(data, dict):
            raise msgspec.ValidationError(f"Expected `object`, got `{type(data).__name__}`")
        return UnknownMessage(role=role if isinstance(role, str) else "unknown", data=dict(data))
    return attach_wire(msgspec.convert(data, cls, strict=False), data)


def parse_message_list(items: list[Any]) -> list[Any]:
    """Many wire dicts at once: one msgspec call when every role is known (the norm).

    Raises ``msgspec.ValidationError`` for the first message that does not validate.
    """
    known = _MESSAGE_CLASSES
    if all(type(m) is dict and m.get("role") in known for m in items):
        messages = msgspec.convert(items, list[KnownMessage], strict=False)
        for message, data in zip(messages, items):
            message.__dict__["_wire"] = data  # attach_wire, inlined: 20,000 calls on a resume
        return messages
    return [parse_message(m) for m in items]


# --------------------------------------------------------------------------- tools and context


def _empty_parameters() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


class Tool(WireStruct, kw_only=True):
    """A tool as the model sees it: name, description and JSON-schema parameters."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=_empty_parameters)
    constrained_sampling: dict[str, Any] | None = None
    """Pi's ``constrainedSampling``: ``{"type": "json_schema", "strict": "prefer" | "require"}`` asks
    providers with a strict tool mode (OpenAI Responses) to send the schema strict when it fits."""


class Context(WireStruct, kw_only=True):
    system_prompt: str | None = None
    messages: list[Any] = field(default_factory=list)
    """AgentMessages; a stored one may still be its wire dict (see ``agent/transcript.py``)."""
    tools: list[Tool] | None = None

    @classmethod
    def model_validate(cls, obj: Any) -> Context:
        if isinstance(obj, Context):
            return obj
        if not isinstance(obj, dict):
            raise msgspec.ValidationError(f"Expected `object`, got `{type(obj).__name__}`")
        messages = obj.get("messages", [])
        if not isinstance(messages, list):
            raise msgspec.ValidationError("Expected `array` - at `$.messages`")
        context = msgspec.convert({k: v for k, v in obj.items() if k != "messages"}, cls, strict=False)
        for index, message in enumerate(messages):
            try:
                context.messages.append(parse_message(message))
            except msgspec.ValidationError as exc:
                raise msgspec.ValidationError(f"{exc} (in `$.messages[{index}]`)") from None
        return context


# --------------------------------------------------------------------------- models

Api = str
"""Wire protocol id: openai-completions, openai-responses, anthropic-messages, google-generative-ai,
mistral-conversations, azure-openai-responses, openai-codex-responses, pi-messages, scripted, or a
custom one registered at run time."""

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

VIRTUAL_MODEL_API = "pi-virtual"
"""The api of a virtual model's catalogue entry (``virtual.py``); no provider serves it, a request
made with one is routed to a physical model first."""


def is_virtual(model: Any) -> bool:
    """Whether a model, an assistant message or a message dict names a virtual model."""
    if isinstance(model, dict):
        return model.get("api") == VIRTUAL_MODEL_API
    return getattr(model, "api", None) == VIRTUAL_MODEL_API


class CostTier(WireModel):
    """Prices for a request whose input exceeds ``input_tokens_above`` (models.json ``cost.tiers``)."""

    input_tokens_above: float = 0.0
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class ModelCost(WireModel):
    """Prices in dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    tiers: list[CostTier] | None = None
    """Request-wide long-context prices: the highest threshold the request's input exceeds applies."""


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
    """The wire API's switches for this model (Pi's ``compat``; see models-configuration.md)."""
    thinking_level_map: dict[str, str | None] | None = None
    """Pi thinking level -> the provider's value; null marks a level the model lacks."""
    input_limits: dict[str, Any] | None = None
    """Request size and image limits (``maxRequestBytes``, ``images.maxPerRequest``, resizing)."""
    prompt_cache: dict[str, Any] | None = None
    """Prompt-cache lifetimes in seconds per retention tier (``short``, ``long``)."""
    sampling_params: dict[str, Any] | None = None
    """Default sampling parameters (temperature, top_p, ...); a request's own win."""
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    """Sampling parameters for a thinking level, over ``sampling_params``."""

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
        if isinstance(data.get("cost"), dict):  # prices as Pi writes them: 3 and 0, not 3.0 and 0.0
            data["cost"] = {key: js_number(value) if isinstance(value, float) else value
                            for key, value in data["cost"].items()}
        if self.base_url:
            data["baseUrl"] = url_for_display(self.base_url)
        if self.headers:
            data["headers"] = dict.fromkeys(self.headers, MASK)
        return data
