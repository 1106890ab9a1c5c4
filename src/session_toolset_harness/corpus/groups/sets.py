"""SPEC.md 3: building session tool sets (new, default core, progressive core) and is_stale."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_BUILTIN,
    P_UNVERIFIED,
    Rec,
    Vector,
    insert,
    snapshot,
    src_builtin,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DEFAULT_CORE,
    DYN,
    FMT,
    FORGED,
    LOOKUP,
    READ,
    STANDARD_GENERATION,
    standard_catalog,
)

G = "sets"


def _new() -> Vector:
    v = Vector(
        f"{G}/new",
        "set_new pins each core id with its record's current digest and provenance (untrusted "
        "records included: trust is the gate's business); zero activations; schema_generation 0.",
        ("sets", "zero-inheritance"),
    )
    standard_catalog(v)
    g = STANDARD_GENERATION
    v.ok("set_new", name="A", session="s-a", core=[LOOKUP.id, BASH.id, DYN.id, FORGED.id])
    snapshot(v, "A", "s-a", g, 0, [BASH, FORGED, LOOKUP, DYN], [])
    v.ok("set_new", name="E", session="s-e", core=[])
    snapshot(v, "E", "s-e", g, 0, [], [])
    # Duplicate core ids collapse into one pin (core is a map keyed by ToolId).
    v.ok("set_new", name="D", session="s-d", core=[BASH.id, BASH.id])
    snapshot(v, "D", "s-d", g, 0, [BASH], [])
    v.ok("is_stale", {"stale": False}, set="A")
    return v


def _unknown_core() -> Vector:
    v = Vector(
        f"{G}/unknown-core-tool",
        "set_new reports the first core id (in request order) that is not cataloged, and names "
        "no set; field errors (a core id that does not parse) come before it.",
        ("sets", "check-order", "no-partial-mutation", "field-errors"),
    )
    insert(v, BASH, 1)
    v.fail(
        "set_new",
        "SessionToolSetError.UnknownCoreTool",
        {"tool": "mcp.z:z"},
        name="X",
        session="s",
        core=[BASH.id, "mcp.z:z", "builtin:a"],
    )
    v.protocol({"op": "snapshot", "set": "X"})
    v.fail(
        "set_new",
        "ToolIdError.InvalidNamespace",
        name="X",
        session="s",
        core=["mcp.z:z", "Bad:id"],
    )
    v.fail("set_new", "SessionIdError.Empty", name="X", session="", core=[BASH.id])
    v.fail(
        "set_new",
        "SessionIdError.ControlCharacters",
        name="X",
        session="s\u0085",
        core=["builtin:nope"],
    )
    v.protocol({"op": "snapshot", "set": "X"})
    v.ok("set_new", name="X", session="s", core=[BASH.id])
    snapshot(v, "X", "s", 1, 0, [BASH], [])
    return v


def _default_core() -> Vector:
    v = Vector(
        f"{G}/default-core",
        "default core = every record whose provenance is not Unverified (a mismatched but "
        "verified provenance is included); an empty catalog gives an empty core at generation 0.",
        ("sets",),
    )
    v.ok("set_default_core", name="E", session="s-e")
    snapshot(v, "E", "s-e", 0, 0, [], [])
    standard_catalog(v)
    shady = Rec(src_builtin("shady"), P_UNVERIFIED, {"shady": True})
    insert(v, shady, STANDARD_GENERATION + 1)
    v.ok("set_default_core", name="D", session="s-d")
    snapshot(v, "D", "s-d", STANDARD_GENERATION + 1, 0, DEFAULT_CORE, [])
    v.ok("is_stale", {"stale": True}, set="E")
    v.fail(
        "set_default_core",
        "SessionIdError.Oversized",
        {"actual": 257, "limit": 256},
        name="Z",
        session="z" * 257,
    )
    return v


def _progressive_core() -> Vector:
    v = Vector(
        f"{G}/progressive-core",
        "progressive core = the listed builtin ids present in the catalog, nothing else (not "
        "other builtins, not look-alike ids from other namespaces).",
        ("sets",),
    )
    names = ["ls", "bash", "search_tools", "load_skill", "edit", "rm"]
    recs = [Rec(src_builtin(n), P_BUILTIN, {"name": n}) for n in names]
    for generation, rec in enumerate(recs, 1):
        insert(v, rec, generation)
    lookalike = Rec(src_builtin("grep"), P_BUILTIN, explicit_id="builtin2:grep")
    insert(v, lookalike, 7)
    insert(v, FMT, 8)
    v.ok("set_progressive_core", name="P", session="s-p")
    by_name = dict(zip(names, recs, strict=True))
    # builtin:bash < builtin:edit < builtin:load_skill < builtin:ls < builtin:search_tools
    expected = [by_name[n] for n in ["bash", "edit", "load_skill", "ls", "search_tools"]]
    snapshot(v, "P", "s-p", 8, 0, expected, [])
    v.ok("set_progressive_core", name="Q", session="s-q")
    v.ok("catalog_remove", {"removed": True, "generation": 9}, id="builtin:edit")
    v.ok("is_stale", {"stale": True}, set="P")
    v.ok("set_progressive_core", name="R", session="s-r")
    snapshot(
        v, "R", "s-r", 9, 0, [by_name[n] for n in ["bash", "load_skill", "ls", "search_tools"]], []
    )
    v.ok("is_stale", {"stale": False}, set="R")
    return v


def _is_stale() -> Vector:
    v = Vector(
        f"{G}/is-stale",
        "is_stale is set generation != catalog generation, for any catalog mutation (related or "
        "not), including a rebase; a removal of an absent id is no mutation.",
        ("sets", "staleness"),
    )
    insert(v, BASH, 1)
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    v.ok("is_stale", {"stale": False}, set="A")
    v.ok("catalog_remove", {"removed": False, "generation": 1}, id=READ.id)
    v.ok("is_stale", {"stale": False}, set="A")
    insert(v, READ, 2)
    v.ok("is_stale", {"stale": True}, set="A")
    v.ok("set_new", name="B", session="s", core=[])
    v.ok("catalog_rebase_past", {"generation": 3}, prior=0)
    v.ok("is_stale", {"stale": True}, set="B")
    # Stale is represented, never absorbed: the set keeps its generation.
    snapshot(v, "A", "s", 1, 0, [BASH], [])
    v.ok("catalog_set_generation", {"generation": 1}, value=1)
    v.ok("is_stale", {"stale": False}, set="A")
    v.protocol({"op": "is_stale", "set": "nope"})
    return v


def vectors() -> list[Vector]:
    return [_new(), _unknown_core(), _default_core(), _progressive_core(), _is_stale()]
