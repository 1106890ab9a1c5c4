"""SPEC.md 3 activate(): the validation order and each ActivationError, with no mutation on
rejection (snapshot and catalog_state before and after)."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import Rec, Vector, forge, insert, issue, snapshot, state
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DYN,
    FORGED,
    GREP,
    LOOKUP,
    NOTE,
    SORTED_STANDARD,
    STANDARD_GENERATION,
    standard_catalog,
)

G = "activate"
GEN = STANDARD_GENERATION
BAD_DIGEST = "0" * 64


def _base(vid: str, description: str, tags: tuple[str, ...] = ()) -> Vector:
    v = Vector(f"{G}/{vid}", description, ("activate", *tags))
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-1", core=[BASH.id])
    return v


def _unchanged(
    v: Vector, schema_generation: int = 0, activated: list[tuple[Rec, int]] | None = None
) -> None:
    snapshot(v, "A", "s-1", GEN, schema_generation, [BASH], activated or [])
    state(v, GEN, SORTED_STANDARD)


def _success() -> Vector:
    v = _base(
        "success",
        "An exact grant for the set's session, at the catalog generation and the record's "
        "digest, activates the tool with the record's provenance; schema_generation advances by "
        "one per activation; the factory is not called.",
    )
    issue(v, "g", "s-1", LOOKUP, GEN)
    v.ok("activate", set="A", grant="g")
    snapshot(v, "A", "s-1", GEN, 1, [BASH], [(LOOKUP, GEN)])
    issue(v, "g2", "s-1", NOTE, GEN)
    v.ok("activate", set="A", grant="g2")
    snapshot(v, "A", "s-1", GEN, 2, [BASH], [(LOOKUP, GEN), (NOTE, GEN)])
    v.ok("factory_calls", {"calls": 0}, tool=LOOKUP.id)
    state(v, GEN, SORTED_STANDARD)
    return v


def _each_error() -> Vector:
    v = _base(
        "each-error",
        "Every ActivationError variant with its payload, each rejection leaving set and catalog "
        "unchanged.",
        ("no-partial-mutation",),
    )
    forge(v, "other", "s-2", LOOKUP.id, GEN, LOOKUP.digest)
    v.fail("activate", "ActivationError.SessionMismatch", set="A", grant="other")
    _unchanged(v)
    forge(v, "unknown", "s-1", "mcp.srv-a:nope", GEN, LOOKUP.digest)
    v.fail(
        "activate",
        "ActivationError.UnknownTool",
        {"tool": "mcp.srv-a:nope"},
        set="A",
        grant="unknown",
    )
    _unchanged(v)
    forge(v, "old", "s-1", LOOKUP.id, GEN - 1, LOOKUP.digest)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": GEN - 1, "catalog": GEN},
        set="A",
        grant="old",
    )
    forge(v, "future", "s-1", LOOKUP.id, GEN + 5, LOOKUP.digest)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": GEN + 5, "catalog": GEN},
        set="A",
        grant="future",
    )
    _unchanged(v)
    forge(v, "bad", "s-1", LOOKUP.id, GEN, NOTE.digest)
    v.fail("activate", "ActivationError.DigestMismatch", {"tool": LOOKUP.id}, set="A", grant="bad")
    _unchanged(v)
    issue(v, "core", "s-1", BASH, GEN)
    v.fail("activate", "ActivationError.AlreadyCore", {"tool": BASH.id}, set="A", grant="core")
    _unchanged(v)
    issue(v, "g", "s-1", LOOKUP, GEN)
    v.ok("activate", set="A", grant="g")
    v.fail("activate", "ActivationError.AlreadyActivated", {"tool": LOOKUP.id}, set="A", grant="g")
    issue(v, "g-again", "s-1", LOOKUP, GEN)
    v.fail(
        "activate",
        "ActivationError.AlreadyActivated",
        {"tool": LOOKUP.id},
        set="A",
        grant="g-again",
    )
    _unchanged(v, 1, [(LOOKUP, GEN)])
    # StaleSnapshot: a fresh grant cannot rescue a stale set.
    insert(v, GREP, GEN + 1)
    issue(v, "fresh", "s-1", NOTE, GEN + 1)
    v.fail(
        "activate",
        "ActivationError.StaleSnapshot",
        {"set": GEN, "catalog": GEN + 1},
        set="A",
        grant="fresh",
    )
    snapshot(v, "A", "s-1", GEN, 1, [BASH], [(LOOKUP, GEN)])
    return v


def _order_pairs() -> Vector:
    v = _base(
        "check-order",
        "activate checks session, catalog presence, generation, digest, set staleness, already "
        "activated, already core — in that order: each grant below violates two rules and only "
        "the earlier one may be reported.",
        ("check-order", "no-partial-mutation"),
    )
    # session before presence
    forge(v, "a", "s-2", "mcp.srv-a:nope", GEN, BAD_DIGEST)
    v.fail("activate", "ActivationError.SessionMismatch", set="A", grant="a")
    # presence before generation
    forge(v, "b", "s-1", "mcp.srv-a:nope", 0, BAD_DIGEST)
    v.fail(
        "activate", "ActivationError.UnknownTool", {"tool": "mcp.srv-a:nope"}, set="A", grant="b"
    )
    # generation before digest
    forge(v, "c", "s-1", LOOKUP.id, 1, BAD_DIGEST)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": 1, "catalog": GEN},
        set="A",
        grant="c",
    )
    # digest before core (the grant names a core tool with a wrong digest)
    forge(v, "d", "s-1", BASH.id, GEN, BAD_DIGEST)
    v.fail("activate", "ActivationError.DigestMismatch", {"tool": BASH.id}, set="A", grant="d")
    issue(v, "n", "s-1", NOTE, GEN)
    v.ok("activate", set="A", grant="n")
    # the set goes stale
    insert(v, GREP, GEN + 1)
    # digest before staleness
    forge(v, "e", "s-1", LOOKUP.id, GEN + 1, BAD_DIGEST)
    v.fail("activate", "ActivationError.DigestMismatch", {"tool": LOOKUP.id}, set="A", grant="e")
    # staleness before already-activated and already-core
    issue(v, "f", "s-1", NOTE, GEN + 1)
    v.fail(
        "activate",
        "ActivationError.StaleSnapshot",
        {"set": GEN, "catalog": GEN + 1},
        set="A",
        grant="f",
    )
    issue(v, "h", "s-1", BASH, GEN + 1)
    v.fail(
        "activate",
        "ActivationError.StaleSnapshot",
        {"set": GEN, "catalog": GEN + 1},
        set="A",
        grant="h",
    )
    # the old (formerly valid) grant is now stale by generation first
    forge(v, "old", "s-1", LOOKUP.id, GEN, LOOKUP.digest)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": GEN, "catalog": GEN + 1},
        set="A",
        grant="old",
    )
    snapshot(v, "A", "s-1", GEN, 1, [BASH], [(NOTE, GEN)])
    return v


def _no_trust_check() -> Vector:
    v = _base(
        "low-level-no-trust-check",
        "The low-level activate does not check source trust: exact grants for an untrusted and "
        "for a provenance-mismatched record activate (the gate denies them later).",
    )
    forge(v, "dyn", "s-1", DYN.id, GEN, DYN.digest)
    v.ok("activate", set="A", grant="dyn")
    forge(v, "forged", "s-1", FORGED.id, GEN, FORGED.digest)
    v.ok("activate", set="A", grant="forged")
    snapshot(v, "A", "s-1", GEN, 2, [BASH], [(FORGED, GEN), (DYN, GEN)])
    return v


def _field_errors() -> Vector:
    v = _base(
        "field-errors",
        "Unknown set or grant names are Protocol errors and change nothing.",
        ("protocol", "field-errors"),
    )
    issue(v, "g", "s-1", LOOKUP, GEN)
    v.protocol({"op": "activate", "set": "nope", "grant": "g"})
    v.protocol({"op": "activate", "set": "A", "grant": "nope"})
    v.protocol({"op": "activate", "set": "A"})
    v.protocol({"op": "activate", "set": "A", "grant": 1})
    _unchanged(v)
    return v


def vectors() -> list[Vector]:
    return [_success(), _each_error(), _order_pairs(), _no_trust_check(), _field_errors()]
