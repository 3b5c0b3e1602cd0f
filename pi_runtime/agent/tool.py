"""What a tool is: a parameter model (``JsonModel`` or pydantic), an ``execute`` coroutine and a result.

``execute`` raises on failure (any exception); the agent loop turns that into a
``toolResult`` with ``isError: true`` whose text is the exception message. A tool may also
return a result marked ``is_error`` (Pi's ``isError: true``): its content and details stay as
the tool made them (bash's exit code line). ``content`` goes to the model; ``details`` is for
front ends (diffs, truncation info) and never sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import field
from typing import Any, ClassVar, Literal

from ..ai.abort import AbortSignal
from ..ai.types import ImageContent, TextContent, Tool
from ..jsonmodel import ConfigDict, JsonModel
from ..records import record


class ToolParams(JsonModel):
    """Base for tool parameter models, with names as the model sends them. Arguments a model adds
    beyond the declared ones are ignored, as Pi's schema check lets them pass (small models add
    ``encoding`` or ``recursive`` freely; refusing the call over them made a working read fail)."""

    model_config = ConfigDict(extra="ignore")


@record
class ToolResult:
    content: list[TextContent | ImageContent] = field(default_factory=list)
    details: Any = None
    terminate: bool = False
    """Runtime-only hint: stop after this batch when every result in it terminates."""
    is_error: bool = False
    """The tool failed but made its own result (Pi's ``isError``): recorded as an error result."""
    structured_content: Any = None
    """What programmatic callers (codemode scripts) get instead of the text, for tools with an
    ``output_schema`` (bash's ``{output, exit_code, ...}``); never sent to the model."""
    nested_calls: dict[str, Any] | None = None
    """The record of the calls this tool made to other tools, for its result message (set by the
    extension runner when the tool finishes; never on the wire of ``tool_execution_end``)."""

    @classmethod
    def text(cls, text: str, details: Any = None) -> ToolResult:
        return cls(content=[TextContent(text=text)], details=details)

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": [c.to_wire() for c in self.content]}
        if self.details is not None:  # as Pi: a tool without details sends no details key
            out["details"] = self.details
        if self.structured_content is not None:  # Pi's tool_execution_end carries it (never the session file)
            out["structuredContent"] = self.structured_content
        if self.terminate:  # Pi's tool_execution_end carries the hint; a result without it has no key
            out["terminate"] = True
        if self.is_error:  # likewise Pi's isError of a result a tool returned failed
            out["isError"] = True
        return out

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ToolResult:
        """The result from its wire shape (what a remote viewer receives).

        Raises:
            ValueError: A content block that is neither text nor an image.
        """
        import msgspec

        content = msgspec.convert(data.get("content") or [], list[TextContent | ImageContent], strict=False)
        return cls(content=content, details=data.get("details"), terminate=bool(data.get("terminate", False)),
                   is_error=bool(data.get("isError", False)), structured_content=data.get("structuredContent"))


Exposure = Literal["direct", "deferred", "model-only", "hidden"]

PREFER_STRICT_SCHEMA: dict[str, Any] = {"type": "json_schema", "strict": "prefer"}
"""What Pi's built-in tools declare: a strict schema where the provider takes one, else the plain one."""

UpdateCallback = Callable[[ToolResult], None]
"""Called with a partial result while a tool runs (bash output, progress)."""


class ToolError(Exception):
    """A tool failure with a message meant for the model (no traceback)."""


class ToolFailed(ToolError):
    """A failure that still has a whole result to give: a command that ran and exited non-zero.

    ``execute`` raises it, as Pi's tool tests expect of a failed command ("should handle command
    errors"), and the agent loop records ``result`` as it is (its text, details and ``isError``),
    so the session holds what Pi 1.6's bash tool returns for it.
    """

    def __init__(self, result: ToolResult) -> None:
        super().__init__("".join(c.text for c in result.content if isinstance(c, TextContent)))
        self.result = result


class AgentTool:
    """Subclass and set ``name``, ``description``, ``Params``; implement ``execute``."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    """Human-readable name for front ends."""
    description: ClassVar[str] = ""
    Params: ClassVar[type[Any]] = ToolParams
    """A ``ToolParams`` subclass, or any pydantic model (extensions may bring their own)."""
    execution_mode: ClassVar[Literal["parallel", "sequential"] | None] = None
    """``sequential`` forces the whole batch containing this tool to run one by one."""
    output_schema: dict[str, Any] | None = None
    """JSON schema of ``ToolResult.structured_content``, which scripts receive; None: they get the text."""
    exposure: str = "direct"
    """How the tool reaches the model (Pi's :data:`Exposure`): ``direct`` (declared while active),
    ``deferred`` (callable from codemode scripts, declared once ``tool_search`` loads it), ``model-only``
    (declared, never called by scripts), ``hidden`` (unreachable). An MCP tool keeps its server's
    setting here (``codemode`` counts as ``deferred``)."""
    declared_description: str | None = None
    """Set while another tool (codemode) changes how this one is declared to the model."""
    declaration_hidden: bool = False
    """Set while the tool stays callable but is left out of the model's declarations (codemode ``only``)."""
    constrained_sampling: ClassVar[dict[str, Any] | None] = None
    """Pi's ``constrainedSampling`` (see ``Tool.constrained_sampling``); declared with the tool."""

    async def execute(
        self,
        call_id: str,
        params: Any,
        signal: AbortSignal | None,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        raise NotImplementedError

    def parameters_schema(self) -> dict[str, Any]:
        """The parameters as declared to the model (Pi's compact form, :mod:`.tool_schema`)."""
        from .tool_schema import declared_schema

        return declared_schema(self.Params.model_json_schema())

    def to_tool(self) -> Tool:
        return Tool(name=self.name, description=self.declared_description or self.description,
                    parameters=self.parameters_schema(), constrained_sampling=self.constrained_sampling)


class FunctionTool(AgentTool):
    """A tool built from a plain coroutine (SDK users, extensions, tests)."""

    def __init__(
        self,
        name: str,
        description: str,
        params: type[Any],
        fn: Callable[..., Awaitable[ToolResult]],
        label: str = "",
        execution_mode: Literal["parallel", "sequential"] | None = None,
    ) -> None:
        self.name = name  # type: ignore[misc]
        self.description = description  # type: ignore[misc]
        self.Params = params  # type: ignore[misc]
        self.label = label or name  # type: ignore[misc]
        self.execution_mode = execution_mode  # type: ignore[misc]
        self._fn = fn

    async def execute(self, call_id, params, signal, on_update) -> ToolResult:
        return await self._fn(call_id, params, signal, on_update)
