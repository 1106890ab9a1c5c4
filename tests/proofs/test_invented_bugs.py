"""Model bugs invented without reading the obligations, each breaking a SPEC.md sentence, each
refuted by a named proof obligation.

Each bug is injected by monkeypatching the operation table (a wrapper around the real
transition, written with the algebra so both interpretations run it) or a helper of the model;
the obligation's proof query must then be satisfiable (a counterexample: the row reads
`refuted`), while on the unpatched model it is unsat (proved).  Bugs the proofs do not refute are
not here (they end `unknown`, or pass): a test of them would assert nothing about a proof row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from session_toolset_model import host, sets
from session_toolset_model.algebra import MAX_GENERATION, Algebra, Term
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.state import Result, State, is_ok
from session_toolset_proofs import steps
from session_toolset_proofs.obligations import OBLIGATIONS
from session_toolset_proofs.solve import check

pytestmark = pytest.mark.spec("2", "3", "4", "5")

BY_NAME = {ob.name: ob for ob in OBLIGATIONS}

Wrap = Callable[[Callable[..., Result]], Callable[..., Result]]


def _with(r: Result, state: State, **extras: Term) -> Result:
    return Result(r.code, state, {**r.extras, **extras})


def upsert_two_advances(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§2: upsert is "one mutation" and "every successful mutation advances the generation by
    exactly one" - the bug advances twice when it drops another id (remove + insert)."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        other = alg.and_(a["has_replaced"], alg.not_(alg.eq(a["replaced"], a["tool"])))
        twice = alg.and_(is_ok(alg, r.code), other)
        gen = alg.ite(twice, alg.add(r.state.gen, alg.int_(1)), r.state.gen)
        post = State(r.state.catalog, gen, r.state.calls, r.state.sets)
        return _with(r, post, generation=gen)

    return run


def remove_absent_exhausted(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§2: "`remove(id)`: absent → no change (not an error)" - the bug checks exhaustion first,
    so removing an absent id at 2^64-1 fails GenerationExhausted."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        absent = alg.not_(alg.is_some(alg.select(st.catalog, a["tool"])))
        top = alg.and_(absent, alg.eq(st.gen, alg.int_(MAX_GENERATION)))
        code = alg.ite(top, alg.code("CatalogError.GenerationExhausted"), r.code)
        return Result(code, r.state, r.extras)

    return run


def rebase_noop_when_past(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§2: "`rebase_past(prior)`: generation becomes max(current, prior)+1" - the bug leaves the
    generation alone when it is already past ``prior``."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        past = alg.and_(is_ok(alg, r.code), alg.lt(a["prior"], st.gen))
        gen = alg.ite(past, st.gen, r.state.gen)
        return _with(r, State(r.state.catalog, gen, r.state.calls, r.state.sets), generation=gen)

    return run


def rebuild_not_regranted(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§3 rebuild: a matching activation is "carried, re-granted at the current generation" -
    the bug carries it with its old grant generation."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        old_acts = alg.get(alg.select(st.sets, a["name"]), "acts")
        new = alg.select(r.state.sets, a["into"])

        def old_gen(t: Term, act: Term) -> Term:
            kept = alg.some(
                "act",
                session=alg.get(act, "session"),
                gen=alg.get(alg.select(old_acts, t), "gen"),
                digest=alg.get(act, "digest"),
                prov=alg.get(act, "prov"),
            )
            return alg.ite(alg.is_some(act), kept, act)

        acts = alg.update_map(alg.get(new, "acts"), alg.keys(old_acts), old_gen)
        changed = alg.store(r.state.sets, a["into"], sets.with_fields(alg, new, acts=acts))
        return _with(r, State(r.state.catalog, r.state.gen, r.state.calls, changed))

    return run


def route_absorbs_staleness(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§5 route: "return a copy of its current state as is (activations and pinned generation
    included, stale or not)" - the bug re-pins the copy to the current generation."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        routed = alg.select(r.state.sets, a["into"])
        fresh = sets.with_fields(alg, routed, catgen=st.gen)
        changed = alg.ite(
            a["has_retained"], alg.store(r.state.sets, a["into"], fresh), r.state.sets
        )
        stale = alg.ite(a["has_retained"], alg.bool_(False), r.extras["stale"])
        return _with(r, State(r.state.catalog, r.state.gen, r.state.calls, changed), stale=stale)

    return run


def _pins(alg: Algebra, st: State, a: dict[str, Term]) -> tuple[Term, Term, Term, Term]:
    s = alg.select(st.sets, a["name"])
    rec = alg.select(st.catalog, a["tool"])
    pin = alg.select(alg.get(s, "core"), a["tool"])
    act = alg.select(alg.get(s, "acts"), a["tool"])
    return rec, pin, act, alg.is_some(pin)


def gate_provenance_first(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§4: "checks in order" - the bug runs step 3 (pinned provenance) before step 2 (digest),
    so a tool whose digest and provenance both changed is denied SourceProvenanceMismatch."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        rec, pin, act, core = _pins(alg, st, a)
        listed = alg.or_(core, alg.is_some(act))
        pinned = alg.ite(core, alg.get(pin, "prov"), alg.get(act, "prov"))
        moved = alg.not_(alg.eq(pinned, alg.get(rec, "prov")))
        first = alg.and_(alg.is_some(rec), listed, moved)
        code = alg.ite(first, alg.code("ToolAuthorizationError.SourceProvenanceMismatch"), r.code)
        return Result(code, r.state, r.extras)

    return run


def gate_factory_twice_exact(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§4 step 5: "call the record's factory, exactly once" - the bug acquires an activated
    (exact-basis) tool twice."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        _rec, _pin, act, core = _pins(alg, st, a)
        again = alg.and_(is_ok(alg, r.code), alg.not_(core), alg.is_some(act))
        calls = r.state.calls
        bumped = alg.store(calls, a["tool"], alg.add(alg.select(calls, a["tool"]), alg.int_(1)))
        post = State(r.state.catalog, r.state.gen, alg.ite(again, bumped, calls), r.state.sets)
        return _with(r, post)

    return run


def user_activation_idempotent(orig: Callable[..., Result]) -> Callable[..., Result]:
    """§5: user activation is issue "then `activate_many([grant])` (errors as
    `HostActivationError.Bulk(…)`)" - the bug answers ok for an already activated tool."""

    def run(alg: Algebra, v: Variant, st: State, **a: Term) -> Result:
        r = orig(alg, v, st, **a)
        again = alg.eq(r.code, alg.code("HostActivationError.Bulk.Grant.AlreadyActivated"))
        return Result(alg.ite(again, alg.code("ok"), r.code), r.state, r.extras)

    return run


TRANSITION_BUGS: dict[str, tuple[str, Wrap, tuple[str, ...]]] = {
    "upsert_two_advances": (
        "catalog_upsert",
        upsert_two_advances,
        ("functional.catalog_upsert", "counters.generation_advances_by_one.catalog_upsert"),
    ),
    "remove_absent_exhausted": (
        "catalog_remove",
        remove_absent_exhausted,
        ("functional.catalog_remove", "counters.checked_next_exact.catalog_remove"),
    ),
    "rebase_noop_when_past": (
        "catalog_rebase_past",
        rebase_noop_when_past,
        ("functional.catalog_rebase_past",),
    ),
    "rebuild_not_regranted": (
        "rebuild",
        rebuild_not_regranted,
        ("functional.rebuild", "drift_denial.rebuild_carries_only_matching"),
    ),
    "route_absorbs_staleness": (
        "route",
        route_absorbs_staleness,
        ("functional.route", "postcondition.route"),
    ),
    "gate_provenance_first": ("authorize", gate_provenance_first, ("functional.authorize",)),
    "gate_factory_twice_exact": (
        "authorize",
        gate_factory_twice_exact,
        ("functional.authorize", "gate.factory_only_on_success"),
    ),
    "user_activation_idempotent": (
        "activate_user",
        user_activation_idempotent,
        ("functional.activate_user",),
    ),
}


def _status(name: str) -> str:
    return check(lambda: BY_NAME[name].build(DEFAULT), True).status


@pytest.fixture
def fresh_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Obligations share cached transition steps: a patched model must build its own."""
    monkeypatch.setattr(steps, "_STEPS", {})


@pytest.mark.parametrize("bug", sorted(TRANSITION_BUGS))
def test_invented_transition_bug_is_refuted(
    bug: str, monkeypatch: pytest.MonkeyPatch, fresh_steps: None
) -> None:
    opname, wrap, names = TRANSITION_BUGS[bug]
    for name in names:
        assert _status(name) == "unsat", name  # proved on the model as it is
    op = OPS[opname]
    monkeypatch.setitem(OPS, opname, dataclasses.replace(op, fn=wrap(op.fn)))
    monkeypatch.setattr(steps, "_STEPS", {})
    for name in names:
        assert _status(name) == "sat", name  # a counterexample: the row reads refuted


def _issuance_accepts_mismatch(alg: Algebra, v: Variant, st: State, tool: Term) -> Any:
    """§5: issuance fails "source trust → `UntrustedSource(id)` / `SourceProvenanceMismatch(id)`"
    - the bug lets a provenance-mismatch record through."""
    code = ORIGINAL_ISSUANCE(alg, v, st, tool)
    mismatch = alg.eq(code, alg.code("GrantIssuanceError.SourceProvenanceMismatch"))
    return alg.ite(mismatch, alg.code("ok"), code)


def _default_core_by_trust(alg: Algebra, v: Variant, st: State) -> Term:
    """§3: default core = "every record whose provenance is not `Unverified`" - the bug keeps
    only trusted records (a record of a mismatched source is not Unverified, yet untrusted)."""

    def trusted(t: Term) -> Callable[[Term], Term]:
        rec = alg.select(st.catalog, t)
        return lambda _prov: alg.eq(alg.get(rec, "trust"), alg.trust("trusted"))

    return alg.update_map(
        alg.empty_map("pin"),
        alg.keys(st.catalog),
        lambda t, old: sets._pin_if(alg, st, t, old, trusted(t)),
    )


ORIGINAL_ISSUANCE = host.issuance_check

HELPER_BUGS: dict[str, tuple[Any, str, Any, tuple[str, ...]]] = {
    "issue_accepts_mismatch": (
        host,
        "issuance_check",
        _issuance_accepts_mismatch,
        ("functional.issue_grant", "functional.activate_user"),
    ),
    "default_core_by_trust": (
        sets,
        "default_core",
        _default_core_by_trust,
        ("functional.set_default_core", "postcondition.set_default_core"),
    ),
}


@pytest.mark.parametrize("bug", sorted(HELPER_BUGS))
def test_invented_helper_bug_is_refuted(
    bug: str, monkeypatch: pytest.MonkeyPatch, fresh_steps: None
) -> None:
    module, attr, buggy, names = HELPER_BUGS[bug]
    for name in names:
        assert _status(name) == "unsat", name
    monkeypatch.setattr(module, attr, buggy)
    monkeypatch.setattr(steps, "_STEPS", {})
    for name in names:
        assert _status(name) == "sat", name
