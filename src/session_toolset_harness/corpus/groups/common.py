"""Records and setups shared by several groups.

ToolId byte order of the standard records (SPEC.md 1.1: plain byte-wise comparison):
``builtin:bash < builtin:grep < builtin:read < ext.acme:deploy < mcp.srv-a:forged <
mcp.srv-a:lookup < mcp.srv-a:note < plugin.p1:fmt < unknown:dyn``.
"""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    P_UNVERIFIED,
    Rec,
    Vector,
    insert,
    p_ext,
    p_mcp,
    p_plugin,
    src_builtin,
    src_ext,
    src_mcp,
    src_plugin,
    src_unknown,
)

OBJ = {"type": "object"}

BASH = Rec(
    src_builtin("bash"),
    P_BUILTIN,
    {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
READ = Rec(src_builtin("read"), P_BUILTIN, {"type": "object", "properties": {"path": {}}})
GREP = Rec(src_builtin("grep"), P_BUILTIN, {"type": "object", "properties": {"pattern": {}}})
LOOKUP = Rec(
    src_mcp("srv-a", "lookup"),
    p_mcp("srv-a"),
    {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}},
)
NOTE = Rec(
    src_mcp("srv-a", "note"),
    p_mcp("srv-a"),
    {"type": "object", "properties": {"text": {"type": "string"}}},
)
DEPLOY = Rec(src_ext("acme", "deploy"), p_ext("acme"), {"type": "object", "title": "deploy"})
FMT = Rec(src_plugin("p1", "fmt"), p_plugin("p1"), {"type": "object", "title": "fmt"})
#: Untrusted (provenance Unverified, source Unknown).
DYN = Rec(src_unknown("dyn"), P_UNVERIFIED, {"type": "object", "title": "dyn"})
#: Source/provenance mismatch: an MCP source claiming another server's config.
FORGED = Rec(src_mcp("srv-a", "forged"), p_mcp("srv-z"), {"type": "object", "title": "forged"})

ALL_STANDARD = [BASH, READ, LOOKUP, NOTE, DEPLOY, FMT, DYN, FORGED]
#: ALL_STANDARD in ToolId order.
SORTED_STANDARD = [BASH, READ, DEPLOY, FORGED, LOOKUP, NOTE, FMT, DYN]
#: The standard records whose provenance is not Unverified, in ToolId order (default core).
DEFAULT_CORE = [BASH, READ, DEPLOY, FORGED, LOOKUP, NOTE, FMT]
STANDARD_GENERATION = 8


def standard_catalog(v: Vector) -> Vector:
    """Insert ALL_STANDARD: generations 1..8."""
    for generation, rec in enumerate(ALL_STANDARD, start=1):
        insert(v, rec, generation)
    return v


def drifted(rec: Rec, schema: object) -> Rec:
    """Same id, source and provenance, another schema (digest drift)."""
    return Rec(rec.source, rec.provenance, schema, rec.id, rec.runtime_name)
