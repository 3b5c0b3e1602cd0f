"""Pi's ``httpProxy`` setting carries pi's requests (issue #34: it was parsed and never applied).

The provider is a made-up HTTPS host that only the loopback stand-in plays, reached through its
CONNECT proxy; the proxy is named only by ``settings.json`` (no proxy variable in the
environment). The real Pi, when ``PI_REFERENCE`` names it, is run the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from e2e_support import PI, chunk, usage

from pi_runtime.testing.loopback import RecordedRequest, Reply
from pi_runtime.testing.standin import ProviderStandIn

PI_REFERENCE = os.environ.get("PI_REFERENCE")
HOST = "llm.example.test"


def answer(request: RecordedRequest) -> Reply:
    if request.host == HOST:
        return Reply.sse([chunk({"content": "via the proxy"}), chunk(finish="stop"), usage(), "[DONE]"])
    return Reply.json(404, {"error": {"message": "unknown host"}})


def agent_env(tmp_path: Path, standin: ProviderStandIn, name: str) -> dict[str, str]:
    agent, home, project = (tmp_path / name / part for part in ("agent", "home", "project"))
    for folder in (agent, home, project):
        folder.mkdir(parents=True)
    models = {"providers": {"far": {"baseUrl": f"https://{HOST}/v1", "api": "openai-completions",
                                    "apiKey": "far-key", "models": [{"id": "far-model"}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    (agent / "settings.json").write_text(json.dumps({"httpProxy": standin.proxy_url, "retry": {"enabled": False}}))
    base = {k: v for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and not k.startswith("PI_") and "PROXY" not in k.upper()}
    ca = str(standin.ca_file)
    return {**base, "PI_CODING_AGENT_DIR": str(agent), "HOME": str(home), "PI_TEST_PROJECT": str(project),
            "SSL_CERT_FILE": ca, "NODE_EXTRA_CA_CERTS": ca}


def run(program: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*program, "-p", "--model", "far/far-model", "hello"], capture_output=True, text=True,
                          env=env, cwd=env["PI_TEST_PROJECT"], timeout=60, stdin=subprocess.DEVNULL)


def test_the_http_proxy_setting_carries_the_request(tmp_path):
    with ProviderStandIn(answer, directory=tmp_path / "ca") as standin:
        result = run([PI], agent_env(tmp_path, standin, "pi"))
        assert (result.returncode, result.stdout, result.stderr) == (0, "via the proxy\n", "")
        assert standin.connects == [f"{HOST}:443"] and standin.requests_to(HOST)[0].path == "/v1/chat/completions"


@pytest.mark.skipif(not PI_REFERENCE or not Path(PI_REFERENCE).exists(), reason="real Pi not installed (set PI_REFERENCE)")
def test_pi_applies_the_setting_the_same_way(tmp_path):
    with ProviderStandIn(answer, directory=tmp_path / "ca") as standin:
        result = run([str(PI_REFERENCE)], agent_env(tmp_path, standin, "ref"))
        assert (result.returncode, result.stdout.strip()) == (0, "via the proxy"), result.stderr
        assert standin.connects == [f"{HOST}:443"]
