"""Behaviour once claimed unobservable: each test kills mutants that ``tools/mutation/
equivalent.json`` once listed as equivalent, until an audit found a way, through the public API
or the protocol, to tell them from the original (docs/mutation.md, "Equivalent mutants").

Every expectation is the documented contract, not the implementation's output: refusals of bad
JSON values are :class:`JsonInputError` (SPEC.md 1.4, ``json_value``'s and ``digest``'s
docstrings), never a ``TypeError`` or ``RecursionError``; 127 containers are accepted and 128
refused; error texts stay within their documented bounds; whitespace around a request is JSON
whitespace only (PROTOCOL.md, Transport).
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import pytest

from session_toolset import (
    ActivatedTool,
    ExecutionGate,
    McpConfig,
    McpSource,
    RegisteredTool,
    ResolvedToolCall,
    SchemaDigest,
    SessionActivationGrant,
    SessionId,
    SessionToolSet,
    ToolCatalog,
    ToolId,
    ToolRegistry,
    parse_json,
)
from session_toolset.adapter import serve
from session_toolset.digest import canonical_encoding, canonical_number_text
from session_toolset.errors import (
    MESSAGE_MAX_BYTES,
    AuthorizationNotActivated,
    AuthorizationUnknownTool,
)
from session_toolset.json_value import JsonInputError, validate_json_value
from session_toolset.record import CapabilityRecord

pytestmark = pytest.mark.spec("1.4", "4")

LOOKUP = ToolId.mcp("srv-a", "lookup")


def _nested(levels: int, innermost: Any = 1) -> Any:
    """``innermost`` inside ``levels`` containers, alternating arrays and objects."""
    value = innermost
    for level in range(levels):
        value = [value] if level % 2 == 0 else {"k": value}
    return value


# --- refusals are JsonInputError, whatever entry point -----------------------------------------


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("bool as a number", True),
        ("NaN", float("nan")),
        ("infinity", float("-inf")),
        ("integer above u64", 2**64),
        ("integer below i64", -(2**63) - 1),
    ],
)
def test_canonical_number_text_refuses_non_numbers_with_json_input_error(
    label: str, value: Any
) -> None:
    with pytest.raises(JsonInputError) as caught:
        canonical_number_text(value)
    assert str(caught.value)  # a message, not a TypeError from building it


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("lone surrogate in a string", ["ok", "\ud800"]),
        ("lone surrogate in a key", {"\udfff": 1}),
        ("non-string key", {1: "x"}),
        ("integer above u64", [2**64]),
        ("tuple", (1, 2)),
        ("set", {1}),
        ("128 containers", _nested(128)),
        ("10000 containers", _nested(10_000)),
    ],
)
def test_digest_refuses_what_is_not_a_json_value_with_json_input_error(
    label: str, value: Any
) -> None:
    # SchemaDigest.of and canonical_encoding are public: a host may digest a schema it built
    # itself, never parsed; the refusal must be the typed one (no TypeError, no RecursionError).
    for digest in (SchemaDigest.of, canonical_encoding):
        with pytest.raises(JsonInputError) as caught:
            digest(value)
        assert str(caught.value) and str(caught.value) != "None"


@pytest.mark.parametrize("levels", [128, 129, 10_000])
def test_validate_json_value_refuses_deep_values_with_json_input_error(levels: int) -> None:
    with pytest.raises(JsonInputError, match="nesting deeper than 127 levels"):
        validate_json_value(_nested(levels))


def test_127_containers_are_accepted_by_every_entry_point() -> None:
    value = _nested(127)
    assert validate_json_value(value) == _nested(127)
    assert SchemaDigest.of(value) == SchemaDigest.of(_nested(127))
    assert canonical_encoding(value).count(b"\x04") >= 64  # 64 array frames, 63 object frames
    # and the digest of a deeper value differs from nothing: it is refused (above), not computed


def test_a_self_referential_list_is_refused_not_a_recursion_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(JsonInputError):
        validate_json_value(loop)
    with pytest.raises(JsonInputError):
        SchemaDigest.of(loop)


def test_parse_json_near_the_recursion_limit_raises_only_json_input_error() -> None:
    # A caller already deep in its stack: on CPython 3.11 json's C scanner then hits the
    # recursion limit on a valid text.  The documented promise is that no exception but
    # JsonInputError escapes; the refusal must at least stay typed.  (Where the C scanner's limit
    # does not follow sys.setrecursionlimit, 3.12 on, the text simply parses.)
    text = "[" * 127 + "]" * 127
    expected: Any = []
    for _ in range(126):
        expected = [expected]
    frames = 0
    frame = sys._getframe()
    while frame is not None:
        frames += 1
        frame = frame.f_back  # type: ignore[assignment]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(frames + 80)
    try:
        try:
            value = parse_json(text)
        except JsonInputError as err:
            assert "nesting" in str(err)
        else:
            assert value == expected
            assert sys.version_info >= (3, 12)  # on 3.11 the limit is reached: see above
    finally:
        sys.setrecursionlimit(old)
    assert parse_json(text) == expected  # with the stack to spare, the same text parses


# --- SPEC.md 1.4 / PROTOCOL.md: a NaN a repeated key discards still makes the text invalid ------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": NaN, "a": 1}',
        '{"a": Infinity, "a": 1}',
        '[{"b": {"a": -Infinity, "a": 0}}]',
    ],
)
def test_a_discarded_nan_still_refuses_the_text(text: str) -> None:
    with pytest.raises(JsonInputError):
        parse_json(text)


def test_a_request_line_with_a_discarded_nan_is_a_protocol_error() -> None:
    line = b'{"op":"digest","schema":{"a":NaN,"a":1}}\n'
    stdout = io.StringIO()
    assert serve(io.BytesIO(line), stdout, io.StringIO()) == 0
    reply = json.loads(stdout.getvalue())
    assert reply["ok"] is False and reply["error"] == "Protocol"


# --- PROTOCOL.md: whitespace around a request is JSON whitespace only ------------------------


@pytest.mark.parametrize("tail", [b"\x0b", b"\x0c", b" \x0b", b"\x0c\r"])
def test_vertical_tab_or_form_feed_after_the_object_is_a_protocol_error(tail: bytes) -> None:
    lines = [b'{"op":"hello"}' + tail + b"\n", b'{"op":"hello"} \t\r\n']
    stdout = io.StringIO()
    assert serve(io.BytesIO(b"".join(lines)), stdout, io.StringIO()) == 0
    first, second = (json.loads(text) for text in stdout.getvalue().splitlines())
    assert first["ok"] is False and first["error"] == "Protocol"
    assert second["ok"] is True and second["protocol"] == 1  # JSON whitespace is fine


# --- UTF-8 bounds count a lone surrogate as the three bytes surrogatepass gives it ------------


def test_wire_names_with_lone_surrogates_are_bounded_not_a_crash() -> None:
    # ResolvedToolCall and ToolRegistry take str from the host (not only from JSON): a lone
    # surrogate is a str like any other and must not crash the bound.
    exact = "a" * 125 + "\ud800"  # 125 + 3 = 128 bytes: within the bound, kept whole
    assert ResolvedToolCall.for_tool(LOOKUP, wire_name=exact).wire_name == exact
    assert ResolvedToolCall.for_tool(LOOKUP, wire_name="\udc00x").wire_name == "\udc00x"
    over = "b" * 126 + "\ud800"  # 129 bytes: cut before the surrogate
    assert ResolvedToolCall.for_tool(LOOKUP, wire_name=over).wire_name == "b" * 126
    registry = ToolRegistry([RegisteredTool("lookup", LOOKUP, builtin=False)])
    with pytest.raises(AuthorizationUnknownTool) as caught:
        ExecutionGate.resolve(registry, "nope\ud800")
    assert caught.value.wire_name == "nope\ud800"


def test_record_summary_and_tags_with_lone_surrogates_are_kept_within_bounds() -> None:
    record = CapabilityRecord.new(
        LOOKUP,
        McpSource("srv-a", "lookup"),
        McpConfig("srv-a"),
        {"type": "object"},
        summary="s\ud800",
        tags=["t\udfff"],
    )
    assert record.summary == "s\ud800"
    assert record.tags == ("t\udfff",)


def test_an_error_message_of_exactly_the_bound_is_kept_whole() -> None:
    # 511 bytes, the last three a lone surrogate: within MESSAGE_MAX_BYTES, so not cut.
    tool = "t" * (MESSAGE_MAX_BYTES - len("denied:  is neither core nor activated") - 3) + "\ud800"
    err = AuthorizationNotActivated(tool)
    assert len(err.message.encode("utf-8", "surrogatepass")) == MESSAGE_MAX_BYTES
    assert err.message == f"denied: {tool} is neither core nor activated"


# --- JsonInputError keeps its documented 199-character cap -----------------------------------


def test_json_input_error_messages_are_capped_at_199_characters() -> None:
    long_named = type("A" * 300, (), {})
    with pytest.raises(JsonInputError) as caught:
        validate_json_value(long_named())
    text = str(caught.value)
    assert len(text) <= 199
    assert text.startswith("not a JSON value type: AAAA")
    assert len(text) >= 190  # cut near the cap, not emptied


# --- the gate: an activation whose grant does not cover the call -----------------------------


def test_an_activation_whose_grant_is_for_another_session_is_denied_not_activated() -> None:
    # SessionToolSet's public constructor takes activations as given: a set can hold one whose
    # grant names another session (the builders never make one, the constructor does not stop
    # it), and the gate must deny it with the tool's payload.
    catalog = ToolCatalog()
    catalog.insert(
        CapabilityRecord.new(LOOKUP, McpSource("srv-a", "lookup"), McpConfig("srv-a"), {})
    )
    record = catalog.get(LOOKUP)
    assert record is not None
    other = SessionActivationGrant(
        SessionId("someone-else"), LOOKUP, catalog.generation, record.schema_digest
    )
    tool_set = SessionToolSet(
        SessionId("s-1"),
        catalog.generation,
        {},
        {LOOKUP: ActivatedTool(other, McpConfig("srv-a"))},
        1,
    )
    with pytest.raises(AuthorizationNotActivated) as caught:
        ExecutionGate.authorize(catalog, tool_set, ResolvedToolCall.for_tool(LOOKUP))
    assert caught.value.code == "ToolAuthorizationError.NotActivated"
    assert caught.value.payload() == {"tool": LOOKUP.text}
    assert caught.value.message == f"denied: {LOOKUP.text} is neither core nor activated"
