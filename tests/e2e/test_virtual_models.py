"""Virtual models through the installed ``pi``: --list-models, --model, settings, print and RPC modes.

The routers are the test router (``tests/fixtures/virtual/router.py``) and the port of Pi's example
(``docs/examples/extensions/jev_router.py``); the physical models answer from a loopback server
(``virtual_side_by_side``). The same runs with the real Pi are in ``test_virtual_pi_side_by_side.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import virtual_side_by_side as vs

from pi_runtime.testing.loopback import LoopbackServer

PI = str(Path(sys.executable).parent / "pi")
ROUTER = vs.routers(PI, True)["test"]
JEV = vs.routers(PI, True)["jev"]


def test_list_models_lists_virtual_models_as_pi(tmp_path):
    run = vs.run_print(PI, ROUTER, tmp_path, "--list-models")
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines()]
    assert rows[0] == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert ["router", "auto", "50K", "2K", "yes", "yes"] in rows
    assert ["router", "boom", "0", "0", "no", "yes"] in rows
    # Beside the provider's physical models, sorted with them.
    assert [r[1] for r in rows if r[0] == "loop"] == ["auto", "big", "small"]


def test_print_mode_routes_each_request_and_records_selection_and_dispatch(tmp_path):
    run = vs.run_print(PI, ROUTER, tmp_path, "--model", "router/auto", "--thinking", "high", "-p",
                       "use a tool please")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "answer from big"
    assert vs.routed_requests(run) == [("big", "medium"), ("big", "medium")]
    assert vs.dispatch_records(run.entries) == [
        ("model_change", "router", "auto"),
        ("thinking_level_change", "high"),
        ("custom", "pi.virtual-model-state", '{"modelId": "auto", "provider": "router", "state": {"turns": 1}}'),
        ("assistant", "loop", "openai-completions", "big", "medium", "toolUse", None),
        ("assistant", "loop", "openai-completions", "big", "medium", "stop", None),
    ]


def test_a_failing_router_is_one_line_on_stderr_and_the_prompt_is_kept(tmp_path):
    run = vs.run_print(PI, ROUTER, tmp_path, "--model", "router/boom", "-p", "hello")
    assert run.returncode == 1 and run.requests == []
    assert run.stderr.strip().splitlines()[-1].endswith("router exploded")
    assert "Traceback" not in run.stderr
    kinds = [(e.get("message") or {}).get("role") for e in run.entries if e.get("type") == "message"]
    assert kinds[-2:] == ["user", "assistant"]


def test_the_default_model_in_settings_can_be_virtual(tmp_path):
    agent, _, _ = vs.folders(tmp_path)
    with LoopbackServer(vs.responder) as server:
        vs.write_config(agent, server.url)
        settings = json.loads((agent / "settings.json").read_text())
        settings.update(defaultProvider="router", defaultModel="auto", defaultThinkingLevel="low")
        (agent / "settings.json").write_text(json.dumps(settings))
        run = vs.run_print(PI, ROUTER, tmp_path, "-p", "hello", server=server)
        assert run.returncode == 0, run.stderr
        assert vs.routed_requests(run) == [("small", "medium")]
        assert vs.dispatch_records(run.entries)[0] == ("model_change", "router", "auto")


def test_scoped_models_take_virtual_models(tmp_path):
    run = vs.run_print(PI, ROUTER, tmp_path / "flag", "--models", "router/auto:high,loop/small", "-p", "hello")
    assert run.returncode == 0, run.stderr
    assert vs.routed_requests(run) == [("big", "medium")]  # the first scoped model, at its level
    # enabledModels in settings scopes the same way (a new session starts on the first).
    agent, _, _ = vs.folders(tmp_path / "settings")
    (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False},
                                                     "enabledModels": ["router/auto:low", "loop/big"]}))
    run = vs.run_print(PI, ROUTER, tmp_path / "settings", "-p", "hello")
    assert run.returncode == 0, run.stderr
    assert vs.routed_requests(run) == [("small", "medium")]
    assert vs.dispatch_records(run.entries)[:2] == [("model_change", "router", "auto"),
                                                   ("thinking_level_change", "low")]


def test_jev_router_plans_then_implements(tmp_path):
    run = vs.run_print(PI, JEV, tmp_path, "--model", "jev/auto", "--thinking", "medium", "--tools", "write", "-p",
                       "plan and write")
    assert run.returncode == 0, run.stderr
    assert vs.routed_requests(run) == [("gpt-5.6-terra", "medium"), ("gpt-5.6-luna", "medium")]
    states = [json.loads(r[2])["state"] for r in vs.dispatch_records(run.entries) if r[0] == "custom"]
    assert states == [{"phase": "planning", "model": "gpt-5.6-terra"},
                      {"phase": "implementation", "model": "gpt-5.6-luna"}]
    assert (tmp_path / "project" / "plan.txt").read_text() == "step one\n"


def _rpc(rpc: Any) -> None:
    def settled(count: int) -> None:
        rpc.wait_for(lambda _r: sum('"agent_settled"' in line for line in rpc.lines) >= count)

    rpc.request({"type": "set_model", "provider": "router", "modelId": "auto", "id": "m1"})
    rpc.request({"type": "set_thinking_level", "level": "high", "id": "t0"})
    rpc.request({"type": "prompt", "message": "hello", "id": "p1"})
    settled(1)
    rpc.request({"type": "set_thinking_level", "level": "low", "id": "t1"})
    rpc.request({"type": "prompt", "message": "again", "id": "p2"})
    settled(2)
    rpc.request({"type": "get_session_stats", "id": "s1"})
    rpc.request({"type": "get_state", "id": "g1"})
    rpc.request({"type": "get_available_models", "id": "a1"})


def _data(rpc: Any, request_id: str) -> Any:
    for line in rpc.lines:
        record = json.loads(line)
        if record.get("type") == "response" and record.get("id") == request_id:
            assert record["success"], record
            return record.get("data")
    raise AssertionError(request_id)


def test_rpc_selects_a_virtual_model_and_reports_cost_per_physical_model(tmp_path):
    run, rpc = vs.run_rpc(PI, ROUTER, tmp_path, _rpc, "--model", "loop/small")
    assert vs.routed_requests(run) == [("big", "medium"), ("small", "medium")]
    stats = _data(rpc, "s1")
    assert stats["costByModel"] == [{"key": "loop/big-served", "cost": 0.0045, "tokens": 1100},
                                    {"key": "loop/small-served", "cost": 0.0012, "tokens": 1100}]
    assert round(stats["cost"], 6) == 0.0057
    assert stats["contextUsage"]["contextWindow"] == 8000  # the model that gave the latest answer
    state = _data(rpc, "g1")
    assert (state["model"]["provider"], state["model"]["id"], state["model"]["api"]) == ("router", "auto",
                                                                                       "pi-virtual")
    assert state["thinkingLevel"] == "low"
    refs = {(m["provider"], m["id"]) for m in _data(rpc, "a1")["models"]}
    assert {("router", "auto"), ("loop", "auto"), ("loop", "small")} <= refs
