"""Project trust: flag, then no-resources, then saved decision (closest parent), then the setting."""

from __future__ import annotations

import json

import pytest

from pi_runtime.resources.trust import (
    TrustStore,
    TrustStoreError,
    has_trust_requiring_resources,
    resolve_project_trust,
)


def test_bare_pi_dir_needs_no_decision_but_protected_entries_do(tree) -> None:
    (tree.cwd / ".pi").mkdir()
    assert not has_trust_requiring_resources(tree.cwd, tree.home)
    assert resolve_project_trust(tree.cwd, store=TrustStore(tree.agent), home=tree.home).source == "no-project-resources"
    (tree.cwd / ".pi" / "prompts").mkdir()
    assert has_trust_requiring_resources(tree.cwd, tree.home)


def test_agents_skills_in_a_parent_needs_a_decision_but_the_users_own_does_not(tree) -> None:
    (tree.home / ".agents" / "skills").mkdir(parents=True)
    assert not has_trust_requiring_resources(tree.home, tree.home)
    (tree.repo / ".agents" / "skills").mkdir(parents=True)
    assert has_trust_requiring_resources(tree.cwd, tree.home)


def test_precedence_flag_then_saved_then_setting(tree) -> None:
    tree.write(tree.cwd / ".pi" / "settings.json", "{}")
    store = TrustStore(tree.agent)
    assert resolve_project_trust(tree.cwd, store=store, home=tree.home).trusted is None
    decision = resolve_project_trust(tree.cwd, store=store, default_trust="always", home=tree.home)
    assert (decision.trusted, decision.source) == (True, "setting")
    assert resolve_project_trust(tree.cwd, store=store, default_trust="never", home=tree.home).trusted is False

    store.set(tree.repo, False)  # a parent's decision applies to cwd
    decision = resolve_project_trust(tree.cwd, store=store, default_trust="always", home=tree.home)
    assert (decision.trusted, decision.source, decision.saved_path) == (False, "saved", tree.repo)
    store.set(tree.cwd, True)  # the closest decision wins
    assert resolve_project_trust(tree.cwd, store=store, default_trust="never", home=tree.home).trusted is True

    flagged = resolve_project_trust(tree.cwd, store=store, override=False, home=tree.home)
    assert (flagged.trusted, flagged.source) == (False, "flag")
    assert json.loads(store.path.read_text()) == {str(tree.cwd): True, str(tree.repo): False}

    store.set(tree.cwd, None)
    assert store.get(tree.cwd) is False


def test_ask_is_no_for_headless_modes(tree) -> None:
    tree.write(tree.cwd / ".pi" / "SYSTEM.md", "x")
    decision = resolve_project_trust(tree.cwd, store=TrustStore(tree.agent), home=tree.home)
    assert decision.needs_prompt and decision.effective() is False


def test_broken_trust_file_is_ignored_with_a_warning_and_never_overwritten(tree) -> None:
    tree.write(tree.cwd / ".pi" / "settings.json", "{}")
    broken = tree.write(tree.agent / "trust.json", "{not json")
    decision = resolve_project_trust(tree.cwd, store=TrustStore(tree.agent), default_trust="always", home=tree.home)
    assert decision.trusted is True and decision.warning is not None
    assert "invalid JSON" in decision.warning.message
    with pytest.raises(TrustStoreError):
        TrustStore(tree.agent).set(tree.cwd, True)
    assert broken.read_text() == "{not json"
    tree.write(tree.agent / "trust.json", '{"/x": "yes"}')
    with pytest.raises(TrustStoreError, match="must be true, false or null"):
        TrustStore(tree.agent).get(tree.cwd)
