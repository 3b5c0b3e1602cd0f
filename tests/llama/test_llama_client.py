"""The llama.cpp client and catalog against the router stand-in on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from pi_runtime.llama.catalog import chat_models
from pi_runtime.llama.client import LlamaClient, LlamaError, normalize_server_url
from pi_runtime.testing.llama_router import LlamaRouterStandIn, RouterModel, sample_models


@pytest.fixture
def router() -> Iterator[LlamaRouterStandIn]:
    with LlamaRouterStandIn(sample_models()) as standin:
        yield standin


def test_server_url_loses_a_trailing_v1_and_slashes() -> None:
    assert normalize_server_url(" http://127.0.0.1:9931/v1/ ") == "http://127.0.0.1:9931"
    assert normalize_server_url("http://host:1/base/?x=1#y") == "http://host:1/base"
    with pytest.raises(ValueError, match="http or https"):
        normalize_server_url("ftp://127.0.0.1")


async def test_list_gives_every_model_with_its_state(router: LlamaRouterStandIn) -> None:
    models = await LlamaClient(router.url + "/v1").list()
    assert {m["id"]: m["status"]["value"] for m in models} == {
        "qwen3-4b-Q4_K_M": "loaded", "gemma-3-4b-it-Q4_K_M": "sleeping",
        "llama-3.2-1b-Q4_K_M": "unloaded", "phi-4-mini-Q4_K_M": "unloaded"}


async def test_load_and_wait_polls_until_loaded_and_reports_stages(router: LlamaRouterStandIn) -> None:
    seen: list[dict] = []
    entry = await LlamaClient(router.url).load_and_wait("llama-3.2-1b-Q4_K_M", seen.append)
    assert entry["status"]["value"] == "loaded"
    assert router.loads == ["llama-3.2-1b-Q4_K_M"]
    assert any(p["message"].startswith("Loading ") and "ratio" in p for p in seen), seen


async def test_a_failed_load_is_an_error_with_the_exit_code() -> None:
    with (LlamaRouterStandIn([RouterModel("bad")], fail_loads=("bad",), load_polls=0) as standin,
          pytest.raises(LlamaError, match="exited with code 1")):
        await LlamaClient(standin.url).load_and_wait("bad", lambda _p: None)


async def test_unload_and_wait(router: LlamaRouterStandIn) -> None:
    await LlamaClient(router.url).unload_and_wait("qwen3-4b-Q4_K_M")
    assert router.unloads == ["qwen3-4b-Q4_K_M"]
    assert router.state_of("qwen3-4b-Q4_K_M") == "unloaded"


async def test_a_wrong_key_is_the_routers_message() -> None:
    with LlamaRouterStandIn(sample_models(), api_key="right") as standin:
        with pytest.raises(LlamaError, match="Invalid API Key"):
            await LlamaClient(standin.url, "wrong").list()
        assert await LlamaClient(standin.url, "right").list()
        assert standin.requests[-1].headers["authorization"] == "Bearer right"


async def test_an_unreachable_router_names_its_url() -> None:
    with LlamaRouterStandIn([]) as standin:
        url = standin.url
    with pytest.raises(LlamaError, match=f"Could not reach llama.cpp server at {url}") as caught:
        await LlamaClient(url).list()
    assert caught.value.connection


async def test_a_server_that_is_not_a_router_is_said_to_be_so() -> None:
    from pi_runtime.testing.loopback import LoopbackServer, Reply

    with LoopbackServer() as server:
        server.push(Reply.json(200, {"data": [{"id": "single-model"}]}))
        with pytest.raises(LlamaError, match="not running in llama.cpp router mode"):
            await LlamaClient(server.url).list()


async def test_chat_models_are_the_loaded_and_sleeping_ones(router: LlamaRouterStandIn) -> None:
    models = await chat_models(LlamaClient(router.url))
    assert sorted(m["id"] for m in models) == ["gemma-3-4b-it-Q4_K_M", "qwen3-4b-Q4_K_M"]
    qwen = next(m for m in models if m["id"] == "qwen3-4b-Q4_K_M")
    assert qwen["baseUrl"] == router.url + "/v1"
    assert qwen["contextWindow"] == qwen["maxTokens"] == 32768
    assert qwen["compat"]["maxTokensField"] == "max_tokens"


async def test_unloaded_presets_join_when_the_router_autoloads() -> None:
    with LlamaRouterStandIn(sample_models(), autoload=True) as standin:
        ids = [m["id"] for m in await chat_models(LlamaClient(standin.url))]
    assert "phi-4-mini-Q4_K_M" in ids and "llama-3.2-1b-Q4_K_M" not in ids


async def test_a_thinking_template_makes_a_reasoning_model() -> None:
    model = RouterModel("thinker", "loaded", chat_template="{% if enable_thinking %}<think>{% endif %}")
    with LlamaRouterStandIn([model]) as standin:
        [entry] = await chat_models(LlamaClient(standin.url))
    assert entry["reasoning"] is True
    assert entry["compat"]["thinkingFormat"] == "qwen-chat-template"


async def test_a_held_load_stays_loading_until_released(router: LlamaRouterStandIn) -> None:
    router.hold = threading.Event()
    client = LlamaClient(router.url)
    await client.load("llama-3.2-1b-Q4_K_M")
    for _ in range(4):
        await client.list()
    assert router.state_of("llama-3.2-1b-Q4_K_M") == "loading"
    router.hold.set()
    for _ in range(router.load_polls + 1):
        await client.list()
    assert router.state_of("llama-3.2-1b-Q4_K_M") == "loaded"
