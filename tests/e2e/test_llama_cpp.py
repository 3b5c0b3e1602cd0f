"""The built-in llama.cpp provider end to end: the installed ``pi`` against the router stand-in."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import run_pi
from rpc_client import RpcClient

from pi_runtime.testing.llama_router import LlamaRouterStandIn, sample_models

LOADED = "llama.cpp/qwen3-4b-Q4_K_M"


def _with_router(env: dict[str, str], url: str) -> dict[str, str]:
    return {**env, "LLAMA_BASE_URL": url}


def test_list_models_shows_the_routers_loaded_and_sleeping_models(env):
    with LlamaRouterStandIn(sample_models()) as router:
        result = run_pi(["--list-models", "llama"], _with_router(env, router.url))
    assert result.returncode == 0, result.stderr
    rows = [line.split()[:2] for line in result.stdout.splitlines()[1:]]
    assert rows == [["llama.cpp", "gemma-3-4b-it-Q4_K_M"], ["llama.cpp", "qwen3-4b-Q4_K_M"]]


def test_a_prompt_is_answered_by_a_loaded_model_with_the_stored_login(env):
    with LlamaRouterStandIn(sample_models(), api_key="secret") as router:
        auth = {"llama.cpp": {"type": "api_key", "key": "secret", "env": {"LLAMA_BASE_URL": router.url}}}
        (Path(env["PI_CODING_AGENT_DIR"]) / "auth.json").write_text(json.dumps(auth))
        result = run_pi(["-p", "--model", LOADED, "hello"], env)
        chats = [r for r in router.requests if r.path == "/v1/chat/completions"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Hello from llama.cpp"
    assert chats[0].json()["model"] == "qwen3-4b-Q4_K_M"
    assert chats[0].headers["authorization"] == "Bearer secret"


def test_without_a_key_requests_say_local(env):
    with LlamaRouterStandIn(sample_models()) as router:
        result = run_pi(["-p", "--model", LOADED, "hello"], _with_router(env, router.url))
        chat = next(r for r in router.requests if r.path == "/v1/chat/completions")
    assert result.returncode == 0, result.stderr
    assert chat.headers["authorization"] == "Bearer local"


def test_an_unreachable_router_is_one_clear_line(env):
    with LlamaRouterStandIn([]) as router:
        url = router.url  # stopped: nothing listens there any more
    result = run_pi(["-p", "--model", LOADED, "hello"], _with_router(env, url), timeout=30)
    assert result.returncode != 0
    assert f"Could not reach llama.cpp server at {url}" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_setting_minus_builtin_turns_it_off(env):
    settings_path = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["extensions"] = ["-builtin:llama.cpp"]
    settings_path.write_text(json.dumps(settings))
    with LlamaRouterStandIn(sample_models()) as router:
        result = run_pi(["--list-models", "llama"], _with_router(env, router.url))
        assert router.requests == []
    assert "llama.cpp" not in result.stdout


def test_no_extensions_turns_it_off(env):
    with LlamaRouterStandIn(sample_models()) as router:
        result = run_pi(["-ne", "--list-models", "llama"], _with_router(env, router.url))
        assert router.requests == []
    assert "llama.cpp" not in result.stdout


def test_slash_llama_in_print_mode_says_it_is_for_interactive_mode(env):
    with LlamaRouterStandIn(sample_models()) as router:
        result = run_pi(["-p", "/llama"], _with_router(env, router.url))
    assert "/llama is available in interactive mode" in result.stderr + result.stdout


def test_rpc_lists_llama_before_anything_is_configured(env):
    client = RpcClient(env)
    try:
        commands = client.ok({"type": "get_commands"})["commands"]
    finally:
        client.close()
    llama = next(c for c in commands if c["name"] == "llama")
    assert llama["description"] == "Manage llama.cpp router models"
    assert llama["sourceInfo"]["path"] == "builtin:llama.cpp"


def test_slash_llama_in_rpc_mode_notifies_that_it_is_for_interactive_mode(env):
    with LlamaRouterStandIn(sample_models()) as router:
        client = RpcClient(_with_router(env, router.url))
        try:
            client.ok({"type": "prompt", "message": "/llama"})
            note = client.wait(lambda r: r.get("type") == "extension_ui_request" and r.get("method") == "notify")
        finally:
            client.close()
    assert note["message"] == "/llama is available in interactive mode"
    assert note.get("notifyType") == "warning"
