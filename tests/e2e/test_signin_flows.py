"""``pi auth login`` for each account provider, end to end: the installed ``pi`` on a pseudo-terminal,
the providers' sign-in hosts played by the stand-in (``SignInServers``), the browser played by the test.

Each flow must store the credential Pi stores (fields as Pi's), with mode 0600, and the stored
credential must then print (``print-bearer-token``) and refresh (an expired one is renewed at the
provider's token endpoint and saved before it is printed).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import PI
from signin_drive import Script, fixed_ports, program_env, sign_in

from pi_runtime.testing.signin_servers import SignInServers
from pi_runtime.testing.standin import ProviderStandIn

SCRIPTS = {
    "anthropic-browser": Script("anthropic"),
    "anthropic-paste-redirect": Script("anthropic", action="paste_redirect"),
    "anthropic-copy-code": Script("anthropic", ("--no-browser",), action="paste_code"),
    "codex-browser": Script("openai-codex"),
    "codex-device": Script("openai-codex", ("--no-browser",), action="device"),
    "chatgpt-browser": Script("openai"),
    "chatgpt-paste-redirect": Script("openai", ("--no-browser",), action="paste_redirect"),
    "copilot-device": Script("github-copilot", action="device",
                             answers={"GitHub Enterprise URL/domain (blank for github.com) (company.ghe.com): ": ""}),
    "copilot-enterprise": Script("github-copilot", action="device", answers={
        "GitHub Enterprise URL/domain (blank for github.com) (company.ghe.com): ": "https://company.ghe.com/"}),
    "openrouter-browser": Script("openrouter"),
    "openrouter-paste-redirect": Script("openrouter", ("--no-browser",), action="paste_redirect"),
    "xai-device": Script("xai", action="device"),
    "kimi-device": Script("kimi-coding", action="device"),
    "meta-device": Script("meta", action="device"),
    "radius-browser": Script("radius"),
    "radius-device": Script("radius", ("--no-browser",), action="device"),
}

FIELDS = {
    "anthropic": ["type", "refresh", "access", "expires"],
    "openai-codex": ["type", "access", "refresh", "expires", "accountId"],
    "openai": ["type", "access", "refresh", "expires", "clientId", "scopes"],
    "github-copilot": ["type", "refresh", "access", "expires", "availableModelIds"],
    "openrouter": ["type", "access", "refresh", "expires"],
    "xai": ["type", "access", "refresh", "expires"],
    "kimi-coding": ["type", "access", "refresh", "expires"],
    "meta": ["type", "refresh", "access", "expires"],
    "radius": ["type", "access", "refresh", "expires", "scope"],
}
"""The stored fields, in the order Pi 1.6 writes them."""

NAMES = {"anthropic": "Anthropic", "openai-codex": "OpenAI Codex", "openai": "OpenAI", "github-copilot": "GitHub Copilot",
         "openrouter": "OpenRouter", "xai": "xAI", "kimi-coding": "Kimi For Coding", "meta": "Meta", "radius": "Radius"}


@pytest.fixture
def servers() -> SignInServers:
    return SignInServers()


@pytest.fixture
def standin(tmp_path: Path, servers: SignInServers) -> Iterator[ProviderStandIn]:
    with ProviderStandIn(servers, directory=tmp_path / "ca") as server:
        yield server


def _agent(tmp_path: Path, standin: ProviderStandIn, name: str = "pi") -> tuple[dict[str, str], Path]:
    agent, home = tmp_path / name / "agent", tmp_path / name / "home"
    agent.mkdir(parents=True)
    home.mkdir()
    return program_env(dict(os.environ), standin, agent, home), agent


def _auth(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PI, "auth", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("flow", sorted(SCRIPTS))
def test_a_sign_in_stores_pis_credential_which_prints_and_refreshes(flow: str, tmp_path: Path,
                                                                     standin: ProviderStandIn,
                                                                     servers: SignInServers) -> None:
    script = SCRIPTS[flow]
    provider = script.provider
    env, agent = _agent(tmp_path, standin)
    with fixed_ports():
        outcome = sign_in([PI], script, env, str(tmp_path), standin)
    assert outcome.status == 0, outcome.text
    assert f"Logged in to {NAMES[provider]}. Credentials saved to {agent / 'auth.json'}" in outcome.text
    path = agent / "auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    entry = json.loads(path.read_text())[provider]
    fields = FIELDS[provider]
    if flow == "copilot-enterprise":
        fields = [*fields[:4], "enterpriseUrl", fields[4]]
        assert entry["enterpriseUrl"] == "company.ghe.com"
    assert list(entry) == fields
    assert entry["access"] == servers.issued[provider][-1]
    assert entry["access"] not in outcome.text and (not entry["refresh"] or entry["refresh"] not in outcome.text)

    printed = _auth(["print-bearer-token", "--provider", provider, "--min-expiry", "1m"], env, tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == entry["access"] + "\n"

    if provider == "openrouter":
        return  # a lasting key: nothing to refresh
    expired = {**entry, "expires": 0}
    path.write_text(json.dumps({provider: expired}))
    # Copilot tokens live 30 minutes (stored as 25): the default --min-expiry of 30m would refuse them, in Pi too.
    printed = _auth(["print-bearer-token", "--provider", provider, "--min-expiry", "1m"], env, tmp_path)
    assert printed.returncode == 0, printed.stderr
    renewed = json.loads(path.read_text())[provider]
    assert printed.stdout == renewed["access"] + "\n"
    assert renewed["access"] == servers.issued[provider][-1] != entry["access"]
    assert renewed["expires"] > entry["expires"] - 60_000 or provider == "meta"


def test_a_revoked_sign_in_says_how_to_sign_in_again_and_keeps_the_entry(tmp_path: Path, standin: ProviderStandIn,
                                                                         servers: SignInServers) -> None:
    env, agent = _agent(tmp_path, standin)
    with fixed_ports():
        assert sign_in([PI], Script("xai", action="device"), env, str(tmp_path), standin).status == 0
    path = agent / "auth.json"
    entry = {**json.loads(path.read_text())["xai"], "expires": 0}
    path.write_text(json.dumps({"xai": entry}))
    servers.fail_refresh = True
    printed = _auth(["print-bearer-token", "--provider", "xai"], env, tmp_path)
    assert (printed.returncode, printed.stdout) == (1, "")
    assert printed.stderr == "Error: Failed to resolve credential\n"
    checked = _auth(["check", "--provider", "xai", "--json"], env, tmp_path)
    assert checked.returncode == 2
    assert json.loads(checked.stdout) == {"status": "invalid", "provider": "xai", "reason": "invalid_state"}
    assert json.loads(path.read_text())["xai"] == entry  # nothing lost: a new sign-in replaces it
    refreshes = [r for r in standin.requests_to("auth.x.ai") if b"refresh_token" in r.body]
    assert len(refreshes) == 2  # one per command: nothing retried


def test_a_denied_device_code_fails_with_the_providers_reason(tmp_path: Path, standin: ProviderStandIn,
                                                              servers: SignInServers) -> None:
    env, agent = _agent(tmp_path, standin)
    servers.refuse_device = True
    outcome = sign_in([PI], Script("kimi-coding", action="device"), env, str(tmp_path), standin)
    assert outcome.status == 1
    assert "Failed to log in to Kimi For Coding: Kimi Code login was denied." in outcome.text
    assert not (agent / "auth.json").exists() or "kimi-coding" not in json.loads((agent / "auth.json").read_text())


def test_logout_removes_the_sign_in(tmp_path: Path, standin: ProviderStandIn) -> None:
    env, agent = _agent(tmp_path, standin)
    assert sign_in([PI], Script("meta", action="device"), env, str(tmp_path), standin).status == 0
    out = _auth(["logout", "meta"], env, tmp_path)
    assert (out.returncode, out.stdout) == (0, "Logged out of Meta.\n")
    assert "meta" not in json.loads((agent / "auth.json").read_text())
    again = _auth(["logout", "meta"], env, tmp_path)
    assert again.returncode == 0
    assert again.stdout.startswith("No stored credentials for Meta.")


def test_ctrl_c_cancels_a_waiting_sign_in_and_stores_nothing(tmp_path: Path, standin: ProviderStandIn) -> None:
    from signin_drive import Pty

    env, agent = _agent(tmp_path, standin)
    with fixed_ports():
        term = Pty([PI, "auth", "login", "anthropic"], env, str(tmp_path))
        try:
            term.wait_for(r"paste the authorization code / redirect URL here")
            term.type("\x03")
            status = term.wait_exit(30)
        finally:
            term.close()
    assert status == 1
    assert "Login cancelled." in term.text
    assert not (agent / "auth.json").exists() or "anthropic" not in json.loads((agent / "auth.json").read_text())
