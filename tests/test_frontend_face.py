"""What ``pi_runtime.frontend`` exports: the public face, and the app's own helpers beside it."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import pi_runtime.frontend as face
from pi_runtime.frontend import app_support

ROOT = Path(__file__).resolve().parents[1]

# Helpers of the app's own flows (its command line, previews, local servers, MCP sign-in): an
# SDK user or an extension's host is never told to use them, so the face must not offer them.
APP_ONLY = {
    "build_session", "trust_question", "save_trust_decision", "session_dir_for", "initial_prompts", "UsageError",
    "newest_session_in", "read_branch_tail", "parse_messages", "read_config_text", "ConfigFileError",
    "probe_local_servers", "add_to_models_json", "ENV_KEYS", "env_var_names", "detect_image_mime",
    "find_oauth_server", "sign_out_and_reconnect", "mcp_sign_in", "McpSignInError", "McpAuthFileError",
}


def app_imports() -> set[str]:
    """Every name pi_tui imports from ``pi_runtime.frontend.app_support``."""
    names: set[str] = set()
    for path in (ROOT / "pi_tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module == "pi_runtime.frontend.app_support":
                names |= {alias.name for alias in node.names}
    return names


def test_the_public_face_offers_none_of_the_apps_helpers():
    assert APP_ONLY - set(app_support.__all__) == set()
    assert set(face.__all__) & set(app_support.__all__) == set()
    assert not any(hasattr(face, name) for name in APP_ONLY)


@pytest.mark.parametrize("module", [face, app_support], ids=lambda m: m.__name__)
def test_every_listed_name_resolves_and_is_cached(module):
    assert module.__all__, "the list of names was not found"
    for name in module.__all__:
        value = getattr(module, name)
        assert vars(module)[name] is value
    assert set(module.__all__) <= set(dir(module))


def test_a_name_not_listed_is_an_attribute_error_and_submodules_still_import():
    with pytest.raises(AttributeError, match="'pi_runtime.frontend' has no attribute 'probe_local_servers'"):
        face.probe_local_servers  # noqa: B018
    with pytest.raises(ImportError):
        exec("from pi_runtime.frontend import no_such_name", {})
    assert importlib.import_module("pi_runtime.frontend.events").AgentStartEvent.type == "agent_start"


def test_every_app_helper_is_used_by_the_app():
    # app_support is the app's, not an API: a helper the app stopped using goes away with it.
    assert set(app_support.__all__) - app_imports() == set()


def test_what_the_docs_name_in_the_face_is_there():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = {m for doc in docs for m in re.findall(r"pi_runtime\.frontend\.(\w+)", doc.read_text())}
    submodules = {"events", "session", "wire", "app_support"}
    assert named, "the docs name nothing of the face"
    assert {name for name in named - submodules if not hasattr(face, name)} == set()
