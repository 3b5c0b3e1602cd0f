"""Running pi and the real Pi against the providers' stand-in, to compare what each sends.

Both programs get the same agent dir contents (models.json, settings), the same home files
(``~/.aws/...``, ``~/.config/gcloud/...``) and the same environment; the stand-in plays every
host they reach (``HTTPS_PROXY`` + the test authority) and records the requests. Used by the
Bedrock and Vertex side-by-side tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_runtime.testing.loopback import RecordedRequest, Reply
from pi_runtime.testing.standin import ProviderStandIn

PI_REFERENCE = os.environ.get("PI_REFERENCE")
HAVE_PI = bool(PI_REFERENCE and Path(PI_REFERENCE).exists())
_DROPPED_PREFIXES = ("AWS_", "GOOGLE_", "GCLOUD_", "PI_")


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    requests: list[RecordedRequest]
    home: Path


def run_program(
    binary: str,
    folder: Path,
    responder: Callable[[RecordedRequest], Reply],
    *,
    prompt: str,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    models_json: dict[str, Any] | None = None,
    home_files: dict[str, str] | None = None,
    project_files: dict[str, str | bytes] | None = None,
    timeout: float = 120,
) -> Run:
    """Run ``binary -p [args] prompt`` in a fresh ``folder``; ``@HOME@`` in env values is the temp home.

    The stand-in's authority is also handed to botocore (``AWS_CA_BUNDLE``), so AWS calls pi makes
    through botocore (SSO, STS) reach the stand-in as well.
    """
    agent, home, project = folder / "agent", folder / "home", folder / "project"
    for path in (agent, home, project):
        path.mkdir(parents=True)
    (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
    if models_json is not None:
        (agent / "models.json").write_text(json.dumps(models_json))
    for rel, text in (home_files or {}).items():
        target = home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace("@HOME@", str(home)))
    for rel, content in (project_files or {}).items():
        if isinstance(content, bytes):
            (project / rel).write_bytes(content)
        else:
            (project / rel).write_text(content)
    with ProviderStandIn(responder, directory=folder / "ca") as standin:
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(_DROPPED_PREFIXES) and "PROXY" not in k.upper() and not k.endswith("_API_KEY")}
        full = {**base, **standin.env(), "PI_CODING_AGENT_DIR": str(agent), "HOME": str(home),
                "AWS_CA_BUNDLE": str(standin.ca_file), "AWS_EC2_METADATA_DISABLED": "true"}
        full.update({k: v.replace("@HOME@", str(home)) for k, v in (env or {}).items()})
        done = subprocess.run([binary, "-p", *args, prompt], cwd=project, env=full, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        requests = list(standin.requests)
    return Run(done.returncode, done.stdout, done.stderr, requests, home)
