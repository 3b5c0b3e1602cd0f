"""``pi --list-models`` over the whole built-in catalogue, and side by side with the real Pi.

With a placeholder in every variable any provider reads (the way issue #33 counts), pi lists
every provider of Pi's catalogue that can be configured from the environment (41: all but
``openai-codex``, which signs in with an account only, and ``typesafe``, which has no chat
models) with every chat model the generated data holds. When ``PI_REFERENCE`` names Pi's
``pi``, both run with the same environment and the lists are compared provider by provider.
"""

from __future__ import annotations

import os
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from e2e_support import PI

from pi_runtime.ai.catalog import builtin_catalog
from pi_runtime.ai.env_keys import ENV_KEYS

PI_REFERENCE = os.environ.get("PI_REFERENCE")
Row = tuple[str, str, str, str, str, str]


def placeholder_env(tmp_path: Path, who: str) -> dict[str, str]:
    """Only PATH from the outside; a fresh agent dir and home; a placeholder in every credential variable."""
    home = tmp_path / who
    (home / "agent").mkdir(parents=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PI_CODING_AGENT_DIR": str(home / "agent"),
           "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update({name: "placeholder" for names in ENV_KEYS.values() for name in names})
    return env


def listed(binary: list[str], env: dict[str, str], *search: str) -> dict[str, dict[str, Row]]:
    """``--list-models`` rows by provider, then model id.

    Standard output goes to a file, not a pipe: Pi 1.6 exits before Node has drained a pipe, so its
    220 KB list read through a pipe ends early now and then (seen cut after 15, 25 and 27 of 41
    providers: 5 of 16 runs through a pipe here; into a file, 12 of 12 whole)."""
    out_path = Path(env["HOME"]) / "list-models.txt"
    with out_path.open("w") as out_file:
        done = subprocess.run([*binary, "--list-models", *search], env=env, stdout=out_file,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = out_path.read_text().splitlines()
    assert lines and lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    out: dict[str, dict[str, Row]] = defaultdict(dict)
    for line in lines[1:]:
        row = tuple(line.split())
        assert len(row) == 6, line
        out[row[0]][row[1]] = row  # type: ignore[assignment]
    return dict(out)


def configurable_from_env() -> dict[str, int]:
    """Provider -> chat models in the data, for the providers a variable can configure."""
    catalog = builtin_catalog()
    return {pid: info.counts.get("chat", 0) for pid, info in catalog.providers.items()
            if info.counts.get("chat") and info.auth.api_key is not None and info.auth.api_key.ways}


def test_every_provider_and_model_is_listed_with_a_placeholder_key(tmp_path: Path) -> None:
    ours = listed([PI], placeholder_env(tmp_path, "pi"))
    expected = configurable_from_env()
    assert len(expected) == 41
    assert set(ours) == set(expected)
    assert {pid: len(models) for pid, models in ours.items()} == expected
    assert sum(expected.values()) == 1688
    row = ours["anthropic"]["claude-sonnet-4-5"]
    assert row[2:] == ("200K", "64K", "yes", "yes")
    # Through a pipe (`pi --list-models | grep …`) the list is whole too, unlike Pi 1.6's.
    piped = subprocess.run([PI, "--list-models"], env=placeholder_env(tmp_path / "piped", "pi"),
                           capture_output=True, text=True, timeout=120)
    assert piped.stdout == (tmp_path / "pi" / "list-models.txt").read_text()


def test_list_models_search_is_pis_fuzzy_match(tmp_path: Path) -> None:
    from pi_runtime.extensions.fuzzy import fuzzy_match

    env = placeholder_env(tmp_path, "pi")
    found = listed([PI], env, "anthropic/opus")  # a slash splits words too, as in Pi
    assert "claude-opus-4-6" in found["anthropic"] and "deepseek" not in found
    every = listed([PI], env)
    expected = {(p, m) for p, models in every.items() for m in models
                if all(fuzzy_match(word, f"{p} {m}") is not None for word in ("anthropic", "opus"))}
    assert {(p, m) for p, models in found.items() for m in models} == expected


def test_no_credentials_lists_nothing(tmp_path: Path) -> None:
    env = placeholder_env(tmp_path, "pi")
    env = {k: v for k, v in env.items() if v != "placeholder"}
    done = subprocess.run([PI, "--list-models"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == ""
    assert "No models available" in done.stderr


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_same_providers_and_models_as_pi(tmp_path: Path) -> None:
    theirs = listed([str(PI_REFERENCE)], placeholder_env(tmp_path, "Pi"))
    ours = listed([PI], placeholder_env(tmp_path, "pi"))
    assert sorted(ours) == sorted(theirs), "providers differ"
    for provider, models in theirs.items():
        shared = set(models) & set(ours[provider])
        assert len(shared) >= 0.9 * len(models), f"{provider}: {len(shared)} of Pi's {len(models)} models"
        # The figures shown (context, output limit, thinking, images) are Pi's for every model both list.
        different = [mid for mid in shared if ours[provider][mid] != models[mid]]
        assert not different, f"{provider}: {different[:5]}"
    # A search keeps the same models (Pi's fuzzy match, words split on spaces and slashes).
    search = ("anthropic/opus", "gpt5", "kimi k3")
    for words in search:
        theirs_found = listed([str(PI_REFERENCE)], placeholder_env(tmp_path / words.replace("/", "_"), "Pi"), words)
        ours_found = listed([PI], placeholder_env(tmp_path / words.replace("/", "_"), "pi"), words)
        assert {p: set(m) for p, m in ours_found.items()} == {p: set(m) for p, m in theirs_found.items()}, words
