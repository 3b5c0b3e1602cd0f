"""Run one ``codemode`` call: parse, give the script its tools and globals, run it, lay out the result.

A script's tool calls go through ``ctx.execute_tool`` (:class:`~pi_runtime.extensions.nested.NestedCalls`):
the same validation, ``tool_call``/``tool_result`` handlers (the permission gate among them) and
abort as the model's own calls, with ``tool_execution_*`` events whose ``parentToolCallId`` is the
``codemode`` call. What a call resolves to:

- a tool with an ``output_schema`` (bash, read, MCP tools): its ``structured_content``, also when
  the result is an error that carries one;
- any other tool: its text; a failed, blocked or invalid call rejects with an ``Error`` holding the
  tool's error text.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ..agent.tool import ToolError, ToolResult
from ..ai.abort import AbortSignal
from ..ai.types import TextContent
from . import output as layout
from .declarations import to_identifier
from .sandbox import CallRecord, RunResult, ScriptFunction, run_script
from .search import DEFAULT_LIMIT, Namespace, rank, search_document
from .source import CodemodeSourceError, parse_source
from .tool import STORE_ENTRY_TYPE, TOOL_NAME, ToolInfo

ARGS_PREVIEW_CHARS = 200
ERROR_PREVIEW_CHARS = 500
MODEL_TYPES = ("chat", "image", "classifier")


def _preview(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_store(branch: Sequence[Any]) -> dict[str, Any]:
    """``load()``'s values: the ``codemode-store`` entries on the branch, applied from the root."""
    store: dict[str, Any] = {}
    for entry in branch:
        if getattr(entry, "type", None) != "custom" or getattr(entry, "custom_type", None) != STORE_ENTRY_TYPE:
            continue
        data = getattr(entry, "data", None)
        if not isinstance(data, dict) or not isinstance(data.get("set"), dict) or not isinstance(data.get("delete"), list):
            continue
        if not all(isinstance(key, str) for key in data["delete"]):
            continue
        for key in data["delete"]:
            store.pop(key, None)
        store.update(data["set"])
    return store


class ScriptCalls:
    """The call rows of one script, as ``details.calls`` (what front ends draw while it runs)."""

    def __init__(self, call_id: str, publish: Callable[[dict[str, Any]], None] | None) -> None:
        self.call_id = call_id
        self.rows: list[dict[str, Any]] = []
        self._publish = publish

    def snapshot(self) -> dict[str, Any]:
        return {"calls": [dict(row) for row in self.rows]}

    def publish(self) -> None:
        if self._publish is not None:
            self._publish(self.snapshot())


def _script_value(tool: Any, result: Any) -> Any:
    if getattr(tool, "output_schema", None) and result.structured_content is not None:
        return result.structured_content
    text = "\n".join(getattr(b, "text", "") for b in result.content if isinstance(b, TextContent))
    if result.is_error:
        raise ToolError(text or f'Tool "{tool.name}" failed')
    return text


def tool_functions(callable_: Sequence[Any], samples: dict[str, str], execute_tool: Callable[..., Any],
                   rows: ScriptCalls) -> list[ScriptFunction]:
    """One sandbox function per callable tool, each running through ``execute_tool``."""
    import json

    functions = []
    for tool in callable_:
        async def execute(args: Any, signal: AbortSignal, tool: Any = tool) -> Any:
            try:
                preview = _preview(json.dumps(args, ensure_ascii=False, separators=(",", ":")), ARGS_PREVIEW_CHARS) \
                    if args is not None else ""
            except (TypeError, ValueError):
                preview = ""
            row: dict[str, Any] = {"id": f"{rows.call_id}/?", "name": tool.name, "args": preview, "status": "running"}
            rows.rows.append(row)
            rows.publish()
            started = time.monotonic()
            result = await execute_tool(tool.name, args if isinstance(args, dict) else {}, signal=signal)
            row["durationMs"] = (time.monotonic() - started) * 1000
            row["id"] = getattr(result, "tool_call_id", "") or row["id"]
            if result.is_error:
                row["status"] = "cancelled" if signal.aborted else "error"
                text = "\n".join(getattr(b, "text", "") for b in result.content if isinstance(b, TextContent))
                row["error"] = _preview(text or f'Tool "{tool.name}" failed', ERROR_PREVIEW_CHARS)
            else:
                row["status"] = "ok"
            rows.publish()
            return _script_value(tool, result)

        functions.append(ScriptFunction(tool.name, execute, samples[tool.name], to_identifier(tool.name)))
    return functions


def _names_namespace(namespace: Namespace, query: str) -> bool:
    wanted = to_identifier(query)
    return any(name == query or to_identifier(name) == wanted for name in (namespace.name, *namespace.aliases))


def discovery_functions(infos: Sequence[ToolInfo], samples: dict[str, str]) -> list[ScriptFunction]:
    """``searchTools()``, ``describeTool()`` and ``describeNamespace()``."""

    def entry(name: str) -> dict[str, str]:
        return {"name": to_identifier(name), "description": samples.get(name, "")}

    async def search_tools(args: Any, _signal: AbortSignal) -> Any:
        query, options = (list(args or []) + [None, None])[:2]
        if not isinstance(query, str):
            raise ValueError("searchTools() expects a query string")
        options = options if isinstance(options, dict) else {}
        limit = options.get("limit", DEFAULT_LIMIT)
        if limit is None:
            limit = DEFAULT_LIMIT
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit != int(limit) or limit <= 0:
            raise ValueError("searchTools() limit must be a positive integer")
        namespace = options.get("namespace")
        if namespace is not None and not isinstance(namespace, str):
            raise ValueError("searchTools() namespace must be a string")
        documents = [search_document(i.name, i.description, i.parameters, i.namespace) for i in infos
                     if not namespace or (i.namespace is not None and _names_namespace(i.namespace, namespace))]
        return [entry(name) for name in rank(query, documents, int(limit))]

    async def describe_tool(args: Any, _signal: AbortSignal) -> Any:
        name = (list(args or []) + [None])[0]
        if not isinstance(name, str):
            raise ValueError("describeTool() expects a tool name")
        found = next((i for i in infos if i.name == name or to_identifier(i.name) == name), None)
        return samples.get(found.name) if found else None

    async def describe_namespace(args: Any, _signal: AbortSignal) -> Any:
        name = (list(args or []) + [None])[0]
        if not isinstance(name, str):
            raise ValueError("describeNamespace() expects a namespace name")
        found: Namespace | None = None
        names = []
        for info in infos:
            if info.namespace is None or not _names_namespace(info.namespace, name):
                continue
            found = found or info.namespace
            names.append(to_identifier(info.name))
        if found is None:
            return None
        out: dict[str, Any] = {"name": found.name}
        if found.description:
            out["description"] = found.description
        if found.instructions:
            out["instructions"] = found.instructions
        out["tools"] = names
        return out

    return [ScriptFunction("searchTools", search_tools, spread=True),
            ScriptFunction("describeTool", describe_tool, spread=True),
            ScriptFunction("describeNamespace", describe_namespace, spread=True)]


def _model_type(value: Any) -> str:
    if isinstance(value, str) and value in MODEL_TYPES:
        return value
    raise ValueError(f'Unknown model type {_js(value)}. Use "chat", "image", or "classifier".')


def _js(value: Any) -> str:
    from .declarations import js_json

    return "undefined" if value is None else js_json(value)


class _CatalogModel:
    """An image or classifier model of the catalog (a dict in Pi's shape) with ``provider`` and ``id``."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row
        self.provider = str(row.get("provider", ""))
        self.id = str(row.get("id", ""))

    def to_wire(self) -> dict[str, Any]:
        return dict(self.row)


def _model_info(model: Any) -> dict[str, Any]:
    info = dict(model.to_wire()) if hasattr(model, "to_wire") else dict(model)
    info.pop("headers", None)  # models.json headers can carry credentials
    return info


def model_functions(registry: Any) -> list[ScriptFunction]:
    """``models.*``: the catalog by type. Chat models come from the registry; classifier and image
    models appear when the registry knows such types (``model.type``), and running them needs the
    registry's ``classify`` / ``generate_images``."""

    def of_type(kind: str, provider: Any) -> list[Any]:
        if provider is not None and not isinstance(provider, str):
            raise ValueError("provider must be a string")
        if kind != "chat":  # image and classifier models: the built-in catalog's (Pi's) entries
            from ..ai import catalog

            rows = catalog.image_models(provider) if kind == "image" else catalog.classifier_models(provider)
            return [_CatalogModel(row) for row in rows]
        return [m for m in (registry.all() if registry is not None else [])
                if provider is None or m.provider == provider]

    def available(model: Any) -> bool:
        if registry is None:
            return False
        if not isinstance(model, _CatalogModel):
            return bool(registry.has_credentials(model))
        # Non-chat models use their provider's credentials: available when a chat model of it has them.
        return any(registry.has_credentials(m) for m in registry.all() if m.provider == model.provider)

    async def get_models_of_type(args: Any, _signal: AbortSignal) -> Any:
        kind, provider = (list(args or []) + [None, None])[:2]
        return [_model_info(m) for m in of_type(_model_type(kind), provider)]

    async def get_available_of_type(args: Any, _signal: AbortSignal) -> Any:
        kind, provider = (list(args or []) + [None, None])[:2]
        return [_model_info(m) for m in of_type(_model_type(kind), provider) if available(m)]

    async def get_model_of_type(args: Any, _signal: AbortSignal) -> Any:
        kind, provider, model_id = (list(args or []) + [None, None, None])[:3]
        if not isinstance(provider, str) or not isinstance(model_id, str):
            shown = ", ".join(_describe_value(a) for a in (args or []))
            raise ValueError(f"models.getModelOfType(type, provider, id) expects three strings, got ({shown}). The "
                             "provider and the id are separate arguments, for example "
                             'models.getModelOfType("classifier", "typesafe", "jev-latest").')
        found = next((m for m in of_type(_model_type(kind), provider) if m.id == model_id), None)
        return None if found is None else _model_info(found)

    def runner(name: str, kind: str, method: str) -> Callable[[Any, AbortSignal], Any]:
        async def run(args: Any, signal: AbortSignal) -> Any:
            model, context = (list(args or []) + [None, None])[:2]
            hint = f'List the {kind} models you can use with models.getAvailableOfType("{kind}").'
            article = "an" if kind[0] in "aeiou" else "a"
            if not isinstance(model, dict) or not isinstance(model.get("provider"), str) or not isinstance(model.get("id"), str):
                extra = (" models.getModelOfType() returns undefined for an unknown provider or id."
                         if model is None else "")
                raise ValueError(f"{name}() expects {article} {kind} model as its first argument, got "
                                 f"{_describe_value(model)}.{extra} {hint}")
            found = next((m for m in of_type(kind, model["provider"]) if m.id == model["id"]), None)
            if found is None:
                raise ValueError(f'Unknown {kind} model "{model["provider"]}/{model["id"]}". {hint}')
            if not hasattr(registry, method):
                raise ValueError(f'{name}() cannot run "{found.provider}/{found.id}": this pi lists {kind} models '
                                 "but does not run them yet.")
            return await getattr(registry, method)(found, context, signal=signal)

        return run

    return [ScriptFunction("models.getModelsOfType", get_models_of_type, spread=True),
            ScriptFunction("models.getAvailableOfType", get_available_of_type, spread=True),
            ScriptFunction("models.getModelOfType", get_model_of_type, spread=True),
            ScriptFunction("models.classify", runner("models.classify", "classifier", "classify"), spread=True),
            ScriptFunction("models.generateImages", runner("models.generateImages", "image", "generate_images"),
                           spread=True)]


def _describe_value(value: Any) -> str:
    if value is None:
        return "undefined"
    if isinstance(value, list):
        return "an empty array" if not value else "an array"
    if isinstance(value, dict):
        keys = list(value)
        if not keys:
            return "{}"
        return "{ " + ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "") + " }"
    if isinstance(value, str):
        return "a string"
    return "a boolean" if isinstance(value, bool) else "a number"


async def execute_codemode(
    call_id: str,
    code: str,
    *,
    signal: AbortSignal | None,
    on_update: Callable[[ToolResult], None] | None,
    callable_: Sequence[Any],
    guidelines: Callable[[str], Sequence[str]],
    execute_tool: Callable[..., Any],
    branch: Sequence[Any],
    append_store: Callable[[dict[str, Any]], Any],
    registry: Any = None,
) -> ToolResult:
    """Run ``code`` as the ``codemode`` call ``call_id`` and return its result.

    Raises:
        ToolError: A malformed source or options line (before anything runs).
    """
    started = time.monotonic()
    try:
        source = parse_source(code)
    except CodemodeSourceError as exc:
        raise ToolError(str(exc)) from None
    rows = ScriptCalls(call_id, (lambda details: on_update(ToolResult(content=[], details=details)))
                       if on_update is not None else None)
    rows.publish()  # the script is running before its first call
    tools = [t for t in callable_ if t.name != TOOL_NAME]
    infos = [ToolInfo.of(t, guidelines(t.name)) for t in tools]
    samples = {info.name: info.sample() for info in infos}
    functions = tool_functions(tools, samples, execute_tool, rows)
    globals_ = discovery_functions(infos, samples) + model_functions(registry)

    def wall() -> float:
        return time.monotonic() - started

    result = await run_script(source.code, tools=functions, globals_=globals_, store=read_store(branch),
                              timeout_ms=source.timeout_ms, signal=signal, on_call=_ignore)
    if not isinstance(result, RunResult):
        from .pool import WORKER_WAIT_SECONDS, max_workers

        if result == "aborted":
            # What Pi shows for an abort without a reason (the message of the abort signal's default reason).
            reason = signal.reason if signal is not None and signal.reason else "This operation was aborted"
            error = f"Script aborted: {reason}"
        elif result == "timeout":
            error = (f"Script timed out: Execution timed out after {source.timeout_ms} ms while waiting for a free "
                     "codemode worker")
        else:
            error = (f"No codemode worker became free within {WORKER_WAIT_SECONDS:g} seconds. All {max_workers()} "
                     "workers, shared by every session in this process, are held by other scripts. Retry after they "
                     "finish.")
        return ToolResult(content=layout.not_started(error, wall()), details=rows.snapshot(), is_error=True)
    for row in rows.rows:
        if row["status"] == "running":
            row["status"] = "cancelled"
    if result.ok and (result.store_set or result.store_delete):
        append_store({"set": result.store_set, "delete": result.store_delete})
    max_tokens = source.max_output_tokens if source.max_output_tokens is not None else layout.DEFAULT_MAX_OUTPUT_TOKENS
    blocks, full_path = layout.result_blocks(result, max_tokens, wall)
    details = rows.snapshot()
    if full_path:
        details["fullOutputPath"] = full_path
    return ToolResult(content=list(blocks), details=details, is_error=not result.ok)


def _ignore(_record: CallRecord) -> None:
    return None
