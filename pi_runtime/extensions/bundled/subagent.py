"""``builtin:subagent``: a ``subagent`` tool that hands a task to a child pi with a fresh context.

The child is ``<python> -m pi_runtime.cli --mode json -p <task> --no-session`` in the same
working directory, on the parent's model (``--demo`` when the parent runs the demo
model). Its JSON events are read as they arrive: tool starts are reported as progress,
and the tool's result is the child's final assistant text. Aborting the parent kills the
child (its whole process group). Children cannot start their own subagents beyond
``maxDepth`` (default 1), so a task cannot fork itself forever.

Settings (``"subagent"``): ``{"args": ["--model", "anthropic/claude-haiku-4-5"],
"maxDepth": 1, "timeoutSeconds": 600}``; ``args`` replaces the model choice.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal as _signal
import sys
from typing import Any

from ...agent.tool import ToolError, ToolParams, ToolResult
from ...jsonmodel import Field

DEPTH_ENV = "PI_SUBAGENT_DEPTH"


class SubagentParams(ToolParams):
    task: str = Field(description="The complete task for the subagent: it sees nothing of this conversation")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def child_command(task: str, model: Any, config: dict[str, Any]) -> list[str]:
    """The child's command line."""
    args = list(config.get("args") or [])
    if not args and model is not None:
        args = ["--demo"] if model.provider == "demo" else ["--model", f"{model.provider}/{model.id}"]
    return [sys.executable, "-m", "pi_runtime.cli", "--mode", "json", "--no-session", *args, "-p", task]


async def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, _signal.SIGKILL)
        except ProcessLookupError:
            pass
    await proc.wait()


def extension(pi: Any) -> None:
    """Register the ``subagent`` tool."""

    async def execute(call_id: str, params: SubagentParams, signal: Any, on_update: Any, ctx: Any) -> ToolResult:
        config = pi.get_setting("subagent", {}) or {}
        depth = int(os.environ.get(DEPTH_ENV, "0") or 0)
        if depth >= int(config.get("maxDepth", 1)):
            raise ToolError("Subagents cannot start further subagents (maxDepth reached)")
        env = {**os.environ, DEPTH_ENV: str(depth + 1)}
        proc = await asyncio.create_subprocess_exec(
            *child_command(params.task, ctx.model, config), cwd=ctx.cwd, env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True, limit=16 * 1024 * 1024,
        )
        final = ""
        tools_used: list[str] = []
        stderr_task = asyncio.ensure_future(proc.stderr.read())  # type: ignore[union-attr]
        remove = signal.add_listener(lambda: asyncio.ensure_future(_kill(proc))) if signal is not None else None

        async def read_events() -> None:
            nonlocal final
            assert proc.stdout is not None
            async for line in proc.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                kind = event.get("type")
                if kind == "tool_execution_start":
                    tools_used.append(event.get("toolName", "?"))
                    if on_update is not None:
                        on_update(ToolResult.text(f"subagent: running {event.get('toolName')}"))
                elif kind == "message_end" and (event.get("message") or {}).get("role") == "assistant":
                    message = event["message"]
                    if message.get("stopReason") == "error":
                        final = ""
                        raise ToolError(f"Subagent failed: {message.get('errorMessage') or 'model error'}")
                    final = _text(message) or final

        try:
            await asyncio.wait_for(read_events(), float(config.get("timeoutSeconds", 600)))
            code = await proc.wait()
        except TimeoutError:
            await _kill(proc)
            raise ToolError("Subagent timed out") from None
        except BaseException:
            await _kill(proc)
            raise
        finally:
            if remove is not None:
                remove()
        errors = (await stderr_task).decode("utf-8", "replace").strip()
        if signal is not None and signal.aborted:
            raise ToolError("Subagent aborted")
        if code != 0 or not final:
            raise ToolError(f"Subagent exited with status {code}: {errors[-2000:] or 'no answer'}")
        return ToolResult.text(final, details={"exitCode": code, "toolsUsed": tools_used, "task": params.task})

    pi.register_tool(
        name="subagent", label="Subagent", params=SubagentParams, execute=execute,
        description=(
            "Delegate a self-contained task to a subagent: a separate pi process with a fresh context "
            "and the same tools. Returns its final answer. Use it for focused research or side tasks."
        ),
        prompt_guidelines=["Give subagent a complete task description: it cannot see this conversation."],
    )
