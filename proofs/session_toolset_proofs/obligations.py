"""Named proof obligations, one per SPEC.md section 6 invariant and transition.

Each obligation builds a `Query` under a `Variant`: premises (always including the model's side
definitions), a goal, and the terms shown in a counterexample.  *Proved* means premises and the
negated goal are unsatisfiable; the *witness* is the premises (plus a hint such as "the operation
succeeded") being satisfiable.  Every obligation names the mutants that must refute it and the
profiles expected to fail it (`EXPECTED_PROFILE_REFUTATIONS`).

Obligations about one transition quantify over an arbitrary state satisfying the invariant and
arbitrary arguments (unbounded: any number of tools, sets, grants).  Consecution for the three
read-only transitions (`is_stale`, `issue_grant`, `authorize`) is a corollary of their exact-effect
obligations (`*.pure`, `gate.factory_only_on_success`), which the invariant does not mention
except through sets and records they provably leave unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import Variant
from session_toolset_model.state import Result, State, initial, same
from session_toolset_model.z3_interp import Z3Algebra, Z3Seq

from .encode import fresh_args, fresh_state, invariant, invariant_premise


@dataclass
class Query:
    """Premises, goal and counterexample terms of one obligation under one variant."""

    alg: Z3Algebra
    premises: list[Any]
    goal: Any
    witness: list[Any] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    """The transitions the query is about (pre-state and arguments), for pinning."""


@dataclass(frozen=True)
class Obligation:
    name: str
    kind: str
    invariant: str
    op: str | None
    build: Callable[[Variant], Query]
    refuted_by: tuple[str, ...]


EXPECTED_PROFILE_REFUTATIONS: dict[str, tuple[str, ...]] = {
    "per-tool-digest": ("gate.soundness",),
    "generation-strict": ("gate.exactness",),
}


SEARCH_BOUND: ContextVar[int | None] = ContextVar("SEARCH_BOUND", default=None)
"""Set by the solver driver while building a query to *search* for a model (see `solve`)."""

FINITE_STATES: ContextVar[bool] = ContextVar("FINITE_STATES", default=True)
"""With `SEARCH_BOUND` set: whether pre-states are finite-support search states (`encode`).
Confirmations of pinned instances (`search`) use bounded loops but unrestricted states."""


@dataclass
class Step:
    """One transition from an arbitrary state satisfying the invariant."""

    alg: Z3Algebra
    pre: State
    args: dict[str, Any]
    res: Result
    premises: list[Any]

    @property
    def post(self) -> State:
        return self.res.state

    @property
    def ok(self) -> Any:
        return self.res.code == zi.OUTCOME["ok"]

    def trace(self) -> dict[str, Any]:
        """Terms shown in a counterexample: outcome, generations, scalar args, batch lengths."""
        out: dict[str, Any] = {
            "outcome": self.res.code,
            "gen": self.pre.gen,
            "gen_after": self.post.gen,
        }
        for k, v in self.args.items():
            out[k] = v.length if isinstance(v, Z3Seq) else v
        return out

    def query(
        self, goal: Any, extra: list[Any] | None = None, witness: list[Any] | None = None
    ) -> Query:
        return Query(
            self.alg, self.premises + (extra or []), goal, witness or [], self.trace(), [self]
        )


_STEPS: dict[tuple[str, Variant, int | None, bool], Step] = {}
"""Plain steps (`step` with default arguments) by (op, variant, search bound, finite states)."""


def _copy(s: Step) -> Step:
    """The cached step with its own algebra (side definitions a builder adds stay its own)."""
    alg = copy.copy(s.alg)
    alg.defs = list(s.alg.defs)
    alg.seqs = list(s.alg.seqs)
    alg._first_occ = dict(s.alg._first_occ)
    return Step(alg, s.pre, s.args, s.res, list(s.premises))


def step(
    opname: str,
    v: Variant,
    prefix: str = "s",
    alg: Z3Algebra | None = None,
    pre: State | None = None,
    args: dict[str, Any] | None = None,
) -> Step:
    """One transition of ``opname`` under ``v`` from an arbitrary state satisfying the invariant.

    Plain steps are built once per (op, variant, search mode) and shared by the obligations
    about that op (Z3 terms are immutable; each query is checked by its own fresh solver)."""
    if prefix == "s" and alg is None and pre is None and args is None:
        key = (opname, v, SEARCH_BOUND.get(), FINITE_STATES.get())
        if key not in _STEPS:
            _STEPS[key] = _build_step(opname, v, prefix, None, None, None)
        return _copy(_STEPS[key])
    return _build_step(opname, v, prefix, alg, pre, args)


def _build_step(
    opname: str,
    v: Variant,
    prefix: str,
    alg: Z3Algebra | None,
    pre: State | None,
    args: dict[str, Any] | None,
) -> Step:
    alg = alg or Z3Algebra(SEARCH_BOUND.get())
    op = OPS[opname]
    st = pre or fresh_state(prefix, search=SEARCH_BOUND.get() is not None and FINITE_STATES.get())
    a = args if args is not None else fresh_args(alg, op, prefix)
    res = op.run(alg, v, st, a)
    return Step(alg, st, a, res, [invariant_premise(st), op.pre(alg, st, a)])


def sel(m: Any, k: Any) -> Any:
    return z3.Select(m, k)


S = zi.SetOpt
A = zi.ActOpt
P = zi.PinOpt
R = zi.RecOpt
G = zi.GrantS

ALL_OPS = tuple(OPS)
READ_ONLY = ("is_stale", "issue_grant", "authorize")
REJECTING = tuple(n for n, op in OPS.items() if len(op.outcomes) > 1)
CATALOG_OPS = tuple(n for n, op in OPS.items() if op.catalog)
FRESH = ("set_new", "set_default_core", "set_progressive_core", "rebuild", "route")
IN_PLACE = ("activate", "activate_many", "revoke", "activate_user", "activate_model")

STEP_MUTANTS = {
    "catalog_insert": ("unchecked_generation",),
    "catalog_upsert": ("unchecked_generation",),
    "catalog_remove": ("unchecked_generation",),
    "catalog_rebase_past": ("unchecked_generation", "rebase_uses_prior"),
    "set_new": ("fresh_set_inherits",),
    "set_default_core": ("fresh_set_inherits",),
    "set_progressive_core": ("fresh_set_inherits",),
    "rebuild": ("fresh_set_inherits",),
    "route": ("fresh_set_inherits",),
    "activate": ("no_session_check", "core_activation_overlap"),
    "activate_many": ("no_session_check", "core_activation_overlap"),
    "revoke": ("revoke_decrements",),
    "activate_user": ("core_activation_overlap",),
    "activate_model": ("core_activation_overlap",),
}
NO_PARTIAL_MUTANTS = {
    "catalog_insert": ("insert_dup_overwrites",),
    "catalog_upsert": ("upsert_drops_before_check",),
    "catalog_remove": ("remove_before_generation_check",),
    "catalog_rebase_past": ("rebase_overflow_sticks",),
    "set_new": ("set_new_partial",),
    "activate": ("activate_bumps_before_validate",),
    "activate_many": ("batch_partial", "batch_bumps_before_validate"),
    "revoke": ("revoke_bumps_on_reject",),
    "authorize": ("gate_factory_on_denial",),
    "issue_grant": ("issue_grant_calls_factory",),
    "activate_user": ("batch_bumps_before_validate",),
    "activate_model": ("batch_bumps_before_validate", "batch_partial", "model_issuance_partial"),
}
FRAME_MUTANTS = {
    **{n: ("catalog_absorbs_staleness",) for n in CATALOG_OPS},
    **{n: ("one_set_per_session",) for n in FRESH},
    "rebuild": ("rebuild_touches_source", "one_set_per_session"),
    **{n: ("activation_by_session",) for n in IN_PLACE},
    "is_stale": ("is_stale_absorbs",),
    "authorize": ("gate_absorbs_staleness",),
    "issue_grant": ("issue_grant_calls_factory",),
}


def _init(v: Variant) -> Query:
    alg = Z3Algebra(SEARCH_BOUND.get())
    return Query(alg, [], invariant(initial(alg, v)))


def _consecution(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        return s.query(invariant(s.post), witness=[s.ok])

    return build


def _no_partial(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        return s.query(same(s.alg, s.pre, s.post), [z3.Not(s.ok)])

    return build


def _frame(opname: str) -> Callable[[Variant], Query]:
    op = OPS[opname]

    def build(v: Variant) -> Query:
        s = step(opname, v)
        n = z3.FreshConst(zi.SetName, "n")
        t = z3.FreshConst(zi.Tool, "t")
        targets = [s.args[a] for a in op.set_args]
        parts = [
            z3.ForAll(
                [n],
                z3.Implies(
                    z3.And(*[n != x for x in targets]), sel(s.post.sets, n) == sel(s.pre.sets, n)
                ),
            )
        ]
        if not op.catalog:
            parts += [s.post.catalog == s.pre.catalog, s.post.gen == s.pre.gen]
        if opname == "authorize":
            parts.append(
                z3.ForAll(
                    [t],
                    z3.Implies(t != s.args["tool"], sel(s.post.calls, t) == sel(s.pre.calls, t)),
                )
            )
        else:
            parts.append(s.post.calls == s.pre.calls)
        return s.query(z3.And(*parts), witness=[s.ok])

    return build


def _fresh_target(s: Step, opname: str) -> tuple[Any, Any, list[Any]]:
    """(new set, expected session, extra premises) of a set-creating transition."""
    a = s.args
    if opname == "rebuild":
        return (
            sel(s.post.sets, a["into"]),
            S.set_session(sel(s.pre.sets, a["name"])),
            [z3.Not(a["carry_forward"])],
        )
    if opname == "route":
        return sel(s.post.sets, a["into"]), a["fallback_session"], [z3.Not(a["has_retained"])]
    return sel(s.post.sets, a["name"]), a["session"], []


def _fresh_empty(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        new, session, extra = _fresh_target(s, opname)
        goal = z3.And(
            S.is_TSet(new),
            S.set_acts(new) == z3.K(zi.Tool, A.NoAct),
            S.set_schemagen(new) == 0,
            S.set_catgen(new) == s.pre.gen,
            S.set_session(new) == session,
        )
        return s.query(goal, [s.ok, *extra])

    return build


def _self_composition(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s1 = step(opname, v, "l")
        s2 = step(opname, v, "r", alg=s1.alg, args=s1.args)
        new1, sess1, extra = _fresh_target(s1, opname)
        new2, sess2, _ = _fresh_target(s2, opname)
        premises = [
            *s2.premises,
            s1.pre.catalog == s2.pre.catalog,
            s1.pre.gen == s2.pre.gen,
            sess1 == sess2,
            s1.ok,
        ]
        q = s1.query(z3.And(s2.ok, new1 == new2), premises + extra)
        q.steps.append(s2)
        return q

    return build


def _stale_iff(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        key = "name" if opname == "is_stale" else "into"
        sets = s.pre.sets if opname == "is_stale" else s.post.sets
        goal = s.res.extras["stale"] == (S.set_catgen(sel(sets, s.args[key])) != s.pre.gen)
        return s.query(goal, witness=[s.res.extras["stale"]])

    return build


def _pure(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        return s.query(same(s.alg, s.pre, s.post), witness=[s.ok])

    return build


def _gate_parts(s: Step) -> dict[str, Any]:
    st = sel(s.pre.sets, s.args["name"])
    t = s.args["tool"]
    rec = sel(s.pre.catalog, t)
    pin = sel(S.set_core(st), t)
    act = sel(S.set_acts(st), t)
    core_ok = z3.And(
        P.is_Pin(pin), P.pin_digest(pin) == R.rec_digest(rec), P.pin_prov(pin) == R.rec_prov(rec)
    )
    act_ok = z3.And(
        z3.Not(P.is_Pin(pin)),
        A.is_Act(act),
        A.act_digest(act) == R.rec_digest(rec),
        A.act_prov(act) == R.rec_prov(rec),
    )
    return {
        "present": R.is_Rec(rec),
        "trusted": R.rec_trust(rec) == zi.TRUST["trusted"],
        "matches": z3.Or(core_ok, act_ok),
    }


def _gate_soundness(v: Variant) -> Query:
    s = step("authorize", v)
    g = _gate_parts(s)
    return s.query(z3.And(g["present"], g["matches"], g["trusted"]), [s.ok])


def _gate_exactness(v: Variant) -> Query:
    s = step("authorize", v)
    g = _gate_parts(s)
    t = s.args["tool"]
    goal = z3.And(s.ok, sel(s.post.calls, t) == sel(s.pre.calls, t) + 1)
    q = s.query(goal, [g["present"], g["matches"], g["trusted"]])
    q.witness = [S.set_catgen(sel(s.pre.sets, s.args["name"])) != s.pre.gen]
    return q


def _gate_factory(v: Variant) -> Query:
    s = step("authorize", v)
    t = s.args["tool"]
    calls = z3.If(s.ok, z3.Store(s.pre.calls, t, sel(s.pre.calls, t) + 1), s.pre.calls)
    goal = z3.And(
        s.post.catalog == s.pre.catalog,
        s.post.gen == s.pre.gen,
        s.post.sets == s.pre.sets,
        s.post.calls == calls,
    )
    return s.query(goal, witness=[s.ok])


def _seq_all(seq: Z3Seq, body: Callable[[Any], Any]) -> Any:
    i = z3.FreshConst(zi.IntS, "i")
    return z3.ForAll([i], z3.Implies(z3.And(i >= 0, i < seq.length), body(sel(seq.arr, i))))


def _generation_strict(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        st = sel(s.pre.sets, s.args["name"])
        if opname == "activate":
            goal = z3.And(G.g_gen(s.args["grant"]) == s.pre.gen, S.set_catgen(st) == s.pre.gen)
            return s.query(goal, [s.ok])
        seq = s.args["grants"]
        goal = z3.And(
            S.set_catgen(st) == s.pre.gen, _seq_all(seq, lambda g: G.g_gen(g) == s.pre.gen)
        )
        return s.query(goal, [s.ok, seq.length > 0])

    return build


def _session_bound(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        session = S.set_session(sel(s.pre.sets, s.args["name"]))
        if opname == "activate":
            return s.query(G.g_session(s.args["grant"]) == session, [s.ok])
        seq = s.args["grants"]
        return s.query(_seq_all(seq, lambda g: G.g_session(g) == session), [s.ok, seq.length > 0])

    return build


def _rebuild_parts(s: Step, t: Any) -> dict[str, Any]:
    old = sel(s.pre.sets, s.args["name"])
    new = sel(s.post.sets, s.args["into"])
    old_act = sel(S.set_acts(old), t)
    rec = sel(s.pre.catalog, t)
    matches = z3.And(
        R.is_Rec(rec),
        R.rec_digest(rec) == A.act_digest(old_act),
        R.rec_prov(rec) == A.act_prov(old_act),
        R.rec_trust(rec) == zi.TRUST["trusted"],
    )
    return {
        "old_act": old_act,
        "new_act": sel(S.set_acts(new), t),
        "rec": rec,
        "matches": matches,
        "now_core": P.is_Pin(sel(S.set_core(new), t)),
    }


def _rebuild_carries(v: Variant) -> Query:
    s = step("rebuild", v)
    t = z3.FreshConst(zi.Tool, "t")
    p = _rebuild_parts(s, t)
    carried = z3.And(A.is_Act(p["old_act"]), z3.Not(p["now_core"]), p["matches"])
    expected = A.Act(
        A.act_session(p["old_act"]), s.pre.gen, A.act_digest(p["old_act"]), A.act_prov(p["old_act"])
    )
    goal = z3.ForAll([t], p["new_act"] == z3.If(carried, expected, A.NoAct))
    return s.query(goal, [s.args["carry_forward"]], witness=[A.is_Act(p["old_act"])])


def _rebuild_reasons(v: Variant) -> Query:
    s = step("rebuild", v)
    t = z3.FreshConst(zi.Tool, "t")
    p = _rebuild_parts(s, t)
    reason = zi.REASON
    expected = z3.If(
        z3.And(A.is_Act(p["old_act"]), z3.Not(p["now_core"])),
        z3.If(
            z3.Not(R.is_Rec(p["rec"])),
            reason["removed"],
            z3.If(p["matches"], reason["none"], reason["drifted"]),
        ),
        reason["none"],
    )
    goal = z3.ForAll([t], sel(s.res.extras["dropped"], t) == expected)
    return s.query(goal, [s.args["carry_forward"]])


def _atomic_many(v: Variant) -> Query:
    s = step("activate_many", v)
    name = s.args["name"]
    seq = s.args["grants"]
    before, after = sel(s.pre.sets, name), sel(s.post.sets, name)

    def applied(g: Any) -> Any:
        rec = sel(s.pre.catalog, G.g_tool(g))
        return sel(S.set_acts(after), G.g_tool(g)) == A.Act(
            G.g_session(g), G.g_gen(g), G.g_digest(g), R.rec_prov(rec)
        )

    t = z3.FreshConst(zi.Tool, "t")
    kept = z3.ForAll(
        [t],
        z3.Implies(
            A.is_Act(sel(S.set_acts(before), t)),
            sel(S.set_acts(after), t) == sel(S.set_acts(before), t),
        ),
    )
    goal = z3.If(
        seq.length > 0,
        z3.And(S.set_schemagen(after) == S.set_schemagen(before) + 1, _seq_all(seq, applied), kept),
        same(s.alg, s.pre, s.post),
    )
    return s.query(goal, [s.ok], witness=[seq.length > 1])


def _atomic_model(v: Variant) -> Query:
    s = step("activate_model", v)
    name = s.args["name"]
    seq = s.args["tools"]
    before, after = sel(s.pre.sets, name), sel(s.post.sets, name)
    goal = z3.If(
        seq.length > 0,
        z3.And(
            S.set_schemagen(after) == S.set_schemagen(before) + 1,
            _seq_all(seq, lambda t: A.is_Act(sel(S.set_acts(after), t))),
        ),
        same(s.alg, s.pre, s.post),
    )
    return s.query(goal, [s.ok], witness=[seq.length > 1])


def _unauthorized(v: Variant) -> Query:
    s = step("activate_model", v)
    goal = z3.And(
        s.res.code == zi.OUTCOME["HostActivationError.ConfirmationRequired"],
        same(s.alg, s.pre, s.post),
    )
    return s.query(goal, [z3.Not(s.args["confirmed"])])


def _gen_increases(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        g0, g1 = s.pre.gen, s.post.gen
        parts = [g1 >= g0, z3.Implies(g1 == g0, s.post.catalog == s.pre.catalog)]
        if opname == "catalog_rebase_past":
            parts.append(z3.Implies(s.ok, g1 > g0))
        else:
            parts.append(z3.Implies(s.post.catalog != s.pre.catalog, g1 == g0 + 1))
        return s.query(z3.And(*parts), witness=[s.ok])

    return build


def _gen_never_reused(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        used = zi.fresh("used", z3.ArraySort(zi.IntS, z3.BoolSort()))
        g = z3.FreshConst(zi.IntS, "g")
        history = z3.ForAll([g], z3.Implies(sel(used, g), g <= s.pre.gen))
        goal = z3.Implies(s.post.gen != s.pre.gen, z3.Not(sel(used, s.post.gen)))
        return s.query(goal, [history], witness=[s.ok, sel(used, s.pre.gen)])

    return build


def _overflow_closed(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        return s.query(same(s.alg, s.pre, s.post), [s.pre.gen == MAX_GENERATION])

    return build


def _never_decreases(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        if opname == "rebuild":
            old = sel(s.pre.sets, s.args["name"])
            new = sel(s.post.sets, s.args["into"])
            return s.query(S.set_schemagen(new) >= S.set_schemagen(old), [s.args["carry_forward"]])
        n = z3.FreshConst(zi.SetName, "n")
        before, after = sel(s.pre.sets, n), sel(s.post.sets, n)
        goal = z3.ForAll(
            [n],
            z3.Implies(
                z3.And(S.is_TSet(before), S.is_TSet(after)),
                S.set_schemagen(after) >= S.set_schemagen(before),
            ),
        )
        return s.query(goal, witness=[s.ok])

    return build


def _all() -> list[Obligation]:
    obs: list[Obligation] = [
        Obligation(
            "invariant.init",
            "initiation",
            "inductive invariant",
            None,
            _init,
            ("reset_rewinds_generation",),
        ),
    ]
    for n in ALL_OPS:
        if n not in READ_ONLY:
            obs.append(
                Obligation(
                    f"invariant.step.{n}",
                    "consecution",
                    "inductive invariant",
                    n,
                    _consecution(n),
                    STEP_MUTANTS[n],
                )
            )
    for n in REJECTING:
        obs.append(
            Obligation(
                f"no_partial_mutation.{n}",
                "safety",
                "no partial mutation",
                n,
                _no_partial(n),
                NO_PARTIAL_MUTANTS[n],
            )
        )
    for n in ALL_OPS:
        obs.append(
            Obligation(
                f"zero_inheritance.frame.{n}",
                "frame",
                "zero inheritance",
                n,
                _frame(n),
                FRAME_MUTANTS[n],
            )
        )
    for n in FRESH:
        obs.append(
            Obligation(
                f"zero_inheritance.fresh_set_empty.{n}",
                "safety",
                "zero inheritance",
                n,
                _fresh_empty(n),
                ("fresh_set_inherits",),
            )
        )
        obs.append(
            Obligation(
                f"zero_inheritance.self_composition.{n}",
                "hyperproperty",
                "zero inheritance",
                n,
                _self_composition(n),
                ("fresh_set_inherits",),
            )
        )
    for n in ("activate", "activate_many"):
        obs.append(
            Obligation(
                f"zero_inheritance.granted_for_set_session.{n}",
                "safety",
                "zero inheritance",
                n,
                _session_bound(n),
                ("no_session_check",),
            )
        )
        obs.append(
            Obligation(
                f"drift_denial.activation_generation_strict.{n}",
                "safety",
                "drift denial",
                n,
                _generation_strict(n),
                ("activate_skips_generation",),
            )
        )
    obs += [
        Obligation(
            "gate.soundness",
            "safety",
            "drift denial",
            "authorize",
            _gate_soundness,
            ("gate_ignores_digest", "gate_ignores_trust"),
        ),
        Obligation(
            "gate.exactness",
            "liveness",
            "drift denial",
            "authorize",
            _gate_exactness,
            ("gate_checks_grant_generation",),
        ),
        Obligation(
            "gate.factory_only_on_success",
            "safety",
            "drift denial",
            "authorize",
            _gate_factory,
            ("gate_factory_on_denial", "gate_absorbs_staleness"),
        ),
        Obligation(
            "drift_denial.rebuild_carries_only_matching",
            "safety",
            "drift denial",
            "rebuild",
            _rebuild_carries,
            ("rebuild_ignores_provenance",),
        ),
        Obligation(
            "drift_denial.rebuild_exact_drop_reasons",
            "safety",
            "drift denial",
            "rebuild",
            _rebuild_reasons,
            ("rebuild_wrong_reason",),
        ),
        Obligation(
            "atomic_batch.activate_many",
            "safety",
            "atomic batches",
            "activate_many",
            _atomic_many,
            ("schema_gen_per_grant",),
        ),
        Obligation(
            "atomic_batch.activate_model",
            "safety",
            "atomic batches",
            "activate_model",
            _atomic_model,
            ("schema_gen_per_grant",),
        ),
        Obligation(
            "atomic_batch.unauthorized_changes_nothing",
            "safety",
            "atomic batches",
            "activate_model",
            _unauthorized,
            ("unauthorized_model_activates",),
        ),
        Obligation(
            "is_stale.pure",
            "safety",
            "drift denial",
            "is_stale",
            _pure("is_stale"),
            ("is_stale_absorbs",),
        ),
        Obligation(
            "issue_grant.pure",
            "safety",
            "zero inheritance",
            "issue_grant",
            _pure("issue_grant"),
            ("issue_grant_calls_factory",),
        ),
    ]
    for n in ("is_stale", "route"):
        obs.append(
            Obligation(
                f"drift_denial.stale_iff_generations_differ.{n}",
                "safety",
                "drift denial",
                n,
                _stale_iff(n),
                ("stale_off_by_one",),
            )
        )
    wraps = {n: ("generation_wraps",) for n in CATALOG_OPS}
    wraps["catalog_rebase_past"] = ("rebase_uses_prior",)
    for n in CATALOG_OPS:
        obs.append(
            Obligation(
                f"counters.generation_increases.{n}",
                "safety",
                "counters",
                n,
                _gen_increases(n),
                wraps[n],
            )
        )
        obs.append(
            Obligation(
                f"counters.generation_never_reused.{n}",
                "safety",
                "counters",
                n,
                _gen_never_reused(n),
                wraps[n],
            )
        )
        obs.append(
            Obligation(
                f"counters.overflow_fails_closed.{n}",
                "safety",
                "counters",
                n,
                _overflow_closed(n),
                ("unchecked_generation",),
            )
        )
    for n in (*IN_PLACE, "rebuild"):
        m = {"revoke": "revoke_decrements", "rebuild": "rebuild_resets_schemagen"}.get(
            n, "activate_resets_schemagen"
        )
        obs.append(
            Obligation(
                f"counters.schema_generation_never_decreases.{n}",
                "safety",
                "counters",
                n,
                _never_decreases(n),
                (m,),
            )
        )
    return obs


OBLIGATIONS: tuple[Obligation, ...] = tuple(_all())
