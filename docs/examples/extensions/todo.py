"""Todo: a stateful tool whose state follows the session branch (Pi's ``todo.ts``, in Python).

- the ``todo`` tool lets the model list, add, toggle and clear todos;
- ``/todos`` shows the list (its own screen in the app; a notification elsewhere);
- state lives in the tool results' ``details``, so after ``/tree`` or a fork the list is the
  one of that point in history: it is rebuilt from the branch on ``session_start`` and
  ``session_tree``.

    pi -e docs/examples/extensions/todo.py
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from pi_runtime.extensions import ExtensionAPI


class TodoParams(BaseModel):
    action: Literal["list", "add", "toggle", "clear"]
    text: str | None = Field(default=None, description="Todo text (for add)")
    id: int | None = Field(default=None, description="Todo ID (for toggle)")


def extension(pi: ExtensionAPI) -> None:
    state = {"todos": [], "next_id": 1}

    def snapshot(action, error=None):
        details = {"action": action, "todos": [dict(t) for t in state["todos"]], "nextId": state["next_id"]}
        if error:
            details["error"] = error
        return details

    def reconstruct(event, ctx):
        state["todos"], state["next_id"] = [], 1
        for entry in ctx.session_manager.get_branch():
            if entry.type != "message":
                continue
            message = entry.message
            if message.role != "toolResult" or message.tool_name != "todo" or not message.details:
                continue
            state["todos"] = [dict(t) for t in message.details.get("todos", [])]
            state["next_id"] = message.details.get("nextId", 1)

    async def execute(call_id, params, signal, on_update, ctx):
        todos = state["todos"]
        if params.action == "list":
            text = "\n".join(f"[{'x' if t['done'] else ' '}] #{t['id']}: {t['text']}" for t in todos) or "No todos"
            return {"content": text, "details": snapshot("list")}
        if params.action == "add":
            if not params.text:
                return {"content": "Error: text required for add", "details": snapshot("add", "text required")}
            todo = {"id": state["next_id"], "text": params.text, "done": False}
            state["next_id"] += 1
            todos.append(todo)
            return {"content": f"Added todo #{todo['id']}: {todo['text']}", "details": snapshot("add")}
        if params.action == "toggle":
            if params.id is None:
                return {"content": "Error: id required for toggle", "details": snapshot("toggle", "id required")}
            todo = next((t for t in todos if t["id"] == params.id), None)
            if todo is None:
                return {"content": f"Todo #{params.id} not found",
                        "details": snapshot("toggle", f"#{params.id} not found")}
            todo["done"] = not todo["done"]
            return {"content": f"Todo #{todo['id']} {'completed' if todo['done'] else 'uncompleted'}",
                    "details": snapshot("toggle")}
        count = len(todos)
        state["todos"], state["next_id"] = [], 1
        return {"content": f"Cleared {count} todos", "details": snapshot("clear")}

    def render_call(args, theme, context):
        text = theme.fg("toolTitle", theme.bold("todo ")) + theme.fg("muted", args.get("action", ""))
        if args.get("text"):
            text += " " + theme.fg("dim", f'"{args["text"]}"')
        if args.get("id") is not None:
            text += " " + theme.fg("accent", f"#{args['id']}")
        return text

    def render_result(result, options, theme, context):
        details = result.details or {}
        if details.get("error"):
            return theme.fg("error", f"Error: {details['error']}")
        todos = details.get("todos", [])
        if details.get("action") == "list":
            if not todos:
                return theme.fg("dim", "No todos")
            shown = todos if options.get("expanded") else todos[:5]
            lines = [theme.fg("muted", f"{len(todos)} todo(s):")]
            for t in shown:
                check = theme.fg("success", "✓") if t["done"] else theme.fg("dim", "○")
                lines.append(f"{check} {theme.fg('accent', '#' + str(t['id']))} {t['text']}")
            if len(shown) < len(todos):
                lines.append(theme.fg("dim", f"... {len(todos) - len(shown)} more"))
            return "\n".join(lines)
        if details.get("action") == "add" and todos:
            added = todos[-1]
            return theme.fg("success", "✓ Added ") + theme.fg("accent", f"#{added['id']}") + " " + added["text"]
        if details.get("action") == "clear":
            return theme.fg("success", "✓ ") + theme.fg("muted", "Cleared all todos")
        return theme.fg("success", "✓ ") + "".join(getattr(b, "text", "") for b in result.content)

    async def show_todos(args, ctx):
        if ctx.mode != "tui":
            ctx.ui.notify("/todos requires interactive mode", "error")
            return

        def screen(tui, theme, keybindings, done):
            # Only the app calls this: it shows the widget and resumes us when done() is called.
            from textual.widgets import Static

            todos = state["todos"]
            lines = [theme.fg("accent", " Todos "), ""]
            if not todos:
                lines.append(theme.fg("dim", "  No todos yet. Ask the agent to add some!"))
            else:
                lines.append(theme.fg("muted", f"  {sum(t['done'] for t in todos)}/{len(todos)} completed"))
                for t in todos:
                    check = theme.fg("success", "✓") if t["done"] else theme.fg("dim", "○")
                    lines.append(f"  {check} {theme.fg('accent', '#' + str(t['id']))} {t['text']}")
            lines += ["", theme.fg("dim", "  Press Escape to close")]

            class TodoList(Static):
                BINDINGS = [("escape", "close", "Close"), ("ctrl+c", "close", "Close")]

                def action_close(self) -> None:
                    done(None)

            return TodoList("\n".join(lines))

        await ctx.ui.custom(screen)

    pi.on("session_start", reconstruct)
    pi.on("session_tree", reconstruct)
    pi.register_tool(
        name="todo", label="Todo", description="Manage a todo list. Actions: list, add (text), toggle (id), clear",
        params=TodoParams, execute=execute, render_call=render_call, render_result=render_result,
    )
    pi.register_command("todos", show_todos, description="Show all todos on the current branch")
