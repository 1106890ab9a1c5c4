"""SPEC.md §5, the host entry points: issuance, user and model-initiated activation, routing,
stated declaratively.  The authority value of model-initiated activation is the transition's
``confirmed`` (`ModelConfirmed`) or not (`Unauthorized`)."""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]

from .common import (
    CODE,
    Choice,
    Expected,
    G,
    R,
    S,
    World,
    default_core,
    first_of,
    fresh_set,
    least,
    put,
    trust_checks,
    unchanged,
)
from .sets import batch, grant_payload

TRUE = z3.BoolVal(True)


def issuance_checks(w: World, t: Any) -> list[tuple[Any, str]]:
    """§5: "`issue_exact_grant(catalog, session, id)`: not cataloged →
    `GrantIssuanceError.UnknownTool(id)`; source trust → `UntrustedSource(id)` /
    `SourceProvenanceMismatch(id)`"."""
    rec = z3.Select(w.catalog, t)
    return [(z3.Not(R.is_Rec(rec)), "UnknownTool"), *trust_checks(rec)]


def issued(w: World, session: Any, t: Any) -> Any:
    """§5: "else a grant at the current generation and digest" (§1.5: `(session_id, tool_id,
    catalog_generation, schema_digest)`)."""
    return G.MkGrant(session, t, w.gen, R.rec_digest(z3.Select(w.catalog, t)))


def issue_grant(w: World, a: dict[str, Any]) -> Expected:
    """§5 `issue_exact_grant`: the checks of `issuance_checks`, else the grant of `issued`.
    "Pure: no factory call, no set mutation"."""
    t = a["tool"]
    code = first_of([(c, f"GrantIssuanceError.{v}") for c, v in issuance_checks(w, t)])
    payload = [
        (TRUE, "tool", t),
        (TRUE, "generation", w.gen),
        (code == CODE["ok"], "grant", issued(w, a["session"], t)),
    ]
    return Expected(code, unchanged(w), payload)


def activate_user(w: World, a: dict[str, Any]) -> Expected:
    """§5: "`activate_exact_for_user(set, catalog, id)`: explicit user request, no authority
    value: issue (errors as `HostActivationError.Issuance(…)`), then `activate_many([grant])`
    (errors as `HostActivationError.Bulk(…)`)" - the grant issued for the set's session."""
    name, t = a["name"], a["tool"]
    s = z3.Select(w.sets, name)
    defs: list[Any] = []
    g = issued(w, S.set_session(s), t)
    iss = [(c, f"HostActivationError.Issuance.{v}") for c, v in issuance_checks(w, t)]
    iss_ok = first_of(iss) == CODE["ok"]
    bulk_code, sets, _g = batch(
        w, name, lambda _i: g, z3.IntVal(1), "HostActivationError.Bulk", defs, iss_ok
    )
    code = first_of(iss, bulk_code)
    failed = code != CODE["ok"]
    payload = [(TRUE, "tool", t), *grant_payload(w, s, g, z3.And(iss_ok, failed))[1:]]
    return Expected(code, unchanged(w, sets=sets), payload, defs)


def activate_model(w: World, a: dict[str, Any]) -> Expected:
    """§5: "`activate_model_initiated(authority, set, catalog, ids)`: authority `Unauthorized` →
    `HostActivationError.ConfirmationRequired` before anything else; `ModelConfirmed` → issue
    every grant in request order (first failure → `Issuance(…)`, nothing applied), then
    `activate_many` (`Bulk(…)`)."  The grants are issued for the set's session."""
    name, ids = a["name"], a["tools"]
    s = z3.Select(w.sets, name)
    n = ids.length
    defs: list[Any] = []

    def issuance_code(i: Any) -> Any:
        checks = issuance_checks(w, ids.at(i))
        return first_of([(c, f"HostActivationError.Issuance.{v}") for c, v in checks])

    ki = least("spec_issuance_failure", n, lambda i: issuance_code(i) != CODE["ok"], defs)
    refused = z3.Not(a["confirmed"])
    iss_failed = ki < n
    bulk_code, sets, g = batch(
        w,
        name,
        lambda i: issued(w, S.set_session(s), ids.at(i)),
        n,
        "HostActivationError.Bulk",
        defs,
        z3.And(a["confirmed"], z3.Not(iss_failed)),
    )
    code = z3.If(
        refused,
        CODE["HostActivationError.ConfirmationRequired"],
        z3.If(iss_failed, issuance_code(ki), bulk_code),
    )
    bulk_failed = z3.And(a["confirmed"], z3.Not(iss_failed), bulk_code != CODE["ok"])
    payload = [
        (z3.And(a["confirmed"], iss_failed), "tool", ids.at(ki)),
        *grant_payload(w, s, g, bulk_failed),
    ]
    post = unchanged(w, sets=sets)
    cases = {
        "refused": refused,
        "issuance_rejected": z3.And(a["confirmed"], iss_failed),
        "bulk_rejected": bulk_failed,
        "applied": z3.And(a["confirmed"], z3.Not(iss_failed), bulk_code == CODE["ok"]),
    }
    return Expected(code, post, payload, defs, cases)


def route(w: World, a: dict[str, Any]) -> Expected:
    """§5: "`route_session_set(retained, catalog, fallback_session)`: with a retained shared set,
    return a copy of its current state as is (activations and pinned generation included, stale
    or not); with none, `default_core_for_catalog(fallback_session(), catalog)`"; the set routed
    is stored under ``into`` and reports whether it is stale (§3 `is_stale`)."""
    kept = z3.Select(w.sets, a["retained"])
    fallback = fresh_set(a["fallback_session"], w.gen, default_core(w))
    sets = put(w, TRUE, a["into"], Choice(a["has_retained"], kept, fallback))
    stale = z3.And(a["has_retained"], S.set_catgen(kept) != w.gen)  # a fresh set is current
    return Expected(CODE["ok"], unchanged(w, sets=sets), [(TRUE, "stale", stale)])
