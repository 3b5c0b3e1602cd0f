"""The commands of a served session: model, thinking level and modes; compaction, bash, the tree,
fork, clone, new and switched sessions, names and labels; exports; its extensions' commands,
completions and shortcuts. A part of ``RemoteSession``, in a module of its own to keep both small;
each sends the protocol's command and reads the kernel's result type from the answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..agent.agent import QueueMode
    from ..ai.types import Model
    from ..kernel.results import (
        BashResult,
        CompactionResult,
        CycleModelResult,
        ForkResult,
        NavigateResult,
        SwitchResult,
    )
    from .client import ServeClient
    from .view import SessionView


class SessionCommands:
    """Mixed into ``RemoteSession``, which provides what is declared here."""

    handle: str
    _view: SessionView
    _bash_deltas: dict[str, Callable[[str], None]]
    _commands: list[dict[str, Any]]
    _shortcuts: list[str]

    @property
    def client(self) -> ServeClient:
        raise NotImplementedError

    async def call(self, command: str, **fields: Any) -> Any:
        raise NotImplementedError

    def _send_soon(self, command: str, **fields: Any) -> None:
        raise NotImplementedError

    @property
    def model(self) -> Model:
        raise NotImplementedError

    @property
    def thinking_level(self) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ model, thinking, modes

    def available_thinking_levels(self, model: Model | None = None) -> list[str]:
        from ..kernel.thinking import available_thinking_levels

        return available_thinking_levels(model or self.model)

    async def set_model(self, model: Model, *, persist_default: bool = False) -> None:
        await self.call("set_model", provider=model.provider, modelId=model.id, persistDefault=persist_default)

    async def cycle_model(self, direction: int = 1) -> CycleModelResult | None:
        from ..kernel.results import CycleModelResult

        data = await self.call("cycle_model", direction=direction)
        return None if data is None else CycleModelResult.from_wire(data)

    async def set_thinking_level(self, level: str) -> str:
        await self.call("set_thinking_level", level=level)
        return self.thinking_level  # its thinking_level_changed came before the answer

    async def cycle_thinking_level(self) -> str | None:
        data = await self.call("cycle_thinking_level")
        return None if data is None else str(data["level"])

    def set_steering_mode(self, mode: QueueMode) -> None:
        self._send_soon("set_steering_mode", mode=mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self._send_soon("set_follow_up_mode", mode=mode)

    def set_auto_compaction(self, enabled: bool) -> None:
        self._send_soon("set_auto_compaction", enabled=enabled)

    def set_auto_retry(self, enabled: bool) -> None:
        self._send_soon("set_auto_retry", enabled=enabled)

    def refresh_system_prompt(self) -> None:
        """Nothing to do here: the server rebuilds its prompt when its tools or resources change."""

    # ------------------------------------------------------------------ commands

    async def compact(self, instructions: str | None = None) -> CompactionResult:
        from ..kernel.results import CompactionResult

        fields = {"customInstructions": instructions} if instructions else {}
        return CompactionResult.from_wire(await self.call("compact", **fields))

    async def execute_bash(self, command: str, exclude_from_context: bool = False, *, request_id: str | None = None,
                           on_delta: Callable[[str], None] | None = None) -> BashResult:
        import uuid

        from ..kernel.results import BashResult

        rid = request_id or f"bash-{uuid.uuid4().hex[:12]}"
        if on_delta is not None:
            self._bash_deltas[rid] = on_delta
        try:
            data = await self.client.request({"type": "bash", "session": self.handle, "id": rid, "command": command,
                                               "excludeFromContext": exclude_from_context})
        finally:
            self._bash_deltas.pop(rid, None)
        return BashResult.from_wire(data)

    async def navigate_tree(self, entry_id: str, summarize: bool | str = False) -> NavigateResult:
        from ..kernel.results import NavigateResult

        return NavigateResult.from_wire(await self.call("navigate_tree", entryId=entry_id, summarize=summarize))

    def get_fork_messages(self) -> list[dict[str, str]]:
        from ..kernel.navigator import fork_points

        return fork_points(self._view.manager)

    async def fork(self, entry_id: str) -> ForkResult:
        from ..kernel.results import ForkResult

        return ForkResult.from_wire(await self.call("fork", entryId=entry_id))

    async def clone(self, entry_id: str | None = None) -> SwitchResult:
        from ..kernel.results import SwitchResult

        return SwitchResult.from_wire(await self.call("clone", **({"entryId": entry_id} if entry_id else {})))

    async def new_session(self, parent_session: str | None = None) -> SwitchResult:
        from ..kernel.results import SwitchResult

        fields = {"parentSession": parent_session} if parent_session else {}
        return SwitchResult.from_wire(await self.call("new_session", **fields))

    async def sibling_allowed(self, kind: str, entry_id: str | None = None) -> bool:
        fields = {"entryId": entry_id} if entry_id else {}
        return bool((await self.call("sibling_allowed", kind=kind, **fields))["allowed"])

    async def switch_session(self, path: str) -> SwitchResult:
        from ..kernel.results import SwitchResult

        return SwitchResult.from_wire(await self.call("switch_session", sessionPath=path))

    async def switch_allowed(self, path: str) -> bool:
        return bool((await self.call("switch_allowed", sessionPath=path))["allowed"])

    async def set_session_name(self, name: str) -> None:
        await self.call("set_session_name", name=name)

    def set_label(self, entry_id: str, label: str | None) -> str:
        """Label an entry (sent without waiting): returns ``""``, the label entry's id not being known yet."""
        self._send_soon("set_label", entryId=entry_id, label=label)
        return ""

    # ------------------------------------------------------------------ exports (written here, from the replica)

    def export_html(self, path: str | None = None) -> str:
        """Write the HTML transcript from this viewer's copy of the tree; returns its path. The system
        prompt and the tool list live in the server: the server's own export has them
        (``await session.call("export_html", outputPath=path)``)."""
        from pathlib import Path

        from ..kernel.export_html import default_output, render_html, session_data

        manager = self._view.manager
        out = Path(path) if path else default_output(self._view.state.get("sessionFile"), manager.session_id,
                                                     self._view.cwd or ".")
        out.write_text(render_html(session_data(manager)), encoding="utf-8")
        return str(out)

    def export_jsonl(self, path: str | None = None) -> str:
        """Write the active branch as a session file of its own, from this viewer's copy; returns its path."""
        import os

        from ..session.transfer import export_branch_jsonl

        return export_branch_jsonl(self._view.manager, path, os.getcwd())

    # ------------------------------------------------------------------ extensions (they run in the server)

    @property
    def extension_commands(self) -> list[dict[str, Any]]:
        """The server's extension commands (``name``, ``description``, ``source``) as of the last
        :meth:`refresh_commands`; typed as ``/name``, they run there (the prompt expands them)."""
        return list(self._commands)

    @property
    def extension_shortcuts(self) -> list[str]:
        """The keys (Pi's syntax) the server's extensions bound, as of the last :meth:`refresh_commands`."""
        return list(self._shortcuts)

    async def refresh_commands(self) -> list[dict[str, Any]]:
        """Ask the server for its extensions' commands (and prompt templates and skills, Pi's list)
        and their shortcuts."""
        data = await self.call("get_commands")
        self._commands = [c for c in data.get("commands") or [] if isinstance(c, dict) and c.get("name")]
        shortcuts = (await self.call("get_shortcuts")).get("shortcuts") or []
        self._shortcuts = [str(s["key"]) for s in shortcuts if isinstance(s, dict) and s.get("key")]
        return self.extension_commands

    async def complete_command(self, name: str, prefix: str) -> list[Any] | None:
        """The argument completions the server's extension gives for ``/name prefix`` (None: none)."""
        items = (await self.call("complete_command", name=name, prefix=prefix))["items"]
        return None if items is None else list(items)

    async def run_shortcut(self, key: str) -> bool:
        """Run the handler an extension bound to ``key`` in the server; False when none has it."""
        return bool((await self.call("run_shortcut", key=key))["handled"])
