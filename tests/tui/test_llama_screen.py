"""``/llama`` in the app against the llama.cpp router stand-in: the models and their states,
loading (with the question about the loaded ones, progress, and Esc to stop) and unloading."""

from __future__ import annotations

import threading

from pi_runtime.testing.llama_router import LlamaRouterStandIn, RouterModel, sample_models
from pi_tui.commands.commands import COMMANDS
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, started, wait_for
from .test_commands_models import type_command

UNLOADED = "llama-3.2-1b-Q4_K_M"


def _llama_session(provider, workdir, monkeypatch, url: str):
    monkeypatch.setenv("LLAMA_BASE_URL", url)
    return make_session(provider, workdir, extensions=["builtin:llama.cpp"])


async def _open(pilot, app) -> None:
    await type_command(pilot, "/llama")
    assert await wait_for(pilot, lambda: app.screen.id == "llama-screen" and "Download model" in screen_text(app))


async def test_llama_loads_keeping_the_others_then_unloads(provider, workdir, agent_dir, monkeypatch):
    with LlamaRouterStandIn(sample_models()) as router:
        session = _llama_session(provider, workdir, monkeypatch, router.url)
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 34)) as pilot:
            await started(pilot)
            assert ("llama", "Manage llama.cpp router models") in COMMANDS.menu_entries(session)
            await _open(pilot, app)
            text = screen_text(app)
            assert router.url in text
            assert "loaded · 33k context" in text and "loaded · 16k context" in text
            # Loaded first, then by name: qwen3 (loaded), gemma (sleeping), llama, phi.
            assert text.index("qwen3-4b") < text.index("gemma-3") < text.index(UNLOADED) < text.index("phi-4")
            router.hold = threading.Event()
            await pilot.press("down", "down", "enter")
            assert await wait_for(pilot, lambda: "2 models are loaded" in screen_text(app))
            await pilot.press("down", "enter")  # Keep loaded and load
            assert await wait_for(pilot, lambda: "Loading model" in screen_text(app) and "esc stop" in screen_text(app))
            assert router.loads == [UNLOADED]
            router.hold.set()
            assert await wait_for(pilot, lambda: session.model_registry.find("llama.cpp", UNLOADED) is not None)
            assert await wait_for(pilot, lambda: "llama.cpp models" in screen_text(app))
            assert router.unloads == []
            # The highlight stays on the model just loaded: Enter asks to unload it.
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: "Unload model?" in screen_text(app))
            await pilot.press("enter")  # Yes
            assert await wait_for(pilot, lambda: router.unloads == [UNLOADED])
            assert await wait_for(pilot, lambda: session.model_registry.find("llama.cpp", UNLOADED) is None)
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: app.screen.id != "llama-screen")


async def test_esc_stops_a_load_and_brings_back_the_unloaded_models(provider, workdir, agent_dir, monkeypatch):
    with LlamaRouterStandIn(sample_models()) as router:
        session = _llama_session(provider, workdir, monkeypatch, router.url)
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 34)) as pilot:
            await started(pilot)
            await _open(pilot, app)
            router.hold = threading.Event()
            await pilot.press("down", "down", "enter")
            assert await wait_for(pilot, lambda: "2 models are loaded" in screen_text(app))
            await pilot.press("enter")  # Unload all and load
            assert await wait_for(pilot, lambda: "esc stop" in screen_text(app))
            assert sorted(router.unloads) == ["gemma-3-4b-it-Q4_K_M", "qwen3-4b-Q4_K_M"]
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: "Stop loading?" in screen_text(app))
            await pilot.press("enter")  # Yes
            assert await wait_for(pilot, lambda: UNLOADED in router.unloads)
            router.hold.set()  # the models unloaded for it load again
            assert await wait_for(pilot, lambda: router.state_of("qwen3-4b-Q4_K_M") == "loaded"
                                  and router.state_of("gemma-3-4b-it-Q4_K_M") == "loaded")
            assert router.state_of(UNLOADED) == "unloaded"
            assert await wait_for(pilot, lambda: "llama.cpp models" in screen_text(app))


async def test_an_unreachable_router_offers_retry_and_close(provider, workdir, agent_dir, monkeypatch):
    with LlamaRouterStandIn([]) as router:
        url = router.url  # stopped below: nothing listens there
    session = _llama_session(provider, workdir, monkeypatch, url)
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await started(pilot)
        await type_command(pilot, "/llama")
        assert await wait_for(pilot, lambda: "llama.cpp unavailable" in screen_text(app))
        text = screen_text(app)
        assert f"Could not reach llama.cpp server at {url}" in text and "Retry" in text and "Close" in text
        await pilot.press("enter")  # Retry: still unreachable, asked again
        assert await wait_for(pilot, lambda: "llama.cpp unavailable" in screen_text(app))
        await pilot.press("down", "enter")  # Close
        assert await wait_for(pilot, lambda: app.screen.id != "llama-screen")


async def test_without_the_builtin_there_is_no_llama_command(session, agent_dir):
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 30)) as pilot:
        await started(pilot)
        assert "llama" not in [name for name, _ in COMMANDS.menu_entries(session)]
        await type_command(pilot, "/llama")
        assert app.screen.id != "llama-screen"


async def test_a_failed_load_is_reported_and_the_list_comes_back(provider, workdir, agent_dir, monkeypatch):
    with LlamaRouterStandIn([RouterModel("broken-model")], fail_loads=("broken-model",)) as router:
        session = _llama_session(provider, workdir, monkeypatch, router.url)
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 34)) as pilot:
            await started(pilot)
            await _open(pilot, app)
            await pilot.press("enter")  # nothing else is loaded: no question, the load starts
            assert await wait_for(pilot, lambda: any("Model exited with code 1" in str(n.message)
                                                      for n in app._notifications))
            assert router.loads == ["broken-model"]
            assert await wait_for(pilot, lambda: "llama.cpp models" in screen_text(app))
            assert app.screen.id == "llama-screen"
