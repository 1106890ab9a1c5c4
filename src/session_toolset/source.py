"""Where a tool comes from, who vouches for it, and whether those agree (SPEC.md §2).

A :data:`CapabilitySource` says which subsystem provides a tool; a :data:`TrustProvenance`
says which configuration admitted it.  :func:`source_trust` is the single rule that decides
whether the two agree: a tool is trusted only when the provenance vouches for the very owner
the source names.  Keeping the rule in one function lets the catalog, grant issuance, batch
activation and the execution gate all apply the same judgement.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .tool_id import ToolId

__all__ = [
    "BuiltinRuntime",
    "BuiltinSource",
    "CapabilitySource",
    "ExtensionManifest",
    "ExtensionSource",
    "McpConfig",
    "McpSource",
    "PluginConfig",
    "PluginSource",
    "SourceTrust",
    "TrustProvenance",
    "UnknownSource",
    "Unverified",
    "derived_tool_id",
    "source_trust",
]


@dataclass(frozen=True, slots=True)
class BuiltinSource:
    """Built into the runtime.  Stores no name: the id is derived from the name elsewhere."""


@dataclass(frozen=True, slots=True)
class ExtensionSource:
    extension_id: str
    tool_name: str


@dataclass(frozen=True, slots=True)
class McpSource:
    server_id: str
    server_tool_name: str


@dataclass(frozen=True, slots=True)
class PluginSource:
    plugin_id: str
    tool_name: str


@dataclass(frozen=True, slots=True)
class UnknownSource:
    runtime_name: str


CapabilitySource = BuiltinSource | ExtensionSource | McpSource | PluginSource | UnknownSource


@dataclass(frozen=True, slots=True)
class BuiltinRuntime:
    """Vouched for by the runtime itself."""


@dataclass(frozen=True, slots=True)
class ExtensionManifest:
    extension_id: str


@dataclass(frozen=True, slots=True)
class McpConfig:
    server_id: str


@dataclass(frozen=True, slots=True)
class PluginConfig:
    plugin_id: str


@dataclass(frozen=True, slots=True)
class Unverified:
    """Nobody vouches for this tool."""


TrustProvenance = BuiltinRuntime | ExtensionManifest | McpConfig | PluginConfig | Unverified


class SourceTrust(enum.Enum):
    """The verdict of :func:`source_trust`."""

    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"
    PROVENANCE_MISMATCH = "provenance_mismatch"


def source_trust(source: CapabilitySource, provenance: TrustProvenance) -> SourceTrust:
    """SPEC.md §2 source trust; the first matching row wins."""
    if isinstance(provenance, Unverified) or isinstance(source, UnknownSource):
        return SourceTrust.UNTRUSTED
    match source, provenance:
        case BuiltinSource(), BuiltinRuntime():
            return SourceTrust.TRUSTED
        case ExtensionSource(extension_id=owner), ExtensionManifest(extension_id=vouched):
            agree = owner == vouched
        case McpSource(server_id=owner), McpConfig(server_id=vouched):
            agree = owner == vouched
        case PluginSource(plugin_id=owner), PluginConfig(plugin_id=vouched):
            agree = owner == vouched
        case _:
            agree = False
    return SourceTrust.TRUSTED if agree else SourceTrust.PROVENANCE_MISMATCH


def derived_tool_id(source: CapabilitySource, builtin_name: str) -> ToolId:
    """The id a source-aware constructor gives ``source`` (``builtin_name`` feeds Builtin)."""
    match source:
        case BuiltinSource():
            return ToolId.builtin(builtin_name)
        case ExtensionSource(extension_id=owner, tool_name=tool):
            return ToolId.extension(owner, tool)
        case McpSource(server_id=owner, server_tool_name=tool):
            return ToolId.mcp(owner, tool)
        case PluginSource(plugin_id=owner, tool_name=tool):
            return ToolId.plugin(owner, tool)
        case UnknownSource(runtime_name=name):
            return ToolId.unclassified(name)
