"""A hand-edited ``mcp-auth.json`` entry of the wrong shape: reading it back for a sign-in or a
session names the file and the field (``McpAuthFileError``), never a pydantic traceback, and a
redirect URI is never made from the first character of a string."""

from __future__ import annotations

import asyncio
import json

import pytest

from pi_runtime.mcp.config import McpServerEntry
from pi_runtime.mcp.oauth import StoredTokens, stored_redirect_uri
from pi_runtime.mcp.oauth_store import McpAuthFileError, McpAuthStore

URL = "http://127.0.0.1:1/mcp"
REDIRECT = "http://127.0.0.1:2/callback"


def stored(tmp_path, **fields):
    (tmp_path / "mcp-auth.json").write_text(json.dumps({f"notes@{URL}": {"type": "mcp-oauth", **fields}}))
    entry = McpServerEntry("notes", {"url": URL}, "test", "global")
    store = McpAuthStore(tmp_path)
    return store, entry, StoredTokens(store, entry, REDIRECT)


def test_malformed_tokens_name_the_file_and_field(tmp_path):
    _, _, tokens = stored(tmp_path, tokens={"access_token": 5})
    with pytest.raises(McpAuthFileError, match=r'mcp-auth.json: the "tokens" of MCP server "notes" is malformed'):
        asyncio.run(tokens.get_tokens())


def test_a_malformed_client_names_the_file_and_field(tmp_path):
    _, _, tokens = stored(tmp_path, client={"client_id": 7, "redirect_uris": [REDIRECT]})
    with pytest.raises(McpAuthFileError, match='"client"'):
        asyncio.run(tokens.get_client_info())


def test_redirect_uris_as_a_string_are_no_registration(tmp_path):
    store, entry, tokens = stored(tmp_path, client={"client_id": "c", "redirect_uris": REDIRECT})
    assert stored_redirect_uri(store, entry) is None
    assert asyncio.run(tokens.get_client_info()) is None  # registers again rather than use it
    assert json.loads((tmp_path / "mcp-auth.json").read_text())[f"notes@{URL}"]["client"]["client_id"] == "c"
