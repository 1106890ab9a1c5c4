"""The subset rule, JSON type strictness and strict JSON parsing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_toolset_harness.conform.jsonio import JsonTextError, parse_strict
from session_toolset_harness.conform.matcher import first_difference, same_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (1, 1.0),
        (1.0, 1),
        (True, 1),
        (1, True),
        (False, 0),
        (0, False),
        (None, False),
        ("1", 1),
        ([], {}),
        ({}, []),
        (2**64 - 1, float(2**64 - 1)),
    ],
)
def test_scalars_of_different_json_type_never_match(expected: object, actual: object) -> None:
    mismatch = first_difference(expected, actual)
    assert mismatch is not None
    assert mismatch.path == "$"


@pytest.mark.parametrize("value", [1, 1.0, True, False, None, "x", 2**64 - 1, -0.0, [1, [2]]])
def test_equal_values_of_the_same_type_match(value: object) -> None:
    assert first_difference(value, value) is None


def test_objects_match_by_subset_but_lists_do_not() -> None:
    assert first_difference({"ok": True}, {"ok": True, "message": "anything"}) is None
    assert first_difference([{"a": 1}], [{"a": 1}, {"a": 2}]) is not None
    assert first_difference([{"a": 1}], [{"a": 1, "b": 2}]) is None


def test_first_difference_names_the_json_path() -> None:
    expected = {"records": [{"id": "a"}, {"id": "b", "digest": "00"}]}
    actual = {"records": [{"id": "a"}, {"id": "b", "digest": "ff"}], "generation": 3}
    mismatch = first_difference(expected, actual)
    assert mismatch is not None
    assert mismatch.path == "$.records[1].digest"
    assert '"00"' in mismatch.message and '"ff"' in mismatch.message


def test_missing_keys_list_lengths_and_odd_keys_are_reported() -> None:
    missing = first_difference({"tool": "a:b"}, {"ok": False})
    assert missing is not None and missing.path == "$.tool" and "missing" in missing.message
    length = first_difference({"x": [1, 2]}, {"x": [1, 2, 3]})
    assert length is not None and length.path == "$.x" and "2 elements, got 3" in length.message
    odd = first_difference({"a b": 1}, {"a b": 2})
    assert odd is not None and odd.path == '$["a b"]'


def test_list_order_matters() -> None:
    mismatch = first_difference(["a", "b"], ["b", "a"])
    assert mismatch is not None and mismatch.path == "$[0]"


@given(json_values)
def test_every_json_value_matches_itself(value: object) -> None:
    assert first_difference(value, value) is None


@given(st.dictionaries(st.text(), json_values, max_size=4), st.text(), json_values)
def test_extra_reply_keys_never_break_a_match(
    expected: dict[str, object], key: str, extra: object
) -> None:
    actual = {key: extra, **expected}
    assert first_difference(expected, actual) is None


def test_parse_strict_keeps_json_types_exact() -> None:
    parsed = parse_strict('{"a": 1.0, "b": 18446744073709551615, "c": 1}')
    assert parsed == {"a": 1.0, "b": 2**64 - 1, "c": 1}
    assert isinstance(parsed, dict)
    assert type(parsed["a"]) is float and type(parsed["c"]) is int


@pytest.mark.parametrize("text", ["NaN", '{"x": Infinity}', "[-Infinity]", "{bad", ""])
def test_parse_strict_refuses_what_is_not_json(text: str) -> None:
    with pytest.raises(JsonTextError):
        parse_strict(text)


@pytest.mark.parametrize(
    ("left", "right", "same"),
    [
        (0, False, False),
        (1, 1.0, False),
        ({"calls": 0}, {"calls": False}, False),
        ([1, [2]], [1, [2.0]], False),
        ({"a": 1}, {"a": 1, "b": None}, False),  # exact, not the subset rule
        ({"a": [True, None, "x", -0.0]}, {"a": [True, None, "x", -0.0]}, True),
        # past the fast text comparison: the walk decides
        ({"a": 1, "b": [2]}, {"b": [2], "a": 1}, True),  # key order is not a difference
        ([-0.0], [0.0], True),  # equal doubles, other texts
        ([{"k": True}], [{"k": 1}], False),
        ([float("nan")], [float("nan")], False),  # no JSON text
        ([2**64, "é"], [2**64, "é"], True),
    ],
)
def test_same_json_compares_json_types_at_every_depth(
    left: object, right: object, same: bool
) -> None:
    assert same_json(left, right) is same
    assert same_json(right, left) is same
