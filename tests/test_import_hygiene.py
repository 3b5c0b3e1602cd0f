"""Layering, proven: the runtime never loads the UI stack, and --version stays featherweight."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_no_runtime_module_imports_textual_or_rich():
    loaded = run_python(
        """
        import importlib, pkgutil, sys
        import pi_runtime
        for mod in pkgutil.walk_packages(pi_runtime.__path__, "pi_runtime."):
            importlib.import_module(mod.name)
        bad = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich", "pi_tui"))
        print(",".join(bad))
        """
    )
    assert loaded == ""


def test_version_does_not_import_heavy_libraries():
    loaded = run_python(
        """
        import sys, io, contextlib
        from pi_runtime.cli import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["--version"])
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "httpx", "httpx2", "httpcore2", "h11", "textual", "rich"))
        print(code, buf.getvalue().strip(), ",".join(heavy))
        """
    )
    code, version, heavy = (loaded.split(" ") + [""])[:3]
    assert code == "0"
    assert version.count(".") == 2
    assert heavy == ""


def test_the_app_module_loads_without_the_kernel_stack():
    # The app paints its first frame before the kernel is imported (in a worker); anything
    # pulling pydantic or httpx into ``pi_tui.app`` would delay that frame for everyone.
    loaded = run_python(
        """
        import sys
        import pi_tui.app, pi_tui.launch
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "httpx", "httpx2"))))
        """
    )
    assert loaded == ""


def test_help_and_list_models_do_not_import_the_http_client():
    # The HTTP client is imported by the first request, never by commands that make none.
    loaded = run_python(
        """
        import sys, io, os, tempfile, contextlib
        os.environ["PI_CODING_AGENT_DIR"] = tempfile.mkdtemp()
        from pi_runtime.cli import main
        for args in (["--help"], ["--list-models"]):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    main(args)
                except SystemExit:
                    pass
        import pi_runtime.http, pi_runtime.ai.providers._http, pi_runtime.ai.providers.openai_completions
        # The cloud providers' libraries (AWS signing and framing, RSA for Google) load on their first request.
        import pi_runtime.ai.providers.bedrock_converse, pi_runtime.ai.providers.google_vertex
        heavy = ("httpx2", "httpcore2", "h11", "anyio", "botocore", "cryptography")
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
        """
    )
    assert loaded == ""


def test_the_app_runs_textual_at_120_ticks_without_passing_it_to_child_processes():
    out = run_python(
        """
        import os
        os.environ.pop("TEXTUAL_FPS", None)
        os.environ.pop("ESCDELAY", None)
        import pi_tui.app
        import textual.constants
        print(textual.constants.MAX_FPS, textual.constants.ESCAPE_DELAY, os.environ.get("TEXTUAL_FPS"),
              os.environ.get("ESCDELAY"))
        """
    )
    assert out == "120 0.01 None None"  # and Pi's 10 ms wait after a lone ESC


def _runtime_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every ``pi_runtime`` import in a file (absolute or ``from x import y``)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "pi_runtime" else [f"pi_runtime.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [(node.lineno, n) for n in names if n.split(".")[0] == "pi_runtime"]
    return found


def test_the_app_imports_only_the_runtimes_public_face():
    # pi_tui holds a session through pi_runtime.frontend (SessionPort, the event union, typed
    # results, the listing a picker needs); reaching past it couples the UI to kernel internals.
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sorted((ROOT / "pi_tui").rglob("*.py"))
        for line, module in _runtime_imports(path)
        if module != "pi_runtime.frontend" and not module.startswith("pi_runtime.frontend.")
    ]
    assert offenders == []


def test_the_public_face_loads_lazily_and_its_events_are_light():
    loaded = run_python(
        """
        import sys
        import pi_runtime.frontend, pi_runtime.frontend.app_support
        from pi_runtime.frontend import events
        assert events.AgentStartEvent.type == "agent_start"
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "httpx", "httpx2"))))
        """
    )
    assert loaded == ""


def print_mode_answer(tmp_path: Path, loaded_expression: str) -> list[str]:
    """Answer ``pi -p hi`` from a loopback model in a fresh interpreter; returns the exit status,
    the answer and ``loaded_expression`` (evaluated afterwards, ``sys.modules`` in scope)."""
    loaded = run_python(
        f"""
        import io, json, os, sys, contextlib
        from pathlib import Path
        from pi_runtime.testing.loopback import LoopbackServer, Reply

        def reply(request):
            chunk = {{"id": "c", "object": "chat.completion.chunk", "model": "m",
                     "choices": [{{"index": 0, "delta": {{"content": "hello"}}, "finish_reason": "stop"}}]}}
            return Reply.sse([chunk, "[DONE]"])

        agent = Path({str(tmp_path)!r})
        with LoopbackServer(reply) as server:
            models = {{"providers": {{"t": {{"baseUrl": server.url + "/v1", "api": "openai-completions",
                                           "apiKey": "k", "models": [{{"id": "m"}}]}}}}}}
            (agent / "models.json").write_text(json.dumps(models))
            os.environ.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1")
            from pi_runtime.cli import main
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main(["-p", "hi", "--no-session", "--model", "t/m"])
        print(code, out.getvalue().strip(), {loaded_expression})
        """
    )
    return loaded.split(" ")


def test_a_print_mode_answer_loads_no_pydantic(tmp_path):
    # pydantic cost ~70 ms of a 0.18 s ``pi -p`` (import plus validator builds); pi's own
    # types are jsonmodel classes, so only an extension or MCP server that uses it pays.
    loaded = print_mode_answer(
        tmp_path, '",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core"))) or "-"')
    assert loaded == ["0", "hello", "-"]


# Modules a plain answer never uses, each loaded where it is (measured with callgrind on ``pi -p``:
# together some 60 M instructions, ~14 ms): the kernel's command results, the routing types of
# virtual models, the edit tool's matcher and differ, read's window and image code, the /mcp
# command, the sign-in registry (only for a provider with a stored OAuth credential).
_NOT_FOR_A_PLAIN_ANSWER = (
    "pi_runtime.kernel.results", "pi_runtime.ai.virtual", "pi_runtime.tools.edit_diff",
    "pi_runtime.tools.edit_match", "pi_runtime.tools.read_window", "pi_runtime.tools.image_resize",
    "pi_runtime.mcp.command", "pi_runtime.ai.signin",
    # The front-matter parser (only for a skill or template file), the tool-call argument parsers
    # (only for a tool call) and difflib (only to suggest a name for a misspelt one): ~5 M together.
    "pi_runtime.resources.frontmatter", "pi_runtime.ai.tool_arguments", "pi_runtime.ai.partial_json", "difflib",
    # The extension loader (records, importing): a run with no extension only looks (discovery.py).
    "pi_runtime.extensions.loader",
    # secrets and the hmac it brings (~1 M): session and entry ids take os.urandom, as secrets does.
    "secrets", "hmac",
    # What tools need to run, not to be declared: ripgrep's runner, the tree walker, bash's output collector.
    "pi_runtime.tools.ripgrep", "pi_runtime.tools.walk", "pi_runtime.tools.output",
    # The user's ! commands and tree navigation (~1.5 M): made by the session on first use.
    "pi_runtime.kernel.bash_runner", "pi_runtime.kernel.navigator",
    # Listing sessions and drawing the tree (~0.8 M): a prompt without a session does neither.
    "pi_runtime.session.listing", "pi_runtime.session.tree",
    # The BOM-dropping codec (~0.5 M): settings.json and models.json drop a BOM themselves.
    "encodings.utf_8_sig",
)


def test_a_print_mode_answer_loads_only_what_it_uses(tmp_path):
    names = ",".join(_NOT_FOR_A_PLAIN_ANSWER)
    loaded = print_mode_answer(tmp_path, f'",".join(m for m in {names!r}.split(",") if m in sys.modules) or "-"')
    assert loaded == ["0", "hello", "-"]


# Patterns compiled on first use (``functools.cache`` accessors): a plain answer compiles none.
# The case-insensitive URL-password pattern alone cost ~2.8 M instructions to compile.
_PATTERNS_NOT_FOR_A_PLAIN_ANSWER = (
    "pi_runtime.ai.redaction._url_password", "pi_runtime.resources.prompt_templates._command_pattern",
    "pi_runtime.resources.prompt_templates._placeholder_pattern", "pi_runtime.resources.skills._name_pattern",
    "pi_runtime.resources.skills._command_pattern",
)


def test_a_print_mode_answer_compiles_no_pattern_it_does_not_use(tmp_path):
    names = ",".join(_PATTERNS_NOT_FOR_A_PLAIN_ANSWER)
    compiled = (f'",".join(n for n in {names!r}.split(",") '
                'if getattr(sys.modules[n.rsplit(".", 1)[0]], n.rsplit(".", 1)[1]).cache_info().currsize) or "-"')
    assert print_mode_answer(tmp_path, compiled) == ["0", "hello", "-"]


def test_serve_web_loads_neither_textual_nor_the_web_framework_of_textual_serve():
    # pi serve --web runs the app only in child processes; the server itself serves textual-serve's
    # static files without importing it (its aiohttp server would cost start-up and memory).
    loaded = run_python(
        """
        import sys
        import pi_runtime.serve.cli, pi_runtime.serve.web.site
        from pi_runtime.serve.web.assets import load_assets
        from pi_runtime.serve.web.child import attach_opens_app
        assert "/static/textual.js" in load_assets()
        attach_opens_app()
        bad = ("textual", "rich", "pi_tui", "textual_serve", "aiohttp", "jinja2")
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in bad)))
        """
    )
    assert loaded == ""


def test_reading_no_models_json_compiles_none_of_its_classes(tmp_path):
    # Most users have no models.json: its classes' validators and the known-key sets (~3.5 M
    # instructions of every start-up when built at import) wait for a file to read.
    compiled = run_python(
        f"""
        from pathlib import Path
        from pi_runtime.ai import models_json
        models_json.load_models_json(Path({str(tmp_path / "models.json")!r}))
        classes = (models_json.ProviderFields, models_json._ModelCommon, models_json.ModelDef)
        print(",".join(c.__name__ for c in classes if "_jm_cache" in c.__dict__) or "-")
        """
    )
    assert compiled == "-"


def test_reading_a_models_json_compiles_only_the_classes_it_validates(tmp_path):
    # The keys a model entry may have come from the annotations: the shared base of models and
    # overrides, never validated itself, was compiled only for them (~1.5 M instructions).
    (tmp_path / "models.json").write_text('{"providers": {"p": {"baseUrl": "http://127.0.0.1:1/v1", '
                                          '"api": "openai-completions", "apiKey": "k", "models": [{"id": "m"}]}}}')
    compiled = run_python(
        f"""
        from pathlib import Path
        from pi_runtime.ai import models_json
        loaded = models_json.load_models_json(Path({str(tmp_path / "models.json")!r}))
        assert not loaded.errors and list(loaded.providers) == ["p"], loaded
        classes = (models_json.ProviderFields, models_json._ModelCommon, models_json.ModelDef)
        print(",".join(c.__name__ for c in classes if "_jm_cache" in c.__dict__) or "-")
        """
    )
    assert compiled == "ProviderFields,ModelDef"
