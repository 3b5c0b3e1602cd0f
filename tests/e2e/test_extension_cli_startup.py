"""Extensions on the command line before a session exists: ``--help`` lists their flags,
``--list-models`` their providers' models, ``--export`` accepts their flags, and the
interactive app reports a bad flag before it paints (issue #16)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from e2e_support import run_pi, session_files, text_reply
from test_interactive_pty import Terminal, answers_saved

from pi_runtime.testing.waiting import wait_until

ALTERNATE_SCREEN = b"\x1b[?1049h"
"""What the full-screen app writes first: its absence means pi never painted."""

EXTENSION = """
    import os
    from pi_runtime.extensions import text_stream

    async def reply(model, context, options):
        return "echo"

    def extension(pi):
        with open(os.environ["LOAD_LOG"], "a") as log:  # one line per time pi loads this file
            log.write("loaded\\n")
        pi.register_flag("plan", description="Start in plan mode", type="boolean", default=False)
        pi.register_flag("target", type="string", default="staging")
        pi.register_provider("echo-corp", models=[{"id": "echo-1", "name": "Echo One"}], api_key="k",
                             stream=text_stream(reply))
        pi.on("input", lambda e, ctx: {"action": "transform",
                                       "text": f"{e.text} [plan={pi.get_flag('plan')} target={pi.get_flag('target')}]"})
"""


def _extension(env: dict[str, str], tmp_path: Path) -> str:
    path = tmp_path / "flags_and_provider.py"
    path.write_text(textwrap.dedent(EXTENSION))
    env["LOAD_LOG"] = str(tmp_path / "loads.log")
    return str(path)


def _loads(tmp_path: Path) -> int:
    log = tmp_path / "loads.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_help_lists_extension_flags_with_their_descriptions(env, tmp_path):
    ext = _extension(env, tmp_path)
    plain = run_pi(["--help"], env)
    assert plain.returncode == 0 and "Extension flags:" not in plain.stdout
    helped = run_pi(["-e", ext, "--help"], env)
    assert helped.returncode == 0, helped.stderr
    section = helped.stdout.split("Extension flags:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section[0].split(None, 1) == ["--plan", "Start in plan mode"]
    # Without a description, Pi names the extension that registered the flag.
    assert section[1].split(None, 2) == ["--target", "<value>", f"Registered by {ext}"]
    assert helped.stdout.index("Extension flags:") < helped.stdout.index("Environment:")


def test_help_finds_extensions_in_the_agent_dir_but_not_with_no_extensions(env, tmp_path):
    ext = _extension(env, tmp_path)
    folder = Path(env["PI_CODING_AGENT_DIR"], "extensions")
    folder.mkdir()
    (folder / "flags.py").write_text(Path(ext).read_text())
    assert "--plan" in run_pi(["--help"], env).stdout
    assert "Extension flags:" not in run_pi(["-ne", "--help"], env).stdout
    (folder / "flags.py").unlink()
    settings_file = Path(env["PI_CODING_AGENT_DIR"], "settings.json")
    settings_file.write_text(json.dumps({**json.loads(settings_file.read_text()), "extensions": [ext]}))
    assert "--plan" in run_pi(["--help"], env).stdout  # listed in settings.json


def test_help_is_printed_even_with_a_flag_nobody_registered(env, tmp_path):
    ext = _extension(env, tmp_path)
    for args in (["--help", "--planz"], ["-e", ext, "--help", "--planz"]):
        helped = run_pi(args, env)
        assert helped.returncode == 0 and helped.stdout.startswith("pi - a terminal coding agent")
        assert helped.stderr.startswith("pi: Unknown option: --planz"), helped.stderr


def test_list_models_includes_an_extension_providers_models_and_accepts_its_flags(env, tmp_path):
    ext = _extension(env, tmp_path)
    listed = run_pi(["-e", ext, "--list-models", "--plan", "--target", "prod"], env)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split()[:2] for line in listed.stdout.splitlines()]
    assert ["echo-corp", "echo-1"] in rows and ["loop", "loop-model"] in rows
    searched = run_pi(["-e", ext, "--list-models", "echo"], env)
    assert [line.split()[:2] for line in searched.stdout.splitlines()[1:]] == [["echo-corp", "echo-1"]]
    assert "echo-corp" not in run_pi(["--list-models"], env).stdout  # it comes from the extension
    wrong = run_pi(["-e", ext, "--list-models", "--planz"], env)
    assert wrong.returncode == 2 and "Unknown option: --planz (did you mean --plan?)" in wrong.stderr
    assert run_pi(["--list-models", "--plan"], env).returncode == 2  # nobody registered --plan


def test_export_accepts_extension_flags_and_rejects_unknown_ones(env, loopback, tmp_path):
    loopback.push(text_reply("answer"))
    assert run_pi(["-p", "hello"], env).returncode == 0
    saved = session_files(env)[0]
    ext = _extension(env, tmp_path)
    out = tmp_path / "out.html"
    exported = run_pi(["-e", ext, "--export", str(saved), str(out), "--target", "prod"], env)
    assert exported.returncode == 0, exported.stderr
    from pi_runtime.kernel.export_html import decode_session_data

    assert "answer" in json.dumps(decode_session_data(out.read_text())["entries"])
    refused = run_pi(["--export", str(saved), str(tmp_path / "no.html"), "--target", "prod"], env)
    assert refused.returncode == 2 and "Unknown option: --target" in refused.stderr
    assert not (tmp_path / "no.html").exists()
    assert _loads(tmp_path) == 1  # the export without -e loaded nothing


def _run_to_exit(args: list[str], env: dict[str, str]) -> Terminal:
    term = Terminal(args, env)
    term.status = term.exit_status(30)  # type: ignore[attr-defined]
    return term


def test_interactive_reports_an_unknown_or_incomplete_flag_before_the_app_paints(env, tmp_path):
    ext = _extension(env, tmp_path)
    for args, message in (
        (["--demo", "--planz"], "Unknown option: --planz"),
        (["--demo", "-e", ext, "--planz"], "Unknown option: --planz (did you mean --plan?)"),
        (["--demo", "-e", ext, "--target"], 'Extension flag "--target" requires a value'),
    ):
        term = _run_to_exit(args, env)
        try:
            assert term.status == 2, term.screen[-1500:]  # type: ignore[attr-defined]
            assert message in term.screen and ALTERNATE_SCREEN not in term.output
        finally:
            term.close()


def test_interactive_flags_reach_the_extension_which_loads_once(env, tmp_path):
    ext = _extension(env, tmp_path)
    # --plan is boolean: the word the parser took as its value is the first prompt again.
    term = Terminal(["--demo", "-e", ext, "--target", "prod", "--plan", "say hi"], env)
    try:
        assert term.wait_for("Youasked:sayhi[plan=Truetarget=prod]"), term.screen[-2000:]
        assert ALTERNATE_SCREEN in term.output
        assert wait_until(lambda: answers_saved(env) == 1)  # the run has settled
        term.type(b"\x04")
        assert term.exit_status() == 0
    finally:
        term.close()
    assert _loads(tmp_path) == 1  # the check before the first frame and the session share one load


def _imported_by_help(args: list[str], env: dict[str, str]) -> set[str]:
    probe = run_pi([*args, "--help"], {**env, "PYTHONPROFILEIMPORTTIME": "1"})
    assert probe.returncode == 0, probe.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in probe.stderr.splitlines() if "|" in line}


def test_help_without_extensions_imports_no_extension_machinery(env, tmp_path):
    # --help stays cheap when nothing is configured: settings and the runner are never imported.
    imported = _imported_by_help([], env)
    assert "pi_runtime.settings" not in imported and "pi_runtime.extensions.runner" not in imported
    assert "pi_runtime.extensions.runner" in _imported_by_help(["-e", _extension(env, tmp_path)], env)


def test_help_and_list_models_name_an_extension_that_failed_to_load(env, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n\ndef extension(pi):\n    pass\n")
    expected = f'pi: Failed to load extension "{broken}": ModuleNotFoundError: No module named \'no_such_module_here\''
    for args in (["--help"], ["--list-models"]):
        result = run_pi(["-e", str(broken), *args], env)
        assert result.returncode == 0 and result.stderr.splitlines() == [expected], result.stderr


def test_a_bad_flag_after_the_trust_question_is_still_a_usage_error(env):
    # With the project's trust still open, project extensions (and so their flags) are only
    # known once the user answers inside the app; a mistake found then exits 2, as before paint.
    extensions = Path(env["PI_TEST_PROJECT"]) / ".pi" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "flags.py").write_text(
        'def extension(pi):\n    pi.register_flag("projflag", description="p", type="boolean", default=False)\n')
    term = Terminal(["--demo", "--projflagz"], env)
    try:
        assert term.wait_for("Trustprojectfolder?"), term.screen[-1500:]
        term.type(b"\x1b[B\x1b[B\r")  # "Trust (this session only)"
        assert term.exit_status(30) == 2, term.screen[-1500:]
        assert "Unknown option: --projflagz (did you mean --projflag?)" in term.screen
    finally:
        term.close()
