"""``tool_search`` and deferred tools: found, loaded for the next call, kept across resume and ``/reload``."""

from __future__ import annotations

import itertools
import textwrap

import pytest

from pi_runtime.ai.providers.scripted import ScriptedProvider, scripted_text, scripted_tool_call
from pi_runtime.codemode.pool import shared_pool
from pi_runtime.codemode.search import Namespace, rank, search_document, tokenize
from pi_runtime.sdk import create_agent_session
from pi_runtime.session.manager import SessionManager
from pi_runtime.settings import SettingsManager

_names = itertools.count()

DEFERRED = textwrap.dedent('''
    from pi_runtime.agent.tool import ToolParams

    class Issue(ToolParams):
        number: int

    def extension(pi):
        async def fetch_issue(call_id, params, signal, on_update, ctx):
            return f"issue {params.number}: the build is red"

        async def weather(call_id, params, signal, on_update, ctx):
            return "sunny"

        pi.register_tool(name="fetch_issue", description="Fetch a GitHub issue by number", params=Issue,
                         execute=fetch_issue, exposure="deferred")
        pi.register_tool(name="weather", description="Today's weather", params=None, execute=weather,
                         exposure="deferred")
''')


@pytest.fixture
async def make(tmp_path, monkeypatch):
    agent = tmp_path / "agent"
    agent.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    project = tmp_path / "project"
    project.mkdir()
    extension = tmp_path / "deferred.py"
    extension.write_text(DEFERRED)
    made = []

    def build(*responses, manager, tools="+tool_search,+codemode", more=()):
        provider = ScriptedProvider(f"ts-{next(_names)}")
        for response in responses:
            provider.push(response)
        session = create_agent_session(
            cwd=str(project), agent_dir=str(agent), model=provider.model(), session_manager=manager,
            settings=SettingsManager.in_memory({"retry": {"enabled": False}}), tools=tools,
            extensions=[str(extension), *more],
        )
        session.provider = provider
        made.append(session)
        return session

    build.project = project
    yield build
    for session in made:
        await session.dispose()
    await shared_pool().close()


def declared(session, index: int) -> list[str]:
    return [t.name for t in session.provider.requests[index][0].tools]


async def test_deferred_tools_are_loaded_by_search_and_kept_across_resume_and_reload(make, tmp_path):
    manager = SessionManager.create(str(make.project), tmp_path / "sessions")
    session = make(scripted_tool_call("tool_search", {"query": "github issue"}),
                   scripted_tool_call("fetch_issue", {"number": 7}), scripted_text("red build"), manager=manager)
    await session.prompt("what does issue 7 say?")
    assert "fetch_issue" not in declared(session, 0) and "weather" not in declared(session, 0)
    results = [m for m in session.messages if getattr(m, "role", None) == "toolResult"]
    assert results[0].content[0].text == ("Loaded 1 tool. They are available from your next call:\n"
                                          "- fetch_issue: Fetch a GitHub issue by number")
    assert "fetch_issue" in declared(session, 1)
    assert results[1].content[0].text == "issue 7: the build is red"

    await session.extension_runner.reload()
    assert "fetch_issue" in [t.name for t in session.agent.state.tools]
    path = manager.session_file
    await session.dispose()

    resumed = make(scripted_text("still here"), manager=SessionManager.open(path))
    await resumed.prompt("and now?")
    assert "fetch_issue" in declared(resumed, 0) and "weather" not in declared(resumed, 0)


async def test_scripts_call_deferred_tools_without_loading_them(make):
    session = make(scripted_tool_call("codemode", {"code": 'const found = await searchTools("issue");\n'
                                                           'return [found[0].name, await tools.fetch_issue({ number: 3 })]'}),
                   scripted_text("ok"), manager=SessionManager.in_memory())
    await session.prompt("go")
    result = [m for m in session.messages if getattr(m, "role", None) == "toolResult"][-1]
    assert result.content[-1].text == '["fetch_issue","issue 3: the build is red"]'
    assert "fetch_issue" not in declared(session, 1)


def test_bm25_prefers_names_coverage_and_exact_names():
    docs = [
        search_document("mcp__gh__list_issues", "List the issues of a repository", {}, Namespace("mcp__gh")),
        search_document("mcp__gh__get_issue", "Get one issue", {"properties": {"number": {}}}, Namespace("mcp__gh")),
        search_document("screenshot", "Take a screenshot of a window", {}, None),
        search_document("window", "Focus an app", {}, None),
    ]
    assert rank("screenshot window", docs, 2) == ["screenshot", "window"]
    assert rank("get_issue", docs, 1) == ["mcp__gh__get_issue"]
    assert rank("issues", docs, 8)[:2] == ["mcp__gh__get_issue", "mcp__gh__list_issues"] or \
        set(rank("issues", docs, 8)[:2]) == {"mcp__gh__get_issue", "mcp__gh__list_issues"}
    assert tokenize("readFileSync the searches") == ["read", "file", "sync", "search"]


async def test_a_section_set_at_the_prompts_start_stays_when_search_loads_tools_mid_run(make, tmp_path):
    # The MCP extension lists its servers in a section set by before_agent_start (Pi 1.6). A tool
    # loaded mid-run rebuilds the prompt: the section stays until the next prompt, as in Pi (pi
    # dropped it, and recorded a system message taking it out).
    (tmp_path / "section.py").write_text(textwrap.dedent('''
        def extension(pi):
            pi.on("before_agent_start", lambda event, ctx: event.sections.set("notes", "keep me"))
    '''))
    session = make(scripted_tool_call("tool_search", {"query": "github issue"}), scripted_text("done"),
                   manager=SessionManager.in_memory(), more=[str(tmp_path / "section.py")])
    await session.prompt("what does issue 7 say?")
    assert "fetch_issue" in declared(session, 1)
    for index in (0, 1):
        assert "<notes>\nkeep me\n</notes>" in session.provider.requests[index][0].system_prompt
    patches = [m.sections for m in session.messages if getattr(m, "role", None) == "system"][1:]
    assert all("notes" not in (sections or {}) for sections in patches)
