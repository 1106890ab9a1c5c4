"""Concrete capability sources and trust provenances, and the SPEC.md source-trust table.

The abstract model stores only a record's *trust* (trusted / untrusted / mismatch): the table
below is how the concrete oracle derives it from a source and a provenance.
"""

from __future__ import annotations

from dataclasses import dataclass

PROGRESSIVE_CORE = frozenset(
    f"builtin:{n}"
    for n in [
        "bash",
        "read",
        "write",
        "edit",
        "grep",
        "find",
        "ls",
        "search_tools",
        "activate_tools",
        "search_skills",
        "load_skill",
    ]
)
"""SPEC.md `progressive_core_for_catalog`: the fixed list (a predicate over tools in Z3)."""


@dataclass(frozen=True, order=True)
class Source:
    """`CapabilitySource`: kind in builtin/extension/mcp/plugin/unknown, owner id and tool name."""

    kind: str
    owner: str = ""
    name: str = ""

    def to_json(self) -> dict[str, str]:
        if self.kind == "builtin":
            return {"kind": "builtin", "name": self.name}
        if self.kind == "unknown":
            return {"kind": "unknown", "runtime_name": self.name}
        owner_key, name_key = {
            "extension": ("extension_id", "tool_name"),
            "mcp": ("server_id", "server_tool_name"),
            "plugin": ("plugin_id", "tool_name"),
        }[self.kind]
        return {"kind": self.kind, owner_key: self.owner, name_key: self.name}


@dataclass(frozen=True, order=True)
class Provenance:
    """`TrustProvenance`: kind in builtin_runtime/extension_manifest/mcp_config/plugin_config/
    unverified, with the owner id where the variant has one."""

    kind: str
    owner: str = ""

    def to_json(self) -> dict[str, str]:
        key = {
            "extension_manifest": "extension_id",
            "mcp_config": "server_id",
            "plugin_config": "plugin_id",
        }.get(self.kind)
        return {"kind": self.kind} if key is None else {"kind": self.kind, key: self.owner}


_MATCHING = {
    "builtin_runtime": "builtin",
    "extension_manifest": "extension",
    "mcp_config": "mcp",
    "plugin_config": "plugin",
}


def source_trust(source: Source, prov: Provenance) -> str:
    """SPEC.md section 2 source trust, first matching row wins."""
    if prov.kind == "unverified" or source.kind == "unknown":
        return "untrusted"
    if _MATCHING.get(prov.kind) == source.kind and (
        source.kind == "builtin" or source.owner == prov.owner
    ):
        return "trusted"
    return "mismatch"


def is_unverified(prov: object) -> bool:
    return isinstance(prov, Provenance) and prov.kind == "unverified"


def is_progressive(tool: object) -> bool:
    return tool in PROGRESSIVE_CORE
