"""SPEC.md values and library entry points the vector corpus and the stateful machine reach only
through the adapter (or not at all): the digest reference table, the JSON parser's edges, grant
coverage, bounded texts, the shared set and the environment switch.  Written to kill the mutants
of ``src/session_toolset`` that both suites let survive (docs/mutation.md); every expectation is
taken from SPEC.md / PROTOCOL.md, not from the implementation's output.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import session_toolset_harness
from session_toolset import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilityRecord,
    CatalogGeneration,
    ExecutionGate,
    JsonValue,
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
    carry_forward_enabled,
    parse_json,
    rebuild_session_set,
)
from session_toolset.errors import ActivationUnknownTool, BulkGrant, HostBulk, SessionToolsetError
from session_toolset.json_value import JsonInputError, validate_json_value
from session_toolset.shared import SharedSessionToolSet

pytestmark = pytest.mark.spec("1.4", "1.5", "3", "5")

REFERENCE = Path(session_toolset_harness.__file__).resolve().parent / "reference" / "digest.json"
ROWS: list[dict[str, Any]] = json.loads(REFERENCE.read_text(encoding="utf-8"))["rows"]


# --- SPEC.md 1.4: the digest reference table ------------------------------------------------


@pytest.mark.parametrize("row", ROWS, ids=[str(r["label"]) for r in ROWS])
def test_digest_matches_the_reference_table(row: dict[str, Any]) -> None:
    assert SchemaDigest.of(parse_json(row["schema_json"])).hex == row["digest"]


def test_digest_tells_false_from_true_and_minus_zero_from_zero() -> None:
    values: list[JsonValue] = [False, True, 0, 0.0, -0.0, None, "", [], {}]
    digests = {SchemaDigest.of(v).hex for v in values}
    assert len(digests) == 9


def test_digest_accepts_127_levels() -> None:
    value: JsonValue = 1
    for _ in range(127):
        value = [value]
    assert len(SchemaDigest.of(value).hex) == 64
    assert SchemaDigest.of(value) == SchemaDigest.of(parse_json("[" * 127 + "1" + "]" * 127))


# --- SPEC.md 1.4: parsing -------------------------------------------------------------------


def test_parse_json_takes_text_or_utf8_bytes_only() -> None:
    assert parse_json('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    assert parse_json('{"a": "\u00e9"}'.encode()) == {"a": "\u00e9"}
    with pytest.raises(TypeError):
        parse_json(12)  # type: ignore[arg-type]
    with pytest.raises(JsonInputError):
        parse_json(b'"\xff"')


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "[NaN]", "1e400", "-1e400"])
def test_non_finite_numbers_are_not_json(text: str) -> None:
    with pytest.raises(JsonInputError):
        parse_json(text)


def test_minus_zero_is_the_double_minus_zero() -> None:
    value = parse_json("-0")
    assert isinstance(value, float) and value == 0.0 and math.copysign(1.0, value) < 0
    assert parse_json("0") == 0 and isinstance(parse_json("0"), int)


def test_integer_range_and_doubles() -> None:
    assert parse_json(str(2**64 - 1)) == 2**64 - 1
    assert parse_json(str(2**64)) == float(2**64) and isinstance(parse_json(str(2**64)), float)
    assert parse_json(str(-(2**63))) == -(2**63)
    below = parse_json(str(-(2**63) - 1))
    assert below == float(-(2**63) - 1) and isinstance(below, float)
    assert parse_json("1.7976931348623157e308") == 1.7976931348623157e308


def test_repeated_key_keeps_the_last_value() -> None:
    assert parse_json('{"a": 1, "a": 2}') == {"a": 2}


def _nested(innermost: Any, levels: int) -> Any:
    """``innermost`` wrapped in ``levels`` one-element arrays."""
    value = innermost
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_up_to_127_levels_is_accepted_whatever_strings_contain() -> None:
    assert parse_json("[" * 127 + "]" * 127) == _nested([], 126)
    # brackets, quotes and backslashes inside strings are not nesting
    tricky = '"' + "[{" * 150 + '\\"' + "[" * 50 + "\\\\" + '"'
    text = "[{" * 150 + '"' + "[" * 50 + "\\"  # the string's value, escapes undone
    assert parse_json("[" * 126 + tricky + "]" * 126) == _nested(text, 126)
    assert parse_json('{"k": "\\\\"}') == {"k": "\\"}
    assert parse_json('["]", "}", "\\"]"]') == ["]", "}", '"]']


def test_invalid_json_is_refused_with_a_bounded_message() -> None:
    for text in ["{", "[1,]", '{"a" 1}', "1 2", "[" * 300 + "]" * 300, "x" * 10_000]:
        with pytest.raises(JsonInputError) as caught:
            parse_json(text)
        assert isinstance(caught.value.args[0], str) and len(str(caught.value)) < 512


def test_a_lone_surrogate_is_not_valid_input() -> None:
    with pytest.raises(JsonInputError):
        parse_json('"\\ud800"')
    with pytest.raises(JsonInputError):
        parse_json('{"\\udc00": 1}')


def test_validate_json_value_accepts_json_and_refuses_the_rest() -> None:
    deep: object = None
    for _ in range(126):  # inside the object below: 127 levels in all
        deep = [deep]
    good = {"a": [None, True, 1, 2.5, "s", {"b": []}], "deep": deep}
    assert validate_json_value(good) == good
    for bad in [
        (1, 2),
        {1: 2},
        {"k": {3}},
        "\ud800",
        {"\udc00": 1},
        float("nan"),
        float("inf"),
        2**64,
        -(2**63) - 1,
        b"bytes",
    ]:
        with pytest.raises(JsonInputError):
            validate_json_value(bad)


# --- SPEC.md 1.3 / 1.5 ----------------------------------------------------------------------


def test_generation_bounds_and_text() -> None:
    assert str(CatalogGeneration(12)) == "12"
    assert CatalogGeneration(2**64 - 1).value == 2**64 - 1
    for bad in (-1, 2**64):
        with pytest.raises(ValueError):
            CatalogGeneration(bad)
    with pytest.raises(TypeError):
        CatalogGeneration(True)


S1, S2 = SessionId.parse("s1"), SessionId.parse("s2")
T1, T2 = ToolId.parse("builtin:read"), ToolId.parse("builtin:write")
G1, G2 = CatalogGeneration(1), CatalogGeneration(2)
D1, D2 = SchemaDigest("a" * 64), SchemaDigest("b" * 64)


def test_covers_only_the_exact_four_tuple() -> None:
    grant = SessionActivationGrant(S1, T1, G1, D1)
    assert grant.covers(S1, T1, G1, D1)
    for other in [(S2, T1, G1, D1), (S1, T2, G1, D1), (S1, T1, G2, D1), (S1, T1, G1, D2)]:
        assert not grant.covers(*other)
    assert not grant.covers(S2, T2, G2, D2)


def test_covers_call_is_session_tool_digest_and_ignores_the_generation() -> None:
    grant = SessionActivationGrant(S1, T1, G1, D1)
    assert grant.covers_call(S1, T1, D1)
    for other in [(S2, T1, D1), (S1, T2, D1), (S1, T1, D2), (S2, T2, D1), (S1, T2, D2)]:
        assert not grant.covers_call(*other)


# --- bounded texts --------------------------------------------------------------------------


def test_error_messages_stay_under_512_bytes_on_a_character_boundary() -> None:
    exact = "m" * 511
    assert SessionToolsetError(exact).message == exact
    long = SessionToolsetError("\u00e9" * 400)
    assert long.message == "\u00e9" * 255  # 510 bytes: the 256th character would cut at 512
    assert str(long) == long.message
    odd = SessionToolsetError("\ud800" + "x" * 600)  # never crash on what a caller passes
    assert len(odd.message.encode("utf-8", "surrogatepass")) <= 511


def test_wrapped_errors_keep_their_cause() -> None:
    inner = ActivationUnknownTool("builtin:read")
    outer = HostBulk(BulkGrant(inner))
    assert outer.__cause__.__cause__ is inner  # type: ignore[union-attr]
    assert outer.code == "HostActivationError.Bulk.Grant.UnknownTool"
    assert outer.payload() == {"tool": "builtin:read"}
    assert isinstance(outer.message, str) and len(outer.message.encode()) < 512


def _builtin(name: str, schema: JsonValue | None = None, **kw: Any) -> CapabilityRecord:
    return CapabilityRecord.new(
        ToolId.builtin(name), BuiltinSource(), BuiltinRuntime(), schema or {}, **kw
    )


def test_record_summary_tags_schema_and_runtime_name() -> None:
    plain = _builtin("read")
    assert plain.summary == "" and plain.tags == () and plain.runtime_name == "builtin:read"
    record = _builtin(
        "read",
        summary="\u00e9" * 200,
        tags=[f"t{i}" for i in range(10)] + ["x"],
        runtime_name="read",
    )
    assert record.summary == "\u00e9" * 128  # 256 bytes
    assert record.tags == tuple(f"t{i}" for i in range(8))
    assert record.runtime_name == "read"
    assert _builtin("read", summary="s" * 256).summary == "s" * 256
    assert _builtin("read", tags=["\u00e9" * 20]).tags == ("\u00e9" * 16,)


def test_a_record_owns_its_schema() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "string"}}}
    record = _builtin("read", schema)
    schema["properties"]["x"]["type"] = "number"
    assert record.schema == {"type": "object", "properties": {"x": {"type": "string"}}}
    assert record.schema_digest == SchemaDigest.of(record.schema)


# --- SPEC.md 2: the catalog -----------------------------------------------------------------


def test_catalog_membership_and_order() -> None:
    catalog = ToolCatalog()
    assert catalog.ids() == () and len(catalog) == 0
    assert T1 not in catalog
    catalog.insert(_builtin("write"))
    catalog.insert(_builtin("read"))
    assert T1 in catalog and T2 in catalog and ToolId.parse("builtin:grep") not in catalog
    assert catalog.ids() == (T1, T2) and len(catalog) == 2
    assert [r.id for r in catalog] == [T1, T2]


# --- SPEC.md 4: resolution ------------------------------------------------------------------


def test_resolved_call_defaults_to_the_id_text() -> None:
    call = ResolvedToolCall.for_tool(T1)
    assert (call.wire_name, call.runtime_name, call.tool_id) == ("builtin:read", "builtin:read", T1)
    named = ResolvedToolCall.for_tool(T1, wire_name="w", runtime_name="read")
    assert (named.wire_name, named.runtime_name) == ("w", "read")


def test_alias_of_names_the_tool_own_alias() -> None:
    mcp_id = ToolId.mcp("srv", "read")
    registry = ToolRegistry(
        [
            RegisteredTool("mcp.read", mcp_id, builtin=False),
            RegisteredTool("read", T1, builtin=True),
            RegisteredTool("odd\ud800name", T2, builtin=True),
        ]
    )
    assert registry.alias_of(T1) == "read"
    assert registry.alias_of(mcp_id) == "mcp_read"
    assert registry.alias_of(ToolId.parse("builtin:none")) is None
    assert ExecutionGate.resolve(registry, "read").tool_id == T1
    assert registry.resolve("mcp_read").tool_id == mcp_id


# --- SPEC.md 3 / 5: the environment switch and the shared set ------------------------------


def test_carry_forward_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYNAPS_TOOLSET_CARRY_FORWARD", raising=False)
    assert carry_forward_enabled() is True
    monkeypatch.setenv("SYNAPS_TOOLSET_CARRY_FORWARD", "0")
    assert carry_forward_enabled() is False
    monkeypatch.setenv("SYNAPS_TOOLSET_CARRY_FORWARD", "false")
    assert carry_forward_enabled() is True
    assert carry_forward_enabled({}) is True
    assert carry_forward_enabled({"SYNAPS_TOOLSET_CARRY_FORWARD": "0"}) is False


def _mcp_world() -> tuple[ToolCatalog, SessionToolSet, SessionActivationGrant]:
    catalog = ToolCatalog()
    catalog.insert(_builtin("read"))
    record = CapabilityRecord.new(
        ToolId.mcp("srv", "t"), McpSource("srv", "t"), McpConfig("srv"), {}
    )
    catalog.insert(record)
    tool_set = SessionToolSet.new(S1, [T1], catalog)
    grant = SessionActivationGrant(S1, record.id, catalog.generation, record.schema_digest)
    return catalog, tool_set, grant


def test_rebuild_follows_the_environment_when_not_told(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog, tool_set, grant = _mcp_world()
    tool_set.activate_many([grant], catalog)
    catalog.insert(_builtin("write"))
    monkeypatch.delenv("SYNAPS_TOOLSET_CARRY_FORWARD", raising=False)
    # progressive: the core is builtin read/write only, so the MCP activation is carried
    carried, dropped = rebuild_session_set(tool_set, catalog, progressive=True)
    assert [t for t, _ in carried.activated()] == [grant.tool_id] and dropped == ()
    monkeypatch.setenv("SYNAPS_TOOLSET_CARRY_FORWARD", "0")
    fresh, dropped = rebuild_session_set(tool_set, catalog, progressive=True)
    assert fresh.activated() == () and fresh.schema_generation == 0 and dropped == ()


def test_shared_set_does_each_operation_on_the_retained_set() -> None:
    catalog, tool_set, grant = _mcp_world()
    shared = SharedSessionToolSet(tool_set)
    assert shared.activate_many([grant], catalog) == 1
    assert tool_set.activated() == ()  # the shared set holds its own copy
    assert [t for t, _ in shared.snapshot().activated()] == [grant.tool_id]
    assert shared.with_set(lambda s: s.schema_generation) == 1
    call = shared.authorize(catalog, ResolvedToolCall.for_tool(grant.tool_id))
    assert call.resolved.tool_id == grant.tool_id
    shared.revoke_exact(grant.tool_id)
    assert shared.snapshot().activated() == ()
    shared.activate_many([grant], catalog)
    catalog.remove(grant.tool_id)
    dropped = shared.rebuild(catalog, progressive=False)
    assert [(d.tool_id, d.reason.name) for d in dropped] == [(grant.tool_id, "REMOVED")]
    assert shared.snapshot().catalog_generation == catalog.generation
    replacement = SessionToolSet.new(S2, [], catalog)
    shared.replace(replacement)
    assert shared.snapshot().session == S2
    snap = shared.snapshot()
    assert snap is not shared.snapshot()


# --- what the tests above still let through ------------------------------------------------


def test_long_flat_documents_are_not_deep() -> None:
    # 127 levels is about nesting, never about length or the number of siblings
    flat = "[" + ",".join(["1"] * 600) + "]"
    assert parse_json(flat) == [1] * 600
    siblings = "[" + ",".join(["[]", "{}"] * 300) + "]"
    assert len(parse_json(siblings)) == 600  # type: ignore[arg-type]
    words = '{"k": "' + "a" * 1000 + '", "l": [' + ",".join(['"x"'] * 300) + "]}"
    assert parse_json(words) == {"k": "a" * 1000, "l": ["x"] * 300}


FLOAT_MAX_EXACT = str(int(1.7976931348623157e308))  # the exact decimal value of the largest double


def test_the_finite_double_range_is_exact() -> None:
    assert parse_json(FLOAT_MAX_EXACT) == 1.7976931348623157e308  # at the edge: accepted
    assert parse_json("-" + FLOAT_MAX_EXACT) == -1.7976931348623157e308
    for beyond in ["1.7976931348623158e308", FLOAT_MAX_EXACT + "1", "-1.8e308"]:
        with pytest.raises(JsonInputError):
            parse_json(beyond)  # beyond the finite double range, even if it rounds to the max


def test_validate_json_value_looks_inside_arrays_and_objects() -> None:
    for bad in [[(1, 2)], [float("nan")], [{1: 2}], ["\ud800"], {"a": [2**64]}, [[{"k": {1}}]]]:
        with pytest.raises(JsonInputError):
            validate_json_value(bad)


def test_source_aware_constructors_never_fail() -> None:
    # SPEC.md 1.1: they encode whatever they are given, lone surrogates included
    for made in [
        ToolId.builtin("\ud800"),
        ToolId.mcp("srv\udfff", "t"),
        ToolId.plugin("p", "\ud800x"),
        ToolId.extension("e", "\udc00"),
        ToolId.unclassified("\ud800" * 100),
    ]:
        assert ToolId.parse(made.text) == made


def test_shared_rebuild_honours_progressive() -> None:
    catalog, _, _ = _mcp_world()
    catalog.insert(_builtin("write"))
    shared = SharedSessionToolSet(SessionToolSet.new(S1, [], catalog))
    shared.rebuild(catalog, progressive=True)
    assert [t.text for t, _ in shared.snapshot().core()] == ["builtin:read", "builtin:write"]
    shared.rebuild(catalog, progressive=False)  # default core: every verified record
    assert len(shared.snapshot().core()) == 3
