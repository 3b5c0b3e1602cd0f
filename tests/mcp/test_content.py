"""Tool names and what MCP results look like to the model."""

from __future__ import annotations

import base64
from pathlib import Path

from pi_runtime.ai.types import ImageContent, TextContent
from pi_runtime.mcp.content import MAX_OUTPUT_BYTES, result_content
from pi_runtime.mcp.tools import input_schema, tool_name


def test_tool_names_are_sanitized_and_long_or_taken_ones_get_a_hash():
    assert tool_name("my-server", "get.thing") == "mcp__my_server__get_thing"
    long = tool_name("server", "x" * 80)
    assert len(long) == 64 and long.startswith("mcp__server__xxx") and long[-9] == "_"
    taken = tool_name("a", "b-c", lambda n: n == "mcp__a__b_c")
    assert taken.startswith("mcp__a__b_c_") and len(taken) == len("mcp__a__b_c_") + 8
    assert tool_name("a", "b-c", lambda n: n == "mcp__a__b_c") == taken  # stable


def test_input_schema_becomes_an_object_schema_with_properties():
    assert input_schema({}) == {"type": "object", "properties": {}}
    assert input_schema({"type": "object", "required": ["x"], "properties": {"x": {}}})["required"] == ["x"]


def test_blocks_become_text_and_images_and_structured_content_json():
    content, path = result_content("srv", "t", {"content": [
        {"type": "text", "text": "hi"},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        {"type": "audio", "data": "", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///x.txt", "name": "x", "mimeType": "text/plain", "size": 2048},
        {"type": "resource", "resource": {"uri": "mem://a", "text": "embedded"}},
    ]}, readable_resources=True)
    assert path is None
    assert content[0] == TextContent(text="hi")
    assert content[1] == ImageContent(data="aGk=", mime_type="image/png")
    assert content[2].text == "[audio audio/wav omitted]"
    assert content[3].text == '[Resource file:///x.txt "x" (text/plain, 2.0KB). Read it with read_mcp_resource (server "srv")]'
    assert content[4].text == "embedded"
    structured, _ = result_content("srv", "t", {"content": [], "structuredContent": {"a": 1}}, readable_resources=False)
    assert structured == [TextContent(text='{\n  "a": 1\n}')]
    failed, _ = result_content("srv", "t", {"content": [], "isError": True}, readable_resources=False)
    assert failed == [TextContent(text="MCP tool srv/t returned an error")]


def test_binary_resources_are_saved_to_a_file_the_model_is_told_about():
    blob = base64.b64encode(b"\x00\x01binary").decode()
    [block], _ = result_content("srv", "t", {"content": [
        {"type": "resource", "resource": {"uri": "mem://data.bin", "mimeType": "application/octet-stream", "blob": blob}}
    ]}, readable_resources=False)
    assert block.text.startswith("[Binary resource mem://data.bin (application/octet-stream, 8B) saved to ")
    saved = Path(block.text.rsplit(" ", 1)[1].rstrip("]"))
    assert saved.read_bytes() == b"\x00\x01binary"
    saved.unlink()


def test_long_text_keeps_its_start_and_end_and_the_full_text_is_saved():
    text = "start\n" + "é" * 30000 + "\nend"
    [block], path = result_content("srv", "t", {"content": [{"type": "text", "text": text}]}, readable_resources=False)
    assert path is not None and Path(path).read_text(encoding="utf-8") == text
    assert block.text.startswith("Warning: truncated output (original token count: ")
    assert "Total output lines: 3\n\nstart\n" in block.text
    assert "chars truncated…" in block.text and "\nend\n\n[Full output: " in block.text
    assert len(block.text.encode()) < MAX_OUTPUT_BYTES + 500
    Path(path).unlink()
