"""SPEC.md 3 revoke_exact, rebuilt_for_catalog / carry_forward, and SPEC.md 5 route_session_set."""

from __future__ import annotations

from session_toolset_harness.corpus.dsl import (
    Rec,
    Vector,
    deny,
    exact_basis,
    forge,
    insert,
    issue,
    p_mcp,
    snapshot,
    src_mcp,
    upsert,
)
from session_toolset_harness.corpus.groups.common import (
    BASH,
    DEFAULT_CORE,
    DEPLOY,
    DYN,
    FMT,
    GREP,
    LOOKUP,
    NOTE,
    READ,
    STANDARD_GENERATION,
    drifted,
    standard_catalog,
)

GEN = STANDARD_GENERATION


def _revoke() -> Vector:
    v = Vector(
        "revoke/exact",
        "revoke_exact: core → CoreTool; not activated → NotActivated; else remove it and advance "
        "schema_generation by one (stale or not, record present or not).",
        ("revoke", "no-partial-mutation"),
    )
    standard_catalog(v)
    v.ok("set_new", name="R", session="s-r", core=[BASH.id])
    v.ok(
        "activate_model",
        {"applied": 2},
        set="R",
        authority="model_confirmed",
        tools=[LOOKUP.id, NOTE.id],
    )
    snapshot(v, "R", "s-r", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN)])
    v.fail("revoke", "ExactRevocationError.CoreTool", {"tool": BASH.id}, set="R", tool=BASH.id)
    v.fail("revoke", "ExactRevocationError.NotActivated", {"tool": FMT.id}, set="R", tool=FMT.id)
    v.fail(
        "revoke",
        "ExactRevocationError.NotActivated",
        {"tool": "mcp.x:never"},
        set="R",
        tool="mcp.x:never",
    )
    snapshot(v, "R", "s-r", GEN, 1, [BASH], [(LOOKUP, GEN), (NOTE, GEN)])
    v.ok("revoke", set="R", tool=LOOKUP.id)
    snapshot(v, "R", "s-r", GEN, 2, [BASH], [(NOTE, GEN)])
    v.fail(
        "revoke", "ExactRevocationError.NotActivated", {"tool": LOOKUP.id}, set="R", tool=LOOKUP.id
    )
    # revocation works on a stale set and for a removed record
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 1}, id=NOTE.id)
    v.ok("revoke", set="R", tool=NOTE.id)
    snapshot(v, "R", "s-r", GEN, 3, [BASH], [])
    # a revoked tool is denied by the gate
    deny(v, "R", LOOKUP.id, "NotActivated")
    v.fail("revoke", "ToolIdError.InvalidName", set="R", tool="mcp.srv-a:")
    v.protocol({"op": "revoke", "set": "nope", "tool": LOOKUP.id})
    v.ok("catalog_state", {"generation": GEN + 1})
    return v


def _revoke_reactivate() -> Vector:
    v = Vector(
        "revoke/reactivate",
        "After a revoke the same tool can be activated again with a fresh grant.",
        ("revoke",),
    )
    standard_catalog(v)
    v.ok("set_new", name="R", session="s-r", core=[])
    issue(v, "g", "s-r", LOOKUP, GEN)
    v.ok("activate", set="R", grant="g")
    v.ok("revoke", set="R", tool=LOOKUP.id)
    v.ok("activate", set="R", grant="g")
    snapshot(v, "R", "s-r", GEN, 3, [], [(LOOKUP, GEN)])
    v.ok("authorize", {"tool": LOOKUP.id, "basis": exact_basis(GEN)}, set="R", tool=LOOKUP.id)
    return v


def _rebuild_carry() -> Vector:
    v = Vector(
        "rebuild/carry-and-drop",
        "rebuild carries activations whose record still matches (re-granted at the current "
        "generation), drops removed ones as 'removed' and changed ones as 'drifted' in ToolId "
        "order, bumps schema_generation once if anything was dropped; the old set is untouched.",
        ("rebuild", "drift-denial", "counters"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    v.ok(
        "activate_model",
        {"applied": 4},
        set="A",
        authority="model_confirmed",
        tools=[LOOKUP.id, NOTE.id, DEPLOY.id, FMT.id],
    )
    snapshot(v, "A", "s-a", GEN, 1, [BASH], [(DEPLOY, GEN), (LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 1}, id=NOTE.id)
    fmt2 = drifted(FMT, {"type": "object", "title": "fmt", "v": 2})
    upsert(v, FMT.id, fmt2, GEN + 2)
    # provenance drift with a self-consistent source: the coherent imposter
    imposter = Rec(src_mcp("srv-b", "deploy"), p_mcp("srv-b"), DEPLOY.schema, DEPLOY.id)
    upsert(v, DEPLOY.id, imposter, GEN + 3)
    g = GEN + 3
    v.ok(
        "rebuild",
        {
            "dropped": [
                {"tool": DEPLOY.id, "reason": "drifted"},
                {"tool": NOTE.id, "reason": "removed"},
                {"tool": FMT.id, "reason": "drifted"},
            ]
        },
        set="A",
        into="A2",
        progressive=True,
    )
    snapshot(v, "A2", "s-a", g, 2, [BASH, READ], [(LOOKUP, g)])
    snapshot(v, "A", "s-a", GEN, 1, [BASH], [(DEPLOY, GEN), (LOOKUP, GEN), (NOTE, GEN), (FMT, GEN)])
    v.ok("authorize", {"tool": LOOKUP.id, "basis": exact_basis(g)}, set="A2", tool=LOOKUP.id)
    v.ok("authorize", {"tool": LOOKUP.id, "basis": exact_basis(GEN)}, set="A", tool=LOOKUP.id)
    # A default rebuild makes every verified record core: nothing is carried or reported except
    # the removed record.
    core = [r for r in DEFAULT_CORE if r not in (NOTE, FMT, DEPLOY)]
    core = sorted([*core, fmt2, imposter], key=lambda r: r.id.encode())
    v.ok(
        "rebuild",
        {"dropped": [{"tool": NOTE.id, "reason": "removed"}]},
        set="A",
        into="A3",
        progressive=False,
    )
    snapshot(v, "A3", "s-a", g, 2, core, [])
    return v


def _rebuild_now_core() -> Vector:
    v = Vector(
        "rebuild/now-core",
        "An activation whose tool is core in the rebuilt set is neither carried nor reported, "
        "and alone does not bump schema_generation.",
        ("rebuild",),
    )
    insert(v, BASH, 1)
    insert(v, LOOKUP, 2)
    v.ok("set_new", name="A", session="s-a", core=[])
    v.ok("activate_model", {"applied": 1}, set="A", authority="model_confirmed", tools=[BASH.id])
    insert(v, GREP, 3)
    v.ok("rebuild", {"dropped": []}, set="A", into="P", progressive=True)
    snapshot(v, "P", "s-a", 3, 1, [BASH, GREP], [])
    v.ok("rebuild", {"dropped": []}, set="A", into="D", progressive=False)
    snapshot(v, "D", "s-a", 3, 1, [BASH, GREP, LOOKUP], [])
    return v


def _rebuild_trust() -> Vector:
    v = Vector(
        "rebuild/drops-untrusted-and-source-drift",
        "Only trusted, unchanged activations are carried: a low-level activation of an "
        "untrusted record is dropped as drifted, and so is a record whose source changed under "
        "an unchanged provenance and schema.",
        ("rebuild", "source-trust", "drift-denial"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[])
    forge(v, "dyn", "s-a", DYN.id, GEN, DYN.digest)
    v.ok("activate", set="A", grant="dyn")
    issue(v, "lookup", "s-a", LOOKUP, GEN)
    v.ok("activate", set="A", grant="lookup")
    # same id, same schema, same provenance mcp_config srv-a, but the source now names srv-b
    moved = Rec(src_mcp("srv-b", "lookup"), p_mcp("srv-a"), LOOKUP.schema, LOOKUP.id)
    upsert(v, LOOKUP.id, moved, GEN + 1)
    v.ok(
        "rebuild",
        {
            "dropped": [
                {"tool": LOOKUP.id, "reason": "drifted"},
                {"tool": DYN.id, "reason": "drifted"},
            ]
        },
        set="A",
        into="A",
        progressive=True,
    )
    snapshot(v, "A", "s-a", GEN + 1, 3, [BASH, READ], [])
    return v


def _rebuild_nothing_dropped() -> Vector:
    v = Vector(
        "rebuild/unrelated-drift-carries",
        "Unrelated catalog mutations never drop an activation; carried grants move to the "
        "current generation and schema_generation stays; the rebuilt set is not stale and can "
        "activate again.",
        ("rebuild", "drift-denial", "staleness"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    v.ok("activate_user", set="A", tool=LOOKUP.id)
    insert(v, GREP, GEN + 1)
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 2}, id=FMT.id)
    v.ok("catalog_rebase_past", {"generation": 100}, prior=99)
    v.ok("is_stale", {"stale": True}, set="A")
    v.fail(
        "activate_user",
        "HostActivationError.Bulk.Grant.StaleSnapshot",
        {"set": GEN, "catalog": 100},
        set="A",
        tool=NOTE.id,
    )
    v.ok("rebuild", {"dropped": []}, set="A", into="A", progressive=True)
    snapshot(v, "A", "s-a", 100, 1, [BASH, GREP, READ], [(LOOKUP, 100)])
    v.ok("is_stale", {"stale": False}, set="A")
    v.ok("activate_user", set="A", tool=NOTE.id)
    snapshot(v, "A", "s-a", 100, 2, [BASH, GREP, READ], [(LOOKUP, 100), (NOTE, 100)])
    return v


def _zero_inherit() -> Vector:
    v = Vector(
        "rebuild/carry-forward-off",
        "carry_forward false: exactly a fresh default/progressive build for the same session "
        "(no activations, schema_generation 0, nothing reported dropped); the env switch is "
        "off only for the exact value '0'.",
        ("rebuild", "zero-inheritance"),
    )
    for env, enabled in [
        (None, True),
        ("0", False),
        ("00", True),
        ("", True),
        (" 0", True),
        ("1", True),
        ("false", True),
        ("0\n", True),
    ]:
        v.ok("carry_forward_enabled", {"enabled": enabled}, env=env)
    v.protocol({"op": "carry_forward_enabled"})
    v.protocol({"op": "carry_forward_enabled", "env": 0})
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[NOTE.id])
    v.ok(
        "activate_model",
        {"applied": 2},
        set="A",
        authority="model_confirmed",
        tools=[LOOKUP.id, FMT.id],
    )
    v.ok("catalog_remove", {"removed": True, "generation": GEN + 1}, id=FMT.id)
    v.ok("rebuild", {"dropped": []}, set="A", into="Z", progressive=True, carry_forward=False)
    snapshot(v, "Z", "s-a", GEN + 1, 0, [BASH, READ], [])
    v.ok("rebuild", {"dropped": []}, set="A", into="Y", progressive=False, carry_forward=False)
    core = [r for r in DEFAULT_CORE if r is not FMT]
    snapshot(v, "Y", "s-a", GEN + 1, 0, core, [])
    v.ok(
        "rebuild",
        {"dropped": [{"tool": FMT.id, "reason": "removed"}]},
        set="A",
        into="X",
        progressive=True,
        carry_forward=True,
    )
    snapshot(v, "X", "s-a", GEN + 1, 2, [BASH, READ], [(LOOKUP, GEN + 1)])
    v.protocol({"op": "rebuild", "set": "A", "into": "W", "progressive": "yes"})
    v.protocol({"op": "rebuild", "set": "A", "into": "W", "progressive": True, "carry_forward": 0})
    v.protocol({"op": "snapshot", "set": "W"})
    return v


def _route() -> Vector:
    v = Vector(
        "route/copy-and-fallback",
        "route with a retained set returns a copy of its state as is (stale or not); mutating "
        "the copy never touches the original; without a set it builds the default core for the "
        "fallback session; fallback_session is parsed even when a set is given.",
        ("route", "zero-inheritance", "field-errors"),
    )
    standard_catalog(v)
    v.ok("set_new", name="A", session="s-a", core=[BASH.id])
    v.ok("activate_user", set="A", tool=LOOKUP.id)
    v.ok("route", {"stale": False}, set="A", into="R", fallback_session="s-fallback")
    snapshot(v, "R", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    v.ok("activate_user", set="R", tool=NOTE.id)
    v.ok("revoke", set="R", tool=LOOKUP.id)
    snapshot(v, "A", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    insert(v, GREP, GEN + 1)
    v.ok("route", {"stale": True}, set="A", into="S", fallback_session="s-fallback")
    snapshot(v, "S", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    v.ok("route", {"stale": False}, set=None, into="F", fallback_session="s-fallback")
    core = sorted([*DEFAULT_CORE, GREP], key=lambda r: r.id.encode())
    snapshot(v, "F", "s-fallback", GEN + 1, 0, core, [])
    v.fail("route", "SessionIdError.Empty", set="A", into="T", fallback_session="")
    v.fail(
        "route", "SessionIdError.ControlCharacters", set="A", into="T", fallback_session="s\u0000"
    )
    v.fail(
        "route",
        "SessionIdError.Oversized",
        {"actual": 1000, "limit": 256},
        set=None,
        into="T",
        fallback_session="f" * 1000,
    )
    v.protocol({"op": "route", "set": "nope", "into": "T", "fallback_session": "s"})
    v.protocol({"op": "route", "into": "T", "fallback_session": "s"})
    v.protocol({"op": "snapshot", "set": "T"})
    # the route copy into the same name replaces it
    v.ok("route", {"stale": True}, set="A", into="A", fallback_session="s-x")
    snapshot(v, "A", "s-a", GEN, 1, [BASH], [(LOOKUP, GEN)])
    return v


def vectors() -> list[Vector]:
    return [
        _revoke(),
        _revoke_reactivate(),
        _rebuild_carry(),
        _rebuild_now_core(),
        _rebuild_trust(),
        _rebuild_nothing_dropped(),
        _zero_inherit(),
        _route(),
    ]
