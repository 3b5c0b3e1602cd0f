"""Pi's example extensions, ported to Python in docs/examples/extensions, driven in a real session."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from pi_runtime.ai.providers.scripted import scripted_text, scripted_tool_call
from pi_runtime.testing.loopback import LoopbackServer, Reply

from .conftest import AnsweringUI, errors

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "extensions"
ALL = ["todo.py", "commands.py", "preset.py", "permission_gate.py", "input_transform.py", "plan_mode",
       "custom_provider_anthropic", "rpc_demo.py", "auto_commit_on_exit.py", "provider_payload.py",
       "modal_editor.py", "custom_compaction.py", "handoff.py", "mcp_servers.py", "dirty_repo_guard.py",
       "truncated_tool.py", "question.py", "custom_footer.py", "prompt_customizer.py", "dynamic_resources",
       "github_issue_autocomplete.py",
       "qna.py", "snake.py", "hidden_thinking_label.py", "trigger_compact.py", "jev_router.py"]


def example(name: str) -> str:
    return str(EXAMPLES / name)


def tool_results(session):
    return [m for m in session.messages if getattr(m, "role", None) == "toolResult"]


def test_all_ports_and_our_example_are_there():
    assert sorted(p.name for p in EXAMPLES.iterdir() if not p.name.startswith(("_", "."))) == sorted(ALL)


@pytest.mark.parametrize("name", ALL)
async def test_every_port_loads_and_survives_a_prompt(make_session, name):
    session = make_session(extensions=[example(name)])
    runner = session.extension_runner
    assert runner.failures == [] and len(runner.extensions) == 1
    session.provider.push(scripted_text("ok"))
    await session.prompt("hello")
    await session.dispose()
    assert errors(session) == []


async def test_todo_state_follows_the_branch(make_session):
    session = make_session(extensions=[example("todo.py")], tools="todo", persist=True)
    session.provider.push(
        scripted_tool_call("todo", {"action": "add", "text": "write tests"}), scripted_text("added"),
        scripted_tool_call("todo", {"action": "add", "text": "ship"}), scripted_text("added again"),
        scripted_tool_call("todo", {"action": "toggle", "id": 1}), scripted_tool_call("todo", {"action": "list"}),
        scripted_text("listed"),
    )
    await session.prompt("add a todo")
    await session.prompt("add another")
    await session.prompt("toggle and list")
    listing = tool_results(session)[-1]
    assert listing.content[0].text == "[x] #1: write tests\n[ ] #2: ship"
    tool = session.extension_runner.all_tools["todo"]
    from pi_runtime.extensions.ui import PlainTheme

    assert tool.render_call({"action": "add", "text": "x"}, PlainTheme(), {}) == 'todo add "x"'
    assert "2 todo(s)" in tool.render_result(listing, {"expanded": False}, PlainTheme(), {})
    # Back before the second prompt: the list is the one of that point in history.
    second_prompt = session.get_fork_messages()[1]["entryId"]
    await session.navigate_tree(second_prompt)
    session.provider.push(scripted_tool_call("todo", {"action": "list"}), scripted_text("listed"))
    await session.prompt("list")
    assert tool_results(session)[-1].content[0].text == "[ ] #1: write tests"
    await session.prompt("/todos")
    assert session.extension_runner.ui.inner.notifications[-1] == ("error", "/todos requires interactive mode")


async def test_commands_lists_and_shows_a_source(make_session, agent_dir):
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text("---\ndescription: Review code\n---\nReview it")
    session = make_session(extensions=[example("commands.py")])
    ui = AnsweringUI(confirm=True, select="/review - Review code")
    session.extension_runner.set_ui(ui, "rpc")
    await session.prompt("/commands")
    assert ui.asked[0] == ("select", "Available Commands")
    assert ui.notifications[-1][1].endswith("review.md")
    assert await session.extension_runner.complete_command("commands", "sk") == [{"value": "skill", "label": "skill"}]


async def test_preset_flag_command_shortcut_and_instructions(make_session, agent_dir):
    (agent_dir / "presets.json").write_text(json.dumps({
        "plan": {"tools": ["read", "grep"], "thinkingLevel": "high", "instructions": "PLANNING MODE ONLY."},
        "build": {"tools": ["read", "bash", "edit", "write"]},
    }))
    session = make_session(extensions=[example("preset.py")])
    runner = session.extension_runner
    runner.set_flag_values({"preset": "plan"})  # as the CLI does, before the runner starts
    await runner.start()
    assert runner.active_tool_names() == ["read", "grep"]
    assert runner.ui.inner.statuses == {"preset": "preset:plan"}
    session.model_registry.add_model(session.provider.model("thinker", reasoning=True))
    await session.set_model(session.model_registry.find(session.provider.name, "thinker"))
    await session.prompt("/preset plan")
    await session.wait_for_idle()
    assert session.thinking_level == "high"
    session.provider.push(scripted_text("planned"))
    await session.prompt("make a plan")
    assert session.provider.requests[0][0].system_prompt.endswith("PLANNING MODE ONLY.")
    saved = [e for e in session.session_manager.get_entries() if e.type == "custom"]
    assert saved and saved[-1].data == {"name": "plan"}
    await runner.run_shortcut("ctrl+shift+u")  # cycle order: (none), build, plan -> after plan comes (none)
    assert runner.ui.inner.statuses == {} and runner.active_tool_names() == ["read", "bash", "edit", "write"]
    await runner.run_shortcut("ctrl+shift+u")
    assert runner.ui.inner.statuses == {"preset": "preset:build"}
    await session.prompt("/preset nope")
    assert runner.ui.inner.notifications[-1] == ("error", 'Unknown preset "nope". Available: plan, build')


async def test_permission_gate_blocks_without_ui_and_asks_with_one(make_session):
    session = make_session(extensions=[example("permission_gate.py")], tools="bash")
    session.provider.push(scripted_tool_call("bash", {"command": "rm -rf build"}), scripted_text("ok"))
    await session.prompt("clean")
    assert tool_results(session)[-1].content[0].text == "Dangerous command blocked (no UI for confirmation)"
    session.extension_runner.set_ui(AnsweringUI(select="Yes"), "rpc")
    session.provider.push(scripted_tool_call("bash", {"command": "sudo echo allowed"}), scripted_text("ok"))
    await session.prompt("again")
    assert "Dangerous" not in tool_results(session)[-1].content[0].text


async def test_input_transform(make_session):
    session = make_session(extensions=[example("input_transform.py")])
    assert await session.prompt("ping") == "handled"
    session.provider.push(scripted_text("brief"))
    await session.prompt("?quick What is Python?")
    assert session.provider.requests[0][0].messages[-1].content[0].text == "Respond briefly in 1-2 sentences: What is Python?"
    assert session.extension_runner.ui.inner.notifications[0] == ("info", "pong")


async def test_plan_mode_explores_then_executes_the_plan(make_session):
    session = make_session(extensions=[example("plan_mode")], tools="read,bash,edit,write,ls")
    runner = session.extension_runner
    runner.set_ui(AnsweringUI(select="Execute the plan (track progress)"), "rpc")
    await session.prompt("/plan")
    assert runner.active_tool_names() == ["read", "bash", "ls", "grep", "find"]
    plan = "Plan:\n1. Read the configuration file\n2. Update the parser module\n"
    session.provider.push(
        scripted_tool_call("bash", {"command": "rm -rf src"}), scripted_text(plan),
        scripted_text("Starting."), scripted_text("Did the first one [DONE:1]"),
    )
    await session.prompt("plan the refactor")
    await session.wait_for_idle()
    first = session.provider.requests[0][0]
    assert "[PLAN MODE ACTIVE]" in str(first.messages[-1].content)
    assert tool_results(session)[0].content[0].text.startswith("Plan mode: command blocked")
    # "Execute" was chosen: full tools back; the plan card, then the execute message, follow up.
    assert "edit" in runner.active_tool_names()
    last_sent = [str(r[0].messages[-1].content) for r in session.provider.requests]
    assert "Plan Steps (2)" in last_sent[2] and "Execute the plan." in last_sent[3]
    assert runner.ui.inner.widgets.get("plan-todos") == ["☑ Configuration file", "☐ Parser module"]  # Pi's step cleaning
    session.provider.push(scripted_text("And the second [DONE:2]"))
    await session.prompt("continue")
    assert "plan-todos" not in runner.ui.inner.widgets  # all done: the widget went away
    complete = [e for e in session.session_manager.get_entries()
                if e.type == "custom" and e.custom_type == "plan-mode"][-1]
    assert complete.data["executing"] is False


def anthropic_reply(text: str) -> Reply:
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 12, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}},
        {"type": "message_stop"},
    ]
    return Reply.sse(events, event_names=[e["type"] for e in events])


async def test_custom_provider_speaks_the_messages_api(make_session, write_ext, monkeypatch):
    monkeypatch.setenv("CUSTOM_ANTHROPIC_API_KEY", "sk-ant-test")
    with LoopbackServer() as server:
        server.push(anthropic_reply("Hello from the custom provider"))
        proxy = write_ext("repoint", f"""
            def extension(pi):
                pi.register_provider("custom-anthropic", base_url="{server.url}")
        """)
        session = make_session(extensions=[example("custom_provider_anthropic"), proxy])
        model = session.model_registry.find("custom-anthropic", "claude-sonnet-4-5")
        assert model.api == "custom-anthropic-api" and model.base_url == server.url
        await session.set_model(model)
        await session.prompt("hi")
        assert session.get_last_assistant_text() == "Hello from the custom provider"
        request = server.requests[0]
        assert request.path == "/v1/messages" and request.headers["x-api-key"] == "sk-ant-test"
        body = request.json()
        assert body["model"] == "claude-sonnet-4-5" and body["messages"][-1]["content"][0]["text"] == "hi"
        assert session.messages[-1].usage.input == 12 and session.messages[-1].usage.output == 7


async def test_auto_commit_on_exit(make_session, workdir):
    def git(*args):
        return subprocess.run(["git", *args], cwd=workdir, capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "Test")
    (workdir / "notes.txt").write_text("v1")
    session = make_session(extensions=[example("auto_commit_on_exit.py")])
    session.provider.push(scripted_text("Updated the notes file\nwith details"))
    await session.prompt("update notes")
    await session.dispose()
    assert git("log", "--format=%s").strip() == "[pi] Updated the notes file"


async def test_provider_payload_logs_requests(make_session, write_ext, workdir):
    with LoopbackServer() as server:
        server.push(Reply.sse([{"id": "c", "choices": [{"index": 0, "delta": {"content": "logged"}}]},
                               {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                               "[DONE]"]))
        provider = write_ext("loopprov", f"""
            def extension(pi):
                pi.register_provider("loop", api="openai-completions", base_url="{server.url}/v1", api_key="k",
                                     models=[{{"id": "m"}}])
        """)
        session = make_session(extensions=[example("provider_payload.py"), provider])
        await session.set_model(session.model_registry.find("loop", "m"))
        await session.prompt("hi")
    log = (workdir / ".pi" / "provider-payload.log").read_text()
    assert '"model": "m"' in log and "[200]" in log


def git_repo(workdir):
    def git(*args):
        return subprocess.run(["git", *args], cwd=workdir, capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    return git


async def test_dirty_repo_guard_asks_with_a_ui_and_cancels_without_one(make_session, workdir):
    git_repo(workdir)
    session = make_session(extensions=[example("dirty_repo_guard.py")])
    assert (await session.new_session()).cancelled is False  # nothing uncommitted: no question
    (workdir / "draft.txt").write_text("work in progress")
    assert (await session.new_session()).cancelled is True  # headless: cancelled
    ui = AnsweringUI(select="No, let me commit first")
    session.extension_runner.set_ui(ui, "rpc")
    assert (await session.new_session()).cancelled is True
    assert ui.asked == [("select", "You have 1 uncommitted file(s). new session anyway?")]
    assert ui.notifications == [("warning", "Commit your changes first")]
    ui.answer_select = "Yes, proceed anyway"
    assert (await session.new_session()).cancelled is False
    assert errors(session) == []


async def test_truncated_tool_keeps_the_full_output_and_stores_its_truncation(make_session, workdir):
    (workdir / "big").mkdir()
    for n in range(12):
        (workdir / "big" / f"f{n}.txt").write_text("\n".join(f"needle {i}" for i in range(300)))
    session = make_session(extensions=[example("truncated_tool.py")], tools="rg", persist=True)
    session.provider.push(scripted_tool_call("rg", {"pattern": "needle", "path": "big"}), scripted_text("found"),
                          scripted_tool_call("rg", {"pattern": "absent-word"}), scripted_text("none"))
    await session.prompt("search")
    await session.prompt("search again")
    truncated, empty = tool_results(session)
    assert empty.content[0].text == "No matches found"
    assert truncated.details["matchCount"] == 3600 and truncated.details["truncation"]["truncated"] is True
    assert truncated.details["truncation"]["totalLines"] == 3600
    full = Path(truncated.details["fullOutputPath"])
    assert len(full.read_text().splitlines()) == 3600
    assert f"Full output saved to: {full}]" in truncated.content[0].text
    # The TruncationResult the tool put in its details is in the session file as JSON.
    stored = [json.loads(line) for line in Path(session.session_manager.session_file).read_text().splitlines()]
    results = [e["message"] for e in stored if e.get("type") == "message" and e["message"]["role"] == "toolResult"]
    assert results[0]["details"]["truncation"]["outputLines"] == truncated.details["truncation"]["outputLines"]
    from pi_runtime.extensions.ui import PlainTheme

    tool = session.extension_runner.all_tools["rg"]
    assert tool.render_result(truncated, {"expanded": False}, PlainTheme(), {}) == "3600 matches (truncated)"
    assert errors(session) == []


async def test_question_says_so_without_the_app(make_session):
    session = make_session(extensions=[example("question.py")], tools="question")
    session.provider.push(scripted_tool_call("question", {"question": "Colour?", "options": [{"label": "Red"}]}),
                          scripted_text("ok"))
    await session.prompt("ask")
    result = tool_results(session)[0]
    assert result.content[0].text == "Error: UI not available (running in non-interactive mode)"
    assert result.details == {"question": "Colour?", "options": ["Red"], "answer": None}
    from pi_runtime.extensions.ui import PlainTheme

    tool = session.extension_runner.all_tools["question"]
    assert tool.render_call({"question": "Colour?", "options": [{"label": "Red"}]}, PlainTheme(), {}) == \
        "question Colour?\n  Options: 1. Red, 2. Type something."


async def compactable_session(make_session):
    """Four long turns with the custom_compaction example loaded: enough to compact."""
    session = make_session(extensions=[example("custom_compaction.py")],
                           settings={"compaction": {"keepRecentTokens": 2000}})
    long = "lorem ipsum dolor sit amet " * 200
    for i in range(4):
        session.provider.push(scripted_text(f"answer {i}: {long}"))
        await session.prompt(f"question {i}: {long}")
    return session


async def test_custom_compaction_writes_the_summary_with_its_own_prompt(make_session):
    session = await compactable_session(make_session)
    session.provider.push(scripted_text("## Goals\nAll of it, summarised once."))
    result = await session.compact()
    assert result.summary == "## Goals\nAll of it, summarised once."
    request, _ = session.provider.requests[-1]
    assert request.messages[-1].content[0].text.startswith("You are a conversation summarizer.")
    assert "[User]: question 0" in request.messages[-1].content[0].text
    assert not errors(session)


async def test_custom_compaction_falls_back_to_pis_own_when_its_request_fails(make_session):
    from pi_runtime.ai.providers.scripted import scripted_error

    session = await compactable_session(make_session)
    session.provider.push(scripted_error("overloaded"))
    session.provider.responder = None
    pushed = [scripted_text("## Goal\npi's own summary") for _ in range(2)]  # a split turn asks twice
    session.provider.push(*pushed)
    result = await session.compact()
    assert result.summary.startswith("## Goal\npi's own summary")


async def test_mcp_servers_from_a_setting_register_connect_and_go(make_session):
    from pi_runtime.testing.mcp_servers import server_executable

    time_server = server_executable("mcp-server-time")
    if time_server is None:
        pytest.skip("mcp-server-time is not installed")
    servers = {"time": {"command": time_server, "exposure": "direct"}, "bad name": {"command": "x"}}
    session = make_session(extensions=[example("mcp_servers.py")], settings={"extraMcpServers": servers}, mcp=True)
    session.provider.push(scripted_tool_call("mcp__time__get_current_time", {"timezone": "UTC"}), scripted_text("ok"))
    await session.prompt("time?")
    assert '"timezone": "UTC"' in tool_results(session)[0].content[0].text
    notes = session.extension_runner.ui.inner.notifications
    assert any(level == "warning" and 'invalid server name "bad name"' in text for level, text in notes)
    await session.prompt("/extra-mcp off time")
    for _ in range(100):  # the built-in MCP support drops the tools in the background
        if not any(t.name.startswith("mcp__time__") for t in session.agent.state.tools):
            break
        await asyncio.sleep(0.05)
    assert not any(t.name.startswith("mcp__time__") for t in session.agent.state.tools)
    await session.prompt("/extra-mcp")
    assert notes[-1] == ("info", "registered: none (/extra-mcp on|off <name>)")
    await session.dispose()


async def test_prompt_customizer_writes_guidance_for_the_active_tools(make_session, agent_dir):
    (agent_dir / "skills" / "lint").mkdir(parents=True)
    (agent_dir / "skills" / "lint" / "SKILL.md").write_text("---\nname: lint\ndescription: Lint code\n---\nRun it")
    session = make_session(extensions=[example("prompt_customizer.py")])
    session.provider.push(scripted_text("ok"), scripted_text("ok"))
    await session.prompt("hello")
    prompt = session.provider.requests[0][0].system_prompt
    assert "<tool_guidance>\n- Use `read` for file contents" in prompt
    assert "- Use `write` to create new files" in prompt and "- Available skills: lint." in prompt
    session.extension_runner.tools.set_active([])  # no tools: only the skills line is left
    await session.prompt("again")
    assert errors(session) == []
    assert "<tool_guidance>\n- Available skills: lint.\n</tool_guidance>" in session.provider.requests[1][0].system_prompt


async def test_dynamic_resources_adds_a_skill_and_a_template_and_reload_keeps_them(make_session):
    session = make_session(extensions=[example("dynamic_resources")])
    session.provider.push(scripted_text("ok"), scripted_text("ok"))
    await session.prompt("/dynamic")
    request = session.provider.requests[0][0]
    assert request.messages[-1].content[0].text == "List the top-level folders of this repository and say how to build and test it."
    assert "<name>dynamic-resources</name>" in request.system_prompt
    await session.extension_runner.reload()
    await session.prompt("/skill:dynamic-resources")
    assert "This skill was not found on disk" in str(session.provider.requests[1][0].messages[-1].content)
    assert errors(session) == []


async def test_github_issue_autocomplete_says_so_outside_a_github_checkout(make_session, workdir):
    subprocess.run(["git", "init", "-q", str(workdir)], check=True)
    session = make_session(extensions=[example("github_issue_autocomplete.py")])
    session.provider.push(scripted_text("ok"))
    await session.prompt("hello")
    assert session.extension_runner.ui.inner.notifications == [
        ("error", "github-issue-autocomplete: cwd is not a GitHub repository")]


async def test_qna_and_snake_need_the_app_and_the_label_is_quiet_without_it(make_session, capsys):
    session = make_session(extensions=[example("qna.py"), example("snake.py"), example("hidden_thinking_label.py")])
    await session.extension_runner.start()
    for command in ("/qna", "/snake", "/thinking-label Mulling"):
        assert await session.prompt(command) == "handled"
    err = capsys.readouterr().err
    assert "qna requires interactive mode" in err and "Snake requires interactive mode" in err
    assert "Hidden thinking label set to: Mulling" in err
    assert session.provider.requests == [] and errors(session) == []


async def test_jev_router_plans_keeps_a_planning_model_and_sends_direct_requests_to_luna(tmp_path):
    """The port's decisions, asked through the registry as the kernel asks them (the whole run against
    a loopback Codex server, beside Pi's own file, is in tests/e2e/test_virtual_pi_side_by_side.py)."""
    from pi_runtime.ai.models import ModelRegistry
    from pi_runtime.ai.types import AssistantMessage, ToolResultMessage, UserMessage
    from pi_runtime.ai.virtual import ModelRouteRequest, RoutedModel
    from pi_runtime.extensions import ExtensionRunner

    registry = ModelRegistry(read_models_json=False, env={})
    registry.set_runtime_api_key("openai-codex", "token")
    runner = ExtensionRunner(cwd=str(tmp_path), model_registry=registry)
    runner.load([example("jev_router.py")])
    assert runner.failures == []
    from pi_runtime.sdk import create_agent_session
    from pi_runtime.session.manager import SessionManager
    from pi_runtime.settings import SettingsManager

    create_agent_session(cwd=str(tmp_path), agent_dir=str(tmp_path), model=registry.find("jev", "auto"),
                         model_registry=registry, session_manager=SessionManager.in_memory(str(tmp_path)),
                         settings=SettingsManager.in_memory({}), extension_runner=runner)
    auto = registry.find("jev", "auto")
    assert (auto.context_window, auto.max_tokens, auto.reasoning) == (272_000, 128_000, True)

    def ask(reason, messages=(), state=None, previous=None):
        request = ModelRouteRequest(model=auto, thinking_level="high", reason=reason, messages=list(messages),
                                    state=state, previous=previous)
        return registry.route_virtual(auto, request)

    first = await ask("user", [UserMessage(content="plan it")])
    assert (first.model.id, first.thinking_level, first.state) == (
        "gpt-5.6-terra", "high", {"phase": "planning", "model": "gpt-5.6-terra"})
    sol = registry.find("openai-codex", "gpt-5.6-sol")
    kept = await ask("user", [UserMessage(content="go on")], previous=RoutedModel(sol, "high"))
    assert kept.model.id == "gpt-5.6-sol"  # a session already on Sol plans there (no cache miss)
    edited = [UserMessage(content="edit"), AssistantMessage(provider="openai-codex", model="gpt-5.6-terra"),
              ToolResultMessage(tool_call_id="c1", tool_name="edit", is_error=False)]
    switched = await ask("continuation", edited, state=first.state)
    assert (switched.model.id, switched.state) == ("gpt-5.6-luna", {"phase": "implementation", "model": "gpt-5.6-luna"})
    failed_edit = [*edited[:2], ToolResultMessage(tool_call_id="c1", tool_name="edit", is_error=True)]
    assert (await ask("continuation", failed_edit, state=first.state)).model.id == "gpt-5.6-terra"
    assert (await ask("direct")).model.id == "gpt-5.6-luna"
