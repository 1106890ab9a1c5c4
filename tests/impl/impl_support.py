"""Shared builders and the whole-state snapshot used by the unit tests under ``tests/impl``.

Everything here uses the public API only.  :func:`observe` captures every observable piece of
state (SPEC.md 6 "No partial mutation": every set, the catalog and every counter), and
:func:`rejects` runs an operation that must fail typed and checks that nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import pytest

from session_toolset import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilityRecord,
    CapabilitySource,
    CatalogGeneration,
    ExtensionManifest,
    ExtensionSource,
    JsonValue,
    McpConfig,
    McpSource,
    PluginConfig,
    PluginSource,
    SchemaDigest,
    SessionActivationGrant,
    SessionId,
    SessionToolSet,
    ToolCatalog,
    ToolId,
    TrustProvenance,
    UnknownSource,
    Unverified,
)
from session_toolset.errors import SessionToolsetError

E = TypeVar("E", bound=SessionToolsetError)

SCHEMA: JsonValue = {"type": "object"}
OTHER_SCHEMA: JsonValue = {"type": "object", "properties": {"x": {"type": "string"}}}


class CountingFactory:
    """A tool factory that counts how often the gate called it."""

    def __init__(self, label: str = "impl") -> None:
        self.label = label
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        return (self.label, self.calls)


def sid(text: str = "s1") -> SessionId:
    return SessionId.parse(text)


def tid(text: str) -> ToolId:
    return ToolId.parse(text)


def record(
    tool_id: ToolId | str,
    source: CapabilitySource,
    provenance: TrustProvenance,
    schema: JsonValue = SCHEMA,
    *,
    factory: CountingFactory | None = None,
    runtime_name: str | None = None,
) -> CapabilityRecord:
    the_id = tid(tool_id) if isinstance(tool_id, str) else tool_id
    if factory is None:
        return CapabilityRecord.new(the_id, source, provenance, schema, runtime_name=runtime_name)
    return CapabilityRecord.new(
        the_id, source, provenance, schema, runtime_name=runtime_name, factory=factory
    )


def builtin(
    name: str, schema: JsonValue = SCHEMA, *, factory: CountingFactory | None = None
) -> CapabilityRecord:
    """A trusted builtin record ``builtin:<name>``."""
    return record(ToolId.builtin(name), BuiltinSource(), BuiltinRuntime(), schema, factory=factory)


def mcp(
    server: str,
    tool: str,
    schema: JsonValue = SCHEMA,
    *,
    provenance: TrustProvenance | None = None,
    factory: CountingFactory | None = None,
) -> CapabilityRecord:
    """An MCP record, trusted unless another provenance is given."""
    prov = McpConfig(server) if provenance is None else provenance
    return record(ToolId.mcp(server, tool), McpSource(server, tool), prov, schema, factory=factory)


def extension(
    ext: str, tool: str, schema: JsonValue = SCHEMA, *, provenance: TrustProvenance | None = None
) -> CapabilityRecord:
    prov = ExtensionManifest(ext) if provenance is None else provenance
    return record(ToolId.extension(ext, tool), ExtensionSource(ext, tool), prov, schema)


def plugin(
    plug: str, tool: str, schema: JsonValue = SCHEMA, *, provenance: TrustProvenance | None = None
) -> CapabilityRecord:
    prov = PluginConfig(plug) if provenance is None else provenance
    return record(ToolId.plugin(plug, tool), PluginSource(plug, tool), prov, schema)


def unknown(runtime_name: str, provenance: TrustProvenance | None = None) -> CapabilityRecord:
    prov = Unverified() if provenance is None else provenance
    return record(ToolId.unclassified(runtime_name), UnknownSource(runtime_name), prov)


def catalog_of(*records: CapabilityRecord) -> ToolCatalog:
    catalog = ToolCatalog()
    for rec in records:
        catalog.insert(rec)
    return catalog


def grant_for(catalog: ToolCatalog, session: SessionId, tool_id: ToolId) -> SessionActivationGrant:
    """A grant that is exact for the current catalog (built by hand, not by the host)."""
    rec = catalog.get(tool_id)
    assert rec is not None
    return SessionActivationGrant(session, tool_id, catalog.generation, rec.schema_digest)


def forged(
    session: str, tool_id: ToolId, generation: int, digest_hex: str
) -> SessionActivationGrant:
    return SessionActivationGrant.create(
        session, tool_id, CatalogGeneration(generation), SchemaDigest(digest_hex)
    )


# --- whole-state observation -----------------------------------------------------------------

SetState = tuple[object, ...]
State = tuple[object, ...]


def set_state(tool_set: SessionToolSet) -> SetState:
    core = tuple(
        (tool_id.text, pin.schema_digest.hex, pin.provenance) for tool_id, pin in tool_set.core()
    )
    activated = tuple(
        (
            tool_id.text,
            item.grant.session_id.text,
            item.grant.tool_id.text,
            item.grant.catalog_generation.value,
            item.grant.schema_digest.hex,
            item.provenance,
            item.lease,
        )
        for tool_id, item in tool_set.activated()
    )
    return (
        tool_set.session.text,
        tool_set.catalog_generation.value,
        tool_set.schema_generation,
        core,
        activated,
    )


def catalog_state(catalog: ToolCatalog) -> State:
    records = tuple(
        (
            rec.id.text,
            rec.schema_digest.hex,
            rec.source,
            rec.provenance,
            rec.summary,
            rec.tags,
            rec.runtime_name,
        )
        for rec in catalog
    )
    return (catalog.generation.value, len(catalog), records)


def observe(
    catalogs: Iterable[ToolCatalog] = (),
    sets: Iterable[SessionToolSet] = (),
    factories: Iterable[CountingFactory] = (),
) -> State:
    """Everything observable: catalogs, sets and factory counters."""
    return (
        tuple(catalog_state(c) for c in catalogs),
        tuple(set_state(s) for s in sets),
        tuple(f.calls for f in factories),
    )


def rejects(
    expected: type[E],
    operation: Callable[[], object],
    *,
    catalogs: Iterable[ToolCatalog] = (),
    sets: Iterable[SessionToolSet] = (),
    factories: Iterable[CountingFactory] = (),
) -> E:
    """Run ``operation``, expect exactly ``expected`` (the concrete variant), and assert that
    every given catalog, set and factory counter is exactly as before."""
    catalog_list, set_list, factory_list = list(catalogs), list(sets), list(factories)
    before = observe(catalog_list, set_list, factory_list)
    with pytest.raises(SessionToolsetError) as info:
        operation()
    after = observe(catalog_list, set_list, factory_list)
    assert type(info.value) is expected, f"raised {info.value.code}, wanted {expected.__name__}"
    assert after == before, "a rejected operation changed observable state"
    message = info.value.message
    assert len(message.encode("utf-8")) < 512
    return info.value
