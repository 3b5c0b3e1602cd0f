"""First run: the welcome panel finds a local server in the background; /local uses it."""

from __future__ import annotations

import json

from pi_runtime import local_servers
from pi_runtime.testing.loopback import LoopbackServer, Reply
from pi_tui.launch import create_app

from .conftest import make_session, screen_text, wait_for
from .test_commands_models import type_command


async def test_welcome_panel_and_local_command(provider, workdir, agent_dir, monkeypatch):
    from pi_runtime.ai.types import Model

    with LoopbackServer() as server:
        server.responder = lambda request: Reply.json(200, {"data": [{"id": "qwen2.5-coder:7b"}]})
        monkeypatch.setattr(local_servers, "KNOWN_SERVERS", (("ollama", "Ollama", server.port),))
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        session = make_session(provider, workdir)
        # A model without credentials, so the welcome panel shows.
        await session.set_model(Model(id="claude-x", api="anthropic-messages", provider="anthropic",
                                      base_url="https://api.anthropic.com"))
        app = create_app(session, static=True, agent_dir=str(agent_dir))
        async with app.run_test(size=(110, 40)) as pilot:
            # The probe runs in the background; under load it can take longer than a frame or two.
            await wait_for(pilot, lambda: "Type /local" in screen_text(app), timeout=10)
            text = screen_text(app)
            assert "Running on this machine now" in text and "Type /local" in text
            assert f"http://127.0.0.1:{server.port}/v1" in text
            await type_command(pilot, "/local")
            await wait_for(pilot, lambda: "Models on this machine" in screen_text(app), timeout=10)
            assert "Models on this machine" in screen_text(app)
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: session.model.ref == "ollama/qwen2.5-coder:7b")
    data = json.loads((agent_dir / "models.json").read_text())
    assert data["providers"]["ollama"]["baseUrl"] == f"http://127.0.0.1:{server.port}/v1"
