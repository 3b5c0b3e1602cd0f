"""The agent loop reaches its agent only through ``LoopHost``: no private member of the agent is used."""

from __future__ import annotations

import ast
from pathlib import Path

import pi_runtime.agent as agent_package
from pi_runtime.agent.loop_host import LoopHost

LOOP_MODULES = ("loop.py", "tool_exec.py")


def _agent_attributes(source: str) -> set[str]:
    """Names read or called on ``agent`` / ``self.agent`` in ``source``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id == "agent") or (
                isinstance(owner, ast.Attribute) and owner.attr == "agent"):
            found.add(node.attr)
    return found


def test_the_loop_uses_only_the_hosts_public_surface():
    folder = Path(agent_package.__file__).parent
    used = set().union(*(_agent_attributes((folder / name).read_text()) for name in LOOP_MODULES))
    assert used, "the parser found no use of the agent at all"
    assert not {name for name in used if name.startswith("_")}
    declared = set(LoopHost.__annotations__) | {n for n in vars(LoopHost) if not n.startswith("_")}
    assert used <= declared, f"used but not declared on LoopHost: {sorted(used - declared)}"
