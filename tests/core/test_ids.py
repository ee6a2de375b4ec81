from hypothesis import given
from hypothesis import strategies as st

from simherdr.facts import ids


def test_bijective_base32_table():
    assert [ids.encode(n) for n in (1, 9, 10, 31, 32, 33, 64)] == [
        "1",
        "9",
        "A",
        "Z",
        "0",
        "11",
        "10",
    ]
    assert ids.pane_id("w7", 10) == "w7:pA"
    assert ids.workspace_id(10) == "wA"


@given(st.integers(min_value=1, max_value=10**9))
def test_encode_decode_roundtrip(n):
    text = ids.encode(n)
    assert not set(text) & set("ILOU")
    assert ids.decode(text) == n


def test_decode_is_case_sensitive():
    assert ids.decode("a") is None
    assert ids.decode("A") == 10


def test_terminal_id_shape():
    assert ids.terminal_id(0x6400F1A2B3C4, 1) == "term_6400f1a2b3c41"


def test_workspace_ref_forms():
    assert ids.parse_workspace_ref("w3") == ("id", "w3")
    assert ids.parse_workspace_ref("w_2") == ("pos", 2)
    assert ids.parse_workspace_ref("2") == ("pos", 2)
    assert ids.parse_workspace_ref("x") is None
