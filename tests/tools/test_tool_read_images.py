"""read's images as Pi sends them: fitted to 2000x2000 and 4.5 MB, BMP made PNG, the settings.

The texts were compared with the real Pi 1.6 reading the same files (its JPEG encoder differs,
so only sizes and notes are compared, not bytes).
"""

from __future__ import annotations

import base64
import io
import random

from PIL import Image

from pi_runtime.ai.types import ImageContent, TextContent, ToolResultMessage, UserMessage
from pi_runtime.tools import ReadTool
from pi_runtime.tools.image_resize import MAX_BASE64_BYTES, without_images


async def read(tool: ReadTool, path: str):
    return await tool.execute("c1", tool.Params(path=path), None, None)


def noisy_png(path, size) -> bytes:
    rng = random.Random(7)
    image = Image.frombytes("RGB", size, bytes(rng.getrandbits(8) for _ in range(size[0] * size[1] * 3)))
    image.save(path, "PNG")
    return path.read_bytes()


def shown(result):
    note, *rest = result.content
    if not rest:
        return note.text, None
    picture = Image.open(io.BytesIO(base64.b64decode(rest[0].data)))
    return note.text, (rest[0].mime_type, picture.size, len(rest[0].data))


async def test_a_large_image_is_fitted_and_the_model_told_how(tmp_path):
    noisy_png(tmp_path / "shot.png", (2400, 1800))  # ~13 MB of noise: over both limits
    text, (mime, size, encoded) = shown(await read(ReadTool(str(tmp_path)), "shot.png"))
    assert size == (2000, 1500) and encoded < MAX_BASE64_BYTES
    assert text == (f"Read image file [{mime}]\n[Image: original 2400x1800, displayed at 2000x1500. "
                    "Multiply coordinates by 1.20 to map to original image.]")


async def test_wide_image_keeps_its_aspect_and_a_small_one_is_untouched(tmp_path):
    Image.new("RGBA", (2500, 100), (0, 0, 255, 128)).save(tmp_path / "wide.png")
    text, (mime, size, _) = shown(await read(ReadTool(str(tmp_path)), "wide.png"))
    assert (mime, size) == ("image/png", (2000, 80))
    assert text == ("Read image file [image/png]\n[Image: original 2500x100, displayed at 2000x80. "
                    "Multiply coordinates by 1.25 to map to original image.]")
    Image.new("RGB", (640, 480), (9, 9, 9)).save(tmp_path / "small.png")
    result = await read(ReadTool(str(tmp_path)), "small.png")
    assert result.content[0].text == "Read image file [image/png]"
    assert base64.b64decode(result.content[1].data) == (tmp_path / "small.png").read_bytes()


async def test_bmp_becomes_png_as_in_pi(tmp_path):
    Image.new("RGB", (30, 20), (200, 10, 10)).save(tmp_path / "pic.bmp")
    text, (mime, size, _) = shown(await read(ReadTool(str(tmp_path)), "pic.bmp"))
    assert (text, mime, size) == ("Read image file [image/png]\n[Image converted from image/bmp to image/png.]",
                                  "image/png", (30, 20))


async def test_auto_resize_off_sends_the_file_as_it_is_and_is_asked_at_each_read(tmp_path):
    original = noisy_png(tmp_path / "shot.png", (2100, 300))
    setting = {"on": False}
    tool = ReadTool(str(tmp_path), auto_resize_images=lambda: setting["on"])
    off = await read(tool, "shot.png")
    assert off.content[0].text == "Read image file [image/png]"
    assert base64.b64decode(off.content[1].data) == original
    setting["on"] = True
    _, (_, size, _) = shown(await read(tool, "shot.png"))
    assert size == (2000, 286)


async def test_an_image_that_cannot_be_decoded_is_left_out_with_pis_note(tmp_path):
    good = io.BytesIO()
    Image.new("RGB", (10, 10)).save(good, "PNG")
    # A real PNG header, then image data that is not deflate.
    (tmp_path / "broken.png").write_bytes(good.getvalue()[:33] + b"\x00\x00\x00\x10IDATgarbagegarbage!!!!")
    result = await read(ReadTool(str(tmp_path)), "broken.png")
    assert [type(c) for c in result.content] == [TextContent]
    assert result.content[0].text == (
        "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]")


def test_block_images_replaces_each_image_with_pis_note_once_per_run():
    pixel = ImageContent(data="AAAA", mime_type="image/png")
    user = UserMessage(content=[TextContent(text="look"), pixel, pixel, TextContent(text="and this")])
    tool = ToolResultMessage(tool_call_id="c", tool_name="read", content=[TextContent(text="Read image file"), pixel])
    blocked_user, blocked_tool = without_images([user, tool])
    assert [getattr(b, "text", None) for b in blocked_user.content] == [
        "look", "Image reading is disabled.", "and this"]
    assert [b.text for b in blocked_tool.content] == ["Read image file", "Image reading is disabled."]
    assert user.content[1] is pixel  # the stored message is not changed


async def test_an_image_read_for_a_model_without_images_names_it_in_the_details_as_pi_does(tmp_path):
    from pi_runtime.ai.providers.scripted import ScriptedProvider

    Image.new("RGB", (64, 48), (9, 9, 9)).save(tmp_path / "pic.png")
    (tmp_path / "notes.txt").write_text("hello\n")
    provider = ScriptedProvider("images")
    current = {"model": provider.model("text-only", input=["text"])}
    tool = ReadTool(str(tmp_path), current_model=lambda: current["model"])
    result = await read(tool, "pic.png")
    assert result.details == {"imageUnsupportedByModel": "text-only"}
    assert isinstance(result.content[1], ImageContent)  # the image is still the result: the request leaves it out
    assert (await read(tool, "notes.txt")).details is None
    current["model"] = provider.model("sees")  # asked at each read: a model switch applies at once
    assert (await read(tool, "pic.png")).details is None
    assert (await read(ReadTool(str(tmp_path)), "pic.png")).details is None
