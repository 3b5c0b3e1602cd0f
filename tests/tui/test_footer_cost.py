"""The footer's dollars are rounded as Pi rounds them (JavaScript's ``toFixed(3)``)."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import ScriptedResponse, ScriptedText
from pi_runtime.ai.types import ModelCost, Usage
from pi_runtime.sdk import create_agent_session
from pi_runtime.session.manager import SessionManager
from pi_runtime.settings import SettingsManager
from pi_tui.launch import create_app

from .conftest import settle
from .test_commands_models import type_command


async def test_a_cost_exactly_half_way_rounds_up_as_in_pi(provider, workdir, agent_dir):
    # One input token at $62,500 per million costs exactly $0.0625: Pi's footer shows $0.063
    # (toFixed rounds a tie up); Python's "%.3f" would round it to even, $0.062.
    session = create_agent_session(cwd=str(workdir), model=provider.model(cost=ModelCost(input=62_500.0)),
                                   session_manager=SessionManager.in_memory(),
                                   settings=SettingsManager.in_memory({"compaction": {"enabled": False}}))
    provider.push(ScriptedResponse([ScriptedText("ok")], usage=Usage(input=1)))
    app = create_app(session, static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_command(pilot, "hi")
        await settle(pilot, session)
        assert session.get_session_stats().usage.cost == 0.0625
        assert "$0.063" in str(app.footer_bar.render())
