"""What scripts receive from the built-in tools (``structured_content``), and what a plain run imports."""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest

from pi_runtime.agent.tool import ToolFailed
from pi_runtime.tools.bash import BashParams, BashTool
from pi_runtime.tools.read import ReadParams, ReadTool

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


async def test_bash_gives_scripts_up_to_a_mebibyte_and_the_exit_code(tmp_path):
    bash = BashTool(str(tmp_path))
    with pytest.raises(ToolFailed) as failed:  # a non-zero exit rejects, carrying the whole result
        await bash.execute("c", BashParams(command="echo out; exit 3"), None, None)
    small = failed.value.result
    assert small.is_error
    assert small.structured_content["output"] == "out\n" and small.structured_content["exit_code"] == 3
    assert small.structured_content["truncated"] is False and "full_output_path" not in small.structured_content
    seconds = small.structured_content["wall_time_seconds"]  # a whole number as Pi writes it: 0, never 0.0
    assert isinstance(seconds, int) or not float(seconds).is_integer()
    big = await bash.execute("c", BashParams(command="head -c 1500000 /dev/zero | tr '\\\\0' x"), None, None)
    value = big.structured_content
    assert value["truncated"] is True and value["full_output_path"]
    assert "\n\n[... 451424 bytes omitted ...]\n\n" in value["output"]
    assert len(value["output"]) == 1024 * 1024 + len("\n\n[... 451424 bytes omitted ...]\n\n")


async def test_read_gives_text_or_an_image_block(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "dot.png").write_bytes(PNG)
    read = ReadTool(str(tmp_path))
    assert (await read.execute("c", ReadParams(path="a.txt"), None, None)).structured_content == "alpha\n"
    image = (await read.execute("c", ReadParams(path="dot.png"), None, None)).structured_content
    assert image["type"] == "image" and image["mimeType"] == "image/png" and image["data"]
    assert isinstance(image["note"], str)


def test_a_run_without_codemode_imports_none_of_it(tmp_path):
    script = (
        "import sys\n"
        "from pi_runtime.ai.providers.scripted import ScriptedProvider\n"
        "from pi_runtime.sdk import create_agent_session\n"
        "from pi_runtime.session.manager import SessionManager\n"
        f"s = create_agent_session(cwd={str(tmp_path)!r}, agent_dir={str(tmp_path)!r}, "
        "model=ScriptedProvider('x').model(), session_manager=SessionManager.in_memory())\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pi_runtime.codemode', 'quickjs', '_quickjs'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={"PI_CODING_AGENT_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


async def test_models_lists_the_catalogs_classifier_and_image_models(tmp_path):
    from pi_runtime.ai.models import ModelRegistry
    from pi_runtime.auth import AuthStorage
    from pi_runtime.codemode.pool import shared_pool
    from pi_runtime.codemode.run import execute_codemode

    registry = ModelRegistry(str(tmp_path / "models.json"), AuthStorage(str(tmp_path / "auth.json")))
    code = ('const [c] = await models.getModelsOfType("classifier");\n'
            'const again = await models.getModelOfType("classifier", c.provider, c.id);\n'
            'let error = "";\n'
            'try { await models.classify({ provider: "nope", id: "x" }, {}) } catch (e) { error = e.message }\n'
            'return [(await models.getModelsOfType("image")).length > 0, again.id === c.id, c.type, error]')
    result = await execute_codemode("c", code, signal=None, on_update=None, callable_=[], guidelines=lambda _n: (),
                                    execute_tool=None, branch=[], append_store=lambda _d: None, registry=registry)
    await shared_pool().close()
    assert result.content[-1].text == ('[true,true,"classifier","Unknown classifier model \\"nope/x\\". List the '
                                       'classifier models you can use with models.getAvailableOfType(\\"classifier\\")."]')
