"""Dirty repo guard: no new, switched or forked session while git has uncommitted changes
(Pi's ``dirty-repo-guard.ts``, in Python).

With a UI it asks; without one (print/JSON mode, the SDK) it cancels. Outside a git repository it
never interferes.

    pi -e docs/examples/extensions/dirty_repo_guard.py
"""

from __future__ import annotations

from pi_runtime.extensions import ExtensionAPI

PROCEED = "Yes, proceed anyway"


def extension(pi: ExtensionAPI) -> None:
    async def check(ctx, action):
        status = await pi.exec("git", ["status", "--porcelain"])
        if status.code != 0 or not status.stdout.strip():
            return None  # not a repository, or nothing uncommitted
        if not ctx.has_ui:
            return {"cancel": True}
        changed = len([line for line in status.stdout.strip().split("\n") if line])
        choice = await ctx.ui.select(f"You have {changed} uncommitted file(s). {action} anyway?",
                                     [PROCEED, "No, let me commit first"])
        if choice != PROCEED:
            ctx.ui.notify("Commit your changes first", "warning")
            return {"cancel": True}
        return None

    async def before_switch(event, ctx):
        return await check(ctx, "new session" if event.reason == "new" else "switch session")

    async def before_fork(event, ctx):
        return await check(ctx, "fork")

    pi.on("session_before_switch", before_switch)
    pi.on("session_before_fork", before_fork)
