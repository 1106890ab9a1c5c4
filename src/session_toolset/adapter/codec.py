"""Implementation values → PROTOCOL.md JSON (replies only; requests go through fields.py)."""

from __future__ import annotations

from ..errors import SessionToolsetError
from ..gate import ActivationBasis, CoreBasis
from ..grant import SessionActivationGrant
from ..json_value import JsonValue
from ..record import CapabilityRecord
from ..source import (
    BuiltinRuntime,
    BuiltinSource,
    CapabilitySource,
    ExtensionManifest,
    ExtensionSource,
    McpConfig,
    McpSource,
    PluginConfig,
    PluginSource,
    TrustProvenance,
    UnknownSource,
    Unverified,
)
from ..toolset import SessionToolSet

__all__ = [
    "encode_basis",
    "encode_error",
    "encode_grant",
    "encode_provenance",
    "encode_record",
    "encode_snapshot",
    "encode_source",
]

Reply = dict[str, JsonValue]


def encode_source(source: CapabilitySource) -> Reply:
    match source:
        case BuiltinSource():
            return {"kind": "builtin"}
        case ExtensionSource(extension_id=owner, tool_name=tool):
            return {"kind": "extension", "extension_id": owner, "tool_name": tool}
        case McpSource(server_id=owner, server_tool_name=tool):
            return {"kind": "mcp", "server_id": owner, "server_tool_name": tool}
        case PluginSource(plugin_id=owner, tool_name=tool):
            return {"kind": "plugin", "plugin_id": owner, "tool_name": tool}
        case UnknownSource(runtime_name=name):
            return {"kind": "unknown", "runtime_name": name}


def encode_provenance(provenance: TrustProvenance) -> Reply:
    match provenance:
        case BuiltinRuntime():
            return {"kind": "builtin_runtime"}
        case ExtensionManifest(extension_id=owner):
            return {"kind": "extension_manifest", "extension_id": owner}
        case McpConfig(server_id=owner):
            return {"kind": "mcp_config", "server_id": owner}
        case PluginConfig(plugin_id=owner):
            return {"kind": "plugin_config", "plugin_id": owner}
        case Unverified():
            return {"kind": "unverified"}


def encode_grant(grant: SessionActivationGrant) -> Reply:
    return {
        "session": grant.session_id.text,
        "tool": grant.tool_id.text,
        "generation": grant.catalog_generation.value,
        "digest": grant.schema_digest.hex,
    }


def encode_record(record: CapabilityRecord) -> Reply:
    return {
        "id": record.id.text,
        "digest": record.schema_digest.hex,
        "source": encode_source(record.source),
        "provenance": encode_provenance(record.provenance),
    }


def encode_snapshot(tool_set: SessionToolSet) -> Reply:
    core: list[JsonValue] = [
        {
            "tool": tool_id.text,
            "digest": pin.schema_digest.hex,
            "provenance": encode_provenance(pin.provenance),
        }
        for tool_id, pin in tool_set.core()
    ]
    activated: list[JsonValue] = [
        {
            "tool": tool_id.text,
            "generation": item.grant.catalog_generation.value,
            "digest": item.grant.schema_digest.hex,
            "provenance": encode_provenance(item.provenance),
            "lease": item.lease.value,
        }
        for tool_id, item in tool_set.activated()
    ]
    return {
        "session": tool_set.session.text,
        "catalog_generation": tool_set.catalog_generation.value,
        "schema_generation": tool_set.schema_generation,
        "core": core,
        "activated": activated,
    }


def encode_basis(basis: ActivationBasis) -> Reply:
    if isinstance(basis, CoreBasis):
        return {"kind": "core"}
    return {"kind": "exact", "catalog_generation": basis.catalog_generation.value}


def encode_error(err: SessionToolsetError) -> Reply:
    reply: Reply = {"ok": False, "error": err.code, "message": err.message}
    reply.update(err.payload())
    return reply
