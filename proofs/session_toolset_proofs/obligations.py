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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import Variant
from session_toolset_model.state import initial, same
from session_toolset_model.z3_interp import Z3Algebra, Z3Seq

from . import interp
from . import postconditions as pc
from .encode import invariant
from .functional import obligation as functional
from .steps import FINITE_STATES, SEARCH_BOUND, Query, Step, sel, step

__all__ = [
    "EXPECTED_PROFILE_REFUTATIONS",
    "FINITE_STATES",
    "OBLIGATIONS",
    "SEARCH_BOUND",
    "Obligation",
    "Query",
    "Step",
    "sel",
    "step",
]


@dataclass(frozen=True)
class Obligation:
    name: str
    kind: str
    invariant: str
    op: str | None
    build: Callable[[Variant], Query]
    refuted_by: tuple[str, ...]

    @property
    def case(self) -> str:
        """The interesting case its witness must show (forced in the certified query)."""
        return case_description(self.name)


_SUCCESS = {
    "catalog_insert": "a successful insert",
    "catalog_upsert": "an upsert that drops another, present record",
    "catalog_remove": "a record actually removed",
    "catalog_rebase_past": "a rebase past a prior above the current generation",
    "set_new": "a new set with at least two core ids",
    "set_default_core": "a non-empty default core",
    "set_progressive_core": "a non-empty progressive core",
    "activate": "a successful activation",
    "activate_many": "a successful batch of at least two",
    "revoke": "a successful revocation",
    "rebuild": "a carry-forward rebuild into another name that drops something",
    "activate_user": "a successful user activation",
    "activate_model": "a confirmed model-initiated batch of at least two",
    "route": "a retained set routed into another name",
}

_NONEMPTY = (
    " (where the operation has one: a batch of at least two, a new set's core non-empty,"
    " a route's fallback core non-empty)"
)

_CASES = (
    ("invariant.init", "the initial state"),
    (
        "no_partial_mutation.",
        "a rejection (for batches and core ids: at index 1 or later, the first element passing;"
        " for one tool: cataloged, for activate with the set's session, for a user activation"
        " issued)",
    ),
    ("zero_inheritance.frame.", "success while another set exists" + _NONEMPTY),
    ("zero_inheritance.fresh_set_empty.", "the name held a set with an activation" + _NONEMPTY),
    ("zero_inheritance.self_composition.", "the two worlds differ in their other sets" + _NONEMPTY),
    ("zero_inheritance.granted_for", "success (a batch of at least two)"),
    (
        "zero_inheritance.reads_only_its_source.",
        "the source set has an activation, the target name holds another set",
    ),
    ("drift_denial.activation_generation_strict", "success (a batch of at least two)"),
    ("gate.soundness", "an authorized activated (not core) tool"),
    ("gate.exactness", "a stale set, still authorized"),
    ("gate.factory_only_on_success", "a successful call"),
    (
        "drift_denial.rebuild_carries",
        "something carried and something dropped, into another name",
    ),
    ("drift_denial.rebuild_exact", "something dropped, into another name"),
    (
        "drift_denial.stale_iff",
        "a stale set (routed from a retained one into another name, for route)",
    ),
    ("atomic_batch.unauthorized", "an unconfirmed request whose first tool would be issued"),
    ("atomic_batch.", "a successful batch of at least two"),
    ("is_stale.pure", "a stale set"),
    ("issue_grant.pure", "a grant issued"),
    ("counters.generation_advances_by_one.catalog_upsert", "an identical record upserted"),
    ("counters.generation_never_reused.", "a new value handed out (past a higher prior)"),
    ("counters.checked_next_exact.", "the exhaustion outcome at 2^64-1"),
    ("counters.overflow_fails_closed.", "at 2^64-1, an operation that would mutate"),
    ("counters.schema_generation_advances", "success from schema_generation >= 1 (batch >= 2)"),
    (
        "counters.schema_generation_never_decreases",
        "success (a batch >= 2; a rebuild into another name that drops)",
    ),
    (
        "postcondition.activate_m",
        "a batch of at least two whose first grant passes, decided by AlreadyActivated later",
    ),
    ("postcondition.route", "a stale retained set routed into another name"),
    ("postcondition.set_default_core", "an Unverified record in the catalog, a non-empty core"),
    ("postcondition.", "success from schema_generation >= 1"),
    ("interp.", "a batch of three whose first hit is not its first element"),
)


def case_description(name: str) -> str:
    """The witness case of obligation ``name`` in words (`Obligation.case`)."""
    for prefix in ("invariant.step.", "counters.generation_advances_by_one."):
        if (
            name.startswith(prefix)
            and name[len(prefix) :] in _SUCCESS
            and not (name.endswith("catalog_upsert") and "advances" in name)
        ):
            return _SUCCESS[name[len(prefix) :]]
    if name.startswith("functional."):
        return functional.CASES[name[len("functional.") :]]
    return next(text for prefix, text in _CASES if name.startswith(prefix))


EXPECTED_PROFILE_REFUTATIONS: dict[str, tuple[str, ...]] = {
    "per-tool-digest": ("gate.soundness", "functional.authorize"),
    "generation-strict": ("gate.exactness", "functional.authorize"),
}


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


def _some_tool(pred: Callable[[Any], Any]) -> Any:
    """ "Some tool satisfies pred" inside a *witness* case: a fresh constant the model picks."""
    return pred(zi.fresh("case_tool", zi.Tool))


def _other_set(s: Step, targets: list[Any]) -> Any:
    """Witness case "another set exists", so a frame or a self-composition is not vacuous."""
    other = zi.fresh("case_set", zi.SetName)
    return z3.And(*[other != x for x in targets], S.is_TSet(sel(s.pre.sets, other)))


def _dropped(s: Step) -> Any:
    """Witness case of a carry-forward rebuild: some activation is reported dropped."""
    return _some_tool(lambda t: sel(s.res.extras["dropped"], t) != zi.REASON["none"])


def _elsewhere(s: Step) -> Any:
    """Witness case of a rebuild or route: the new set goes under another name than its source
    (into itself, "the old set untouched" and "copied as is" say nothing)."""
    source = s.args["name"] if "name" in s.args else s.args["retained"]
    return s.args["into"] != source


def _later_rejection(s: Step, opname: str) -> list[Any]:
    """Witness case of a rejected batch: at least two elements, the first one passing every
    per-element check (`postconditions.first_passes`), so the rejection comes later."""
    if opname == "set_new":
        ids = s.args["core_ids"]
        return [ids.length >= 2, R.is_Rec(sel(s.pre.catalog, ids.at(z3.IntVal(0))))]
    a = s.args
    if opname in ("authorize", "issue_grant"):  # not rejected by the catalog lookup
        return [R.is_Rec(sel(s.pre.catalog, a["tool"]))]
    if opname == "activate":  # the session and catalog checks pass
        grant = a["grant"]
        return [
            G.g_session(grant) == S.set_session(sel(s.pre.sets, a["name"])),
            R.is_Rec(sel(s.pre.catalog, G.g_tool(grant))),
        ]
    if opname == "activate_user":  # issuance passes: the batch rejects
        return _issued(s.pre.catalog, a["tool"])
    seq = a.get("grants", a.get("tools"))
    if seq is None:
        return []
    return [seq.length >= 2, pc.first_passes(s, opname)]


def _issued(catalog: Any, tool: Any) -> list[Any]:
    """``tool`` passes issuance: cataloged and trusted."""
    rec = sel(catalog, tool)
    return [R.is_Rec(rec), R.rec_trust(rec) == zi.TRUST["trusted"]]


def _core_kept(s: Step, name: Any) -> Any:
    """The set ``name`` after the step pins some tool in its core."""
    return _some_tool(lambda t: P.is_Pin(sel(S.set_core(sel(s.post.sets, name)), t)))


def _nonempty(s: Step, opname: str) -> list[Any]:
    """Witness case of the frame and zero-inheritance obligations beyond the trivial form: a
    batch of at least two, a new set with a non-empty core (a route: a retained set, or a
    fallback with a non-empty core)."""
    a = s.args
    if opname in ("activate_many", "activate_model"):
        return [a["grants" if opname == "activate_many" else "tools"].length >= 2]
    if opname in ("set_new", "set_default_core", "set_progressive_core"):
        return [_core_kept(s, a["name"])]
    if opname == "route":
        return [z3.Or(a["has_retained"], _core_kept(s, a["into"]))]
    return []


def success_case(s: Step, opname: str) -> list[Any]:
    """The interesting success of each operation (a witness must show it, not a no-op):
    a batch of at least two, a record actually removed or replaced, a non-empty core, ..."""
    a = s.args
    cases: dict[str, Callable[[], list[Any]]] = {
        "catalog_upsert": lambda: [
            a["has_replaced"],
            a["replaced"] != a["tool"],
            R.is_Rec(sel(s.pre.catalog, a["replaced"])),
        ],
        "catalog_remove": lambda: [R.is_Rec(sel(s.pre.catalog, a["tool"]))],
        "catalog_rebase_past": lambda: [a["prior"] > s.pre.gen],
        "set_new": lambda: [a["core_ids"].length >= 2],
        "set_default_core": lambda: [
            _some_tool(lambda t: P.is_Pin(sel(S.set_core(sel(s.post.sets, a["name"])), t)))
        ],
        "set_progressive_core": lambda: [
            _some_tool(lambda t: P.is_Pin(sel(S.set_core(sel(s.post.sets, a["name"])), t)))
        ],
        "activate_many": lambda: [a["grants"].length >= 2],
        "activate_model": lambda: [a["tools"].length >= 2],
        "rebuild": lambda: [a["carry_forward"], _dropped(s), _elsewhere(s)],
        "route": lambda: [a["has_retained"], _elsewhere(s)],
    }
    return [s.ok, *cases.get(opname, list)()]


def _init(v: Variant) -> Query:
    alg = Z3Algebra(SEARCH_BOUND.get(), v)
    return Query(alg, [], invariant(initial(alg, v)))


def _consecution(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        return s.query(invariant(s.post), witness=success_case(s, opname))

    return build


def _no_partial(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        case = _later_rejection(s, opname)
        return s.query(same(s.alg, s.pre, s.post), [z3.Not(s.ok)], witness=case)

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
        case = [s.ok, _other_set(s, targets), *_nonempty(s, opname)]
        return s.query(z3.And(*parts), witness=case)

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
        had = _some_tool(
            lambda t: A.is_Act(sel(S.set_acts(sel(s.pre.sets, _target(s, opname))), t))
        )
        return s.query(goal, [s.ok, *extra], witness=[had, *_nonempty(s, opname)])

    return build


def _target(s: Step, opname: str) -> Any:
    return s.args["into" if opname in ("rebuild", "route") else "name"]


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
        had = _some_tool(
            lambda t: A.is_Act(sel(S.set_acts(sel(s1.pre.sets, _target(s1, opname))), t))
        )
        q = s1.query(
            z3.And(s2.ok, new1 == new2),
            premises + extra,
            witness=[had, s1.pre.sets != s2.pre.sets, *_nonempty(s1, opname)],
        )
        q.steps.append(s2)
        return q

    return build


def _stale_iff(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        key = "name" if opname == "is_stale" else "into"
        sets = s.pre.sets if opname == "is_stale" else s.post.sets
        goal = s.res.extras["stale"] == (S.set_catgen(sel(sets, s.args[key])) != s.pre.gen)
        case = [s.res.extras["stale"]]
        if opname == "route":
            case += [s.args["has_retained"], _elsewhere(s)]
        return s.query(goal, witness=case)

    return build


def _pure(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        case = [s.res.extras["stale"]] if opname == "is_stale" else [s.ok]
        return s.query(same(s.alg, s.pre, s.post), witness=case)

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
    activated = z3.Not(P.is_Pin(sel(S.set_core(sel(s.pre.sets, s.args["name"])), s.args["tool"])))
    return s.query(z3.And(g["present"], g["matches"], g["trusted"]), [s.ok], witness=[activated])


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
        return s.query(goal, [s.ok, seq.length > 0], witness=[seq.length >= 2])

    return build


def _session_bound(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        session = S.set_session(sel(s.pre.sets, s.args["name"]))
        if opname == "activate":
            return s.query(G.g_session(s.args["grant"]) == session, [s.ok])
        seq = s.args["grants"]
        return s.query(
            _seq_all(seq, lambda g: G.g_session(g) == session),
            [s.ok, seq.length > 0],
            witness=[seq.length >= 2],
        )

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
        # SPEC.md §3: "The core is derived as a fresh progressive/default build would" - from
        # the catalog, never read from the rebuilt set the model returns
        "now_core": z3.And(
            R.is_Rec(rec),
            z3.If(
                s.args["progressive"],
                zi.PROGRESSIVE(t),
                z3.Not(zi.UNVERIFIED(R.rec_prov(rec))),
            ),
        ),
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
    kept = _some_tool(lambda u: A.is_Act(sel(S.set_acts(sel(s.post.sets, s.args["into"])), u)))
    return s.query(goal, [s.args["carry_forward"]], witness=[kept, _dropped(s), _elsewhere(s)])


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
    return s.query(goal, [s.args["carry_forward"]], witness=[_dropped(s), _elsewhere(s)])


def _unauthorized(v: Variant) -> Query:
    s = step("activate_model", v)
    goal = z3.And(
        s.res.code == zi.OUTCOME["HostActivationError.ConfirmationRequired"],
        same(s.alg, s.pre, s.post),
    )
    tools = s.args["tools"]
    case = [tools.length >= 1, *_issued(s.pre.catalog, tools.at(z3.IntVal(0)))]
    return s.query(goal, [z3.Not(s.args["confirmed"])], witness=case)


def _overflow_closed(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        a = s.args
        # the case: the op would have mutated, had a next generation existed
        would: dict[str, Callable[[], list[Any]]] = {
            "catalog_insert": lambda: [z3.Not(R.is_Rec(sel(s.pre.catalog, a["tool"])))],
            "catalog_upsert": lambda: [a["has_replaced"], a["replaced"] == a["tool"]],
            "catalog_remove": lambda: [R.is_Rec(sel(s.pre.catalog, a["tool"]))],
        }
        case = would.get(opname, list)()
        return s.query(same(s.alg, s.pre, s.post), [s.pre.gen == MAX_GENERATION], witness=case)

    return build


def _never_decreases(opname: str) -> Callable[[Variant], Query]:
    def build(v: Variant) -> Query:
        s = step(opname, v)
        if opname == "rebuild":
            old = sel(s.pre.sets, s.args["name"])
            new = sel(s.post.sets, s.args["into"])
            return s.query(
                S.set_schemagen(new) >= S.set_schemagen(old),
                [s.args["carry_forward"]],
                witness=[_dropped(s), _elsewhere(s)],
            )
        n = z3.FreshConst(zi.SetName, "n")
        before, after = sel(s.pre.sets, n), sel(s.post.sets, n)
        goal = z3.ForAll(
            [n],
            z3.Implies(
                z3.And(S.is_TSet(before), S.is_TSet(after)),
                S.set_schemagen(after) >= S.set_schemagen(before),
            ),
        )
        seq = s.args.get("grants", s.args.get("tools"))
        return s.query(goal, witness=[s.ok] + ([] if seq is None else [seq.length >= 2]))

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
    for n, m in (("rebuild", "rebuild_schemagen_from_target"), ("route", "route_keeps_target_set")):
        obs.append(
            Obligation(
                f"zero_inheritance.reads_only_its_source.{n}",
                "hyperproperty",
                "zero inheritance",
                n,
                pc.source_self_composition(n),
                (m,),
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
            pc.atomic_many,
            ("schema_gen_per_grant", "batch_replaces_activations"),
        ),
        Obligation(
            "atomic_batch.activate_model",
            "safety",
            "atomic batches",
            "activate_model",
            pc.atomic_model,
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
    advances = {
        "catalog_insert": ("generation_wraps",),
        "catalog_upsert": ("generation_wraps", "upsert_identical_no_advance"),
        "catalog_remove": ("generation_wraps", "remove_absent_advances"),
        "catalog_rebase_past": ("rebase_uses_prior", "rebase_to_prior"),
    }
    reused: dict[str, tuple[str, ...]] = {n: ("generation_wraps",) for n in CATALOG_OPS}
    reused["catalog_rebase_past"] = ("rebase_uses_prior", "rebase_to_prior")
    for n in CATALOG_OPS:
        obs.append(
            Obligation(
                f"counters.generation_advances_by_one.{n}",
                "safety",
                "counters",
                n,
                pc.generation_advances(n),
                advances[n],
            )
        )
        obs.append(
            Obligation(
                f"counters.generation_never_reused.{n}",
                "safety",
                "counters",
                n,
                pc.generation_never_reused(n),
                reused[n],
            )
        )
        obs.append(
            Obligation(
                f"counters.checked_next_exact.{n}",
                "safety",
                "counters",
                n,
                pc.checked_next_exact(n),
                ("checked_next_early", "unchecked_generation"),
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
    schema_mutants = {
        "activate": ("activate_keeps_schemagen", "activate_resets_schemagen"),
        "activate_many": ("schema_gen_per_grant", "activate_resets_schemagen"),
        "revoke": ("revoke_keeps_schemagen", "revoke_decrements"),
        "activate_user": ("activate_resets_schemagen",),
        "activate_model": ("schema_gen_per_grant", "activate_resets_schemagen"),
    }
    for n in IN_PLACE:
        obs.append(
            Obligation(
                f"counters.schema_generation_advances_by_one.{n}",
                "safety",
                "counters",
                n,
                pc.schema_generation_advances(n),
                schema_mutants[n],
            )
        )
        session_wide = (
            "revoke_core_session_wide" if n == "revoke" else ("already_activated_session_wide")
        )
        obs.append(
            Obligation(
                f"zero_inheritance.self_composition.{n}",
                "hyperproperty",
                "zero inheritance",
                n,
                pc.in_place_self_composition(n),
                (session_wide,),
            )
        )
    obs += [
        Obligation(
            "postcondition.activate",
            "functional",
            "transition postcondition",
            "activate",
            pc.activate_postcondition,
            (
                "no_session_check",
                "activate_skips_generation",
                "core_activation_overlap",
                "activate_keeps_schemagen",
                "already_activated_session_wide",
                "activation_by_session",
            ),
        ),
        Obligation(
            "postcondition.revoke",
            "functional",
            "transition postcondition",
            "revoke",
            pc.revoke_postcondition,
            (
                "revoke_checks_activation_first",
                "revoke_keeps_schemagen",
                "revoke_bumps_on_reject",
                "revoke_core_session_wide",
            ),
        ),
        Obligation(
            "postcondition.activate_many",
            "functional",
            "transition postcondition",
            "activate_many",
            pc.batch_outcome_many,
            ("bulk_already_activated_session_wide", "batch_partial"),
        ),
        Obligation(
            "postcondition.activate_model",
            "functional",
            "transition postcondition",
            "activate_model",
            pc.batch_outcome_model,
            ("bulk_already_activated_session_wide", "unauthorized_model_activates"),
        ),
        Obligation(
            "postcondition.route",
            "functional",
            "transition postcondition",
            "route",
            pc.route_postcondition,
            ("route_fresh_when_retained",),
        ),
        Obligation(
            "postcondition.set_default_core",
            "functional",
            "transition postcondition",
            "set_default_core",
            pc.default_core_postcondition,
            ("default_core_includes_unverified",),
        ),
        Obligation(
            "interp.first_index_exact",
            "interpretation",
            "Z3 interpretation",
            None,
            interp.first_index_exact,
            ("z3_first_index_strict",),
        ),
        Obligation(
            "interp.seq_first_index_exact",
            "interpretation",
            "Z3 interpretation",
            None,
            interp.seq_first_index_exact,
            ("z3_first_occ_any",),
        ),
    ]
    for name, op, case in functional.names():
        obs.append(
            Obligation(
                f"functional.{name}",
                "functional",
                "transition postcondition",
                op,
                functional.equal(op, case),
                functional.MUTANTS[name],
            )
        )
    return obs


OBLIGATIONS: tuple[Obligation, ...] = tuple(_all())
