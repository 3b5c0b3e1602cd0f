"""Commands: ``/commands`` lists every slash command of the session (Pi's ``commands.ts``, in Python).

Shows ``pi.get_commands()``: extension commands, prompt templates and skills, grouped by
source; ``/commands extension`` (or ``prompt``, ``skill``) filters. Picking one offers to show
where it comes from.

    pi -e docs/examples/extensions/commands.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI

SOURCES = [("extension", "Extensions"), ("prompt", "Prompts"), ("skill", "Skills")]


def extension(pi: ExtensionAPI) -> None:
    def complete(prefix):
        matches = [key for key, _ in SOURCES if key.startswith(prefix)]
        return [{"value": key, "label": key} for key in matches] or None

    async def list_commands(args, ctx):
        commands = pi.get_commands()
        wanted = args.strip()
        shown = [c for c in commands if c["source"] == wanted] if wanted else commands
        if not shown:
            ctx.ui.notify(f"No {wanted} commands found" if wanted else "No commands found", "info")
            return

        def line(command):
            description = f" - {command['description']}" if command.get("description") else ""
            return f"/{command['name']}{description}"

        items = []
        for key, label in SOURCES:
            group = [c for c in shown if c["source"] == key]
            if group:
                items.append(f"--- {label} ---")
                items.extend(line(c) for c in group)

        selected = await ctx.ui.select("Available Commands", items)
        if selected and not selected.startswith("---"):
            name = selected.split(" - ")[0][1:]
            command = next((c for c in commands if c["name"] == name), None)
            path = command["sourceInfo"].get("path") if command else None
            if path and await ctx.ui.confirm(name, f"View source path?\n{path}"):
                ctx.ui.notify(path, "info")

    pi.register_command("commands", list_commands, description="List available slash commands",
                        get_argument_completions=complete)
