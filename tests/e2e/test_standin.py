"""The providers' stand-in: pi (and the real Pi, where installed) reach a real host name over TLS.

The stand-in is the base of every side-by-side request comparison with Pi: if either program
bypassed the proxy or refused the test authority, those comparisons would test nothing.
"""

from __future__ import annotations

import os
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from e2e_support import PI

from pi_runtime.testing.loopback import RecordedRequest, Reply
from pi_runtime.testing.standin import ProviderStandIn

PI_REFERENCE = os.environ.get("PI_REFERENCE")


def _anthropic_answer(text: str) -> Reply:
    usage = {"input_tokens": 12, "output_tokens": 3}
    return Reply.sse([
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                              "model": "claude-sonnet-4-5", "content": [], "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ], event_names=["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                    "message_delta", "message_stop"])


def _by_host(request: RecordedRequest) -> Reply:
    if request.host == "api.anthropic.com" and request.path.startswith("/v1/messages"):
        return _anthropic_answer("stand-in says hi")
    return Reply.json(404, {"error": {"message": f"nothing plays {request.host}{request.path}"}})


@pytest.fixture
def standin(tmp_path: Path) -> Iterator[ProviderStandIn]:
    with ProviderStandIn(_by_host, directory=tmp_path / "ca") as server:
        yield server


def _env(tmp_path: Path, standin: ProviderStandIn, name: str) -> dict[str, str]:
    agent, home = tmp_path / name / "agent", tmp_path / name / "home"
    agent.mkdir(parents=True)
    home.mkdir()
    base = {k: v for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and not k.startswith("PI_") and "PROXY" not in k.upper()}
    return {**base, **standin.env(), "PI_CODING_AGENT_DIR": str(agent), "HOME": str(home),
            "ANTHROPIC_API_KEY": "sk-ant-standin-test"}


def test_pythons_client_trusts_the_test_authority_and_names_the_host(standin: ProviderStandIn) -> None:
    with httpx2.Client(proxy=standin.proxy_url, verify=ssl.create_default_context(cafile=str(standin.ca_file))) as client:
        answer = client.get("https://status.example.test/ping")
    assert answer.status_code == 404
    assert standin.connects == ["status.example.test:443"]
    assert standin.requests[0].host == "status.example.test"
    assert standin.requests[0].path == "/ping"


def test_an_untrusting_client_fails_the_handshake(standin: ProviderStandIn) -> None:
    with httpx2.Client(proxy=standin.proxy_url) as client, pytest.raises(httpx2.ConnectError):
        client.get("https://api.anthropic.com/v1/models")
    assert standin.requests == []


def _run(program: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*program, "-p", "--model", "anthropic/claude-sonnet-4-5", "say hi"],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=60, stdin=subprocess.DEVNULL)


def test_pi_reaches_a_real_host_name_through_the_standin(tmp_path: Path, standin: ProviderStandIn) -> None:
    done = _run([PI], _env(tmp_path, standin, "pi"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stand-in says hi"
    [request] = standin.requests_to("api.anthropic.com")
    assert request.path == "/v1/messages?beta=true"  # the Anthropic SDK's beta endpoint, as Pi sends it
    assert request.headers["x-api-key"] == "sk-ant-standin-test"


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_the_real_pi_reaches_it_the_same_way(tmp_path: Path, standin: ProviderStandIn) -> None:
    done = _run([str(PI_REFERENCE)], _env(tmp_path, standin, "ref"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stand-in says hi"
    requests: list[Any] = standin.requests_to("api.anthropic.com")
    assert [r.path.split("?")[0] for r in requests] == ["/v1/messages"]
    assert requests[0].headers["x-api-key"] == "sk-ant-standin-test"
