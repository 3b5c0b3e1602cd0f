"""``/login llama.cpp`` in the app: URL, optional key, checked against the router stand-in, stored in Pi's shape."""

from __future__ import annotations

import json

from pi_runtime.testing.llama_router import LlamaRouterStandIn, RouterModel, sample_models
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, started, wait_for
from .test_commands_models import type_command


async def log_in(pilot, app, url: str, key: str = "") -> None:
    """Answer ``/login llama.cpp``'s two questions: the router's URL, then the key (none: Enter)."""
    await type_command(pilot, "/login llama.cpp")
    assert await wait_for(pilot, lambda: "llama.cpp server URL" in screen_text(app))
    await pilot.press(*url)
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: app.screen.id == "api-key-prompt")
    if key:
        await pilot.press(*key)
    await pilot.press("enter")


async def test_login_stores_the_router_and_lists_its_models(provider, workdir, agent_dir, monkeypatch):
    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    with LlamaRouterStandIn(sample_models(), api_key="sesame") as router:
        session = make_session(provider, workdir, extensions=["builtin:llama.cpp"])
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 34)) as pilot:
            await started(pilot)
            assert session.model_registry.models_of("llama.cpp") == []
            await type_command(pilot, "/login llama.cpp")
            assert await wait_for(pilot, lambda: "llama.cpp server URL" in screen_text(app))
            assert "e.g., http://127.0.0.1:9931" in screen_text(app)
            await pilot.press(*router.url + "/v1")
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: app.screen.id == "api-key-prompt")
            assert "API key (optional)" in screen_text(app)
            await pilot.press(*"sesame")
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: len(session.model_registry.models_of("llama.cpp")) == 2)
            assert await wait_for(pilot, lambda: "Saved API key for llama.cpp" in screen_text(app))
            assert "sesame" not in screen_text(app)  # the key is never shown
            stored = json.loads((agent_dir / "auth.json").read_text())
    assert stored["llama.cpp"] == {"type": "api_key", "env": {"LLAMA_BASE_URL": router.url}, "key": "sesame"}


async def test_login_without_loaded_models_points_at_slash_llama(provider, workdir, agent_dir, monkeypatch):
    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    with LlamaRouterStandIn([RouterModel("cold-model")]) as router:
        session = make_session(provider, workdir, extensions=["builtin:llama.cpp"])
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 34)) as pilot:
            await started(pilot)
            await log_in(pilot, app, router.url)  # no key
            assert await wait_for(pilot, lambda: "Use /llama to load a model, then /model" in screen_text(app))
    stored = json.loads((agent_dir / "auth.json").read_text())
    assert stored["llama.cpp"] == {"type": "api_key", "env": {"LLAMA_BASE_URL": router.url}}


async def test_an_unreachable_router_stores_nothing(provider, workdir, agent_dir, monkeypatch):
    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    with LlamaRouterStandIn([]) as router:
        url = router.url
    session = make_session(provider, workdir, extensions=["builtin:llama.cpp"])
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(110, 34)) as pilot:
        await started(pilot)
        await log_in(pilot, app, url)
        assert await wait_for(pilot, lambda: f"Could not reach llama.cpp server at {url}" in screen_text(app))
    assert not (agent_dir / "auth.json").exists()


async def test_login_before_any_router_was_configured_asks_for_a_restart(provider, workdir, agent_dir, monkeypatch):
    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    with LlamaRouterStandIn(sample_models()) as router:
        session = make_session(provider, workdir)  # nothing configured: the extension is not loaded
        assert session.extension_runner is None
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 34)) as pilot:
            await started(pilot)
            await log_in(pilot, app, router.url)
            assert await wait_for(pilot, lambda: "Restart pi to list the llama.cpp models" in screen_text(app))
    stored = json.loads((agent_dir / "auth.json").read_text())
    assert stored["llama.cpp"]["env"] == {"LLAMA_BASE_URL": router.url}
