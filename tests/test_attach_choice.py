"""``pi attach <ref>``: which listing row a number or an id prefix names."""

from __future__ import annotations

import pytest

from pi_runtime.remote.attach_choice import AttachChoiceError, match_session

ROWS = [{"session": "3f09c1d2", "sessionId": "01a2-aaaa"}, {"session": "3f7700aa", "sessionId": "77b1-bbbb"},
        {"session": "9c00e0e1", "sessionId": "01a9-cccc"}]


def test_a_number_is_the_listings_row_and_an_id_prefix_its_session():
    assert match_session(ROWS, "2")["session"] == "3f7700aa"
    assert match_session(ROWS, "9c")["session"] == "9c00e0e1"
    assert match_session(ROWS, "77b1")["session"] == "3f7700aa"  # the kernel's session id works too


def test_no_match_and_several_matches_say_so():
    with pytest.raises(AttachChoiceError, match="no session ffff"):
        match_session(ROWS, "ffff")
    with pytest.raises(AttachChoiceError, match="3f names several sessions"):
        match_session(ROWS, "3f")
    with pytest.raises(AttachChoiceError, match="no session 4"):
        match_session(ROWS, "4")  # past the listing's end: not an index, and no id starts so
