"""SPEC.md §3, the SessionToolSet: construction, staleness, activation, revocation, rebuild,
stated declaratively.

The set an operation works on is the one named ``name`` (a rebuild writes ``into``); no
operation of this section touches the catalog, its generation or a factory, and an operation
writes only its own set (§6: "an operation on one set never changes another").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]

from .common import (
    CODE,
    NO_DROPS,
    REASON,
    TRUST,
    A,
    Choice,
    Expected,
    G,
    P,
    R,
    S,
    SetValue,
    Tool,
    World,
    at,
    default_core,
    first_of,
    fresh_set,
    least,
    occurrence,
    pin_of,
    pointwise,
    progressive_core,
    put,
    some_key,
    trust_checks,
    unchanged,
)

TRUE = z3.BoolVal(True)


def new(w: World, a: dict[str, Any]) -> Expected:
    """§3: "`new(session, core_ids, catalog)`: the first id not in the catalog →
    `SessionToolSetError.UnknownCoreTool(id)`. Each core id is pinned with its record's current
    digest AND provenance. Zero activations: a new set inherits nothing from any other set." """
    ids = a["core_ids"]
    defs: list[Any] = []
    k = least(
        "spec_unknown_core",
        ids.length,
        lambda i: z3.Not(R.is_Rec(z3.Select(w.catalog, ids.at(i)))),
        defs,
    )
    code = first_of([(k < ids.length, "SessionToolSetError.UnknownCoreTool")])
    listed = occurrence("spec_core_id", ids.at, ids.length, defs)
    core = pointwise(
        "spec_new_core",
        Tool,
        lambda t: z3.If(listed.contains(t), pin_of(z3.Select(w.catalog, t)), P.NoPin),
    )
    value = fresh_set(a["session"], w.gen, core)
    sets = put(w, code == CODE["ok"], a["name"], value)
    payload = [(code != CODE["ok"], "tool", ids.at(k))]
    return Expected(code, unchanged(w, sets=sets), payload, defs)


def default_core_set(w: World, a: dict[str, Any]) -> Expected:
    """§3: "`default_core_for_catalog(session, catalog)`: core = every record whose provenance is
    not `Unverified`; zero activations"."""
    value = fresh_set(a["session"], w.gen, default_core(w))
    return Expected(CODE["ok"], unchanged(w, sets=put(w, TRUE, a["name"], value)))


def progressive_core_set(w: World, a: dict[str, Any]) -> Expected:
    """§3: "`progressive_core_for_catalog(session, catalog)`: core = those of `builtin:bash read
    write edit grep find ls search_tools activate_tools search_skills load_skill` present in the
    catalog" (a new set: zero activations, `schema_generation` 0)."""
    value = fresh_set(a["session"], w.gen, progressive_core(w))
    return Expected(CODE["ok"], unchanged(w, sets=put(w, TRUE, a["name"], value)))


def is_stale(w: World, a: dict[str, Any]) -> Expected:
    """§3: "`is_stale(catalog)` ⇔ set generation ≠ catalog generation. Staleness is represented,
    never absorbed" (a query: nothing changes)."""
    s = z3.Select(w.sets, a["name"])
    return Expected(CODE["ok"], unchanged(w), [(TRUE, "stale", S.set_catgen(s) != w.gen)])


def activation_checks(w: World, s: Any, g: Any) -> list[tuple[Any, str]]:
    """§3: "`activate(grant, catalog)` validates in this order ...: grant session ≠ set session →
    `ActivationError.SessionMismatch`; tool not cataloged → `UnknownTool(id)`; grant generation ≠
    catalog generation → `StaleGeneration{grant, catalog}`; grant digest ≠ record digest →
    `DigestMismatch(id)`; set generation ≠ catalog generation → `StaleSnapshot{set, catalog}`
    ...; already activated → `AlreadyActivated(id)`; in core → `AlreadyCore(id)`."  Each check
    as (failing condition, variant)."""
    t = G.g_tool(g)
    rec = z3.Select(w.catalog, t)
    return [
        (G.g_session(g) != S.set_session(s), "SessionMismatch"),
        (z3.Not(R.is_Rec(rec)), "UnknownTool"),
        (G.g_gen(g) != w.gen, "StaleGeneration"),
        (G.g_digest(g) != R.rec_digest(rec), "DigestMismatch"),
        (S.set_catgen(s) != w.gen, "StaleSnapshot"),
        (A.is_Act(z3.Select(S.set_acts(s), t)), "AlreadyActivated"),
        (P.is_Pin(z3.Select(S.set_core(s), t)), "AlreadyCore"),
    ]


def recorded(w: World, g: Any) -> Any:
    """§3: activate "records the activation with the record's current provenance"."""
    rec = z3.Select(w.catalog, G.g_tool(g))
    return A.Act(G.g_session(g), G.g_gen(g), G.g_digest(g), R.rec_prov(rec))


def grant_payload(w: World, s: Any, g: Any, when: Any) -> list[tuple[Any, str, Any]]:
    """The payload of an activation error: `(id)`, `{grant, catalog}` and `{set, catalog}`."""
    return [
        (when, "tool", G.g_tool(g)),
        (when, "grant", G.g_gen(g)),
        (when, "catalog", w.gen),
        (when, "set", S.set_catgen(s)),
    ]


def activate(w: World, a: dict[str, Any]) -> Expected:
    """§3 `activate`: the checks of `activation_checks`, "then records the activation with the
    record's current provenance and advances `schema_generation` by one"."""
    name, g = a["name"], a["grant"]
    s = z3.Select(w.sets, name)
    code = first_of([(c, f"ActivationError.{n}") for c, n in activation_checks(w, s, g)])
    new_set = S.TSet(
        S.set_session(s),
        S.set_catgen(s),
        S.set_schemagen(s) + 1,
        S.set_core(s),
        z3.Store(S.set_acts(s), G.g_tool(g), recorded(w, g)),
    )
    sets = put(w, code == CODE["ok"], name, new_set)
    return Expected(code, unchanged(w, sets=sets), grant_payload(w, s, g, TRUE))


def batch(
    w: World,
    name: Any,
    grant_at: Callable[[Any], Any],
    n: Any,
    prefix: str,
    defs: list[Any],
    guard: Any = TRUE,
) -> tuple[Any, Any, Any]:
    """§3: "`activate_many(grants, catalog)`: empty → returns 0, changes nothing. Otherwise, for
    each grant in request order: a tool id seen earlier in the batch →
    `BulkActivationError.DuplicateRequest(id)`; the `activate` validation, wrapped as
    `BulkActivationError.Grant(…)`; source trust → `UntrustedSource(id)` or
    `SourceProvenanceMismatch(id)`. The first failure rejects the whole batch with zero mutation.
    On success apply all in ToolId order, advance `schema_generation` by exactly one, return the
    count."  ``prefix`` is how the error is wrapped (``BulkActivationError``, or §5's
    ``HostActivationError.Bulk``); the batch runs only when ``guard`` holds (§5: after
    issuance).  Returns (code, sets after, the first failing grant)."""
    s = z3.Select(w.sets, name)
    seen = occurrence("spec_batch_tool", lambda i: G.g_tool(grant_at(i)), n, defs)

    def code_at(i: Any) -> Any:
        g = grant_at(i)
        rec = z3.Select(w.catalog, G.g_tool(g))
        checks = [(seen.first(G.g_tool(g)) < i, "DuplicateRequest")]
        checks += [(c, f"Grant.{v}") for c, v in activation_checks(w, s, g)]
        checks += trust_checks(rec)
        return first_of([(c, f"{prefix}.{v}") for c, v in checks])

    k = least("spec_batch_failure", n, lambda i: code_at(i) != CODE["ok"], defs)
    code = z3.If(k < n, code_at(k), CODE["ok"])

    def slot(t: Any) -> Any:
        return z3.If(
            seen.contains(t), recorded(w, grant_at(seen.first(t))), z3.Select(S.set_acts(s), t)
        )

    acts = pointwise("spec_batch_acts", Tool, slot)
    applied = SetValue(
        S.set_session(s), S.set_catgen(s), S.set_schemagen(s) + 1, S.set_core(s), acts
    )
    sets = put(w, z3.And(guard, code == CODE["ok"], n > 0), name, applied)
    return code, sets, grant_at(k)


def activate_many(w: World, a: dict[str, Any]) -> Expected:
    """§3 `activate_many` (see `batch`): the first failing grant's error and tool, else the
    batch applied; the result counts the grants."""
    name, grants = a["name"], a["grants"]
    defs: list[Any] = []
    s = z3.Select(w.sets, name)
    code, sets, g = batch(w, name, grants.at, grants.length, "BulkActivationError", defs)
    payload = [
        *grant_payload(w, s, g, code != CODE["ok"]),
        (code == CODE["ok"], "applied", grants.length),
    ]
    cases = {"rejected": code != CODE["ok"], "applied": code == CODE["ok"]}
    return Expected(code, unchanged(w, sets=sets), payload, defs, cases)


def revoke(w: World, a: dict[str, Any]) -> Expected:
    """§3: "`revoke_exact(id)`: core → `ExactRevocationError.CoreTool(id)`; not activated →
    `NotActivated(id)`; else remove it and advance `schema_generation` by one." """
    name, t = a["name"], a["tool"]
    s = z3.Select(w.sets, name)
    code = first_of(
        [
            (P.is_Pin(z3.Select(S.set_core(s), t)), "ExactRevocationError.CoreTool"),
            (z3.Not(A.is_Act(z3.Select(S.set_acts(s), t))), "ExactRevocationError.NotActivated"),
        ]
    )
    new_set = S.TSet(
        S.set_session(s),
        S.set_catgen(s),
        S.set_schemagen(s) + 1,
        S.set_core(s),
        z3.Store(S.set_acts(s), t, A.NoAct),
    )
    sets = put(w, code == CODE["ok"], name, new_set)
    return Expected(code, unchanged(w, sets=sets), [(TRUE, "tool", t)])


def rebuild(w: World, a: dict[str, Any]) -> Expected:
    """§3: "`rebuilt_for_catalog(catalog, progressive)` returns a new set and a list of dropped
    activations; the old set is untouched. The core is derived as a fresh progressive/default
    build would. Each old activation, in ToolId order: now core → nothing carried, nothing
    reported; record absent → `DroppedActivation(id, Removed)`; record present with digest and
    provenance equal to the pins and trusted → carried, re-granted at the current generation;
    otherwise → `Dropped(id, Drifted)`. New `schema_generation` = old + 1 if anything was
    dropped, else old."  And "When [carry-forward is] false, the runtime rebuilds with zero
    inheritance: exactly a fresh default/progressive set (no activations, `schema_generation`
    0)".  The new set (of the old set's session, at the current generation) is stored under
    ``into``; ``name`` keeps the old one."""
    old = z3.Select(w.sets, a["name"])
    defs: list[Any] = []
    core = Choice(a["progressive"], progressive_core(w), default_core(w))

    def considered(t: Any) -> Any:  # an old activation that is not now core
        return z3.And(A.is_Act(z3.Select(S.set_acts(old), t)), z3.Not(P.is_Pin(at(core, t))))

    def matches(t: Any) -> Any:
        act, rec = z3.Select(S.set_acts(old), t), z3.Select(w.catalog, t)
        return z3.And(
            R.is_Rec(rec),
            R.rec_digest(rec) == A.act_digest(act),
            R.rec_prov(rec) == A.act_prov(act),
            R.rec_trust(rec) == TRUST["trusted"],
        )

    def reason(t: Any) -> Any:
        absent = z3.Not(R.is_Rec(z3.Select(w.catalog, t)))
        return z3.If(
            considered(t),
            z3.If(absent, REASON["removed"], z3.If(matches(t), REASON["none"], REASON["drifted"])),
            REASON["none"],
        )

    def carried(t: Any) -> Any:
        act = z3.Select(S.set_acts(old), t)
        regranted = A.Act(A.act_session(act), w.gen, A.act_digest(act), A.act_prov(act))
        return z3.If(z3.And(considered(t), matches(t)), regranted, A.NoAct)

    reasons = pointwise("spec_drop_reasons", Tool, reason)
    acts = pointwise("spec_carried", Tool, carried)
    dropped = some_key(
        "spec_dropped", Tool, lambda t: z3.And(considered(t), z3.Not(matches(t))), defs
    )
    schemagen = S.set_schemagen(old) + z3.If(dropped, 1, 0)
    kept = SetValue(S.set_session(old), w.gen, schemagen, core, acts)
    fresh = fresh_set(S.set_session(old), w.gen, core)
    value = Choice(a["carry_forward"], kept, fresh)
    report = Choice(a["carry_forward"], reasons, NO_DROPS)
    sets = put(w, TRUE, a["into"], value)
    return Expected(CODE["ok"], unchanged(w, sets=sets), [(TRUE, "dropped", report)], defs)
