"""mcp-auth.json: one sign-in per server name and URL, written atomically with mode 0600, and a
corrupt file is reported and never overwritten."""

from __future__ import annotations

import json
import stat

import pytest

from pi_runtime.mcp.oauth_store import McpAuthFileError, McpAuthStore

URL = "https://mcp.example.com/mcp"


def test_sign_ins_are_keyed_by_name_and_url(tmp_path):
    store = McpAuthStore(tmp_path)
    store.save("work", URL, tokens={"access_token": "a1"})
    store.save("home", URL, tokens={"access_token": "a2"})
    store.save("work", "https://other.example.com/mcp", tokens={"access_token": "a3"})
    # Another store on the same folder (another process, another mcp.json) sees the same entries.
    again = McpAuthStore(tmp_path)
    assert again.get("work", URL)["tokens"] == {"access_token": "a1"}
    assert again.get("home", URL)["tokens"] == {"access_token": "a2"}
    assert again.get("work", "https://other.example.com/mcp")["tokens"] == {"access_token": "a3"}
    assert again.get("nobody", URL) is None
    assert stat.S_IMODE((tmp_path / "mcp-auth.json").stat().st_mode) == 0o600


def test_save_keeps_other_fields_and_remove_deletes_only_that_sign_in(tmp_path):
    store = McpAuthStore(tmp_path)
    store.save("work", URL, client={"client_id": "c1"})
    store.save("work", URL, tokens={"access_token": "a1"}, expiresAt=5.0)
    entry = store.get("work", URL)
    assert entry["client"] == {"client_id": "c1"} and entry["tokens"] == {"access_token": "a1"}
    assert entry["server"] == "work" and entry["url"] == URL and entry["type"] == "mcp-oauth"
    store.save("home", URL, tokens={"access_token": "a2"})
    assert store.remove("work", URL) is True
    assert store.remove("work", URL) is False
    assert store.get("work", URL) is None
    assert store.has_tokens("home", URL)


def test_remove_without_a_file_creates_nothing(tmp_path):
    assert McpAuthStore(tmp_path).remove("work", URL) is False
    assert not (tmp_path / "mcp-auth.json").exists()


def test_a_corrupt_file_is_reported_and_left_as_it_was(tmp_path):
    path = tmp_path / "mcp-auth.json"
    path.write_text('{"work@x": {"tokens": ', encoding="utf-8")
    store = McpAuthStore(tmp_path)
    with pytest.raises(McpAuthFileError, match=r"mcp-auth\.json: invalid JSON at line 1"):
        store.get("work", URL)
    with pytest.raises(McpAuthFileError, match="fix or delete the file"):
        store.save("work", URL, tokens={"access_token": "new"})
    with pytest.raises(McpAuthFileError):
        store.remove("work", URL)
    assert path.read_text(encoding="utf-8") == '{"work@x": {"tokens": '


def test_entries_pi_does_not_know_are_kept(tmp_path):
    path = tmp_path / "mcp-auth.json"
    path.write_text(json.dumps({"future": {"type": "something-new", "x": 1}}), encoding="utf-8")
    McpAuthStore(tmp_path).save("work", URL, tokens={"access_token": "a1"})
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["future"] == {"type": "something-new", "x": 1}
    assert data[f"work@{URL}"]["tokens"] == {"access_token": "a1"}
