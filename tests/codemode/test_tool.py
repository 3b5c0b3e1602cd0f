"""The ``codemode`` tool through the kernel: a scripted model calls it, scripts call pi's tools."""

from __future__ import annotations

import asyncio
import itertools
import json
import re

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text, scripted_tool_call
from pi_runtime.codemode.pool import shared_pool
from pi_runtime.sdk import create_agent_session
from pi_runtime.session.manager import SessionManager
from pi_runtime.settings import SettingsManager
from pi_runtime.testing.waiting import eventually

_names = itertools.count()


@pytest.fixture
def project(tmp_path, monkeypatch):
    agent = tmp_path / "agent"
    agent.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha\n")
    (folder / "b.txt").write_text("beta\n")
    return folder


@pytest.fixture
async def sessions(project, tmp_path):
    made = []

    def make(*responses, settings=None, extensions=(), manager=None, tools="+codemode"):
        provider = ScriptedProvider(f"cm-{next(_names)}")
        for response in responses:
            provider.push(response)
        base = {"retry": {"enabled": False}, "compaction": {"enabled": False}, **(settings or {})}
        session = create_agent_session(
            cwd=str(project), agent_dir=str(tmp_path / "agent"), model=provider.model(),
            session_manager=manager or SessionManager.in_memory(str(project)), settings=SettingsManager.in_memory(base),
            tools=tools, extensions=list(extensions),
        )
        session.provider = provider
        session.events = []
        session.subscribe(session.events.append)
        made.append(session)
        return session

    yield make
    for session in made:
        await session.dispose()
    await shared_pool().close()


def script_call(code: str, call_id: str | None = None):
    return scripted_tool_call("codemode", {"code": code}, id=call_id)


def tool_result_text(session) -> str:
    results = [m for m in session.messages if getattr(m, "role", None) == "toolResult"]
    return "".join(b.text for b in results[-1].content if hasattr(b, "text"))


def request_tool_text(provider, index: int) -> str:
    """The last tool result's text as the model received it in request ``index``."""
    context, _options = provider.requests[index]
    results = [m for m in context.messages if getattr(m, "role", None) == "toolResult"]
    return "".join(b.text for b in results[-1].content if hasattr(b, "text"))


async def test_a_two_call_parallel_script_reaches_the_model(sessions):
    session = sessions(script_call('const [a, b] = await Promise.all([tools.read({ path: "a.txt" }), '
                                   'tools.bash({ command: "echo hi" })]);\ntext(a);\nreturn b;'), scripted_text("ok"))
    await session.prompt("go")
    seen = re.sub(r'"wall_time_seconds":[\d.]+', '"wall_time_seconds":N', request_tool_text(session.provider, 1))
    assert seen.startswith("Script completed\nWall time ")
    assert seen.endswith('Output:\n==> text 1/2 <==\nalpha\n==> text 2/2 <==\n{"output":"hi\\n","truncated":false,'
                         '"exit_code":0,"wall_time_seconds":N}')
    names = [t.name for t in session.provider.requests[0][0].tools]
    assert names == ["read", "bash", "edit", "write", "codemode"]
    nested = [e for e in session.events if getattr(e, "type", "") == "tool_execution_start"]
    assert [(e.tool_name, e.tool_call_id.startswith("call_")) for e in nested][:1] == [("codemode", True)]


async def test_nested_calls_go_through_the_tool_call_hooks(sessions, tmp_path):
    blocker = tmp_path / "block_bash.py"
    blocker.write_text(
        "def extension(pi):\n"
        "    seen = pi.events\n"
        "    def check(event, ctx):\n"
        "        if event.tool_name == 'bash':\n"
        "            return {'block': True, 'reason': 'no shell for scripts'}\n"
        "    pi.on('tool_call', check)\n"
    )
    session = sessions(script_call('try { await tools.bash({ command: "echo x" }) } catch (e) { return e.message }'),
                       scripted_text("ok"), extensions=[str(blocker)])
    await session.prompt("go")
    assert tool_result_text(session).endswith("Output:\nno shell for scripts")


async def test_malformed_options_fail_before_the_script_runs(sessions, project):
    session = sessions(script_call('// @options: {"timeout": 5}\nawait tools.write({ path: "x.txt", content: "x" })'),
                       scripted_text("ok"))
    await session.prompt("go")
    assert tool_result_text(session) == "@options only supports `max_output_tools` and `timeout_ms`; got `timeout`" \
        .replace("max_output_tools", "max_output_tokens")
    assert not (project / "x.txt").exists()


async def test_store_is_kept_on_the_branch_and_read_after_resume(sessions, project, tmp_path):
    manager = SessionManager.create(str(project), tmp_path / "sessions")
    session = sessions(script_call('store("count", (load("count") ?? 0) + 1); return load("count")'),
                       scripted_text("ok"), manager=manager)
    await session.prompt("go")
    path = manager.session_file
    entries = [json.loads(line) for line in open(path)]
    stored = [e for e in entries if e.get("type") == "custom" and e.get("customType") == "codemode-store"]
    assert [e["data"] for e in stored] == [{"set": {"count": 1}, "delete": []}]
    await session.dispose()
    resumed = sessions(script_call('store("count", (load("count") ?? 0) + 1); return load("count")'),
                       scripted_text("ok"), manager=SessionManager.open(path))
    await resumed.prompt("again")
    assert tool_result_text(resumed).endswith("Output:\n2")


async def test_abort_stops_the_script_and_says_which_calls_ran(sessions, project):
    session = sessions(script_call('await tools.read({ path: "a.txt" });\n'
                                   'await tools.bash({ command: "touch started; sleep 30" });'), scripted_text("never"))
    run = asyncio.ensure_future(session.prompt("go"))
    assert await eventually(lambda: (project / "started").exists(), timeout=30)
    await session.abort()
    await run
    text = tool_result_text(session)
    assert "Script aborted: This operation was aborted" in text  # Pi 1.6's words for an abort without a reason
    assert "Tool calls made before the failure (they are not undone): read (ok), bash (cancelled)" in text


async def test_endless_loop_ends_at_its_timeout(sessions):
    session = sessions(script_call('// @options: {"timeout_ms": 300}\nwhile (true) {}'), scripted_text("ok"))
    await session.prompt("go")
    text = tool_result_text(session)
    assert text.startswith("Script failed\n")
    assert "Script timed out: Execution timed out after 300 ms\n\nNo tool calls were made." in text


async def test_only_mode_hides_direct_tools_and_lists_them_in_codemode(sessions):
    session = sessions(scripted_text("ok"), settings={"codemode": {"mode": "only"}})
    await session.prompt("go")
    tools = {t.name: t for t in session.provider.requests[0][0].tools}
    assert list(tools) == ["codemode"]
    description = tools["codemode"].description
    assert "Nested tools:\n\n### `read`\nRead the contents of a file." in description
    assert "- Use read to examine files instead of cat or sed." in description


async def test_on_mode_appends_how_scripts_call_declared_tools(sessions):
    session = sessions(scripted_text("ok"))
    await session.prompt("go")
    tools = {t.name: t for t in session.provider.requests[0][0].tools}
    assert tools["bash"].description.endswith(
        "Codemode: `tools.bash(args)` resolves to `{ output, truncated, full_output_path?, exit_code, "
        "wall_time_seconds }`.")
    assert "Nested tools" not in tools["codemode"].description


async def test_an_extension_tool_named_codemode_replaces_the_builtin(sessions, tmp_path):
    own = tmp_path / "own_codemode.py"
    own.write_text(
        "from pi_runtime.agent.tool import ToolParams\n"
        "class Code(ToolParams):\n"
        "    code: str\n"
        "def extension(pi):\n"
        "    async def run(call_id, params, signal, on_update, ctx):\n"
        "        return 'mine'\n"
        "    pi.register_tool(name='codemode', description='my codemode', params=Code, execute=run)\n"
    )
    session = sessions(script_call("return 1"), scripted_text("ok"), extensions=[str(own)])
    await session.prompt("go")
    assert tool_result_text(session) == "mine"


async def test_codemode_is_off_until_named(sessions):
    session = sessions(scripted_text("ok"), tools=None, settings={"extensions": ["+builtin:codemode"]})
    await session.prompt("go")
    assert "codemode" not in [t.name for t in session.provider.requests[0][0].tools]


async def test_default_tools_setting_turns_codemode_on(sessions):
    session = sessions(scripted_text("ok"), tools=None, settings={"defaultTools": ["+codemode", "-write"]})
    await session.prompt("go")
    assert [t.name for t in session.provider.requests[0][0].tools] == ["read", "bash", "edit", "codemode"]
