"""ToolId (SPEC.md 1.1): strict parsing with its check order, and the source-aware constructors."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_toolset import ToolId
from session_toolset.errors import (
    ToolIdEmpty,
    ToolIdError,
    ToolIdInvalidName,
    ToolIdInvalidNamespace,
    ToolIdMissingNamespace,
    ToolIdOversized,
)

pytestmark = pytest.mark.spec("1.1")

# --- an independent model of SPEC.md's encoding rule -----------------------------------------

_CANON = re.compile(r"[a-z0-9][a-z0-9_.-]*")


def spec_encode(raw: str, budget: int) -> str:
    """SPEC.md 1.1 rules 1-3, written from the text."""
    data = raw.encode("utf-8")
    if (
        _CANON.fullmatch(raw)
        and len(data) <= budget
        and not raw.startswith("enc-")
        and not raw.startswith("sha-")
    ):
        return raw
    hexed = "enc-" + data.hex()
    if len(hexed) <= budget:
        return hexed
    return "sha-" + hashlib.sha256(data).hexdigest()[:40]


# --- parse: each variant, code and payload ---------------------------------------------------


def _parse_error(raw: str) -> ToolIdError:
    with pytest.raises(ToolIdError) as info:
        ToolId.parse(raw)
    return info.value


def test_empty() -> None:
    err = _parse_error("")
    assert type(err) is ToolIdEmpty
    assert err.code == "ToolIdError.Empty"
    assert err.payload() == {}


def test_oversized_reports_byte_length() -> None:
    raw = "a:" + "b" * 199  # 201 bytes
    err = _parse_error(raw)
    assert type(err) is ToolIdOversized
    assert err.code == "ToolIdError.Oversized"
    assert (err.actual, err.limit) == (201, 200)
    assert err.payload() == {"actual": 201, "limit": 200}


def test_oversized_counts_utf8_bytes_not_characters() -> None:
    err = _parse_error("é" * 101)  # 101 characters, 202 bytes
    assert type(err) is ToolIdOversized
    assert err.payload() == {"actual": 202, "limit": 200}


def test_exactly_200_bytes_is_not_oversized() -> None:
    ns = "a" * 64
    name = "b" * (200 - 65)  # 64 + ':' + 135 = 200; name over 128 → InvalidName, not Oversized
    assert type(_parse_error(f"{ns}:{name}")) is ToolIdInvalidName
    ok = "a" * 64 + ":" + "b" * 128  # 193 bytes
    assert ToolId.parse(ok).text == ok


@pytest.mark.parametrize(
    ("raw", "expected", "code"),
    [
        # two checks would fail: the earlier one wins
        ("é" * 100, ToolIdMissingNamespace, "ToolIdError.MissingNamespace"),  # 200 bytes, no ':'
        ("X" * 201, ToolIdOversized, "ToolIdError.Oversized"),  # oversized beats missing ':'
        ("NoColonHere", ToolIdMissingNamespace, "ToolIdError.MissingNamespace"),
        ("Bad:Name", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        (":", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        (":x", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        ("_a:b", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        ("-a:b", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        (".a:b", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        ("a" * 65 + ":b", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        ("é:b", ToolIdInvalidNamespace, "ToolIdError.InvalidNamespace"),
        ("a:", ToolIdInvalidName, "ToolIdError.InvalidName"),
        ("a:b:c", ToolIdInvalidName, "ToolIdError.InvalidName"),
        ("a::", ToolIdInvalidName, "ToolIdError.InvalidName"),
        ("a:_b", ToolIdInvalidName, "ToolIdError.InvalidName"),
        ("a:B", ToolIdInvalidName, "ToolIdError.InvalidName"),
        ("a:" + "b" * 129, ToolIdInvalidName, "ToolIdError.InvalidName"),
        ("a:b/c", ToolIdInvalidName, "ToolIdError.InvalidName"),
    ],
)
def test_parse_order(raw: str, expected: type[ToolIdError], code: str) -> None:
    err = _parse_error(raw)
    assert type(err) is expected
    assert err.code == code


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" a:b", ToolIdInvalidNamespace),
        ("a:b ", ToolIdInvalidName),
        ("A:b", ToolIdInvalidNamespace),
        ("a:B", ToolIdInvalidName),
        ("a:b\n", ToolIdInvalidName),
        ("\ta:b", ToolIdInvalidNamespace),
    ],
)
def test_parse_never_lowercases_or_trims(raw: str, expected: type[ToolIdError]) -> None:
    assert type(_parse_error(raw)) is expected


@pytest.mark.parametrize(
    "raw",
    ["builtin:bash", "a:b", "0:9", "ext.acme.ext:enc-4465", "a_b.c-d:e_f.g-h", "a-:b_", "x:y.."],
)
def test_parse_keeps_text_verbatim(raw: str) -> None:
    parsed = ToolId.parse(raw)
    assert parsed.text == raw
    assert str(parsed) == raw
    assert parsed.namespace + ":" + parsed.name == raw


def test_segment_limits_are_inclusive() -> None:
    assert ToolId.parse("a" * 64 + ":b").namespace == "a" * 64
    assert ToolId.parse("a:" + "b" * 128).name == "b" * 128


def test_ids_order_bytewise() -> None:
    texts = ["b:a", "a:b", "a.b:c", "a-b:c", "a_b:c", "a:b0", "a0:b", "a9:z", "ab:a"]
    ids = sorted(ToolId.parse(t) for t in texts)
    assert [i.text for i in ids] == sorted(texts, key=lambda t: t.encode("utf-8"))


def test_ids_are_immutable_values() -> None:
    one = ToolId.parse("a:b")
    assert one == ToolId.parse("a:b")
    assert hash(one) == hash(ToolId.parse("a:b"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.text = "c:d"  # type: ignore[misc]


# --- source-aware constructors ---------------------------------------------------------------


def test_constructor_table_literal_examples() -> None:
    # Hand-computed from SPEC.md: "Deploy" is not canonical (uppercase) → enc- of its bytes.
    assert ToolId.builtin("bash").text == "builtin:bash"
    assert ToolId.builtin("Bash").text == "builtin:enc-42617368"
    assert ToolId.unclassified("Dyn Tool").text == "unknown:enc-44796e20546f6f6c"
    assert ToolId.extension("acme.ext", "Deploy").text == "ext.acme.ext:enc-4465706c6f79"
    assert ToolId.mcp("srv-a", "lookup").text == "mcp.srv-a:lookup"
    assert ToolId.plugin("p1", "fmt").text == "plugin.p1:fmt"


def test_empty_raw_encodes_to_bare_enc() -> None:
    assert ToolId.builtin("").text == "builtin:enc-"
    assert ToolId.mcp("", "").text == "mcp.enc-:enc-"


@pytest.mark.parametrize("raw", ["enc-41", "sha-deadbeef", "enc-", "sha-"])
def test_raw_that_looks_encoded_is_encoded(raw: str) -> None:
    expected = "enc-" + raw.encode().hex()
    assert ToolId.builtin(raw).text == "builtin:" + expected
    assert ToolId.mcp(raw, raw).text == f"mcp.{expected}:{expected}"


def _sha(raw: str) -> str:
    return "sha-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]


@pytest.mark.parametrize(
    ("make", "prefix", "budget"),
    [
        (lambda owner: ToolId.extension(owner, "t"), "ext.", 60),
        (lambda owner: ToolId.mcp(owner, "t"), "mcp.", 60),
        (lambda owner: ToolId.plugin(owner, "t"), "plugin.", 57),
    ],
    ids=["extension", "mcp", "plugin"],
)
def test_owner_segment_budgets(make: Callable[[str], ToolId], prefix: str, budget: int) -> None:
    at_budget = "a" * budget
    assert make(at_budget).namespace == prefix + at_budget
    assert len(make(at_budget).namespace.encode()) <= 64
    over = "a" * (budget + 1)  # canonical but too long; enc- would be longer still
    assert make(over).namespace == prefix + _sha(over)
    # the longest raw whose enc- form fits: 4 + 2n <= budget
    n_fit = (budget - 4) // 2
    fits = "A" * n_fit
    assert make(fits).namespace == prefix + "enc-" + fits.encode().hex()
    too_long = "A" * (n_fit + 1)
    assert make(too_long).namespace == prefix + _sha(too_long)


@pytest.mark.parametrize(
    "make",
    [
        lambda name: ToolId.builtin(name),
        lambda name: ToolId.unclassified(name),
        lambda name: ToolId.extension("e", name),
        lambda name: ToolId.mcp("m", name),
        lambda name: ToolId.plugin("p", name),
    ],
    ids=["builtin", "unclassified", "extension", "mcp", "plugin"],
)
def test_name_segment_budget_is_128(make: Callable[[str], ToolId]) -> None:
    assert make("a" * 128).name == "a" * 128
    assert make("a" * 129).name == _sha("a" * 129)
    assert make("A" * 62).name == "enc-" + "41" * 62  # exactly 128 bytes
    assert make("A" * 63).name == _sha("A" * 63)
    assert make("é" * 31).name == "enc-" + "c3a9" * 31  # 4 + 124 = 128
    assert make("é" * 32).name == _sha("é" * 32)


def test_sha_form_uses_first_40_hex_of_sha256() -> None:
    raw = "Ω" * 100
    expected = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:40]
    assert ToolId.builtin(raw).text == "builtin:sha-" + expected


_raw_text = st.text(
    alphabet=st.one_of(
        st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_.-:ABZ é"),
        st.characters(blacklist_categories=["Cs"]),
    ),
    max_size=150,
)

_CONSTRUCTORS: dict[str, Callable[[str, str], ToolId]] = {
    "builtin": lambda _owner, name: ToolId.builtin(name),
    "unclassified": lambda _owner, name: ToolId.unclassified(name),
    "extension": ToolId.extension,
    "mcp": ToolId.mcp,
    "plugin": ToolId.plugin,
}


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(_CONSTRUCTORS)), owner=_raw_text, name=_raw_text)
def test_every_constructor_output_parses_and_matches_the_model(
    kind: str, owner: str, name: str
) -> None:
    made = _CONSTRUCTORS[kind](owner, name)
    assert ToolId.parse(made.text) == made
    expected = {
        "builtin": "builtin:" + spec_encode(name, 128),
        "unclassified": "unknown:" + spec_encode(name, 128),
        "extension": "ext." + spec_encode(owner, 60) + ":" + spec_encode(name, 128),
        "mcp": "mcp." + spec_encode(owner, 60) + ":" + spec_encode(name, 128),
        "plugin": "plugin." + spec_encode(owner, 57) + ":" + spec_encode(name, 128),
    }[kind]
    assert made.text == expected


@settings(max_examples=300, deadline=None)
@given(a=_raw_text, b=_raw_text)
def test_constructors_are_injective(a: str, b: str) -> None:
    if a == b:
        return
    assert ToolId.builtin(a) != ToolId.builtin(b)
    assert ToolId.mcp(a, "t") != ToolId.mcp(b, "t")
    assert ToolId.plugin("p", a) != ToolId.plugin("p", b)


@settings(max_examples=200, deadline=None)
@given(raw=st.text(alphabet="ABCDEF-:/ ", min_size=0, max_size=28))
def test_short_non_canonical_raw_is_enc_and_decodes_back(raw: str) -> None:
    made = ToolId.mcp(raw, raw)
    owner = made.namespace.removeprefix("mcp.")
    # at most 28 ASCII bytes: 4 + 56 hex characters fit the 60-byte owner budget
    assert owner.startswith("enc-")
    assert bytes.fromhex(owner[4:]).decode("utf-8") == raw
    assert made.name.startswith("enc-")
    assert bytes.fromhex(made.name[4:]).decode("utf-8") == raw
