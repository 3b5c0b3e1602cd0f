"""``pi auth check|print-api-key|print-bearer-token|logout`` and ``login``'s refusals, as cli.md documents them,
and the same commands run by the real Pi 1.6 on the same auth.json (when ``PI_REFERENCE`` is set).

Differences kept on purpose:

- ``PROVIDERS_LISTED``: ``login <unknown>`` lists the providers it knows; pi's catalogue lists fewer
  until the whole catalogue of Pi 1.6 lands (its own change), so only the first line is compared.
- ``BARE_MODEL_CHECK``: ``check --model <bare id>``: Pi 1.6 answers ``invalid`` (its check resolves the
  model without knowing which providers are configured, so a bare id that several providers serve is
  ambiguous); pi resolves it as ``pi --model`` does, which is what cli.md describes.
- Pi writes ``{}`` to a missing auth.json when it only reads it; pi does not write to read.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import PI

PI_REFERENCE = os.environ.get("PI_REFERENCE")
NOW = int(time.time() * 1000)

STATES: dict[str, dict[str, Any]] = {
    "empty": {},
    "key": {"anthropic": {"type": "api_key", "key": "sk-stored-1234"}},
    "oauth": {"anthropic": {"type": "oauth", "access": "sk-ant-oat-acc", "refresh": "r", "expires": NOW + 3_600_000}},
    "lasting": {"openrouter": {"type": "oauth", "access": "or-key", "refresh": "", "expires": 2 ** 53 - 1}},
    "both": {"anthropic": {"type": "oauth", "access": "sk-ant-oat-acc", "refresh": "r", "expires": NOW + 3_600_000},
             "openai": {"type": "api_key", "key": "sk-openai-1"}},
}
COMMANDS = [
    ["check", "--provider", "anthropic"],
    ["check", "--provider", "anthropic", "--json"],
    ["check", "--provider", "anthropic", "--json", "--credentials"],
    ["check", "--provider", "anthropic", "--credentials", "--no-refresh"],
    ["check", "--provider", "openrouter", "--json"],
    ["check", "--provider", "nope", "--json"],
    ["check", "--model", "nope/x", "--json"],
    ["check", "--model", "anthropic/claude-sonnet-4-5", "--json"],
    ["check"],
    ["check", "--bogus"],
    ["print-api-key", "--provider", "anthropic"],
    ["print-api-key", "--provider", "openai"],
    ["print-api-key", "--model", "claude-sonnet-4-5"],
    ["print-bearer-token", "--provider", "anthropic"],
    ["print-bearer-token", "--provider", "anthropic", "--min-expiry", "2h"],
    ["print-bearer-token", "--provider", "openrouter"],
    ["print-bearer-token", "--provider", "anthropic", "--min-expiry", "30x"],
    ["print-api-key", "--json"],
    ["print-api-key"],
    ["print-api-key", "--provider", "anthropic", "extra"],
    ["frob"],
    ["logout", "anthropic"],
    ["logout", "nope"],
    ["logout"],
    ["login"],
    ["login", "anthropic", "--api-key", "--no-browser"],
    ["login", "anthropic"],
    ["login", "openai-codex", "--api-key"],
]
PROVIDERS_LISTED = "Providers: "
_COLOR = re.compile(r"\x1b\[[0-9;]*m")


def _run(program: str, args: list[str], state: dict[str, Any], tmp_path: Path) -> tuple[int, str, str, Any]:
    agent = tmp_path / f"{Path(program).name}-{len(list(tmp_path.iterdir()))}"
    agent.mkdir()
    if state:
        (agent / "auth.json").write_text(json.dumps(state))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
    # No network: a proxy that refuses every connection (Pi would refresh its catalogue).
    env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(agent),
               HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9")
    done = subprocess.run([program, "auth", *args], capture_output=True, text=True, env=env, timeout=60,
                          stdin=subprocess.DEVNULL)
    stored = json.loads((agent / "auth.json").read_text() or "{}") if (agent / "auth.json").exists() else {}
    plain = [_COLOR.sub("", text).replace(str(agent), "<agent>") for text in (done.stdout, done.stderr)]
    return done.returncode, plain[0], plain[1], stored


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
@pytest.mark.parametrize("state", sorted(STATES))
def test_auth_commands_answer_as_pi_1_6_does(state: str, tmp_path: Path) -> None:
    differences = []
    for args in COMMANDS:
        if args[:2] == ["check", "--model"] and "/" not in args[2]:
            continue  # BARE_MODEL_CHECK
        ref = _run(str(PI_REFERENCE), args, STATES[state], tmp_path)
        ours = _run(PI, args, STATES[state], tmp_path)
        if args[0] == "login" and PROVIDERS_LISTED in ref[2]:
            ref, ours = (ref[0], ref[1], ref[2].split(PROVIDERS_LISTED)[0], ref[3]), \
                (ours[0], ours[1], ours[2].split(PROVIDERS_LISTED)[0], ours[3])
        if ref != ours:
            differences.append(f"auth {' '.join(args)}\n  Pi: {ref}\n  pi: {ours}")
    assert not differences, "\n".join(differences)


def _pi(args: list[str], tmp_path: Path, state: dict[str, Any] | None = None) -> tuple[int, str, str, Any]:
    return _run(PI, args, state or {}, tmp_path)


def test_check_reports_each_state_with_its_exit_status(tmp_path: Path) -> None:
    assert _pi(["check", "--provider", "anthropic"], tmp_path)[:2] == (1, "not_ready\n")
    assert _pi(["check", "--provider", "anthropic"], tmp_path, STATES["key"])[:2] == (0, "ready\n")
    code, out, _, _ = _pi(["check", "--provider", "anthropic", "--json", "--credentials"], tmp_path, STATES["oauth"])
    assert code == 0
    assert json.loads(out) == {"status": "ready", "provider": "anthropic", "authType": "oauth",
                               "credentials": "sk-ant-oat-acc"}
    assert _pi(["check", "--provider", "nope", "--json"], tmp_path)[:2] == (
        1, '{"status":"not_ready","provider":"nope","reason":"provider_not_found"}\n')
    broken = tmp_path / "broken"
    broken.mkdir()
    code, out, _, _ = _pi(["check", "--provider", "anthropic"], broken, {"anthropic": "not an entry"})
    assert code == 1  # an entry pi cannot use is not a credential
    assert _pi(["check"], tmp_path)[:3] == (2, "", "Error: Auth checks require --provider <provider> or --model <model>\n")


def test_print_commands_print_only_the_secret(tmp_path: Path) -> None:
    assert _pi(["print-api-key", "--provider", "anthropic"], tmp_path, STATES["key"])[:3] == (0, "sk-stored-1234\n", "")
    assert _pi(["print-bearer-token", "--provider", "anthropic"], tmp_path, STATES["oauth"])[:3] == (0, "sk-ant-oat-acc\n", "")
    code, out, err, _ = _pi(["print-api-key", "--provider", "anthropic"], tmp_path, STATES["oauth"])
    assert (code, out, err) == (1, "", 'Error: Provider "anthropic" is configured with OAuth, not an API key\n')
    code, out, err, _ = _pi(["print-bearer-token", "--provider", "anthropic", "--min-expiry", "2h"], tmp_path, STATES["oauth"])
    assert (code, out) == (1, "")  # an hour left, two asked for, and no server to refresh at: refused
    assert err == "Error: Failed to resolve credential\n"


def test_the_headless_commands_never_load_the_app(tmp_path: Path) -> None:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path)}
    code = ("import sys, runpy; sys.argv = ['pi', 'auth', 'check', '--provider', 'anthropic'];\n"
            "from pi_runtime.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'pi_tui')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr
