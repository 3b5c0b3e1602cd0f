"""Images in the app: a dropped image file becomes an attachment sent with the prompt, Ctrl+V
reads the clipboard (through a fake ``xclip``), and the transcript shows sent images."""

from __future__ import annotations

import base64

import pytest
from textual import events

from pi_runtime.ai.providers.scripted import scripted_text
from pi_runtime.ai.types import TextContent
from pi_tui.launch import create_app

from .conftest import screen_text, settle
from .image_helpers import fake_xclip, path_with_only, tiny_png


@pytest.fixture
def only_fake_tools(tmp_path, monkeypatch):
    return path_with_only(tmp_path, monkeypatch)


def sent_user_content(provider, request: int = -1):
    context, _ = provider.requests[request]
    return [m for m in context.messages if m.role == "user"][-1].content


async def test_dropped_image_is_attached_and_sent_with_the_prompt(provider, session, tmp_path):
    shot = tmp_path / "my shot.png"
    shot.write_bytes(tiny_png())
    provider.push(scripted_text("I see a red pixel."))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"what is this? ")
        app.editor.post_message(events.Paste(f"'{shot}' "))  # GNOME Terminal's spelling of a drop
        await pilot.pause()
        assert app.editor.text == "what is this? [image 1: my shot.png] "
        await pilot.press("enter")
        await settle(pilot, session)
        content = sent_user_content(provider)
        assert content[0].type == "text" and content[0].text == "what is this? [image 1: my shot.png] "
        assert [(b.type, b.mime_type) for b in content[1:]] == [("image", "image/png")]
        assert base64.b64decode(content[1].data) == tiny_png()
        assert f"[image/png {len(tiny_png())} B]" in screen_text(app)
        assert app.editor.images == {}


async def test_a_deleted_marker_drops_its_image_and_text_files_paste_as_text(provider, session, tmp_path):
    shot = tmp_path / "shot.png"
    shot.write_bytes(tiny_png())
    not_image = tmp_path / "notes.png"
    not_image.write_text("plain text", encoding="utf-8")
    provider.push(scripted_text("ok"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        app.editor.post_message(events.Paste(str(shot)))
        await pilot.pause()
        app.editor.set_text("never mind the picture ")
        app.editor.post_message(events.Paste(str(not_image)))
        await pilot.pause()
        assert app.editor.text == f"never mind the picture {not_image}"
        await pilot.press("enter")
        await settle(pilot, session)
        assert sent_user_content(provider) == [TextContent(text=f"never mind the picture {not_image}")]


async def test_ctrl_v_attaches_a_clipboard_image(provider, session, only_fake_tools):
    fake_xclip(only_fake_tools, targets=["TARGETS", "image/png"], image=tiny_png())
    provider.push(scripted_text("ok"))
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"look ", "ctrl+v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.editor.text == "look [image 1: clipboard.png] "
        await pilot.press("enter")
        await settle(pilot, session)
        content = sent_user_content(provider)
        assert base64.b64decode(content[1].data) == tiny_png()


async def test_ctrl_v_pastes_clipboard_text_when_there_is_no_image(provider, session, only_fake_tools):
    fake_xclip(only_fake_tools, targets=["TARGETS", "UTF8_STRING"], text="from the clipboard")
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.editor.text == "from the clipboard"
        assert app.editor.images == {}


async def test_ctrl_v_without_a_clipboard_tool_says_what_to_install(provider, session, only_fake_tools):
    app = create_app(session, static=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.editor.text == ""
        messages = [str(n.message) for n in app._notifications]
        assert any("install wl-clipboard (Wayland) or xclip (X11)" in m for m in messages)


async def test_paste_image_key_follows_the_keymap(provider, workdir, agent_dir, only_fake_tools):
    import json

    from .conftest import make_session

    (agent_dir / "keybindings.json").write_text(json.dumps({"app.clipboard.pasteImage": "alt+v"}), encoding="utf-8")
    fake_xclip(only_fake_tools, targets=["TARGETS"], text="remapped")
    app = create_app(make_session(provider, workdir), static=True, agent_dir=str(agent_dir))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("alt+v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.editor.text == "remapped"
