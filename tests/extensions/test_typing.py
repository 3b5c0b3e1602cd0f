"""Extension authors' type checking: ``py.typed`` ships, ``pi.on`` has one signature per event
(a handler written for another event is flagged), and the public types import from one place.

mypy runs on real extension files; ``MYPYPATH`` points at the checkout because the editable
install's import hook is invisible to mypy (an installed wheel is found through ``py.typed``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pi_runtime

ROOT = Path(pi_runtime.__file__).resolve().parents[1]

GOOD = """
    from pi_runtime.extensions.types import ExtensionAPI, ExtensionContext, SessionStartEvent, ToolCallEvent


    def extension(pi: ExtensionAPI) -> None:
        def guard(event: ToolCallEvent, ctx: ExtensionContext) -> dict[str, object] | None:
            return {"block": True, "reason": "no"} if event.tool_name == "bash" else None

        def started(event: SessionStartEvent) -> None:
            print(event.reason)

        pi.on("tool_call", guard)
        pi.on("session_start", started)
        pi.on("agent_end", lambda event, ctx: None)
"""

BAD = """
    from pi_runtime.extensions.types import ExtensionAPI, ExtensionContext, ToolCallEvent


    def extension(pi: ExtensionAPI) -> None:
        def guard(event: ToolCallEvent, ctx: ExtensionContext) -> None:
            return None

        pi.on("session_start", guard)
        pi.on("tool_cal", guard)
        pi.registr_tool()
"""


def mypy(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary",
         "--cache-dir", str(tmp_path / ".mypy_cache"), str(path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )


def test_the_packages_say_they_are_typed():
    assert (ROOT / "pi_runtime" / "py.typed").is_file() and (ROOT / "pi_tui" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"pi_runtime" = ["py.typed",' in pyproject and '"pi_tui" = ["py.typed",' in pyproject


def test_a_correct_extension_type_checks_and_a_wrong_handler_is_flagged(tmp_path):
    good = mypy(tmp_path, "good_ext.py", GOOD)
    assert good.returncode == 0, good.stdout
    bad = mypy(tmp_path, "bad_ext.py", BAD)
    errors = [line for line in bad.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["9", "10", "11"], bad.stdout
    assert "No overload variant of \"on\"" in errors[0]  # a tool_call handler given to session_start
    assert "No overload variant of \"on\"" in errors[1]  # a misspelt event name
    assert "register_tool" in errors[2]  # the typo's suggestion


def test_public_types_import_from_one_module():
    from pi_runtime.extensions import ProviderError, post_sse, types

    assert types.ProviderError is ProviderError and types.post_sse is post_sse
    assert {cls.__name__ for cls in types.EVENTS.values()} <= set(types.__all__)
    assert {"SessionEntry", "MessageEntry", "CustomEntry", "ExtensionContext", "ToolResult"} <= set(types.__all__)


REGISTRATIONS_GOOD = """
    from typing import Any

    from pi_runtime.extensions.types import ExtensionAPI


    def extension(pi: ExtensionAPI) -> None:
        async def run(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> dict[str, Any]:
            on_update({"content": [{"type": "text", "text": "50%"}]})
            return {"content": "done", "details": {}}

        async def command(args: str, ctx: Any) -> None:
            pi.send_message({"customType": "x", "content": "y"}, deliver_as="followUp")

        pi.register_tool(name="t", description="d", params=None, execute=run, exposure="deferred")
        pi.register_command("c", command)
        pi.register_flag("plan", type="boolean", default=False)
"""

REGISTRATIONS_BAD = """
    from typing import Any

    from pi_runtime.extensions.types import ExtensionAPI


    def extension(pi: ExtensionAPI) -> None:
        async def run(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> int:
            return 3

        pi.register_tool(name="t", description="d", params=None, execute=run)
        pi.send_message({"customType": "x", "content": "y"}, deliver_as="follow_up")
        pi.register_tool(name="u", description="d", params=None, execute=run, exposure="codemode")
        pi.register_command("c", lambda: None)
"""


def test_registration_calls_are_typed(tmp_path):
    good = mypy(tmp_path, "good_reg.py", REGISTRATIONS_GOOD)
    assert good.returncode == 0, good.stdout
    bad = mypy(tmp_path, "bad_reg.py", REGISTRATIONS_BAD)
    lines = sorted({int(line.split(":")[1]) for line in bad.stdout.splitlines() if ": error:" in line})
    assert lines == [11, 12, 13, 14], bad.stdout  # wrong return, deliver_as, exposure, handler arity
