"""Auto-commit on exit: commit the working tree when the session ends (Pi's ``auto-commit-on-exit.ts``).

The message is the first line of the last answer: ``[pi] <first 50 characters>``.

    pi -e docs/examples/extensions/auto_commit_on_exit.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI


def extension(pi: ExtensionAPI) -> None:
    async def on_shutdown(event, ctx):
        status = await pi.exec("git", ["status", "--porcelain"])
        if status.code != 0 or not status.stdout.strip():
            return  # not a git repository, or nothing changed

        last_text = ""
        for entry in reversed(ctx.session_manager.get_entries()):
            if entry.type == "message" and entry.message.role == "assistant":
                content = entry.message.content
                if isinstance(content, list):
                    last_text = "\n".join(block.text for block in content if block.type == "text")
                break

        first_line = last_text.split("\n")[0] or "Work in progress"
        message = f"[pi] {first_line[:50]}{'...' if len(first_line) > 50 else ''}"
        await pi.exec("git", ["add", "-A"])
        commit = await pi.exec("git", ["commit", "-m", message])
        if commit.code == 0 and ctx.has_ui:
            ctx.ui.notify(f"Auto-committed: {message}", "info")

    pi.on("session_shutdown", on_shutdown)
