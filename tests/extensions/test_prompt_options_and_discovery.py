"""Pi's ``systemPromptOptions`` on ``before_agent_start`` and the ``resources_discover`` event,
as Pi's prompt-customizer and dynamic-resources examples use them."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text

from .conftest import errors


async def test_system_prompt_options_edits_reach_the_prompt_and_the_tools(make_session, write_ext):
    path = write_ext("opts", """
        def extension(pi):
            seen = []

            def first(event, ctx):
                event.system_prompt_options["sections"]["house"] = "Be brief."
                event.system_prompt_options["sections"]["gone"] = "removed again below"

            def second(event, ctx):
                options = event.system_prompt_options
                seen.append((sorted(options), list(options["selectedTools"]), options["cwd"] == ctx.cwd))
                del options["sections"]["gone"]
                options["selectedTools"].remove("bash")

            pi.on("before_agent_start", first)
            pi.on("before_agent_start", second)
            pi.register_command("seen", lambda args, ctx: ctx.ui.notify(repr(seen)))
            pi.register_command("opts", lambda args, ctx: ctx.ui.notify(repr(sorted(ctx.get_system_prompt_options()))))
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("ok"))
    await session.prompt("hello")
    request = session.provider.requests[0][0]
    assert "<house>\nBe brief.\n</house>" in request.system_prompt and "removed again" not in request.system_prompt
    assert "bash" not in [tool.name for tool in request.tools]
    await session.prompt("/seen")
    await session.prompt("/opts")
    notes = [text for _, text in session.extension_runner.ui.inner.notifications]
    keys = "['contextFiles', 'cwd', 'sections', 'selectedTools', 'skills']"
    assert notes == [f"[({keys}, ['read', 'bash', 'edit', 'write'], True)]", keys]
    assert errors(session) == []


async def test_resources_discover_paths_load_relative_paths_and_a_failing_handler_is_reported(
        make_session, write_ext, workdir):
    (workdir / "extra").mkdir()
    (workdir / "extra" / "hi.md").write_text("---\ndescription: Say hi\n---\nSay hi to $1")
    path = write_ext("disc", """
        calls = []

        def extension(pi):
            def discover(event, ctx):
                calls.append((event.reason, event.cwd == ctx.cwd))
                return {"promptPaths": ["extra/hi.md"], "skillPaths": "missing/SKILL.md"}

            def broken(event, ctx):
                raise RuntimeError("no paths today")

            pi.on("resources_discover", discover)
            pi.on("resources_discover", broken)
            pi.register_command("calls", lambda args, ctx: ctx.ui.notify(repr(calls)))
    """)
    session = make_session(extensions=[path])
    session.provider.push(scripted_text("ok"))
    await session.prompt("/hi Ada")
    assert session.provider.requests[0][0].messages[-1].content[0].text == "Say hi to Ada"
    warnings = [w.message for w in session.resources.resources.warnings]
    assert "skill path does not exist" in warnings
    assert [e["event"] for e in errors(session)] == ["resources_discover"]
    await session.extension_runner.reload()
    await session.prompt("/calls")
    assert session.extension_runner.ui.inner.notifications[-1] == ("info", "[('reload', True)]")
