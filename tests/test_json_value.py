"""Tests for the strict JSON layer (SPEC.md 1.4 parsing rules)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared_data import load_shared_json, try_load_shared_json

from session_toolset.json_value import (
    MAX_DEPTH,
    JsonInputError,
    JsonValue,
    parse_json,
    validate_json_value,
)

pytestmark = pytest.mark.spec("1.4")

_DIGEST_VECTORS = "vectors/digest.json"


def _rejected_params() -> list[Any]:
    data = try_load_shared_json(_DIGEST_VECTORS)
    if data is None:
        return [pytest.param(None, id="digest-vectors-missing")]
    return [
        pytest.param(row, id=f"{index:02d}-{row['label'][:50]}")
        for index, row in enumerate(data["rejected"])
    ]


def _nested_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def _is_negative_zero(value: object) -> bool:
    return isinstance(value, float) and value == 0.0 and math.copysign(1.0, value) < 0


# --- vectors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", _rejected_params())
def test_every_rejected_vector_is_refused(row: dict[str, Any] | None) -> None:
    if row is None:
        load_shared_json(_DIGEST_VECTORS)  # fails with a clear message
        return
    with pytest.raises(JsonInputError):
        parse_json(row["schema_json"])
    with pytest.raises(JsonInputError):
        parse_json(row["schema_json"].encode("utf-8", "surrogatepass"))


def test_rejected_vectors_are_present() -> None:
    data = load_shared_json(_DIGEST_VECTORS)
    assert len(data["rejected"]) == 14


# --- numbers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("1", 1),
        ("-1", -1),
        ("18446744073709551615", 2**64 - 1),
        ("-9223372036854775808", -(2**63)),
        ("9223372036854775808", 2**63),
    ],
)
def test_integer_literals_in_range_stay_int(text: str, expected: int) -> None:
    value = parse_json(text)
    assert type(value) is int
    assert value == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("18446744073709551616", 18446744073709551616.0),
        ("-9223372036854775809", -9223372036854775809.0),
        ("100000000000000000000", 1e20),
        ("1" + "0" * 300, 1e300),
    ],
)
def test_integer_literals_out_of_range_become_floats(text: str, expected: float) -> None:
    value = parse_json(text)
    assert type(value) is float
    assert value == expected


def test_minus_zero_integer_literal_is_negative_zero_float() -> None:
    assert _is_negative_zero(parse_json("-0"))
    assert _is_negative_zero(parse_json("-0.0"))
    assert _is_negative_zero(parse_json("-1e-400"))
    zero = parse_json("0")
    assert type(zero) is int


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.0", 1.0),
        ("1e2", 100.0),
        ("0.1", 0.1),
        ("5e-324", 5e-324),
        ("1.7976931348623157e308", sys.float_info.max),
        # Correct rounding, unlike the original (the declared difference in SPEC.md 1.4).
        ("9007199254740993.0", 9007199254740992.0),
        ("123456789012345680000.0", 1.2345678901234568e20),
    ],
)
def test_fractions_and_exponents_are_correctly_rounded_floats(text: str, expected: float) -> None:
    value = parse_json(text)
    assert type(value) is float
    assert value == expected


@pytest.mark.parametrize(
    "text",
    [
        "1e400",
        "-1e400",
        "1" + "0" * 400,
        "1.7976931348623158e308",  # rounds to the largest double, but its exact value is beyond
        "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589"
        "558632766878171540458953514382464234321326889464182768467546703537516986049910576551282"
        "076245490090389328944075868508455133942304583236903222948165808559332123348274797826204"
        "144723168738177180919299881250404026184124858368.5",  # largest double + 0.5
        "1e99999999999999999999",
        "-Infinity",
        "Infinity",
        "NaN",
    ],
)
def test_numbers_beyond_the_finite_range_are_refused(text: str) -> None:
    with pytest.raises(JsonInputError):
        parse_json(text)


def test_largest_double_written_out_exactly_is_accepted() -> None:
    text = str(int(sys.float_info.max))
    assert parse_json(text) == sys.float_info.max
    assert parse_json(text + ".0") == sys.float_info.max


def test_very_long_integer_literal_does_not_hit_int_digit_limit() -> None:
    # Python limits int()/str() conversions to 4300 digits; the parser must not rely on int().
    value = parse_json("1" * 300 + ".5e-300")
    assert type(value) is float
    with pytest.raises(JsonInputError):
        parse_json("9" * 5000)


# --- strings and encodings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '"\\ud800"',
        '"\\udc00"',
        '"\\udbff\\udbff"',
        '"\\ude00\\ud83d"',  # a pair in the wrong order is two lone surrogates
        '{"\\ud800": 1}',
        '["ok", {"k": ["\\udfff"]}]',
        '"\ud800"',  # a raw lone surrogate in str input
    ],
)
def test_lone_surrogates_are_refused(text: str) -> None:
    with pytest.raises(JsonInputError):
        parse_json(text)


def test_surrogate_pair_escape_decodes_to_astral_character() -> None:
    assert parse_json('"\\ud83d\\ude00"') == "\U0001f600"


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "\\ud800", "a": 1}',  # the discarded value holds the lone surrogate
        '{"a": ["x", {"k": "\\udc00"}], "a": 1}',
        '{"o": {"k": "\\ud800b", "k": 2}}',
        '{"o": {"\\udfff": 1}, "o": 2}',  # a lone surrogate key inside the discarded value
        # The text scan must pair a high escape with the low escape right after it, not with
        # a later one, and must not forget it at the next escape of another kind.
        '{"a": "\\ud800x\\udc00", "a": 1}',
        '{"a": "\\ud800\\u0041", "a": 1}',
        '{"a": "\\ud800\\n", "a": 1}',
        '{"a": "\\ud800\\\\udc00", "a": 1}',  # high, escaped backslash, text "udc00"
    ],
)
def test_lone_surrogate_in_a_discarded_value_is_refused(text: str) -> None:
    # SPEC.md 1.4 / PROTOCOL.md: invalid text anywhere makes the whole text invalid, even in a
    # value that a repeated key throws away before the value walk could see it.
    with pytest.raises(JsonInputError):
        parse_json(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "\\\\ud800", "a": 1}', {"a": 1}),  # an escaped backslash, then text "ud800"
        ('["\\\\\\ud83d\\ude00"]', ["\\\U0001f600"]),  # backslash, then a proper pair
        ('{"a": "\\ud83d\\ude00", "a": "\\u00e9"}', {"a": "\u00e9"}),
    ],
)
def test_escapes_that_only_look_like_lone_surrogates_are_accepted(
    text: str, expected: JsonValue
) -> None:
    assert parse_json(text) == expected


@pytest.mark.parametrize(
    "data",
    [
        b'"\xff"',
        b'"\xc3"',
        b'"\xc0\xaf"',  # overlong encoding of "/"
        b'"\xed\xa0\x80"',  # a UTF-8-encoded surrogate (CESU-8)
        b'"\xf4\x90\x80\x80"',  # beyond U+10FFFF
        b"\xef\xbb\xbf{}",  # a byte order mark is not JSON whitespace
        '{"a":1}'.encode("utf-16"),
    ],
)
def test_invalid_utf8_is_refused(data: bytes) -> None:
    with pytest.raises(JsonInputError):
        parse_json(data)


def test_bytes_input_is_utf8() -> None:
    assert parse_json('{"é":"日本"}'.encode()) == {"é": "日本"}


@pytest.mark.parametrize("char", ["\t", "\n", "\r", "\x00", "\x1f"])
def test_raw_control_characters_in_strings_are_refused(char: str) -> None:
    with pytest.raises(JsonInputError):
        parse_json(f'"a{char}b"')


def test_del_and_c1_are_allowed_raw() -> None:
    assert parse_json('"\x7f\x85"') == "\x7f\x85"


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "01",
        "+1",
        "1.",
        ".5",
        "1e",
        "-",
        "[1,]",
        '{"a":1,}',
        "{a:1}",
        "'a'",
        "[1 2]",
        "\u00a01",  # NO-BREAK SPACE is not JSON whitespace
        "\ufeff1",
        "1 2",
        "tru",
        '"\\x41"',
        '"\\u12"',
        "\u0661",  # ARABIC-INDIC DIGIT ONE
        "[\u0661]",
        "1\u0661",
        "/* comment */ 1",
    ],
)
def test_malformed_text_is_refused(text: str) -> None:
    with pytest.raises(JsonInputError):
        parse_json(text)


def test_json_whitespace_is_accepted() -> None:
    assert parse_json(' \t\r\n{ "a" :\n[ 1 , 2 ] }\r\n') == {"a": [1, 2]}


def test_duplicate_keys_keep_the_last_value() -> None:
    assert parse_json('{"a":1,"a":2}') == {"a": 2}
    assert parse_json('{"o":{"k":1,"k":true},"o":{"k":null,"k":"v"}}') == {"o": {"k": "v"}}


# --- nesting ------------------------------------------------------------------------------------


def test_nesting_127_is_accepted_and_128_refused() -> None:
    assert MAX_DEPTH == 127
    value = parse_json(_nested_arrays(127))
    for _ in range(126):
        assert isinstance(value, list)
        value = value[0]
    assert value == []
    with pytest.raises(JsonInputError):
        parse_json(_nested_arrays(128))


def test_nesting_counts_objects_and_arrays_alike() -> None:
    text = '{"a":[' * 63 + "{}" + "]}" * 63  # 127 containers
    expected: object = {}
    for _ in range(63):
        expected = {"a": [expected]}
    assert parse_json(text) == expected
    with pytest.raises(JsonInputError):
        parse_json('{"a":[' * 64 + "]}" * 64)  # 128 containers


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    inner = '"' + "[{" * 200 + '\\"[' + '\\\\"'
    expected: object = "[{" * 200 + '"[' + "\\"  # the string's value, escapes undone
    for _ in range(127):
        expected = [expected]
    assert parse_json("[" * 127 + inner + "]" * 127) == expected
    assert parse_json(json.dumps("[" * 1000)) == "[" * 1000


@pytest.mark.parametrize("depth", [129, 1_000, 100_000])
def test_deep_nesting_is_refused_without_recursion_error(depth: int) -> None:
    with pytest.raises(JsonInputError):
        parse_json(_nested_arrays(depth))
    with pytest.raises(JsonInputError):
        parse_json('{"a":' * depth + "1" + "}" * depth)
    with pytest.raises(JsonInputError):
        parse_json("[" * depth)  # unterminated too


# --- error messages -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1" * 500 + "e400",
        '"' + "\\ud800" + "x" * 500 + '"',
        "[" + "x" * 500,
        "\x00" * 500,
        '"' + "\U0010ffff" * 500 + "\\udc00" + '"',
        "[" * 500,
    ],
)
def test_error_messages_are_short_and_do_not_echo_the_input(text: str) -> None:
    with pytest.raises(JsonInputError) as caught:
        parse_json(text)
    message = str(caught.value)
    assert 0 < len(message) < 200
    for start in range(len(text) - 41):
        assert text[start : start + 41] not in message


def test_json_input_error_is_a_value_error() -> None:
    assert issubclass(JsonInputError, ValueError)
    assert len(str(JsonInputError("x" * 1000))) < 200


def test_non_text_argument_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_json(123)  # type: ignore[arg-type]


# --- validate_json_value ------------------------------------------------------------------------


def test_validate_accepts_every_json_type() -> None:
    value: JsonValue = {
        "n": None,
        "t": True,
        "f": False,
        "i": -(2**63),
        "u": 2**64 - 1,
        "x": -0.0,
        "s": "\U0001f600",
        "a": [[], {}],
    }
    assert validate_json_value(value) is value


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        float("inf"),
        -float("inf"),
        2**64,
        -(2**63) - 1,
        (1, 2),
        {1: "a"},
        {("a",): 1},
        {"a": {1.5: 2}},
        "\ud800",
        {"\udc00": 1},
        [["\ud83d"]],
        b"bytes",
        object(),
        {1, 2},
        1j,
    ],
)
def test_validate_refuses_non_json_values(value: object) -> None:
    with pytest.raises(JsonInputError):
        validate_json_value(value)


def test_validate_refuses_subclasses() -> None:
    class Key(str):
        pass

    class Items(list[int]):
        pass

    with pytest.raises(JsonInputError):
        validate_json_value(Key("a"))
    with pytest.raises(JsonInputError):
        validate_json_value({Key("a"): 1})
    with pytest.raises(JsonInputError):
        validate_json_value(Items([1]))


def test_validate_treats_bool_as_bool() -> None:
    assert validate_json_value(True) is True
    assert validate_json_value([False]) == [False]


def test_validate_depth_limit() -> None:
    value: JsonValue = []
    for _ in range(126):
        value = [value]
    validate_json_value(value)  # 127 containers
    with pytest.raises(JsonInputError):
        validate_json_value([value])
    with pytest.raises(JsonInputError):
        validate_json_value({"a": value})


def test_validate_refuses_self_reference() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(JsonInputError):
        validate_json_value(loop)


# --- properties ---------------------------------------------------------------------------------

_keys = st.text(st.characters(codec="utf-8"), max_size=8)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"), max_size=16)
)
json_values: st.SearchStrategy[JsonValue] = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=20,
)


def _same(left: JsonValue, right: JsonValue) -> bool:
    """Structural equality that also tells ``1`` from ``1.0`` and ``0.0`` from ``-0.0``."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float) and isinstance(right, float):
        return left == right and math.copysign(1.0, left) == math.copysign(1.0, right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    return left == right


@given(json_values)
def test_parse_round_trips_python_json_dumps(value: JsonValue) -> None:
    # json.dumps writes ints in decimal and floats via repr (always with "." or "e"), so the
    # parsed value must be the same, type for type.
    assert _same(parse_json(json.dumps(value)), value)
    assert _same(parse_json(json.dumps(value, ensure_ascii=False).encode("utf-8")), value)
    assert validate_json_value(value) is value


@given(st.integers(min_value=-(2**63), max_value=2**64 - 1))
def test_integer_literals_in_range_round_trip_exactly(number: int) -> None:
    value = parse_json(str(number))
    assert type(value) is int
    assert value == number


@given(
    st.integers(min_value=2**64, max_value=10**300)
    | st.integers(min_value=-(10**300), max_value=-(2**63) - 1)
)
def test_integer_literals_out_of_range_are_correctly_rounded(number: int) -> None:
    value = parse_json(str(number))
    assert type(value) is float
    assert value == float(number)
