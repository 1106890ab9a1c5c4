"""SPEC.md 4: the execution gate's check order, drift denial, exactness and factory acquisition."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    P_UNVERIFIED,
    Rec,
    Vector,
    core_basis,
    deny,
    exact_basis,
    forge,
    insert,
    issue,
    p_ext,
    p_mcp,
    p_plugin,
    snapshot,
    src_ext,
    src_mcp,
    src_plugin,
    upsert,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DEPLOY,
    DYN,
    FMT,
    FORGED,
    GREP,
    LOOKUP,
    NOTE,
    READ,
    STANDARD_GENERATION,
    drifted,
    standard_catalog,
)

G = "gate"
GEN = STANDARD_GENERATION


def _base(vid: str, description: str, tags: tuple[str, ...] = ()) -> Vector:
    v = Vector(f"{G}/{vid}", description, ("gate", *tags))
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id, FMT.id])
    issue(v, "lookup", "s-a", LOOKUP, GEN)
    issue(v, "deploy", "s-a", DEPLOY, GEN)
    v.ok("activate_many", {"applied": 2}, set="A", grants=["lookup", "deploy"])
    return v


def _calls(v: Vector, rec: Rec, calls: int) -> None:
    v.ok("factory_calls", {"calls": calls}, tool=rec.id)


def _authorized() -> Vector:
    v = _base(
        "authorized-basis-and-factory",
        "Core tools authorize with basis core, activated ones with basis exact at the grant's "
        "generation; each authorization calls the record's factory exactly once; denials and "
        "every other op call it never.",
        ("factory",),
    )
    _calls(v, BASH, 0)
    _calls(v, LOOKUP, 0)
    v.ok("authorize", {"tool": BASH.id, "basis": core_basis()}, set="A", tool=BASH.id)
    _calls(v, BASH, 1)
    v.ok(
        "authorize",
        {"tool": BASH.id, "basis": core_basis()},
        set="A",
        tool=BASH.id,
        wire_name="bash",
    )
    _calls(v, BASH, 2)
    v.ok("authorize", {"tool": LOOKUP.id, "basis": exact_basis(GEN)}, set="A", tool=LOOKUP.id)
    _calls(v, LOOKUP, 1)
    v.fail(
        "authorize", "ToolAuthorizationError.NotActivated", {"tool": NOTE.id}, set="A", tool=NOTE.id
    )
    _calls(v, NOTE, 0)
    _calls(v, READ, 0)
    _calls(v, Rec(src_mcp("x", "never"), p_mcp("x")), 0)
    snapshot(v, "A", "s-a", GEN, 1, [BASH, FMT], [(DEPLOY, GEN), (LOOKUP, GEN)])
    v.fail("factory_calls", "ToolIdError.MissingNamespace", tool="nope")
    return v


def _exactness() -> Vector:
    v = _base(
        "exactness-unrelated-drift",
        "Generation drift alone never denies: after unrelated inserts, removals, upserts and a "
        "rebase, core and activated tools whose own records are unchanged still authorize, and "
        "the exact basis still names the grant's generation.",
        ("drift-denial", "exactness"),
    )
    insert(v, GREP, GEN + 1)
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 2}, id=NOTE.id)
    upsert(v, READ.id, drifted(READ, {"changed": True}), GEN + 3)
    v.ok("catalog_rebase_past", {"generation": 1000}, prior=999)
    v.ok("is_stale", {"stale": True}, set="A")
    v.ok("authorize", {"tool": BASH.id, "basis": core_basis()}, set="A", tool=BASH.id)
    v.ok("authorize", {"tool": FMT.id, "basis": core_basis()}, set="A", tool=FMT.id)
    v.ok("authorize", {"tool": LOOKUP.id, "basis": exact_basis(GEN)}, set="A", tool=LOOKUP.id)
    v.ok("authorize", {"tool": DEPLOY.id, "basis": exact_basis(GEN)}, set="A", tool=DEPLOY.id)
    # a record removed and re-inserted identically matches its pins again
    v.ok("catalog_remove", {"removed": True, "generation": 1001}, id=LOOKUP.id)
    deny(v, "A", LOOKUP.id, "NotCataloged")
    insert(v, LOOKUP, 1002)
    v.ok("authorize", {"tool": LOOKUP.id, "basis": exact_basis(GEN)}, set="A", tool=LOOKUP.id)
    _calls(v, LOOKUP, 2)
    return v


def _digest_drift() -> Vector:
    v = _base(
        "digest-drift",
        "A changed schema denies the call with SchemaDigestMismatch, for core and activated "
        "tools, and acquires nothing; restoring the schema restores authorization.",
        ("drift-denial", "factory"),
    )
    bash2 = drifted(BASH, {"type": "object", "properties": {"command": {"type": "integer"}}})
    upsert(v, BASH.id, bash2, GEN + 1)
    deny(v, "A", BASH.id, "SchemaDigestMismatch")
    lookup2 = drifted(
        LOOKUP,
        {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "number"}}},
    )
    upsert(v, LOOKUP.id, lookup2, GEN + 2)
    deny(v, "A", LOOKUP.id, "SchemaDigestMismatch")
    # 1 vs 1.0 is a schema change
    deploy2 = drifted(DEPLOY, {"type": "object", "title": "deploy", "x": 1.0})
    deploy1 = drifted(DEPLOY, {"type": "object", "title": "deploy", "x": 1})
    upsert(v, DEPLOY.id, deploy1, GEN + 3)
    deny(v, "A", DEPLOY.id, "SchemaDigestMismatch")
    upsert(v, DEPLOY.id, deploy2, GEN + 4)
    deny(v, "A", DEPLOY.id, "SchemaDigestMismatch")
    _calls(v, BASH, 0)
    _calls(v, LOOKUP, 0)
    _calls(v, DEPLOY, 0)
    upsert(v, BASH.id, BASH, GEN + 5)
    v.ok("authorize", {"tool": BASH.id, "basis": core_basis()}, set="A", tool=BASH.id)
    _calls(v, BASH, 1)
    snapshot(v, "A", "s-a", GEN, 1, [BASH, FMT], [(DEPLOY, GEN), (LOOKUP, GEN)])
    return v


def _coherent_imposter() -> Vector:
    v = _base(
        "coherent-imposter",
        "Same id, identical schema, a different but self-consistent source and provenance: the "
        "gate denies with SourceProvenanceMismatch (pinned provenance differs), for core and "
        "activated tools, and acquires nothing.",
        ("drift-denial", "coherent-imposter", "hostile", "factory"),
    )
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 1}, id=FMT.id)
    fmt_imp = Rec(src_plugin("p2", "fmt"), p_plugin("p2"), FMT.schema, FMT.id)
    insert(v, fmt_imp, GEN + 2)
    deny(v, "A", FMT.id, "SourceProvenanceMismatch")
    lookup_imp = Rec(src_mcp("srv-evil", "lookup"), p_mcp("srv-evil"), LOOKUP.schema, LOOKUP.id)
    upsert(v, LOOKUP.id, lookup_imp, GEN + 3)
    v.ok("digest", {"digest": LOOKUP.digest}, schema=LOOKUP.schema)
    deny(v, "A", LOOKUP.id, "SourceProvenanceMismatch")
    deploy_imp = Rec(src_ext("acme2", "deploy"), p_ext("acme2"), DEPLOY.schema, DEPLOY.id)
    upsert(v, DEPLOY.id, deploy_imp, GEN + 4)
    deny(v, "A", DEPLOY.id, "SourceProvenanceMismatch")
    _calls(v, FMT, 0)
    _calls(v, LOOKUP, 0)
    _calls(v, DEPLOY, 0)
    # the imposter is trusted on its own terms: a fresh set would accept it
    v.ok("set_new", name="N", session="s-n", core=[FMT.id])
    v.ok("authorize", {"tool": FMT.id, "basis": core_basis()}, set="N", tool=FMT.id)
    _calls(v, FMT, 1)
    return v


def _check_order() -> Vector:
    v = _base(
        "check-order",
        "Gate order: NotCataloged, then digest (core/activated) or NotActivated, then pinned "
        "provenance, then source trust; each case breaks two rules and only the first answers.",
        ("check-order", "drift-denial"),
    )
    # digest before provenance: schema and provenance both changed
    both = Rec(src_mcp("srv-b", "lookup"), p_mcp("srv-b"), {"other": 1}, LOOKUP.id)
    upsert(v, LOOKUP.id, both, GEN + 1)
    deny(v, "A", LOOKUP.id, "SchemaDigestMismatch")
    # pinned provenance before trust: provenance changed to Unverified, schema identical
    bash_unv = Rec(BASH.source, P_UNVERIFIED, BASH.schema, BASH.id)
    upsert(v, BASH.id, bash_unv, GEN + 2)
    deny(v, "A", BASH.id, "SourceProvenanceMismatch")
    # not activated: a cataloged, untrusted record in no set
    v.fail(
        "authorize", "ToolAuthorizationError.NotActivated", {"tool": DYN.id}, set="A", tool=DYN.id
    )
    deny(v, "A", FORGED.id, "NotActivated")
    # not cataloged wins over everything
    v.fail(
        "authorize",
        "ToolAuthorizationError.NotCataloged",
        {"tool": "mcp.srv-a:nope"},
        set="A",
        tool="mcp.srv-a:nope",
    )
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 3}, id=FMT.id)
    v.fail(
        "authorize", "ToolAuthorizationError.NotCataloged", {"tool": FMT.id}, set="A", tool=FMT.id
    )
    for rec in [BASH, LOOKUP, FMT, DYN]:
        _calls(v, rec, 0)
    return v


def _untrusted_pins() -> Vector:
    v = Vector(
        f"{G}/untrusted-pins",
        "A pinned record that still matches its pins but is untrusted is denied at step 4: "
        "UntrustedSource for Unverified/Unknown, SourceProvenanceMismatch for a mismatched pair; "
        "for core pins and for low-level activations alike.",
        ("gate", "source-trust", "factory"),
    )
    standard_catalog(v)
    v.ok("set_new", name="C", session="s-c", core=[DYN.id, FORGED.id])
    deny(v, "C", DYN.id, "UntrustedSource")
    deny(v, "C", FORGED.id, "SourceProvenanceMismatch")
    v.ok("set_new", name="L", session="s-l", core=[])
    forge(v, "dyn", "s-l", DYN.id, GEN, DYN.digest)
    forge(v, "forged", "s-l", FORGED.id, GEN, FORGED.digest)
    v.ok("activate_many", {"applied": 0}, set="L", grants=[])
    v.ok("activate", set="L", grant="dyn")
    v.ok("activate", set="L", grant="forged")
    deny(v, "L", DYN.id, "UntrustedSource")
    deny(v, "L", FORGED.id, "SourceProvenanceMismatch")
    _calls(v, DYN, 0)
    _calls(v, FORGED, 0)
    return v


def _session_bound() -> Vector:
    v = _base(
        "activations-are-per-set",
        "A tool activated in one set is NotActivated in another set of the same session and of "
        "another session; a core tool of one set is not core elsewhere.",
        ("zero-inheritance",),
    )
    v.ok("set_new", name="S", session="s-a", core=[])
    deny(v, "S", LOOKUP.id, "NotActivated")
    v.fail(
        "authorize", "ToolAuthorizationError.NotActivated", {"tool": BASH.id}, set="S", tool=BASH.id
    )
    v.ok("set_new", name="O", session="s-other", core=[])
    deny(v, "O", LOOKUP.id, "NotActivated")
    v.protocol({"op": "authorize", "set": "nope", "tool": LOOKUP.id})
    v.fail("authorize", "ToolIdError.InvalidNamespace", set="A", tool="MCP:x")
    _calls(v, LOOKUP, 0)
    return v


def vectors() -> list[Vector]:
    return [
        _authorized(),
        _exactness(),
        _digest_drift(),
        _coherent_imposter(),
        _check_order(),
        _untrusted_pins(),
        _session_bound(),
    ]
