"""pi_tui's folders import only downwards (issue 38): no cycle between folders, counting every
import (inside functions and under TYPE_CHECKING too), and nothing below ``pi_tui/flows/``
imports the flows or the slash commands; a pane never reaches through the app into another pane. Measured by ``scripts/structure_figures.py``, the script
that prints the structure figures."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
PI_TUI = ROOT / "pi_tui"
ABOVE_THE_PANES = {"flows", "commands"}


def structure_figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("structure_figures", ROOT / "scripts" / "structure_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up while it is being defined
    spec.loader.exec_module(module)
    return module


def every_folder_edge() -> set[tuple[str, str]]:
    figures = structure_figures()
    return figures.folder_edges(figures.collect_imports(PI_TUI), figures.folders(PI_TUI), only_on_import=False)


def test_no_import_cycle_between_pi_tui_folders():
    assert structure_figures().cycles(every_folder_edge()) == []


def test_panes_import_neither_the_flows_nor_the_commands():
    edges = every_folder_edge()
    assert sorted((a, b) for a, b in edges if b in ABOVE_THE_PANES and a not in ABOVE_THE_PANES) == []
    assert ("flows", "commands") not in edges  # the commands sit above the flows


def test_the_host_protocol_names_no_controller():
    _path, _members, named = structure_figures().host_figures(PI_TUI)
    controllers = {"Workspace", "InputController", "SessionChrome", "TreePaneController", "CompletionController",
                   "ThemeService", "KeyHold", "TerminalInput"}
    assert named and not controllers & set(named)


def test_no_pane_reaches_through_the_app_into_another_pane():
    # A pane posts a message up or is handed what it needs; code that acts on several panes lives
    # in pi_tui/flows/. Nothing is allowed here: each entry would be a pane that knows another.
    assert structure_figures().pane_reach_ins(PI_TUI) == []
