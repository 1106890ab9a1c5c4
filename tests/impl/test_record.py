"""CapabilityRecord (SPEC.md 2): bounded summary/tags, digest at construction, no factory call."""

from __future__ import annotations

import dataclasses

import pytest

from impl.impl_support import CountingFactory, builtin, catalog_of, mcp
from session_toolset import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilityRecord,
    JsonValue,
    SchemaDigest,
    ToolId,
)

pytestmark = pytest.mark.spec("2")

BASH = ToolId.builtin("bash")


def _rec(summary: str = "", tags: tuple[str, ...] = ()) -> CapabilityRecord:
    return CapabilityRecord.new(
        BASH, BuiltinSource(), BuiltinRuntime(), {}, summary=summary, tags=tags
    )


def test_summary_within_bound_is_kept() -> None:
    text = "x" * 256
    assert _rec(summary=text).summary == text


def test_summary_cut_to_256_bytes() -> None:
    assert _rec(summary="x" * 1000).summary == "x" * 256


def test_summary_cut_on_character_boundary() -> None:
    # "a" + 200 * 'é' = 401 bytes; 256 bytes would split the 128th 'é' → keep 'a' + 127 'é'.
    summary = _rec(summary="a" + "é" * 200).summary
    assert summary == "a" + "é" * 127
    assert len(summary.encode("utf-8")) == 255
    assert _rec(summary="é" * 200).summary == "é" * 128
    four = _rec(summary="ab" + "𝄞" * 100).summary  # 2 + 4k ≤ 256 → k = 63
    assert four == "ab" + "𝄞" * 63


def test_first_eight_tags_kept_rest_dropped() -> None:
    tags = tuple(f"t{i}" for i in range(12))
    assert _rec(tags=tags).tags == tags[:8]


def test_each_tag_cut_to_32_bytes_on_character_boundary() -> None:
    rec = _rec(tags=("y" * 40, "€" * 20, "ok"))
    assert rec.tags == ("y" * 32, "€" * 10, "ok")  # '€' is 3 bytes: 10 * 3 = 30 ≤ 32 < 33


def test_digest_is_computed_at_construction_from_a_private_copy() -> None:
    schema: dict[str, JsonValue] = {"type": "object", "properties": {}}
    rec = CapabilityRecord.new(BASH, BuiltinSource(), BuiltinRuntime(), schema)
    digest_before = rec.schema_digest
    assert digest_before == SchemaDigest.of({"type": "object", "properties": {}})
    schema["type"] = "string"  # the caller mutates its own JSON afterwards
    assert rec.schema_digest == digest_before
    assert rec.schema == {"type": "object", "properties": {}}
    # the schema accessor does not hand out the record's own copy
    copy = rec.schema
    assert isinstance(copy, dict)
    copy["type"] = "array"
    assert rec.schema == {"type": "object", "properties": {}}


def test_record_is_immutable() -> None:
    rec = builtin("bash")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.summary = "x"  # type: ignore[misc]


def test_constructing_and_cataloging_never_call_the_factory() -> None:
    factory = CountingFactory()
    rec = builtin("bash", factory=factory)
    other = mcp("srv", "lookup", factory=factory)
    catalog = catalog_of(rec)
    catalog.upsert(None, other)
    catalog.upsert(other.id, mcp("srv", "lookup", {"v": 2}, factory=factory))
    list(catalog)
    catalog.remove(rec.id)
    assert factory.calls == 0


def test_runtime_name_defaults_to_the_id_text() -> None:
    assert builtin("bash").runtime_name == "builtin:bash"
    named = CapabilityRecord.new(BASH, BuiltinSource(), BuiltinRuntime(), {}, runtime_name="bash")
    assert named.runtime_name == "bash"
