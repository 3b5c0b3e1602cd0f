"""images.blockImages: no image reaches the model, each is replaced by Pi's note (real pi, loopback)."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import MODEL, run_pi, text_reply
from PIL import Image


def sent_user_parts(request) -> list[dict]:
    parts: list[dict] = []
    for message in request.json()["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            parts.extend(message["content"])
    return parts


def test_block_images_sends_the_note_instead_of_the_picture(loopback, env):
    project = Path(env["PI_TEST_PROJECT"])
    Image.new("RGB", (8, 8), (250, 0, 0)).save(project / "red.png")
    loopback.push(text_reply("seen"), text_reply("seen again"))
    first = run_pi(["-p", "@red.png", "what colour?", "--model", MODEL, "--no-session"], env)
    assert first.returncode == 0, first.stderr
    assert any(p.get("type") == "image_url" for p in sent_user_parts(loopback.requests[0]))

    settings_file = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    settings = json.loads(settings_file.read_text())
    settings["images"] = {"blockImages": True}
    settings_file.write_text(json.dumps(settings))
    second = run_pi(["-p", "@red.png", "what colour?", "--model", MODEL, "--no-session"], env)
    assert second.returncode == 0, second.stderr
    parts = sent_user_parts(loopback.requests[1])
    assert not any(p.get("type") == "image_url" for p in parts)
    assert {"type": "text", "text": "Image reading is disabled."} in parts
