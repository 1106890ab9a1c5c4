"""SPEC.md 6 invariants as concrete scenarios: zero inheritance (isolation), no partial mutation
(atomicity) and the counters."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    Vector,
    deny,
    forge,
    insert,
    issue,
    snapshot,
    state,
    upsert,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DEFAULT_CORE,
    DEPLOY,
    DYN,
    FMT,
    FORGED,
    GREP,
    LOOKUP,
    NOTE,
    READ,
    SORTED_STANDARD,
    STANDARD_GENERATION,
    drifted,
    standard_catalog,
)
from session_toolset_harness.corpus.spec import U64_MAX

GEN = STANDARD_GENERATION


def _new_inherits_nothing() -> Vector:
    v = Vector(
        "isolation/new-set-inherits-nothing",
        "A set built after another set of the same session was activated has no activations: "
        "set_new, default core, progressive core, route without a set, rebuild with carry "
        "forward off.",
        ("zero-inheritance", "isolation"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    v.ok(
        "activate_model",
        {"applied": 3},
        set="A",
        authority="model_confirmed",
        tools=[LOOKUP.id, NOTE.id, FMT.id],
    )
    v.ok("set_new", name="B", session="s", core=[BASH.id])
    snapshot(v, "B", "s", GEN, 0, [BASH], [])
    v.ok("set_default_core", name="D", session="s")
    snapshot(v, "D", "s", GEN, 0, DEFAULT_CORE, [])
    v.ok("set_progressive_core", name="P", session="s")
    snapshot(v, "P", "s", GEN, 0, [BASH, READ], [])
    v.ok("route", {"stale": False}, set=None, into="R", fallback_session="s")
    snapshot(v, "R", "s", GEN, 0, DEFAULT_CORE, [])
    v.ok("rebuild", {"dropped": []}, set="A", into="Z", progressive=True, carry_forward=False)
    snapshot(v, "Z", "s", GEN, 0, [BASH, READ], [])
    # the same name rebuilt from scratch forgets its activations too
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    snapshot(v, "A", "s", GEN, 0, [BASH], [])
    deny(v, "A", LOOKUP.id, "NotActivated")
    return v


def _reads_only_its_source() -> Vector:
    v = Vector(
        "isolation/rebuild-and-route-read-only-their-source",
        "A route of a retained set and a carry-forward rebuild into a name that already holds a "
        "set of the same session replace that set: the result is read from the source set alone "
        "(a copy of A; A rebuilt, with A's schema_generation), never from the set the target "
        "name held.",
        ("zero-inheritance", "isolation", "route", "rebuild"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    v.ok("set_new", name="B", session="s", core=[BASH.id])
    v.ok("activate_user", set="B", tool=LOOKUP.id)
    v.ok("route", {"stale": False}, set="A", into="B", fallback_session="s-f")
    snapshot(v, "B", "s", GEN, 0, [BASH], [])
    v.ok("activate_user", set="B", tool=LOOKUP.id)
    v.ok("rebuild", {"dropped": []}, set="A", into="B", progressive=False, carry_forward=True)
    snapshot(v, "B", "s", GEN, 0, DEFAULT_CORE, [])
    return v


def _no_cross_talk() -> Vector:
    v = Vector(
        "isolation/operations-do-not-cross",
        "Every operation on one set leaves every other set exactly as it was (same session or "
        "not), and grants of one session never activate in another session's set.",
        ("zero-inheritance", "isolation"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    v.ok("set_new", name="B", session="s-a", core=[BASH.id])
    v.ok("set_new", name="C", session="s-c", core=[])
    issue(v, "ga", "s-a", LOOKUP, GEN)
    v.ok("activate", set="A", grant="ga")
    v.ok("activate_many", {"applied": 1}, set="B", grants=["ga"])
    v.ok("activate_user", set="A", tool=NOTE.id)
    v.ok("activate_model", {"applied": 1}, set="A", authority="model_confirmed", tools=[FMT.id])
    v.ok("revoke", set="A", tool=LOOKUP.id)
    snapshot(v, "A", "s-a", GEN, 4, [BASH], [(NOTE, GEN), (FMT, GEN)])
    snapshot(v, "B", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    snapshot(v, "C", "s-c", GEN, 0, [], [])
    v.fail("activate", "ActivationError.SessionMismatch", set="C", grant="ga")
    v.fail("activate_many", "BulkActivationError.Grant.SessionMismatch", set="C", grants=["ga"])
    v.ok("rebuild", {"dropped": []}, set="A", into="A2", progressive=True)
    v.ok("route", {"stale": False}, set="B", into="B2", fallback_session="s-x")
    v.ok("activate_user", set="B2", tool=DEPLOY.id)
    snapshot(v, "B", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    snapshot(v, "A", "s-a", GEN, 4, [BASH], [(NOTE, GEN), (FMT, GEN)])
    snapshot(v, "C", "s-c", GEN, 0, [], [])
    deny(v, "C", LOOKUP.id, "NotActivated")
    return v


def _per_set_core() -> Vector:
    v = Vector(
        "isolation/core-is-per-set",
        "A tool that is core in one set of a session is an ordinary tool in another set of the "
        "same session: it activates there and revokes there (CoreTool and AlreadyCore look only "
        "at the set operated on).",
        ("zero-inheritance", "isolation"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[LOOKUP.id])
    v.ok("set_new", name="B", session="s-a", core=[BASH.id])
    v.ok("activate_user", set="B", tool=LOOKUP.id)
    snapshot(v, "B", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    v.ok("revoke", set="B", tool=LOOKUP.id)
    snapshot(v, "B", "s-a", GEN, 2, [BASH], [])
    snapshot(v, "A", "s-a", GEN, 0, [LOOKUP], [])
    v.fail("revoke", "ExactRevocationError.CoreTool", {"tool": LOOKUP.id}, set="A", tool=LOOKUP.id)
    return v


def _batch_per_set_already() -> Vector:
    v = Vector(
        "isolation/batch-already-activated-is-per-set",
        "AlreadyActivated looks only at the set operated on, in batches too: a batch of two "
        "(activate_many, confirmed activate_model) naming a tool that another set of the same "
        "session has activated succeeds; the set that has it still rejects it.",
        ("zero-inheritance", "isolation", "batch"),
    )
    standard_catalog(v)
    for name in ("A", "B", "C"):
        v.ok("set_new", name=name, session="s-a", core=[BASH.id])
    v.ok("activate_user", set="A", tool=LOOKUP.id)
    issue(v, "gn", "s-a", NOTE, GEN)
    issue(v, "gl", "s-a", LOOKUP, GEN)
    v.ok("activate_many", {"applied": 2}, set="B", grants=["gn", "gl"])
    snapshot(v, "B", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN)])
    v.ok(
        "activate_model",
        {"applied": 2},
        set="C",
        authority="model_confirmed",
        tools=[NOTE.id, LOOKUP.id],
    )
    snapshot(v, "C", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN)])
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.AlreadyActivated",
        {"tool": LOOKUP.id},
        set="A",
        grants=["gn", "gl"],
    )
    snapshot(v, "A", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    return v


def _all_rejections() -> Vector:
    v = Vector(
        "atomicity/every-rejection-changes-nothing",
        "One rejection of every kind, each on a populated world; afterwards catalog, both sets, "
        "named grants and factory counters are exactly as before.",
        ("no-partial-mutation", "atomicity"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    v.ok("activate_user", set="A", tool=LOOKUP.id)
    v.ok("set_new", name="B", session="s-b", core=[])
    issue(v, "g", "s-a", NOTE, GEN)
    forge(v, "bad", "s-a", DEPLOY.id, GEN, "00")
    v.ok("authorize", {"tool": BASH.id}, set="A", tool=BASH.id)

    def check() -> None:
        state(v, GEN, SORTED_STANDARD)
        snapshot(v, "A", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
        snapshot(v, "B", "s-b", GEN, 0, [], [])
        v.ok("factory_calls", {"calls": 1}, tool=BASH.id)
        v.ok("factory_calls", {"calls": 0}, tool=LOOKUP.id)

    check()
    v.fail(
        "catalog_insert",
        "CatalogError.DuplicateToolId",
        {"tool": LOOKUP.id},
        **drifted(LOOKUP, {"new": 1}).request(),
    )
    v.fail(
        "catalog_upsert",
        "CatalogError.DuplicateToolId",
        {"tool": NOTE.id},
        replaced=LOOKUP.id,
        **drifted(NOTE, {"n": 2}).request(),
    )
    v.fail(
        "set_new",
        "SessionToolSetError.UnknownCoreTool",
        {"tool": "a:b"},
        name="A",
        session="s-a",
        core=["a:b"],
    )
    v.fail("activate", "ActivationError.DigestMismatch", {"tool": DEPLOY.id}, set="A", grant="bad")
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.DigestMismatch",
        {"tool": DEPLOY.id},
        set="A",
        grants=["g", "bad"],
    )
    v.fail("activate_many", "BulkActivationError.Grant.SessionMismatch", set="B", grants=["g"])
    v.fail(
        "activate_user",
        "HostActivationError.Bulk.Grant.AlreadyActivated",
        {"tool": LOOKUP.id},
        set="A",
        tool=LOOKUP.id,
    )
    v.fail(
        "activate_user",
        "HostActivationError.Issuance.UntrustedSource",
        {"tool": DYN.id},
        set="A",
        tool=DYN.id,
    )
    v.fail(
        "activate_model",
        "HostActivationError.ConfirmationRequired",
        set="A",
        authority="unauthorized",
        tools=[NOTE.id],
    )
    v.fail(
        "activate_model",
        "HostActivationError.Issuance.SourceProvenanceMismatch",
        {"tool": FORGED.id},
        set="A",
        authority="model_confirmed",
        tools=[NOTE.id, FORGED.id],
    )
    v.fail(
        "activate_model",
        "HostActivationError.Bulk.Grant.AlreadyCore",
        {"tool": BASH.id},
        set="A",
        authority="model_confirmed",
        tools=[NOTE.id, BASH.id],
    )
    v.fail("revoke", "ExactRevocationError.CoreTool", {"tool": BASH.id}, set="A", tool=BASH.id)
    v.fail("revoke", "ExactRevocationError.NotActivated", {"tool": NOTE.id}, set="A", tool=NOTE.id)
    v.fail(
        "issue_grant",
        "GrantIssuanceError.UnknownTool",
        {"tool": "a:b"},
        name="g",
        session="s-a",
        tool="a:b",
    )
    v.fail(
        "authorize", "ToolAuthorizationError.NotActivated", {"tool": NOTE.id}, set="A", tool=NOTE.id
    )
    v.fail(
        "authorize_wire",
        "ToolAuthorizationError.UnknownTool",
        {"wire_name": "nope"},
        set="A",
        wire_name="nope",
    )
    v.fail("resolve", "ToolAuthorizationError.UnknownTool", {"wire_name": "nope"}, wire_name="nope")
    v.fail(
        "forge_grant",
        "ActivationGrantError.EmptySessionId",
        name="g",
        session="",
        tool=NOTE.id,
        generation=GEN,
        digest="x",
    )
    v.protocol({"op": "activate_many", "set": "A", "grants": ["g", "missing"]})
    v.protocol(
        {
            "op": "catalog_insert",
            "source": {"kind": "builtin", "name": "new"},
            "provenance": {"kind": "nope"},
            "schema": {},
        }
    )
    v.protocol({"op": "catalog_set_generation", "value": 2**64})
    check()
    # the named grant "g" survived every failed attempt to overwrite it
    v.ok("activate", set="A", grant="g")
    snapshot(v, "A", "s-a", GEN, 2, [BASH], [(LOOKUP, GEN), (NOTE, GEN)])
    return v


def _late_failure() -> Vector:
    v = Vector(
        "atomicity/late-failure-in-batch",
        "A batch whose last grant fails applies none of the earlier valid grants and does not "
        "advance schema_generation; the same batch without the failing grant applies with one "
        "advance.",
        ("no-partial-mutation", "atomic-batches"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[])
    for name, rec in [("a", BASH), ("b", READ), ("c", LOOKUP), ("d", NOTE), ("e", FMT)]:
        issue(v, name, "s-a", rec, GEN)
    forge(v, "x", "s-a", DEPLOY.id, GEN - 1, DEPLOY.digest)
    v.fail(
        "activate_many",
        "BulkActivationError.Grant.StaleGeneration",
        {"grant": GEN - 1, "catalog": GEN},
        set="A",
        grants=["a", "b", "c", "d", "e", "x"],
    )
    snapshot(v, "A", "s-a", GEN, 0, [], [])
    v.fail(
        "activate_model",
        "HostActivationError.Bulk.DuplicateRequest",
        {"tool": FMT.id},
        set="A",
        authority="model_confirmed",
        tools=[BASH.id, READ.id, LOOKUP.id, NOTE.id, FMT.id, FMT.id],
    )
    snapshot(v, "A", "s-a", GEN, 0, [], [])
    v.ok("activate_many", {"applied": 5}, set="A", grants=["a", "b", "c", "d", "e"])
    snapshot(
        v,
        "A",
        "s-a",
        GEN,
        1,
        [],
        [(BASH, GEN), (READ, GEN), (LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)],
    )
    return v


def _generation_monotone() -> Vector:
    v = Vector(
        "counters/catalog-generation-strictly-increases",
        "Every successful catalog mutation advances the generation by exactly one (rebase to "
        "max+1); failed mutations and no-op removals leave it; values never repeat, even after "
        "a remove and re-insert of the same record.",
        ("counters",),
    )
    insert(v, BASH, 1)
    v.ok("catalog_remove", {"removed": True, "generation": 2}, id=BASH.id)
    insert(v, BASH, 3)
    upsert(v, BASH.id, BASH, 4)
    v.fail("catalog_insert", "CatalogError.DuplicateToolId", {"tool": BASH.id}, **BASH.request())
    v.ok("catalog_state", {"generation": 4})
    upsert(v, BASH.id, GREP, 5)
    v.ok("catalog_rebase_past", {"generation": 6}, prior=5)
    v.ok("catalog_rebase_past", {"generation": 7}, prior=1)
    insert(v, READ, 8)
    state(v, 8, [GREP, READ])
    return v


def _overflow() -> Vector:
    v = Vector(
        "counters/overflow-fails-closed",
        "At 2^64-1 the catalog never wraps and never sticks: every mutation fails and the "
        "generation stays 2^64-1; sets built there are pinned to 2^64-1 and grants carry it "
        "exactly; activation still works without a mutation.",
        ("counters", "boundary", "hostile"),
    )
    insert(v, BASH, 1)
    v.ok("catalog_set_generation", {"generation": U64_MAX - 1}, value=U64_MAX - 1)
    insert(v, LOOKUP, U64_MAX)
    v.fail("catalog_insert", "CatalogError.GenerationExhausted", **NOTE.request())
    v.fail("catalog_rebase_past", "CatalogGenerationOverflow", prior=U64_MAX - 1)
    v.fail("catalog_remove", "CatalogError.GenerationExhausted", id=BASH.id)
    state(v, U64_MAX, [BASH, LOOKUP])
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    snapshot(v, "A", "s", U64_MAX, 0, [BASH], [])
    issue(v, "g", "s", LOOKUP, U64_MAX)
    v.ok("activate", set="A", grant="g")
    snapshot(v, "A", "s", U64_MAX, 1, [BASH], [(LOOKUP, U64_MAX)])
    v.ok(
        "authorize",
        {"tool": LOOKUP.id, "basis": {"kind": "exact", "catalog_generation": U64_MAX}},
        set="A",
        tool=LOOKUP.id,
    )
    forge(v, "wrapped", "s", LOOKUP.id, 0, LOOKUP.digest)
    v.ok("revoke", set="A", tool=LOOKUP.id)
    v.fail(
        "activate",
        "ActivationError.StaleGeneration",
        {"grant": 0, "catalog": U64_MAX},
        set="A",
        grant="wrapped",
    )
    v.ok("is_stale", {"stale": False}, set="A")
    v.ok("rebuild", {"dropped": []}, set="A", into="A2", progressive=True)
    snapshot(v, "A2", "s", U64_MAX, 2, [BASH], [])
    return v


def _schema_generation() -> Vector:
    v = Vector(
        "counters/schema-generation",
        "schema_generation: +1 per activate, +1 per applied batch (not per grant), +1 per "
        "revoke, +1 per rebuild that drops anything, unchanged by rejections, empty batches, "
        "gate calls and carrying rebuilds; core and activations never overlap.",
        ("counters", "atomic-batches"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s", core=[BASH.id])
    issue(v, "l", "s", LOOKUP, GEN)
    issue(v, "n", "s", NOTE, GEN)
    issue(v, "f", "s", FMT, GEN)
    issue(v, "d", "s", DEPLOY, GEN)
    issue(v, "b", "s", BASH, GEN)
    v.ok("activate", set="A", grant="l")
    snapshot(v, "A", "s", GEN, 1, [BASH], [(LOOKUP, GEN)])
    v.ok("activate_many", {"applied": 3}, set="A", grants=["n", "f", "d"])
    snapshot(v, "A", "s", GEN, 2, [BASH], [(DEPLOY, GEN), (LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.ok("activate_many", {"applied": 0}, set="A", grants=[])
    v.fail("activate", "ActivationError.AlreadyCore", {"tool": BASH.id}, set="A", grant="b")
    v.ok("authorize", {"tool": NOTE.id}, set="A", tool=NOTE.id)
    v.ok("revoke", set="A", tool=DEPLOY.id)
    snapshot(v, "A", "s", GEN, 3, [BASH], [(LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.ok("rebuild", {"dropped": []}, set="A", into="A", progressive=False)
    snapshot(v, "A", "s", GEN, 3, DEFAULT_CORE, [])
    return v


def vectors() -> list[Vector]:
    return [
        _new_inherits_nothing(),
        _reads_only_its_source(),
        _no_cross_talk(),
        _per_set_core(),
        _batch_per_set_already(),
        _all_rejections(),
        _late_failure(),
        _generation_monotone(),
        _overflow(),
        _schema_generation(),
    ]
