"""One handler per PROTOCOL.md op: read and validate every field, then call the implementation.

Handlers hold no behaviour of their own beyond translating between the protocol's JSON and the
implementation's types; every decision is the implementation's.  A handler returns the success
fields of its reply; typed rejections propagate as :class:`SessionToolsetError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .. import __version__
from ..digest import SchemaDigest
from ..gate import ExecutionGate
from ..grant import SessionActivationGrant, grant_session_id
from ..host import (
    ActivationAuthority,
    activate_exact_for_user,
    activate_model_initiated,
    carry_forward_enabled,
    issue_exact_grant,
    rebuild_session_set,
    route_session_set,
)
from ..json_value import JsonValue
from ..record import CapabilityRecord
from ..registry import ResolvedToolCall, ToolRegistry
from ..session_id import SessionId
from ..source import derived_tool_id
from ..toolset import SessionToolSet
from .codec import (
    encode_basis,
    encode_grant,
    encode_record,
    encode_snapshot,
)
from .fields import ProtocolError, Request
from .world import World

__all__ = ["HANDLERS", "PROTOCOL_VERSION"]

PROTOCOL_VERSION: Final = 1

Reply = dict[str, JsonValue]
Handler = Callable[[World, Request], Reply]


def _hello(world: World, req: Request) -> Reply:
    return {"protocol": PROTOCOL_VERSION, "implementation": f"session-toolset {__version__}"}


def _reset(world: World, req: Request) -> Reply:
    world.reset()
    return {}


# --- identities -------------------------------------------------------------------------------


def _tool_id_parse(world: World, req: Request) -> Reply:
    return {"id": req.tool_id("raw").text}


def _tool_id(world: World, req: Request) -> Reply:
    source, builtin_name = req.source("source")
    return {"id": derived_tool_id(source, builtin_name).text}


def _session_id_parse(world: World, req: Request) -> Reply:
    req.session_id("raw")
    return {}


def _digest(world: World, req: Request) -> Reply:
    return {"digest": SchemaDigest.of(req.json("schema")).hex}


def _carry_forward_enabled(world: World, req: Request) -> Reply:
    value = req.nullable_string("env")
    environ = {} if value is None else {"SYNAPS_TOOLSET_CARRY_FORWARD": value}
    return {"enabled": carry_forward_enabled(environ)}


# --- catalog ----------------------------------------------------------------------------------


def _record_from(world: World, req: Request) -> CapabilityRecord:
    # PROTOCOL.md row order: source, provenance, schema, id, runtime_name, summary, tags.
    source, builtin_name = req.source("source")
    provenance = req.provenance("provenance")
    schema = req.json("schema")
    explicit_id = req.optional_tool_id("id")
    tool_id = derived_tool_id(source, builtin_name) if explicit_id is None else explicit_id
    runtime_name = req.optional_string("runtime_name")
    summary = req.optional_string("summary")
    tags = req.optional_strings("tags")
    return CapabilityRecord.new(
        tool_id,
        source,
        provenance,
        schema,
        summary="" if summary is None else summary,
        tags=tags,
        runtime_name=runtime_name,
        factory=world.factory_for(tool_id),
    )


def _catalog_insert(world: World, req: Request) -> Reply:
    record = _record_from(world, req)
    generation = world.catalog.insert(record)
    return {"id": record.id.text, "generation": generation.value}


def _catalog_upsert(world: World, req: Request) -> Reply:
    replaced = req.nullable_tool_id("replaced")
    record = _record_from(world, req)
    generation = world.catalog.upsert(replaced, record)
    return {"id": record.id.text, "generation": generation.value}


def _catalog_remove(world: World, req: Request) -> Reply:
    removed = world.catalog.remove(req.tool_id("id"))
    return {"removed": removed, "generation": world.catalog.generation.value}


def _catalog_rebase_past(world: World, req: Request) -> Reply:
    return {"generation": world.catalog.rebase_past(req.generation("prior")).value}


def _catalog_set_generation(world: World, req: Request) -> Reply:
    world.catalog.force_generation(req.generation("value"))
    return {"generation": world.catalog.generation.value}


def _catalog_state(world: World, req: Request) -> Reply:
    records: list[JsonValue] = [encode_record(r) for r in world.catalog]
    return {"generation": world.catalog.generation.value, "records": records}


def _factory_calls(world: World, req: Request) -> Reply:
    return {"calls": world.factory_calls[req.tool_id("tool").text]}


# --- grants -----------------------------------------------------------------------------------


def _issue_grant(world: World, req: Request) -> Reply:
    name = req.string("name")
    session = req.session_id("session")
    tool_id = req.tool_id("tool")
    grant = issue_exact_grant(world.catalog, session, tool_id)
    world.grants[name] = grant
    return {"grant": encode_grant(grant)}


def _forge_grant(world: World, req: Request) -> Reply:
    name = req.string("name")
    # grant construction's session rules, applied here so that they precede the tool field
    session = grant_session_id(req.string("session"))
    tool_id = req.tool_id("tool")
    generation = req.generation("generation")
    digest = SchemaDigest(req.string("digest"))
    grant = SessionActivationGrant(session, tool_id, generation, digest)
    world.grants[name] = grant
    return {"grant": encode_grant(grant)}


# --- sets -------------------------------------------------------------------------------------


def _set_new(world: World, req: Request) -> Reply:
    name = req.string("name")
    session = req.session_id("session")
    core = req.tool_ids("core")
    world.install(name, SessionToolSet.new(session, core, world.catalog))
    return {}


def _set_default_core(world: World, req: Request) -> Reply:
    name = req.string("name")
    session = req.session_id("session")
    world.install(name, SessionToolSet.default_core_for_catalog(session, world.catalog))
    return {}


def _set_progressive_core(world: World, req: Request) -> Reply:
    name = req.string("name")
    session = req.session_id("session")
    world.install(name, SessionToolSet.progressive_core_for_catalog(session, world.catalog))
    return {}


def _activate(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    grant = world.grant(req.string("grant"))
    retained.with_set(lambda tool_set: tool_set.activate(grant, world.catalog))
    return {}


def _activate_many(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    grants = [world.grant(name) for name in req.strings("grants")]
    return {"applied": retained.activate_many(grants, world.catalog)}


def _activate_user(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    tool_id = req.tool_id("tool")
    retained.with_set(lambda tool_set: activate_exact_for_user(tool_set, world.catalog, tool_id))
    return {}


_AUTHORITIES: Final = {a.value: a for a in ActivationAuthority}


def _activate_model(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    authority = _AUTHORITIES.get(req.string("authority"))
    if authority is None:
        raise ProtocolError('authority must be "model_confirmed" or "unauthorized"')
    tool_ids = req.tool_ids("tools")
    applied = retained.with_set(
        lambda tool_set: activate_model_initiated(authority, tool_set, world.catalog, tool_ids)
    )
    return {"applied": applied}


def _revoke(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    retained.revoke_exact(req.tool_id("tool"))
    return {}


def _rebuild(world: World, req: Request) -> Reply:
    set_name = req.string("set")
    retained = world.tool_set(set_name)
    into = req.string("into")
    progressive = req.boolean("progressive")
    carry_forward = req.boolean("carry_forward", default=True)
    if carry_forward and into == set_name:
        # In place, as a runtime does between rounds: the retained set rebuilds under its lock.
        dropped = retained.rebuild(world.catalog, progressive=progressive)
    else:
        rebuilt, dropped = rebuild_session_set(
            retained.snapshot(), world.catalog, progressive=progressive, carry_forward=carry_forward
        )
        world.install(into, rebuilt)
    return {"dropped": [{"tool": d.tool_id.text, "reason": d.reason.value} for d in dropped]}


def _route(world: World, req: Request) -> Reply:
    set_name = req.nullable_string("set")
    retained = None if set_name is None else world.tool_set(set_name)
    into = req.string("into")
    fallback = req.session_id("fallback_session")

    def fallback_session() -> SessionId:
        return fallback

    routed = route_session_set(retained, world.catalog, fallback_session)
    world.install(into, routed)
    return {"stale": routed.is_stale(world.catalog)}


def _is_stale(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    return {"stale": retained.with_set(lambda tool_set: tool_set.is_stale(world.catalog))}


def _snapshot(world: World, req: Request) -> Reply:
    return encode_snapshot(world.tool_set(req.string("set")).snapshot())


# --- gate -------------------------------------------------------------------------------------


def _resolve(world: World, req: Request) -> Reply:
    resolved = ToolRegistry.from_catalog(world.catalog).resolve(req.string("wire_name"))
    return {
        "wire_name": resolved.wire_name,
        "runtime_name": resolved.runtime_name,
        "tool": resolved.tool_id.text,
    }


def _authorize(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    tool_id = req.tool_id("tool")
    wire_name = req.optional_string("wire_name")
    record = world.catalog.get(tool_id)
    runtime_name = None if record is None else record.runtime_name
    resolved = ResolvedToolCall.for_tool(tool_id, wire_name=wire_name, runtime_name=runtime_name)
    call = retained.authorize(world.catalog, resolved)
    return {"tool": call.resolved.tool_id.text, "basis": encode_basis(call.basis)}


def _authorize_wire(world: World, req: Request) -> Reply:
    retained = world.tool_set(req.string("set"))
    wire_name = req.string("wire_name")
    registry = ToolRegistry.from_catalog(world.catalog)
    call = retained.with_set(
        lambda tool_set: ExecutionGate.authorize_wire_call(
            world.catalog, tool_set, registry, wire_name
        )
    )
    return {"tool": call.resolved.tool_id.text, "basis": encode_basis(call.basis)}


HANDLERS: Final[dict[str, Handler]] = {
    "hello": _hello,
    "reset": _reset,
    "tool_id_parse": _tool_id_parse,
    "tool_id": _tool_id,
    "session_id_parse": _session_id_parse,
    "digest": _digest,
    "carry_forward_enabled": _carry_forward_enabled,
    "catalog_insert": _catalog_insert,
    "catalog_upsert": _catalog_upsert,
    "catalog_remove": _catalog_remove,
    "catalog_rebase_past": _catalog_rebase_past,
    "catalog_set_generation": _catalog_set_generation,
    "catalog_state": _catalog_state,
    "factory_calls": _factory_calls,
    "issue_grant": _issue_grant,
    "forge_grant": _forge_grant,
    "set_new": _set_new,
    "set_default_core": _set_default_core,
    "set_progressive_core": _set_progressive_core,
    "activate": _activate,
    "activate_many": _activate_many,
    "activate_user": _activate_user,
    "activate_model": _activate_model,
    "revoke": _revoke,
    "rebuild": _rebuild,
    "route": _route,
    "is_stale": _is_stale,
    "snapshot": _snapshot,
    "resolve": _resolve,
    "authorize": _authorize,
    "authorize_wire": _authorize_wire,
}
