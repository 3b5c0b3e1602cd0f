"""``builtin:git-checkpoint``: snapshot the working tree every turn; restore it on /tree and /fork.

At each ``turn_start`` inside a git repository the whole working tree (tracked and
untracked, ignored files excepted) is written as a commit on a shadow ref,
``refs/pi-checkpoints/<session id>/<n>``, using a temporary index — the user's index,
branch and stash are never touched. The commit is recorded against the session leaf of
that moment with ``append_entry("git-checkpoint", {"entryId", "commit"})``.

When ``/tree`` navigation (``session_tree``) or ``/fork`` (``session_before_fork``) moves to
an earlier point, the checkpoint of the nearest entry at or before it is offered with
``ui.confirm``; restoring writes the checkpoint's files back and deletes files created
since. Setting ``{"gitCheckpoint": {"restore": "ask" | "always" | "never"}}`` (default
``ask``; headless ``ask`` means no restore).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from typing import Any

ENTRY_TYPE = "git-checkpoint"
ROOT_KEY = "root"
_IDENTITY = ["-c", "user.name=pi", "-c", "user.email=pi@localhost"]


class Git:
    """Plumbing commands for one repository, run through ``pi.exec``."""

    def __init__(self, pi: Any, top: str, git_dir: str) -> None:
        self.pi = pi
        self.top = top
        self.git_dir = git_dir

    @classmethod
    async def find(cls, pi: Any, cwd: str) -> Git | None:
        result = await pi.exec("git", ["rev-parse", "--show-toplevel", "--absolute-git-dir"], cwd=cwd)
        if result.code != 0:
            return None
        top, git_dir = result.stdout.strip().splitlines()[:2]
        return cls(pi, top, git_dir)

    async def run(self, *args: str, index: str | None = None) -> str:
        env = dict(os.environ)
        if index is not None:
            env["GIT_INDEX_FILE"] = index
        result = await self.pi.exec("git", [*_IDENTITY, *args], cwd=self.top, env=env)
        if result.code != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout.strip()

    async def _with_temp_index(self, work: Any) -> Any:
        fd, index = tempfile.mkstemp(prefix="pi-checkpoint-", suffix=".index")
        os.close(fd)
        try:
            real = os.path.join(self.git_dir, "index")
            if os.path.exists(real):
                # The copy keeps git's stat cache (unchanged files are not re-read) and must keep the
                # index's mtime too: git re-reads a "racily clean" file (changed in the same second
                # the index was written, same size) only when its mtime is not older than the index
                # file's. A fresh mtime on the copy would make git trust the stale entry and commit
                # the old content (a same-size edit made within a second of ``git add`` was lost).
                await asyncio.to_thread(shutil.copy2, real, index)
            else:
                os.unlink(index)
            return await work(index)
        finally:
            if os.path.exists(index):
                os.unlink(index)

    async def tree_of_worktree(self) -> str:
        """The tree object of the working tree as it is now (untracked files included)."""

        async def work(index: str) -> str:
            await self.run("add", "-A", "--", ".", index=index)
            return await self.run("write-tree", index=index)

        return await self._with_temp_index(work)

    async def snapshot(self, ref: str, message: str) -> str:
        """Commit the working tree onto ``ref``. Returns the commit id."""
        tree = await self.tree_of_worktree()
        head = await self.pi.exec("git", ["rev-parse", "--verify", "-q", "HEAD"], cwd=self.top)
        parents = ["-p", head.stdout.strip()] if head.code == 0 else []
        commit = await self.run("commit-tree", tree, *parents, "-m", message)
        await self.run("update-ref", ref, commit)
        return commit

    async def restore(self, commit: str) -> list[str]:
        """Make the working tree equal to ``commit``'s. Returns the files deleted."""
        current = await self.tree_of_worktree()
        added = await self.run("diff", "--name-only", "--no-renames", "--diff-filter=A", "-z", f"{commit}^{{tree}}", current)
        removed = [p for p in added.split("\0") if p]
        for rel in removed:
            path = os.path.join(self.top, rel)
            if os.path.lexists(path):
                os.unlink(path)

        async def work(index: str) -> None:
            await self.run("read-tree", commit, index=index)
            await self.run("checkout-index", "-a", "-f", index=index)

        await self._with_temp_index(work)
        return removed


def extension(pi: Any) -> None:
    """Register the snapshot and restore handlers."""
    state: dict[str, Any] = {"git": None, "checked": False, "checkpoints": {}, "count": 0, "last_tree": None}

    async def repo(ctx: Any) -> Git | None:
        if not state["checked"]:
            state["checked"] = True
            state["git"] = await Git.find(pi, ctx.cwd)
        return state["git"]

    def load(event: Any, ctx: Any) -> None:
        state["checkpoints"] = {}
        for entry in ctx.session_manager.get_entries():
            if getattr(entry, "type", None) == "custom" and getattr(entry, "custom_type", None) == ENTRY_TYPE:
                data = entry.data or {}
                if data.get("entryId") and data.get("commit"):
                    state["checkpoints"][data["entryId"]] = data["commit"]

    async def snapshot(event: Any, ctx: Any) -> None:
        git = await repo(ctx)
        if git is None:
            return
        key = ctx.session_manager.leaf_id or ROOT_KEY
        if key in state["checkpoints"]:
            return
        state["count"] += 1
        ref = f"refs/pi-checkpoints/{ctx.session_manager.session_id}/{state['count']}"
        commit = await git.snapshot(ref, f"pi checkpoint before turn (entry {key})")
        state["checkpoints"][key] = commit
        pi.append_entry(ENTRY_TYPE, {"entryId": key, "commit": commit, "ref": ref})

    def checkpoint_for(ctx: Any, leaf: str | None) -> tuple[str, str] | None:
        """The checkpoint of ``leaf`` or its nearest ancestor that has one."""
        if leaf is not None:
            for entry in reversed(ctx.session_manager.get_branch(leaf)):
                commit = state["checkpoints"].get(entry.id)
                if commit:
                    return entry.id, commit
        commit = state["checkpoints"].get(ROOT_KEY)
        return (ROOT_KEY, commit) if commit else None

    async def offer(ctx: Any, leaf: str | None, what: str) -> None:
        git = await repo(ctx)
        found = checkpoint_for(ctx, leaf) if git is not None else None
        if git is None or found is None:
            return
        policy = (pi.get_setting("gitCheckpoint", {}) or {}).get("restore", "ask")
        if policy == "never":
            return
        if await git.tree_of_worktree() == await git.run("rev-parse", f"{found[1]}^{{tree}}"):
            return  # the files already match
        if policy != "always" and not await ctx.ui.confirm("Restore files?", f"Restore the working tree to the checkpoint taken {what}?"
        ):
            return
        removed = await git.restore(found[1])
        extra = f", removed {len(removed)} new file(s)" if removed else ""
        ctx.ui.notify(f"Files restored to checkpoint {found[1][:8]}{extra}")

    async def on_tree(event: Any, ctx: Any) -> None:
        await offer(ctx, event.new_leaf_id, "at that point of the conversation")

    async def on_fork(event: Any, ctx: Any) -> None:
        if event.position != "before":
            return  # a clone keeps the current state
        entry = ctx.session_manager.get_entry(event.entry_id)
        await offer(ctx, entry.parent_id if entry is not None else None, "before that message")

    pi.on("session_start", load)
    pi.on("turn_start", snapshot)
    pi.on("session_tree", on_tree)
    pi.on("session_before_fork", on_fork)
