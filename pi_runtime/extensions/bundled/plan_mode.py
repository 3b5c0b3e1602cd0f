"""``builtin:plan-mode``: ``/plan`` toggles a read-only mode for exploring before changing anything.

While on, only ``read``, ``grep``, ``find`` and ``ls`` are active, a ``tool_call`` guard blocks
``write``, ``edit`` and mutating ``bash`` commands (in case another extension re-enables them),
and the system prompt gets a ``plan_mode`` section asking for a plan instead of changes.
The state is saved with ``append_entry`` and restored when the session is resumed.
"""

from __future__ import annotations

import re
from typing import Any

PLAN_TOOLS = ["read", "grep", "find", "ls"]
PLAN_SECTION = (
    "Plan mode is on: you may only read and search. Do not change files or run commands that "
    "change anything. Explore, then answer with a numbered plan of the changes you would make."
)
ENTRY_TYPE = "plan-mode"
_READ_ONLY_BASH = re.compile(
    r"^\s*(ls|cat|head|tail|wc|grep|rg|find|pwd|echo|tree|file|stat|du|df|which|git\s+(status|log|diff|show|branch))\b"
)
_MUTATING = re.compile(r"(>|\brm\b|\bmv\b|\bcp\b|\bmkdir\b|\btouch\b|\bsed\s+-i|\bchmod\b|\bchown\b|\btee\b|\bgit\s+(commit|push|reset|checkout|merge|rebase))")


def is_read_only_bash(command: str) -> bool:
    """Whether a bash command only looks (first word on a read-only list, nothing that writes)."""
    return bool(_READ_ONLY_BASH.match(command)) and not _MUTATING.search(command)


def extension(pi: Any) -> None:
    """Register ``/plan``, the guard and the prompt section."""
    state: dict[str, Any] = {"on": False, "saved_tools": None}

    def apply(ctx: Any, on: bool) -> None:
        if on and not state["on"]:
            state["saved_tools"] = pi.get_active_tools()
            pi.set_active_tools(PLAN_TOOLS)
        elif not on and state["on"]:
            pi.set_active_tools(state["saved_tools"] or pi.get_active_tools())
        state["on"] = on
        ctx.ui.set_status("plan-mode", "plan mode" if on else None)

    async def toggle(args: str, ctx: Any) -> None:
        wanted = {"on": True, "off": False}.get(args.strip().lower(), not state["on"])
        apply(ctx, wanted)
        pi.append_entry(ENTRY_TYPE, {"enabled": wanted, "savedTools": state["saved_tools"]})
        ctx.ui.notify("Plan mode on: read-only tools" if wanted else "Plan mode off: tools restored")

    def restore(event: Any, ctx: Any) -> None:
        for entry in reversed(ctx.session_manager.get_branch()):
            if getattr(entry, "type", None) == "custom" and getattr(entry, "custom_type", None) == ENTRY_TYPE:
                data = entry.data or {}
                if data.get("enabled"):
                    apply(ctx, True)
                    state["saved_tools"] = data.get("savedTools") or state["saved_tools"]
                return

    def guard(event: Any, ctx: Any) -> dict[str, Any] | None:
        if not state["on"]:
            return None
        if event.tool_name in ("write", "edit"):
            return {"block": True, "reason": "Plan mode is on: file changes are not allowed. Present a plan instead."}
        if event.tool_name == "bash" and not is_read_only_bash(str(event.input.get("command", ""))):
            return {"block": True, "reason": "Plan mode is on: only read-only shell commands are allowed."}
        return None

    def prompt(event: Any, ctx: Any) -> None:
        if state["on"] and event.sections is not None:
            event.sections.set("plan_mode", PLAN_SECTION)

    pi.register_command("plan", toggle, description="Toggle plan mode (read-only exploration)",
                        get_argument_completions=lambda prefix: [o for o in ("on", "off") if o.startswith(prefix)] or None)
    pi.on("session_start", restore)
    pi.on("tool_call", guard)
    pi.on("before_agent_start", prompt)
