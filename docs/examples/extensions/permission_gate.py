"""Permission gate: confirm before dangerous bash commands (Pi's ``permission-gate.ts``, in Python).

Checks ``rm -rf``, ``sudo`` and ``chmod``/``chown 777``. Without a UI (print or JSON mode) it
blocks them. For a thorough gate use the bundled ``builtin:permission-gate``.

    pi -e docs/examples/extensions/permission_gate.py
"""

from __future__ import annotations

import re

from pi_runtime.extensions import ExtensionAPI

DANGEROUS = [re.compile(r"\brm\s+(-rf?|--recursive)", re.I), re.compile(r"\bsudo\b", re.I),
             re.compile(r"\b(chmod|chown)\b.*777", re.I)]


def extension(pi: ExtensionAPI) -> None:
    async def gate(event, ctx):
        if event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        if not any(pattern.search(command) for pattern in DANGEROUS):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": "Dangerous command blocked (no UI for confirmation)"}
        choice = await ctx.ui.select(f"⚠️ Dangerous command:\n\n  {command}\n\nAllow?", ["Yes", "No"])
        if choice != "Yes":
            return {"block": True, "reason": "Blocked by user"}
        return None

    pi.on("tool_call", gate)
