"""edit: exact and forgiving matches, BOM/CRLF round trips, errors, diffs, legacy input."""

from __future__ import annotations

import json

import pytest

from pi_runtime.agent.tool import ToolError
from pi_runtime.tools import EditTool


async def edit(tool: EditTool, **args):
    return await tool.execute("c1", tool.Params.model_validate(args), None, None)


def one(old: str, new: str) -> list[dict]:
    return [{"oldText": old, "newText": new}]


async def test_crlf_and_bom_round_trip(tmp_path):
    original = "\ufeffline one\r\nline two\r\nline three\r\n".encode()
    (tmp_path / "win.txt").write_bytes(original)
    tool = EditTool(str(tmp_path))
    result = await edit(tool, path="win.txt", edits=one("line two\nline three", "second\nthird\nfourth"))
    data = (tmp_path / "win.txt").read_bytes()
    assert data == "\ufeffline one\r\nsecond\r\nthird\r\nfourth\r\n".encode()
    assert result.details["firstChangedLine"] == 2
    # Pi's two diffs: the display form (numbered lines) and a unified patch; no CR in either.
    assert result.details["diff"] == " 1 line one\n-2 line two\n-3 line three\n+2 second\n+3 third\n+4 fourth"
    assert "@@ -1,3 +1,4 @@\n line one\n-line two\n-line three\n+second\n+third\n+fourth\n" in result.details["patch"]


async def test_mixed_line_endings_untouched_lines_keep_theirs(tmp_path):
    (tmp_path / "mixed.txt").write_bytes(b"a\r\nb\nc\r\nd\n")
    await edit(EditTool(str(tmp_path)), path="mixed.txt", edits=one("c", "C"))
    assert (tmp_path / "mixed.txt").read_bytes() == b"a\r\nb\nC\r\nd\n"


async def test_multi_edit_matches_original_content(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\ny = 2\nz = 3\n")
    result = await edit(EditTool(str(tmp_path)), path="m.py",
                        edits=[{"oldText": "z = 3", "newText": "z = 30"}, {"oldText": "x = 1", "newText": "y = 2"}])
    # The second edit's newText equals an original line, proving edits don't see each other.
    assert (tmp_path / "m.py").read_text() == "y = 2\ny = 2\nz = 30\n"
    assert result.content[0].text == "Successfully replaced 2 block(s) in m.py."
    assert result.details["firstChangedLine"] == 1


async def test_not_unique_reports_count(tmp_path):
    (tmp_path / "d.txt").write_text("foo\nbar\nfoo\nfoo\n")
    with pytest.raises(ToolError, match="Found 3 occurrences of the text in d.txt"):
        await edit(EditTool(str(tmp_path)), path="d.txt", edits=one("foo", "baz"))
    assert (tmp_path / "d.txt").read_text() == "foo\nbar\nfoo\nfoo\n"


async def test_not_found_has_hint_and_changes_nothing(tmp_path):
    (tmp_path / "n.txt").write_text("def handler(event):\n    return event\n")
    with pytest.raises(ToolError) as info:
        await edit(EditTool(str(tmp_path)), path="n.txt",
                   edits=one("def handler(event):\n    return None", "x"))
    message = str(info.value)
    assert message.startswith("Could not find the exact text in n.txt.")
    assert "line 1 of the file" in message
    assert (tmp_path / "n.txt").read_text() == "def handler(event):\n    return event\n"


async def test_overlapping_edits_rejected(tmp_path):
    (tmp_path / "o.txt").write_text("alpha beta gamma\n")
    with pytest.raises(ToolError, match=r"edits\[0\] and edits\[1\] overlap in o.txt. Merge them into one edit or "
                                        r"target disjoint regions.$"):
        await edit(EditTool(str(tmp_path)), path="o.txt",
                   edits=[{"oldText": "alpha beta", "newText": "A"}, {"oldText": "beta gamma", "newText": "B"}])
    assert (tmp_path / "o.txt").read_text() == "alpha beta gamma\n"


async def test_multi_edit_error_names_the_edit(tmp_path):
    (tmp_path / "e.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match=r"Could not find edits\[1\]\.oldText in e.txt"):
        await edit(EditTool(str(tmp_path)), path="e.txt",
                   edits=[{"oldText": "one", "newText": "1"}, {"oldText": "three", "newText": "3"}])
    assert (tmp_path / "e.txt").read_text() == "one\ntwo\n"


async def test_no_change_rejected(tmp_path):
    (tmp_path / "s.txt").write_text("same\n")
    with pytest.raises(ToolError, match="No changes made to s.txt"):
        await edit(EditTool(str(tmp_path)), path="s.txt", edits=one("same", "same"))


async def test_fuzzy_smart_quotes_keeps_rest_of_file(tmp_path):
    original = "intro \u201cquoted\u201d   \nprint(\u2018it\u2019s\u2019)\nlast line \u2014 keep\u00a0this   \n"
    (tmp_path / "q.txt").write_text(original)
    result = await edit(EditTool(str(tmp_path)), path="q.txt", edits=one("print('it's')", "print('ok')"))
    expected = original.replace("print(\u2018it\u2019s\u2019)", "print('ok')")
    # Untouched lines keep their smart quotes, dashes, NBSP and trailing spaces.
    assert (tmp_path / "q.txt").read_text() == expected
    assert result.details["fuzzyMatch"] is True


async def test_fuzzy_trailing_whitespace(tmp_path):
    (tmp_path / "t.py").write_text("def f():   \n    return 1\t\nx = 2\n")
    await edit(EditTool(str(tmp_path)), path="t.py", edits=one("def f():\n    return 1", "def f():\n    return 2"))
    assert (tmp_path / "t.py").read_text() == "def f():\n    return 2\t\nx = 2\n"


async def test_fuzzy_unicode_dash_and_fullwidth(tmp_path):
    (tmp_path / "u.txt").write_text("range 1\u20135 ok\nＡＢＣ tag\n")
    await edit(EditTool(str(tmp_path)), path="u.txt", edits=one("range 1-5", "range 1-9"))
    await edit(EditTool(str(tmp_path)), path="u.txt", edits=one("ABC tag", "xyz tag"))
    assert (tmp_path / "u.txt").read_text() == "range 1-9 ok\nxyz tag\n"


async def test_legacy_single_edit_and_string_edits():
    legacy = EditTool.Params.model_validate({"path": "a", "oldText": "x", "newText": "y"})
    assert [(e.old_text, e.new_text) for e in legacy.edits] == [("x", "y")]
    as_string = EditTool.Params.model_validate({"path": "a", "edits": '[{"oldText": "p", "newText": "q"}]'})
    assert as_string.edits[0].new_text == "q"
    lone = EditTool.Params.model_validate({"path": "a", "edits": {"oldText": "p", "newText": "q", "why": "x"}})
    assert lone.edits[0].old_text == "p"
    schema = EditTool("/").parameters_schema()
    assert "oldText" not in schema["properties"] and "edits" in schema["required"]


async def test_missing_file_and_empty_old_text(tmp_path):
    tool = EditTool(str(tmp_path))
    with pytest.raises(ToolError, match="File not found: ghost.txt"):
        await edit(tool, path="ghost.txt", edits=one("a", "b"))
    (tmp_path / "f.txt").write_text("abc\n")
    with pytest.raises(ToolError, match=r"edits\[0\]\.oldText must not be empty"):
        await edit(tool, path="f.txt", edits=one("", "b"))


async def test_non_utf8_file_refused_untouched(tmp_path):
    data = "café\n".encode("latin-1")
    (tmp_path / "l1.txt").write_bytes(data)
    with pytest.raises(ToolError, match="not valid UTF-8"):
        await edit(EditTool(str(tmp_path)), path="l1.txt", edits=one("caf", "bar"))
    assert (tmp_path / "l1.txt").read_bytes() == data


async def test_diff_of_distant_edits_in_large_file(tmp_path):
    lines = [f"row {i}" for i in range(1, 5001)]
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    result = await edit(EditTool(str(tmp_path)), path="big.txt",
                        edits=[{"oldText": "row 10\n", "newText": "ten\n"},
                               {"oldText": "row 4990\n", "newText": "A\nB\n"}])
    patch = result.details["patch"]
    assert patch.startswith("--- big.txt\n+++ big.txt\n@@ -6,9 +6,9 @@\n")
    assert "@@ -4986,9 +4986,10 @@" in patch
    assert patch.count("\n ") == 16  # only 4 context lines on each side of each change
    # The display diff numbers lines in a gutter as wide as the file's line count; "..." skips.
    assert result.details["diff"].split("\n") == [
        "      ...", "    6 row 6", "    7 row 7", "    8 row 8", "    9 row 9", "-  10 row 10", "+  10 ten",
        "   11 row 11", "   12 row 12", "   13 row 13", "   14 row 14", "      ...", " 4986 row 4986",
        " 4987 row 4987", " 4988 row 4988", " 4989 row 4989", "-4990 row 4990", "+4990 A", "+4991 B",
        " 4991 row 4991", " 4992 row 4992", " 4993 row 4993", " 4994 row 4994", "      ..."]
    assert result.details["firstChangedLine"] == 10


async def test_symlink_edit_changes_target_keeps_link(tmp_path):
    (tmp_path / "real.txt").write_text("value = 1\n")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    await edit(EditTool(str(tmp_path)), path="link.txt", edits=one("1", "2"))
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "value = 2\n"


async def test_fuzzy_match_in_crlf_file_maps_back_exactly(tmp_path):
    (tmp_path / "cw.txt").write_bytes("top\r\na  \r\nb\t\r\n\u201cq\u201d\r\n".encode())
    await edit(EditTool(str(tmp_path)), path="cw.txt", edits=one("a\nb", "A\nB"))
    assert (tmp_path / "cw.txt").read_bytes() == "top\r\nA\r\nB\t\r\n\u201cq\u201d\r\n".encode()


async def test_fuzzy_nfkc_of_the_whole_text_joins_decomposed_accents(tmp_path):
    # Pi normalises the whole text (NFKC): a decomposed e + U+0301 in the file matches "é".
    (tmp_path / "d.txt").write_text("menu: cafe\u0301 au lait\nx\ufb01 fin\n")
    tool = EditTool(str(tmp_path))
    result = await edit(tool, path="d.txt", edits=one("café au", "tea au"))
    assert result.details["fuzzyMatch"] is True
    # Only the matched span changes: the ligature line and the x before it stay as they were.
    assert (tmp_path / "d.txt").read_text() == "menu: tea au lait\nx\ufb01 fin\n"
    await edit(tool, path="d.txt", edits=one("fi fin", "FI"))
    assert (tmp_path / "d.txt").read_text() == "menu: tea au lait\nxFI\n"


async def test_fuzzy_nfkc_composed_file_decomposed_old_text(tmp_path):
    (tmp_path / "c.txt").write_text("Ünïcode naïve résumé\n")
    await edit(EditTool(str(tmp_path)), path="c.txt", edits=one("nai\u0308ve re\u0301sume\u0301", "plain"))
    assert (tmp_path / "c.txt").read_text() == "Ünïcode plain\n"


async def test_no_edits_is_said_in_pis_words_not_as_a_schema_error(tmp_path):
    # Pi's schema lets an empty list through and its edit tool says what is wrong; pi's schema had
    # minItems and the model got "List should have at least 1 item after validation, not 0".
    (tmp_path / "o.txt").write_text("alpha\n")
    assert "minItems" not in json.dumps(EditTool(str(tmp_path)).to_tool().to_wire())
    with pytest.raises(ToolError, match=r"^Edit tool input is invalid. edits must contain at least one replacement.$"):
        await edit(EditTool(str(tmp_path)), path="o.txt", edits=[])
    assert (tmp_path / "o.txt").read_text() == "alpha\n"
