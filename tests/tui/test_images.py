"""Image attachments: recognising dropped files (pi_tui.editor.images) and reading the clipboard
(pi_tui.terminal.clipboard) through a fake ``xclip`` on PATH."""

from __future__ import annotations

import base64

import pytest

from pi_tui.editor import images
from pi_tui.terminal import clipboard

from .image_helpers import fake_xclip, path_with_only, tiny_png


@pytest.fixture
def only_fake_tools(tmp_path, monkeypatch):
    return path_with_only(tmp_path, monkeypatch)


def test_png_jpeg_gif_and_webp_are_recognised_by_their_bytes():
    assert images.image_from_bytes(tiny_png()).mime_type == "image/png"
    assert images.image_from_bytes(b"\xff\xd8\xff\xe0rest").name == "clipboard.jpg"
    assert images.image_from_bytes(b"GIF89a....").mime_type == "image/gif"
    assert images.image_from_bytes(b"RIFF\x10\x00\x00\x00WEBPVP8 ").mime_type == "image/webp"
    assert images.image_from_bytes(b"just some text") is None


def test_dropped_paths_in_every_terminal_spelling(tmp_path):
    folder = tmp_path / "My Shots"
    folder.mkdir()
    shot = folder / "shot 1.png"
    shot.write_bytes(tiny_png())
    plain = str(shot)
    assert images.dropped_image_path(plain) == plain
    assert images.dropped_image_path(f"'{plain}' ") == plain
    assert images.dropped_image_path(plain.replace(" ", "\\ ")) == plain
    assert images.dropped_image_path("file://" + plain.replace(" ", "%20")) == plain
    assert images.dropped_image_path("shot 1.png") is None  # relative: text, not a drop
    assert images.dropped_image_path(str(folder / "missing.png")) is None
    assert images.dropped_image_path(f"{plain}\n{plain}") is None


def test_a_text_file_named_png_is_not_an_image(tmp_path):
    fake = tmp_path / "fake.png"
    fake.write_text("not an image", encoding="utf-8")
    assert isinstance(images.load_image(str(fake)), str)
    real = tmp_path / "real.png"
    real.write_bytes(tiny_png())
    loaded = images.load_image(str(real))
    assert loaded.mime_type == "image/png" and loaded.data == tiny_png()


def test_only_images_whose_markers_remain_are_sent_in_marker_order():
    first = images.AttachedImage("a.png", "image/png", b"1")
    second = images.AttachedImage("b.png", "image/png", b"2")
    third = images.AttachedImage("c.png", "image/png", b"3")
    kept = {images.marker(first, 1): first, images.marker(second, 2): second, images.marker(third, 3): third}
    text = "compare [image 3: c.png] with [image 1: a.png]"
    assert images.images_in(text, kept) == [third, first]


def test_sent_images_are_described_with_type_and_size():
    content = images.AttachedImage("a.png", "image/png", b"x" * 12 * 1024).to_content()
    assert images.describe_content(content) == "[image/png 12 KB]"
    assert base64.b64decode(content.data) == b"x" * 12 * 1024


def test_clipboard_image_through_xclip(only_fake_tools):
    fake_xclip(only_fake_tools, targets=["TARGETS", "UTF8_STRING", "image/png"], image=tiny_png(), text="ignored")
    assert clipboard.read_clipboard() == clipboard.ClipboardContent(image=tiny_png())


def test_clipboard_text_through_xclip(only_fake_tools):
    fake_xclip(only_fake_tools, targets=["TARGETS", "UTF8_STRING"], text="hello from the clipboard")
    assert clipboard.read_clipboard() == clipboard.ClipboardContent(text="hello from the clipboard")


def test_without_a_clipboard_tool_the_problem_says_what_to_install(only_fake_tools):
    content = clipboard.read_clipboard()
    assert content.image is None and content.text is None
    assert "xclip" in content.problem and "wl-clipboard" in content.problem
