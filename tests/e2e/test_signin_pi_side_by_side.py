"""Each account sign-in run by the real Pi 1.6 and by pi on the same script, compared request by request.

Both programs talk to the same played sign-in hosts (``SignInServers`` behind the stand-in, a fresh
pair per program so both see the same codes and tokens), and the test plays the same user. What
each sent is compared after the random parts are set aside: PKCE verifiers and challenges, states,
nonces, the installation id, OpenRouter's one-off callback path and port (each program's random
values are checked on their own: the played servers refuse a verifier that does not match its
challenge). Compared: the authorization URL's query, every request's method, host, path, query,
headers (not the client's own: user agent, encodings, connection) and body; then the refresh of the
stored credential; then that each program reads what the other stored.

Differences kept on purpose, named here:

- ``CATALOG_REFRESH``: after a login Pi fetches the provider's model catalog (``pi.dev/api/models/...``,
  Radius's ``/v1/config``, OpenRouter's ``/models/user``); pi's catalog is data in the repository
  and is not fetched.
- A question taken back when the browser's callback answered first: Pi leaves the prompt on the line
  the next message is printed on; pi ends the line first (prompt lines are not compared).
- Pi creates an empty ``auth.json`` when it only reads one; pi does not write to read.

Skipped when ``PI_REFERENCE`` is unset (the path of Pi's ``pi``, with node on PATH).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from e2e_support import PI
from signin_drive import Outcome, Script, fixed_ports, program_env, query_of, sign_in
from test_signin_flows import SCRIPTS

from pi_runtime.ai.signin.pkce import challenge_of
from pi_runtime.testing.loopback import RecordedRequest
from pi_runtime.testing.signin_servers import SignInServers
from pi_runtime.testing.standin import ProviderStandIn

PI_REFERENCE = os.environ.get("PI_REFERENCE")
pytestmark = pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(),
                                reason="real Pi not installed (set PI_REFERENCE)")

CATALOG_REFRESH = {("GET", "pi.dev"), ("GET", "radius.pi.dev", "/v1/config"), ("GET", "openrouter.ai", "/api/v1/models/user")}
CLIENT_HEADERS = {"host", "content-length", "connection", "accept-encoding", "accept-language", "sec-fetch-mode"}
RANDOM_FIELDS = {"code_verifier", "code_challenge", "state", "nonce"}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PORT = re.compile(r"(127\.0\.0\.1|localhost):(\d+)")


def _is_catalog(request: RecordedRequest) -> bool:
    path = request.path.split("?")[0]
    return (request.method, request.host) in CATALOG_REFRESH or (request.method, request.host, path) in CATALOG_REFRESH


def _plain(value: str, fixed_ports: set[str]) -> str:
    value = _UUID.sub("<uuid>", value)
    value = re.sub(r"tid=[^;]+;exp=\d+", "tid=<id>;exp=<time>", value)  # a Copilot token's id and expiry
    return _PORT.sub(lambda m: m.group(0) if m.group(2) in fixed_ports else f"{m.group(1)}:<port>", value)


def _fields(values: dict[str, Any], ports: set[str]) -> dict[str, Any]:
    return {k: ("<random>" if k in RANDOM_FIELDS else _plain(str(v), ports)) for k, v in values.items()}


def shape(request: RecordedRequest) -> dict[str, Any]:
    """What a request says, random parts and the client's own headers set aside."""
    ports = {"1455", "1456", "53692"}
    parts = urlsplit(request.path)
    headers = {k: v for k, v in request.headers.items() if k not in CLIENT_HEADERS}
    if headers.get("user-agent") in ("undici", "node", "pi"):
        headers.pop("user-agent")  # each client's default; a flow's own user agent (Copilot's) stays
    kind = request.headers.get("content-type", "")
    body: Any = None
    if request.body:
        if "json" in kind:
            body = _fields(request.json() or {}, ports)
        elif "form" in kind:
            body = _fields({k: v[0] for k, v in parse_qs(request.body.decode(), keep_blank_values=True).items()}, ports)
        else:
            body = request.body.decode()
    if "authorization" in headers:
        headers["authorization"] = _plain(headers["authorization"], ports)
    return {"method": request.method, "host": request.host, "path": _plain(parts.path, ports),
            "query": _fields(query_of(request.path), ports), "headers": headers, "body": body}


def random_parts_hold(requests: list[RecordedRequest], urls: list[str]) -> None:
    """Each program's own random values are sound: a challenge is S256 of the verifier sent later."""
    challenges = [query_of(u).get("code_challenge") for u in urls if "code_challenge" in u]
    verifiers = []
    for r in requests:
        if r.method == "POST" and r.body:
            data = (r.json() or {}) if "json" in r.headers.get("content-type", "") else {
                k: v[0] for k, v in parse_qs(r.body.decode()).items()}
            if "code_verifier" in data and data.get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code":
                verifiers.append(str(data["code_verifier"]))
    for challenge in challenges:
        assert any(challenge_of(v) == challenge for v in verifiers), "a challenge without its verifier"


def _run(program: list[str], script: Script, tmp_path: Path, name: str) -> tuple[Outcome, list[RecordedRequest], Path,
                                                                                    dict[str, str]]:
    servers = SignInServers()
    with ProviderStandIn(servers, directory=tmp_path / name / "ca") as standin:
        agent, home = tmp_path / name / "agent", tmp_path / name / "home"
        agent.mkdir(parents=True)
        home.mkdir()
        env = program_env(dict(os.environ), standin, agent, home)
        outcome = sign_in(program, script, env, str(tmp_path), standin)
        requests = [r for r in standin.requests if not _is_catalog(r)]
    return outcome, requests, agent, env


@pytest.mark.parametrize("flow", sorted(SCRIPTS))
def test_pi_sends_what_pi_1_6_sends(flow: str, tmp_path: Path) -> None:
    script = SCRIPTS[flow]
    with fixed_ports():
        ref, ref_requests, ref_agent, _ = _run([str(PI_REFERENCE)], script, tmp_path, "ref")
        ours, our_requests, our_agent, _ = _run([PI], script, tmp_path, "pi")
    assert ref.status == 0, ref.text
    assert ours.status == 0, ours.text
    assert [_fields(query_of(u), {"1455", "1456", "53692"}) for u in ours.urls] == \
        [_fields(query_of(u), {"1455", "1456", "53692"}) for u in ref.urls]
    assert [u.split("?")[0] for u in ours.urls] == [u.split("?")[0] for u in ref.urls]
    expected = [shape(r) for r in ref_requests if r.host not in ("127.0.0.1", "localhost")]
    got = [shape(r) for r in our_requests if r.host not in ("127.0.0.1", "localhost")]
    assert got == expected
    random_parts_hold(our_requests, ours.urls)
    ref_entry = json.loads((ref_agent / "auth.json").read_text())[script.provider]
    our_entry = json.loads((our_agent / "auth.json").read_text())[script.provider]
    assert list(our_entry) == list(ref_entry)
    assert _stored(our_entry) == _stored(ref_entry)
    assert abs(our_entry["expires"] - ref_entry["expires"]) < 120_000 or our_entry["expires"] == ref_entry["expires"]
    assert _said(ours.text) == _said(ref.text, our_agent, ref_agent)
    if script.provider == "radius":  # the Radius MCP server both add to mcp.json
        assert json.loads((our_agent / "mcp.json").read_text()) == json.loads((ref_agent / "mcp.json").read_text())


def _stored(entry: dict[str, Any]) -> dict[str, Any]:
    """A stored credential without its expiry (each program's clock) and Copilot's expiry inside the token."""
    return {k: re.sub(r"exp=\d+", "exp=<time>", v) if isinstance(v, str) else v for k, v in entry.items()
            if k != "expires"}


def _said(text: str, ours: Path | None = None, theirs: Path | None = None) -> list[str]:
    """The lines a sign-in prints (not the prompts, whose line editing differs), URLs and paths set aside."""
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if theirs is not None and ours is not None:
            line = line.replace(str(theirs), str(ours))
        line = re.sub(r"https?://[^\s)]+", "<url>", line)
        if "): " in line or line.endswith("):"):
            # A question (with what was typed after it, or the next message on its line in Pi).
            line = line.rsplit("): ", 1)[1] if "): " in line else ""
            if re.match(r"^(code-|<url>|\d+$)", line):
                line = ""
        if not line or line.endswith(":") or "catalog" in line:
            continue
        lines.append(line)
    return lines


def _refresh(program: list[str], provider: str, agent: Path, servers: SignInServers, tmp_path: Path,
             name: str) -> tuple[subprocess.CompletedProcess[str], list[RecordedRequest]]:
    with ProviderStandIn(servers, directory=tmp_path / name / "ca") as standin:
        env = program_env(dict(os.environ), standin, agent, agent.parent / "home")
        done = subprocess.run([*program, "auth", "print-bearer-token", "--provider", provider, "--min-expiry", "1m"],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL)
        return done, [r for r in standin.requests if not _is_catalog(r)]


REFRESHED = ["anthropic", "openai-codex", "openai", "github-copilot", "xai", "kimi-coding", "meta", "radius"]
"""The sign-ins whose tokens expire (OpenRouter's key does not)."""


@pytest.mark.parametrize("signer", ["ref", "pi"])
@pytest.mark.parametrize("provider", REFRESHED)
def test_each_program_refreshes_what_the_other_stored_and_sends_the_same_refresh(provider: str, signer: str,
                                                                                tmp_path: Path) -> None:
    # One sign-in (by Pi, or by pi); its auth.json, expired, is refreshed by Pi in one copy and by pi in another.
    script = next(s for s in SCRIPTS.values() if s.provider == provider)
    servers = SignInServers()
    servers.rotate = False  # both copies refresh with the refresh token the sign-in stored
    with fixed_ports(), ProviderStandIn(servers, directory=tmp_path / "ca") as standin:
        agent = tmp_path / "login" / "agent"
        agent.mkdir(parents=True)
        (agent.parent / "home").mkdir()
        env = program_env(dict(os.environ), standin, agent, agent.parent / "home")
        program = [str(PI_REFERENCE)] if signer == "ref" else [PI]
        assert sign_in(program, script, env, str(tmp_path), standin).status == 0
    stored = json.loads((agent / "auth.json").read_text())
    stored[provider]["expires"] = int(time.time() * 1000) - 1
    runs = {}
    for name, program in (("ref", [str(PI_REFERENCE)]), ("pi", [PI])):
        copy = tmp_path / name / "agent"
        copy.mkdir(parents=True)
        (copy.parent / "home").mkdir()
        (copy / "auth.json").write_text(json.dumps(stored))
        runs[name] = (*_refresh(program, provider, copy, servers, tmp_path, name), copy)
    (ref, ref_requests, ref_copy), (ours, our_requests, our_copy) = runs["ref"], runs["pi"]
    assert ref.returncode == 0, ref.stderr
    assert ours.returncode == 0, ours.stderr
    assert [shape(r) for r in our_requests] == [shape(r) for r in ref_requests]
    ref_entry = json.loads((ref_copy / "auth.json").read_text())[provider]
    our_entry = json.loads((our_copy / "auth.json").read_text())[provider]
    assert list(our_entry) == list(ref_entry)
    assert ours.stdout == our_entry["access"] + "\n" and ref.stdout == ref_entry["access"] + "\n"


def test_pi_reads_pis_stored_credentials_and_pi_reads_pis(tmp_path: Path) -> None:
    """A sign-in stored by one program is ready in the other (auth check, print-bearer-token)."""
    servers = SignInServers()
    with fixed_ports(), ProviderStandIn(servers, directory=tmp_path / "ca") as standin:
        for name, program, reader in (("ref", [str(PI_REFERENCE)], [PI]), ("pi", [PI], [str(PI_REFERENCE)])):
            agent = tmp_path / name / "agent"
            agent.mkdir(parents=True)
            (agent.parent / "home").mkdir()
            env = program_env(dict(os.environ), standin, agent, agent.parent / "home")
            assert sign_in(program, Script("anthropic"), env, str(tmp_path), standin).status == 0
            entry = json.loads((agent / "auth.json").read_text())["anthropic"]
            check = subprocess.run([*reader, "auth", "check", "--provider", "anthropic", "--json", "--credentials"],
                                   capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
            assert check.returncode == 0, check.stderr
            assert json.loads(check.stdout) == {"status": "ready", "provider": "anthropic", "authType": "oauth",
                                                "credentials": entry["access"]}


@pytest.mark.parametrize("args", [["anthropic", "--api-key"], ["groq"]])
def test_saving_an_api_key_in_the_terminal_is_pis(args: list[str], tmp_path: Path) -> None:
    from signin_drive import Pty

    results = {}
    for name, program in (("ref", str(PI_REFERENCE)), ("pi", PI)):
        agent = tmp_path / name / "agent"
        agent.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
        env.update(PI_CODING_AGENT_DIR=str(agent), HOME=str(agent), HTTPS_PROXY="http://127.0.0.1:9")
        term = Pty([program, "auth", "login", *args], env, str(tmp_path))
        try:
            prompt = term.wait_for(r"Enter [^:]+: ").group(0)
            term.type("sk-typed-secret-123\r")
            status = term.wait_exit(30)
        finally:
            term.close()
        echoed = "sk-typed-secret-123" in term.text
        results[name] = (status, prompt,
                         [line for line in term.text.replace(str(agent), "<agent>").splitlines() if "Saved" in line],
                         json.loads((agent / "auth.json").read_text()))
        if name == "pi":
            # Never echoed (Pi may echo a key typed before it turns echo off: the prompt shows first there).
            assert not echoed
    assert results["pi"] == results["ref"]
