"""Every provider of the catalogue, side by side with the real Pi 1.6: the same two requests.

For each provider with chat models (``provider_cases``: its default model as Pi picks it, the
highest thinking level too where the model reasons, a Claude Pro/Max sign-in and
``ANTHROPIC_AUTH_TOKEN`` for Anthropic), Pi and pi run one prompt that needs a ``bash`` call, with
a placeholder credential of the kind the provider takes, against the provider's real host name
played by the stand-in in the provider's own streaming format (``wire_replies``). Compared, for the
first turn and for the tool round trip: method, host, path and query, the headers that are not
the HTTP client's or an SDK's own, and the JSON body byte for byte with its key order, less what
``DIFFERENCES_KEPT`` names.

Without ``PI_REFERENCE`` pi runs alone and its requests are compared with the ones Pi sent when
the recording (``fixtures/provider_requests.json``) was made; record again with
``PI_REFERENCE=... python tests/e2e/wire_side_by_side.py --record``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import wire_side_by_side as side
from provider_cases import ProviderCase, provider_cases

PI_REFERENCE = os.environ.get("PI_REFERENCE")
HAVE_PI = bool(PI_REFERENCE and Path(PI_REFERENCE).exists())
OURS = str(Path(sys.executable).parent / "pi")
CASES = provider_cases()

DIFFERENCES_KEPT: dict[str, str] = {
    **side.KEPT,
    "body: the first request's output limit, where the model's limit does not fit the window": (
        "both fit it into the window Pi's way (context_budget.py), but the estimate counts the agent's own "
        "prompt and tool schemas, which differ (each in its own words): compared as '<fitted to "
        "the context window>' when both fitted it; later requests count the reported usage and match exactly"),
}
"""Every difference between Pi's and pi's requests that the comparison leaves out, and why."""


def test_every_catalogue_provider_has_a_case() -> None:
    from pi_runtime.ai.catalog import builtin_catalog

    catalog = builtin_catalog()
    chat = set(catalog.chat_providers())
    assert {c.provider for c in CASES} == chat
    assert len(chat) == 42  # Pi 1.6's providers with chat models (typesafe has classifiers only)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_provider_gets_what_pi_1_6_sends(case: ProviderCase, tmp_path: Path) -> None:
    requests, cwd, done = side.run_provider(OURS, case, tmp_path / "pi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    ours = side.normalized(case, [side.comparable(r, cwd) for r in requests])
    if HAVE_PI:
        assert PI_REFERENCE is not None
        their_requests, their_cwd, their_run = side.run_provider(PI_REFERENCE, case, tmp_path / "Pi")
        assert their_run.returncode == 0, their_run.stderr
        theirs = side.normalized(case, [side.comparable(r, their_cwd) for r in their_requests])
    else:
        recorded = side.recorded_requests()
        if case.id not in recorded:
            pytest.skip(f"no recording of Pi's requests for {case.id} (set PI_REFERENCE to compare with Pi)")
        theirs = recorded[case.id]
    assert len(ours) == len(theirs) >= 2
    for index, (mine, reference) in enumerate(zip(ours, theirs)):
        assert _readable(mine) == _readable(reference), f"request {index}"
        assert mine["compact"]  # JSON.stringify's spacing: none


def _readable(request: dict[str, Any]) -> dict[str, Any]:
    """The request with its body parsed (a failing comparison shows the field, key order kept in the text)."""
    body = request.get("body")
    return {**request, "body": json.loads(body) if body else body, "body text": body}
