"""The source-trust rule (SPEC.md 2): first matching row wins."""

from __future__ import annotations

import itertools

import pytest

from session_toolset import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilitySource,
    ExtensionManifest,
    ExtensionSource,
    McpConfig,
    McpSource,
    PluginConfig,
    PluginSource,
    SourceTrust,
    TrustProvenance,
    UnknownSource,
    Unverified,
    source_trust,
)
from session_toolset.record import CapabilityRecord
from session_toolset.tool_id import ToolId

pytestmark = pytest.mark.spec("2")

SOURCES: list[CapabilitySource] = [
    BuiltinSource(),
    ExtensionSource("e1", "t"),
    ExtensionSource("e2", "t"),
    McpSource("m1", "t"),
    McpSource("m2", "t"),
    PluginSource("p1", "t"),
    PluginSource("p2", "t"),
    UnknownSource("rt"),
]
PROVENANCES: list[TrustProvenance] = [
    BuiltinRuntime(),
    ExtensionManifest("e1"),
    ExtensionManifest("e2"),
    McpConfig("m1"),
    McpConfig("m2"),
    PluginConfig("p1"),
    PluginConfig("p2"),
    Unverified(),
]


def spec_trust(source: CapabilitySource, provenance: TrustProvenance) -> SourceTrust:
    """The table of SPEC.md section 2, row by row."""
    if isinstance(provenance, Unverified):
        return SourceTrust.UNTRUSTED
    if isinstance(source, UnknownSource):
        return SourceTrust.UNTRUSTED
    pairs = (
        (isinstance(source, BuiltinSource) and isinstance(provenance, BuiltinRuntime)),
        (
            isinstance(source, ExtensionSource)
            and isinstance(provenance, ExtensionManifest)
            and source.extension_id == provenance.extension_id
        ),
        (
            isinstance(source, McpSource)
            and isinstance(provenance, McpConfig)
            and source.server_id == provenance.server_id
        ),
        (
            isinstance(source, PluginSource)
            and isinstance(provenance, PluginConfig)
            and source.plugin_id == provenance.plugin_id
        ),
    )
    return SourceTrust.TRUSTED if any(pairs) else SourceTrust.PROVENANCE_MISMATCH


@pytest.mark.parametrize(
    ("source", "provenance"),
    list(itertools.product(SOURCES, PROVENANCES)),
    ids=lambda v: type(v).__name__,
)
def test_trust_table(source: CapabilitySource, provenance: TrustProvenance) -> None:
    expected = spec_trust(source, provenance)
    assert source_trust(source, provenance) is expected
    rec = CapabilityRecord.new(ToolId.parse("x:y"), source, provenance, {})
    assert rec.trust is expected


def test_representative_rows() -> None:
    assert source_trust(BuiltinSource(), BuiltinRuntime()) is SourceTrust.TRUSTED
    assert source_trust(McpSource("a", "t"), McpConfig("a")) is SourceTrust.TRUSTED
    assert source_trust(McpSource("a", "t"), McpConfig("b")) is SourceTrust.PROVENANCE_MISMATCH
    assert source_trust(BuiltinSource(), McpConfig("a")) is SourceTrust.PROVENANCE_MISMATCH
    # Unverified beats Unknown (both untrusted) and beats a would-be match.
    assert source_trust(BuiltinSource(), Unverified()) is SourceTrust.UNTRUSTED
    assert source_trust(UnknownSource("x"), BuiltinRuntime()) is SourceTrust.UNTRUSTED
    assert source_trust(UnknownSource("x"), Unverified()) is SourceTrust.UNTRUSTED
    # tool names never matter, only owners
    assert source_trust(PluginSource("p", "a"), PluginConfig("p")) is SourceTrust.TRUSTED
    assert source_trust(ExtensionSource("E", "a"), ExtensionManifest("e")) is (
        SourceTrust.PROVENANCE_MISMATCH
    )
