"""Plan mode: read-only exploration, then tracked execution (Pi's ``plan-mode/``, in Python).

- ``/plan``, ``ctrl+alt+p`` or ``pi --plan`` toggle it: ``edit`` and ``write`` go away, bash is
  limited to an allowlist of read-only commands, and each prompt carries a plan-mode context;
- the numbered steps under the answer's ``Plan:`` header become todos; then the user chooses
  to execute (full tools, ``[DONE:n]`` tags tick steps off, a widget shows progress), stay, or refine;
- the state is kept in ``plan-mode`` entries, so a resume continues where it stopped.

    pi -e docs/examples/extensions/plan_mode --plan
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI

from .utils import TodoItem, all_steps_complete, extract_todo_items, is_safe_command, mark_completed_steps

PLAN_MODE_TOOLS = ["read", "bash", "grep", "find", "ls", "questionnaire"]
NORMAL_MODE_TOOLS = ["read", "bash", "edit", "write"]
PLAN_MODE_DISABLED = {"edit", "write"}
PLAN_MANAGED = set(PLAN_MODE_TOOLS) | set(NORMAL_MODE_TOOLS)

PLAN_CONTEXT = """[PLAN MODE ACTIVE]
You are in plan mode - a read-only exploration mode for safe code analysis.

Restrictions:
- Built-in edit and write tools are disabled
- Other currently active tools remain available
- Bash is restricted to an allowlist of read-only commands

Ask clarifying questions using the questionnaire tool.
Use brave-search skill via bash for web research.

Create a detailed numbered plan under a "Plan:" header:

Plan:
1. First step description
2. Second step description
...

Do NOT attempt to make changes - just describe what you would do."""


def _is_assistant(message) -> bool:
    return getattr(message, "role", None) == "assistant" and isinstance(getattr(message, "content", None), list)


def _text_of(message) -> str:
    # Thinking included: reasoning models often put the plan and the [DONE:n] tags there.
    parts = []
    for block in message.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "thinking":
            parts.append(block.thinking or "")
    return "\n".join(parts)


def extension(pi: ExtensionAPI) -> None:
    state = {"enabled": False, "executing": False, "todos": [], "tools_before": None}

    pi.register_flag("plan", description="Start in plan mode (read-only exploration)", type="boolean", default=False)

    def update_status(ctx) -> None:
        theme, todos = ctx.ui.theme, state["todos"]
        if state["executing"] and todos:
            done = sum(t.completed for t in todos)
            ctx.ui.set_status("plan-mode", theme.fg("accent", f"📋 {done}/{len(todos)}"))
        elif state["enabled"]:
            ctx.ui.set_status("plan-mode", theme.fg("warning", "⏸ plan"))
        else:
            ctx.ui.set_status("plan-mode", None)
        if state["executing"] and todos:
            lines = []
            for item in todos:
                text = item.text if len(item.text) <= 60 else item.text[:57] + "..."
                if item.completed:
                    lines.append(theme.fg("success", "☑ ") + theme.fg("muted", theme.strikethrough(text)))
                else:
                    lines.append(theme.fg("muted", "☐ ") + text)
            ctx.ui.set_widget("plan-todos", lines)
        else:
            ctx.ui.set_widget("plan-todos", None)

    def plan_tools(active: list[str]) -> list[str]:
        return list(dict.fromkeys([n for n in active if n not in PLAN_MODE_DISABLED] + PLAN_MODE_TOOLS))

    def normal_tools(active: list[str]) -> list[str]:
        return list(dict.fromkeys(NORMAL_MODE_TOOLS + [n for n in active if n not in PLAN_MANAGED]))

    def enable_plan_tools() -> None:
        if state["tools_before"] is None:
            state["tools_before"] = pi.get_active_tools()
        pi.set_active_tools(plan_tools(state["tools_before"]))

    def restore_tools() -> None:
        pi.set_active_tools(state["tools_before"] or normal_tools(pi.get_active_tools()))
        state["tools_before"] = None

    def persist() -> None:
        pi.append_entry("plan-mode", {"enabled": state["enabled"], "todos": [t.to_dict() for t in state["todos"]],
                                      "executing": state["executing"], "toolsBeforePlanMode": state["tools_before"]})

    def toggle(ctx) -> None:
        state["enabled"] = not state["enabled"]
        state["executing"], state["todos"] = False, []
        if state["enabled"]:
            enable_plan_tools()
            ctx.ui.notify("Plan mode enabled. Built-in write tools disabled.")
        else:
            restore_tools()
            ctx.ui.notify("Plan mode disabled. Full access restored.")
        update_status(ctx)
        persist()

    def show_todos(args, ctx) -> None:
        if not state["todos"]:
            ctx.ui.notify("No todos. Create a plan first with /plan", "info")
            return
        listing = "\n".join(f"{i}. {'✓' if t.completed else '○'} {t.text}" for i, t in enumerate(state["todos"], 1))
        ctx.ui.notify(f"Plan Progress:\n{listing}", "info")

    def guard(event, ctx):
        if not state["enabled"] or event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        if not is_safe_command(command):
            return {"block": True, "reason": "Plan mode: command blocked (not allowlisted). "
                                             f"Use /plan to disable plan mode first.\nCommand: {command}"}
        return None

    def drop_stale_context(event, ctx):
        if state["enabled"]:
            return None

        def keep(message) -> bool:
            if getattr(message, "custom_type", None) == "plan-mode-context":
                return False
            if getattr(message, "role", None) != "user":
                return True
            content = message.content
            if isinstance(content, str):
                return "[PLAN MODE ACTIVE]" not in content
            return not any(getattr(b, "type", "") == "text" and "[PLAN MODE ACTIVE]" in b.text for b in content)

        return {"messages": [m for m in event.messages if keep(m)]}

    def add_context(event, ctx):
        # Runs started by custom messages skip it: the last prompt's context is still there.
        if event.message_type != "user":
            return None
        if state["enabled"]:
            return {"message": {"customType": "plan-mode-context", "content": PLAN_CONTEXT, "display": False}}
        if state["executing"] and state["todos"]:
            remaining = "\n".join(f"{t.step}. {t.text}" for t in state["todos"] if not t.completed)
            return {"message": {"customType": "plan-execution-context", "display": False, "content":
                                "[EXECUTING PLAN - Full tool access enabled]\n\nRemaining steps:\n"
                                f"{remaining}\n\nExecute each step in order.\n"
                                "After completing a step, include a [DONE:n] tag in your response."}}
        return None

    def track(event, ctx):
        if not state["executing"] or not state["todos"] or not _is_assistant(event.message):
            return
        mark_completed_steps(_text_of(event.message), state["todos"])
        update_status(ctx)
        persist()

    async def after_run(event, ctx):
        todos = state["todos"]
        last = next((m for m in reversed(event.messages) if _is_assistant(m)), None)
        if state["executing"] and todos:
            if last is not None and all_steps_complete(_text_of(last)):
                for item in todos:
                    item.completed = True
            if all(t.completed for t in todos):
                finished = "\n".join(f"~~{t.text}~~" for t in todos)
                # nextTurn: shown with the next prompt instead of costing a model turn to acknowledge.
                pi.send_message({"customType": "plan-complete", "content": f"**Plan Complete!** ✓\n\n{finished}",
                                 "display": True}, deliver_as="nextTurn")
                state["executing"], state["todos"] = False, []
                update_status(ctx)
                persist()
            return
        if not state["enabled"] or not ctx.has_ui:
            return
        if last is not None:
            extracted = extract_todo_items(_text_of(last))
            if extracted:
                state["todos"] = todos = extracted
        if not todos:
            return
        persist()
        steps = "\n".join(f"{i}. ☐ {t.text}" for i, t in enumerate(todos, 1))
        card = {"customType": "plan-todo-list", "content": f"**Plan Steps ({len(todos)}):**\n\n{steps}",
                "display": True}
        choice = await ctx.ui.select("Plan mode - what next?", [
            "Execute the plan (track progress)", "Stay in plan mode", "Refine the plan"])
        if choice and choice.startswith("Execute"):
            state["enabled"], state["executing"] = False, True
            restore_tools()
            update_status(ctx)
            persist()
            remaining = "\n".join(f"{t.step}. {t.text}" for t in todos)
            pi.send_message(card, deliver_as="followUp")
            pi.send_message({"customType": "plan-mode-execute", "display": True, "content":
                             f"Execute the plan.\n\nRemaining steps:\n{remaining}\n\nStart with: {todos[0].text}\n"
                             "After completing a step, include a [DONE:n] tag in your response."},
                            deliver_as="followUp", trigger_turn=True)
        elif choice == "Refine the plan":
            refinement = await ctx.ui.editor("Refine the plan:", "")
            if refinement and refinement.strip():
                pi.send_message(card, deliver_as="followUp")
                pi.send_user_message(refinement.strip(), deliver_as="followUp")

    def restore(event, ctx):
        if pi.get_flag("plan") is True:
            state["enabled"] = True
        entries = ctx.session_manager.get_entries()
        saved = [e for e in entries if e.type == "custom" and e.custom_type == "plan-mode"]
        if saved and saved[-1].data:
            data = saved[-1].data
            state["enabled"] = data.get("enabled", state["enabled"])
            state["todos"] = [TodoItem(**t) for t in data.get("todos") or []] or state["todos"]
            state["executing"] = data.get("executing", state["executing"])
            state["tools_before"] = data.get("toolsBeforePlanMode", state["tools_before"])
        if saved and state["executing"] and state["todos"]:
            # Only answers after the last plan-mode-execute message count for this plan.
            start = max((i for i, e in enumerate(entries) if getattr(e, "custom_type", None) == "plan-mode-execute"),
                        default=-1)
            texts = [_text_of(e.message) for e in entries[start + 1:]
                     if e.type == "message" and _is_assistant(e.message)]
            mark_completed_steps("\n".join(texts), state["todos"])
        if state["enabled"]:
            enable_plan_tools()
        update_status(ctx)

    pi.register_command("plan", lambda args, ctx: toggle(ctx), description="Toggle plan mode (read-only exploration)")
    pi.register_command("todos", show_todos, description="Show current plan todo list")
    pi.register_shortcut("ctrl+alt+p", lambda ctx: toggle(ctx), description="Toggle plan mode")
    pi.on("tool_call", guard)
    pi.on("context", drop_stale_context)
    pi.on("before_agent_start", add_context)
    pi.on("turn_end", track)
    pi.on("agent_end", after_run)
    pi.on("session_start", restore)
