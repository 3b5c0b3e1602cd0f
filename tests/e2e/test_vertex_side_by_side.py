"""Google Vertex AI, side by side: pi and the real Pi 1.6 send the same requests.

Both reach ``*-aiplatform.googleapis.com`` and ``oauth2.googleapis.com`` through the providers'
stand-in, with the same models.json, credentials files and environment: an API key with a tool
round trip, a service account key file, and gcloud's ``authorized_user`` file with a quota
project. Compared: method, host, path, the headers that are not volatile or client telemetry,
the body of each Vertex request, and each token exchange (form fields; the service account's
JWT header and claims, its signature checked with the account's public key). Differences kept on
purpose, left out of the comparison:

- ``user-agent``, ``x-goog-api-client``, ``accept``, ``accept-language``, ``sec-fetch-mode``: client
  telemetry and fetch defaults of Pi's Node libraries (pi asks for ``text/event-stream``);
- the system prompt's text and the tools' descriptions and schemas: pi's own, compared elsewhere;
- ``toolConfig: {functionCallingConfig: {mode: VALIDATED}}``, which Pi sends to Gemini 3 because its
  tools ask for strict (constrained) sampling; pi's tools carry no such setting yet;
- the JWT's ``iat``/``exp`` (the clock), and its ``aud``, which pi takes from the file's
  ``token_uri`` (the same URL for Google's files) where Pi's library fixes it.

pi runs every time (its requests checked); Pi runs and is compared where it is installed and named
by ``PI_REFERENCE``. pi's own loopback tests are in ``tests/ai/test_google_vertex.py``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from cloud_side_by_side import HAVE_PI, PI_REFERENCE, run_program
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from e2e_support import PI

from pi_runtime.testing.loopback import RecordedRequest, Reply

MODELS = {"providers": {"google-vertex": {
    "baseUrl": "https://{location}-aiplatform.googleapis.com", "api": "google-vertex",
    "models": [{"id": "gemini-2.5-pro", "name": "Gemini 2.5 Pro", "reasoning": True, "input": ["text", "image"],
                "contextWindow": 1048576, "maxTokens": 65536,
                "cost": {"input": 1.25, "output": 10, "cacheRead": 0.125, "cacheWrite": 0}},
               {"id": "gemini-3-flash-preview", "name": "Gemini 3 Flash Preview", "reasoning": True,
                "input": ["text", "image"], "contextWindow": 1048576, "maxTokens": 65536,
                "thinkingLevelMap": {"off": None, "minimal": "minimal", "low": "low", "medium": "medium",
                                     "high": "high", "xhigh": None, "max": None},
                "cost": {"input": 0.5, "output": 3, "cacheRead": 0.05, "cacheWrite": 0}}]}}}
_VOLATILE = {"user-agent", "x-goog-api-client", "accept", "accept-encoding", "accept-language", "connection",
             "content-length", "sec-fetch-mode"}
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                        serialization.NoEncryption()).decode()
SERVICE_ACCOUNT = {"type": "service_account", "project_id": "sa-project", "private_key_id": "kid-1",
                   "private_key": PEM, "client_email": "bot@sa-project.iam.gserviceaccount.com",
                   "client_id": "1234", "token_uri": "https://oauth2.googleapis.com/token"}
AUTHORIZED_USER = {"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
                   "client_secret": "client-secret-xyz", "refresh_token": "1//refresh-token-abc",
                   "quota_project_id": "quota-project-1"}


def _chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-pro", "responseId": "resp-1",
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}


def _answer(request: RecordedRequest) -> Reply:
    if request.host == "oauth2.googleapis.com":
        return Reply.json(200, {"access_token": "ya29.stand-in-token", "expires_in": 3599, "token_type": "Bearer"})
    contents = (request.json() or {}).get("contents") or []
    answered = any("functionResponse" in part for content in contents for part in content.get("parts", []))
    if "read tool" in json.dumps(contents[:1]) and not answered:
        path = "a.png" if "a.png" in json.dumps(contents[:1]) else "a.txt"
        call = {"functionCall": {"name": "read", "args": {"path": path}, "id": "call-1"},
                "thoughtSignature": "c2lnbmF0dXJl"}
        return Reply.sse([_chunk([call], "STOP")])
    return Reply.sse([_chunk([{"text": "hello from vertex"}]), _chunk([], "STOP")])


def _jwt_parts(assertion: str) -> tuple[dict[str, Any], dict[str, Any]]:
    def decode(part: str) -> Any:
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))

    head, claims, signature = assertion.split(".")
    KEY.public_key().verify(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)),
                            f"{head}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    payload = decode(claims)
    assert payload["exp"] - payload["iat"] == 3600
    return decode(head), {k: v for k, v in payload.items() if k not in ("iat", "exp")}


def comparable(request: RecordedRequest) -> dict[str, Any]:
    """What must be the same in Pi's and pi's request."""
    out: dict[str, Any] = {
        "request": f"{request.method} {request.host}{request.path}",
        "headers": {k: v for k, v in sorted(request.headers.items()) if k not in _VOLATILE},
    }
    if request.host == "oauth2.googleapis.com":
        out["headers"]["content-type"] = out["headers"]["content-type"].split(";")[0]
        form = dict(parse_qsl(request.body.decode()))
        if "assertion" in form:
            form["assertion"] = _jwt_parts(form["assertion"])
        out["form"] = form
        return out
    body = request.json()
    if body.get("systemInstruction"):
        body["systemInstruction"]["parts"][0]["text"] = "<system prompt>"
    if body.get("tools"):
        body["tools"] = [[f["name"] for f in t["functionDeclarations"]] for t in body["tools"]]
    # Pi asks Gemini 3 for VALIDATED function calling because its tools ask for strict schemas.
    body.pop("toolConfig", None)
    out["body"] = body
    return out


def _both(tmp_path: Path, **kwargs: Any) -> list[dict[str, Any]]:
    """pi's requests (JWTs checked), compared with Pi's where Pi is installed."""
    ours = run_program(PI, tmp_path / "ours", _answer, models_json=MODELS, **kwargs)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.strip() == "hello from vertex"
    mine = [comparable(r) for r in ours.requests]
    if HAVE_PI:
        ref = run_program(str(PI_REFERENCE), tmp_path / "ref", _answer, models_json=MODELS, **kwargs)
        assert ref.returncode == 0, ref.stderr
        assert ours.stdout == ref.stdout
        assert mine == [comparable(r) for r in ref.requests]
    return mine


def test_api_key_tool_round_trip_with_thinking(tmp_path: Path) -> None:
    sent = _both(tmp_path, prompt="use the read tool on a.txt", project_files={"a.txt": "file contents\n"},
                   args=("--model", "google-vertex/gemini-2.5-pro", "--thinking", "medium"),
                   env={"GOOGLE_CLOUD_API_KEY": "AIzaVertexExpressKey-123456"})
    assert [r["request"].split("/")[0] for r in sent] == ["POST aiplatform.googleapis.com"] * 2
    assert sent[1]["body"]["contents"][2]["parts"][0]["functionResponse"]["response"] == {"output": "file contents\n"}


def _png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 4), (255, 0, 0)).save(out, "PNG")
    return out.getvalue()


def test_gemini_3_call_ids_and_an_image_inside_the_function_response(tmp_path: Path) -> None:
    sent = _both(tmp_path, prompt="use the read tool on a.png", project_files={"a.png": _png()},
                 args=("--model", "google-vertex/gemini-3-flash-preview", "--thinking", "low"),
                 env={"GOOGLE_CLOUD_API_KEY": "AIzaVertexExpressKey-123456"})
    assert sent[0]["body"]["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "LOW"}
    model_turn, results = sent[1]["body"]["contents"][1:]
    assert model_turn["parts"][0]["functionCall"]["id"] == "call-1"
    response = results["parts"][0]["functionResponse"]
    assert response["id"] == "call-1"
    assert response["parts"][0]["inlineData"]["mimeType"] == "image/png"


def test_gemini_2_5_image_follows_in_its_own_turn(tmp_path: Path) -> None:
    sent = _both(tmp_path, prompt="use the read tool on a.png", project_files={"a.png": _png()},
                 args=("--model", "google-vertex/gemini-2.5-pro", "--thinking", "off"),
                 env={"GOOGLE_CLOUD_API_KEY": "AIzaVertexExpressKey-123456"})
    contents = sent[1]["body"]["contents"]
    assert "id" not in contents[1]["parts"][0]["functionCall"]
    assert contents[3]["parts"][0] == {"text": "Tool result image:"}


def test_service_account_key_file(tmp_path: Path) -> None:
    sent = _both(tmp_path, prompt="say hi", args=("--model", "google-vertex/gemini-2.5-pro", "--thinking", "off"),
                   home_files={"sa.json": json.dumps(SERVICE_ACCOUNT)},
                   env={"GOOGLE_APPLICATION_CREDENTIALS": "@HOME@/sa.json", "GOOGLE_CLOUD_PROJECT": "my-project",
                        "GOOGLE_CLOUD_LOCATION": "us-central1"})
    assert [r["request"].split("/")[0] for r in sent] == ["POST oauth2.googleapis.com",
                                                           "POST us-central1-aiplatform.googleapis.com"]
    assert sent[0]["form"]["assertion"][1]["iss"] == SERVICE_ACCOUNT["client_email"]


def test_gcloud_user_credentials_with_quota_project(tmp_path: Path) -> None:
    files = {".config/gcloud/application_default_credentials.json": json.dumps(AUTHORIZED_USER)}
    sent = _both(tmp_path, prompt="say hi", args=("--model", "google-vertex/gemini-2.5-pro"), home_files=files,
                   env={"GCLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "global"})
    assert sent[0]["form"]["refresh_token"] == "1//refresh-token-abc"
    assert sent[1]["headers"]["x-goog-user-project"] == "quota-project-1"
    assert sent[1]["request"].startswith("POST aiplatform.googleapis.com/v1/projects/my-project/locations/global/")


def test_missing_credentials_name_what_to_set(tmp_path: Path) -> None:
    done = run_program(PI, tmp_path, _answer, models_json=MODELS, prompt="hi",
                       args=("--model", "google-vertex/gemini-2.5-pro"), env={"GOOGLE_CLOUD_PROJECT": "p"})
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "pi: No credentials for provider 'google-vertex': set GOOGLE_CLOUD_API_KEY, or GOOGLE_CLOUD_PROJECT and "
        "GOOGLE_CLOUD_LOCATION with Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth "
        "application-default login`), or use /login google-vertex.")
    assert done.requests == []
