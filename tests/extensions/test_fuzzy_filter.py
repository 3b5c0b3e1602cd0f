"""``fuzzy_filter`` (pi-tui's ``fuzzyFilter``) as completion providers use it."""

from __future__ import annotations

from pi_runtime.extensions import create_tools, fuzzy_filter

ISSUES = [{"number": 12, "title": "Crash on start"}, {"number": 2983, "title": "Autocomplete API"},
          {"number": 2990, "title": "Fix footer"}]


def text(issue):
    return f"{issue['number']} {issue['title']}"


def test_every_word_must_match_and_the_best_comes_first():
    assert [i["number"] for i in fuzzy_filter(ISSUES, "foot", text)] == [2990]
    assert [i["number"] for i in fuzzy_filter(ISSUES, "auto api", text)] == [2983]
    assert [i["number"] for i in fuzzy_filter(ISSUES, "cst", text)] == [12]  # a subsequence: C-ra-s-h on s-t-art
    assert fuzzy_filter(ISSUES, "zebra", text) == []
    assert fuzzy_filter(ISSUES, "", text) == ISSUES  # no query: everything, in order


def test_create_tools_gives_the_built_ins_to_wrap(tmp_path):
    read, bash = create_tools(str(tmp_path), ["read", "bash"])
    assert (read.name, bash.name) == ("read", "bash") and read.description and "command" in bash.parameters_schema()["properties"]
