"""Discovery and loading: locations, trust, settings, -e, packages, and failures that don't stop pi."""

from __future__ import annotations

import json
import textwrap

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.extensions.loader import discover_extensions
from pi_runtime.settings import SettingsManager

from .conftest import errors

OK = "def extension(pi):\n    pi.register_command('{name}', lambda args, ctx: None)\n"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_discovery_order_trust_and_settings(tmp_path, agent_dir, workdir):
    write(agent_dir / "extensions" / "global_one.py", OK.format(name="g"))
    write(agent_dir / "extensions" / "pkg" / "__init__.py", OK.format(name="p"))
    write(agent_dir / "extensions" / "_private.py", OK.format(name="x"))
    write(agent_dir / "extensions" / "notes.txt", "not python")
    write(workdir / ".pi" / "extensions" / "local.py", OK.format(name="l"))
    write(tmp_path / "elsewhere" / "from_settings.py", OK.format(name="s"))
    write(tmp_path / "cli.py", OK.format(name="c"))
    (agent_dir / "settings.json").write_text(json.dumps(
        {"extensions": [str(tmp_path / "elsewhere" / "from_settings.py"), "builtin:plan-mode", "missing.py"]}))
    settings = SettingsManager.create(str(workdir), agent_dir)

    sources, failures = discover_extensions(workdir, agent_dir, settings=settings, project_trusted=True,
                                            paths=[str(tmp_path / "cli.py")])
    names = [s.path.rsplit("/", 1)[-1] for s in sources]
    assert names == ["global_one.py", "pkg", "local.py", "from_settings.py", "builtin:plan-mode", "cli.py"]
    assert [s.scope for s in sources] == ["global", "global", "project", "settings", "builtin", "cli"]
    assert [f.path.rsplit("/", 1)[-1] for f in failures] == ["missing.py"]
    assert failures[0].error == "Extension not found"

    untrusted, _ = discover_extensions(workdir, agent_dir, settings=settings, project_trusted=False)
    assert "local.py" not in [s.path.rsplit("/", 1)[-1] for s in untrusted]

    only_cli, failures = discover_extensions(workdir, agent_dir, settings=settings, no_extensions=True,
                                             paths=[str(tmp_path / "cli.py"), "builtin:nope"])
    assert [s.scope for s in only_cli] == ["cli"]
    assert "Unknown built-in extension 'nope'" in failures[0].error


def test_settings_overrides_turn_off_extensions_found_in_their_folders(agent_dir, workdir):
    # Pi 1.6: "-extensions/<file>" or "!pattern" in a settings file's extensions list turns off what
    # pi finds in that file's folder (the agent folder's extensions/, the project's .pi/extensions/).
    for name in ("keep.py", "drop.py", "noisy_a.py"):
        write(agent_dir / "extensions" / name, OK.format(name=name[:-3]))
    write(agent_dir / "extensions" / "pkg" / "__init__.py", OK.format(name="pkg"))
    write(workdir / ".pi" / "extensions" / "local.py", OK.format(name="l"))
    (agent_dir / "settings.json").write_text(json.dumps(
        {"extensions": ["-extensions/drop.py", "!noisy_*", "-extensions/pkg", "-builtin:mcp"]}))
    (workdir / ".pi").mkdir(exist_ok=True)
    (workdir / ".pi" / "settings.json").write_text(json.dumps({"extensions": ["!local.py"]}))
    settings = SettingsManager.create(str(workdir), agent_dir)
    sources, failures = discover_extensions(workdir, agent_dir, settings=settings, project_trusted=True)
    assert [s.path.rsplit("/", 1)[-1] for s in sources] == ["keep.py"] and not failures


async def test_failing_extensions_do_not_take_pi_down(make_session, write_ext, tmp_path):
    syntax = write_ext("syntax", "def extension(pi)\n    pass\n")
    importing = write_ext("importing", "import no_such_module_for_pi\ndef extension(pi): pass\n")
    factory = write_ext("factory", """
        def helper():
            raise ValueError("factory exploded")
        def extension(pi):
            helper()
    """)
    nofunc = write_ext("nofunc", "X = 1\n")
    good = write_ext("good", """
        def extension(pi):
            pi.on("input", lambda e, ctx: {"action": "transform", "text": e.text.upper()})
    """)
    package = tmp_path / "mypkg"
    write(package / "__init__.py", """
        from .helpers import suffix
        def extension(pi):
            pi.on("input", lambda e, ctx: {"action": "transform", "text": e.text + suffix()})
    """)
    write(package / "helpers.py", "def suffix():\n    return '?'\n")
    session = make_session(extensions=[syntax, importing, factory, nofunc, good, str(package), str(tmp_path / "gone.py")])
    session.provider.push(scripted_text("fine"))
    await session.prompt("hello")
    assert session.provider.requests[0][0].messages[-1].content[0].text == "HELLO?"
    reported = {e["extensionPath"].rsplit("/", 1)[-1]: e for e in errors(session)}
    assert set(reported) == {"syntax.py", "importing.py", "factory.py", "nofunc.py", "gone.py"}
    assert all(e["event"] == "load" for e in reported.values())
    assert "SyntaxError" in reported["syntax.py"]["error"]
    assert "No module named 'no_such_module_for_pi'" in reported["importing.py"]["error"]
    assert "ValueError: factory exploded" in reported["factory.py"]["error"]
    assert "in helper" in reported["factory.py"]["error"]  # the extension's own frames, not pi's
    assert "no 'extension(pi)' function" in reported["nofunc.py"]["error"]


async def test_no_extensions_means_no_runner(make_session):
    session = make_session()
    assert getattr(session, "extension_runner", None) is None


async def test_async_factory_and_explicit_start(make_session, write_ext):
    path = write_ext("asyncfac", """
        import asyncio
        order = []
        async def extension(pi):
            await asyncio.sleep(0)
            order.append("factory done")
            pi.on("session_start", lambda e, ctx: order.append("session_start"))
    """)
    session = make_session(extensions=[path])
    await session.extension_runner.start()
    await session.extension_runner.start()  # once only
    from .conftest import module_of
    assert module_of(path).order == ["factory done", "session_start"]


async def test_project_extension_needs_trust(make_session, workdir):
    from pi_runtime.resources.loader import ResourceLoader

    write(workdir / ".pi" / "extensions" / "local.py", OK.format(name="local"))
    trusted = make_session()
    assert [c["name"] for c in trusted.extension_runner.get_commands()] == ["local"]
    loader = ResourceLoader(str(workdir), project_trusted=False)
    untrusted = make_session(resource_loader=loader)
    assert getattr(untrusted, "extension_runner", None) is None
