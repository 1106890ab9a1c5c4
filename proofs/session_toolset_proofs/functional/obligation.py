"""The `functional.<op>` obligations: the model's transition equals the declarative clause.

For every world satisfying the inductive invariant and every argument satisfying the operation's
precondition, the model's outcome code, its whole post-world (catalog, generation, factory
counters, every set) and the payload fields SPEC.md names are exactly those of `SPECS[op]` -
unbounded, over the uninterpreted sorts.  The witness forces the operation's interesting case
(`CASES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.profiles import Variant

from ..postconditions import first_passes
from ..steps import SEARCH_BOUND, Query, Step, step
from . import SPECS, SPLITS
from .common import BOUND, matches

S = zi.SetOpt
A = zi.ActOpt
P = zi.PinOpt
R = zi.RecOpt


def _sel(m: Any, k: Any) -> Any:
    return z3.Select(m, k)


def _some_tool(pred: Callable[[Any], Any]) -> Any:
    return pred(zi.fresh("case_tool", zi.Tool))


def _schemagen(s: Step) -> Any:
    return S.set_schemagen(_sel(s.pre.sets, s.args["name"]))


def _case(s: Step, opname: str) -> list[Any]:
    """The interesting case a witness of ``functional.<opname>`` must show (`CASES`)."""
    a, ok = s.args, s.ok
    into = a.get("into", a.get("name"))
    cases: dict[str, Callable[[], list[Any]]] = {
        "catalog_upsert": lambda: [
            ok,
            a["has_replaced"],
            a["replaced"] != a["tool"],
            R.is_Rec(_sel(s.pre.catalog, a["replaced"])),
        ],
        "catalog_remove": lambda: [ok, R.is_Rec(_sel(s.pre.catalog, a["tool"]))],
        "catalog_rebase_past": lambda: [ok, a["prior"] > s.pre.gen],
        "set_new": lambda: [ok, a["core_ids"].length >= 2],
        "set_default_core": lambda: [
            _some_tool(lambda t: P.is_Pin(_sel(S.set_core(_sel(s.post.sets, into)), t)))
        ],
        "set_progressive_core": lambda: [
            _some_tool(lambda t: P.is_Pin(_sel(S.set_core(_sel(s.post.sets, into)), t)))
        ],
        "is_stale": lambda: [s.res.extras["stale"]],
        "activate": lambda: [ok, _schemagen(s) >= 1],
        "activate_many": lambda: [ok, a["grants"].length >= 2],
        "revoke": lambda: [ok, _schemagen(s) >= 1],
        "rebuild": lambda: [
            a["carry_forward"],
            a["into"] != a["name"],
            _some_tool(lambda t: s.res.extras["dropped"][t] != zi.REASON["none"]),
            _some_tool(lambda t: A.is_Act(_sel(S.set_acts(_sel(s.post.sets, into)), t))),
        ],
        "authorize": lambda: [
            ok,
            z3.Not(P.is_Pin(_sel(S.set_core(_sel(s.pre.sets, a["name"])), a["tool"]))),
        ],
        "activate_model": lambda: [ok, a["tools"].length >= 2],
        "route": lambda: [a["has_retained"], a["retained"] != a["into"], s.res.extras["stale"]],
    }
    return cases.get(opname, lambda: [ok])()


def _split_case(s: Step, opname: str, case: str) -> list[Any]:
    """The witness case of ``functional.<opname>.<case>``: the case itself, with a batch of
    at least two (a request naming at least one tool, when it is refused); a rejection comes
    at index 1 or later, the first element passing (its issuance, for an issuance
    rejection)."""
    seq = s.args["tools" if opname == "activate_model" else "grants"]
    if case == "refused":  # a request whose first tool would be issued a grant
        rec = _sel(s.pre.catalog, seq.at(z3.IntVal(0)))
        return [seq.length >= 1, R.is_Rec(rec), R.rec_trust(rec) == zi.TRUST["trusted"]]
    out = [seq.length >= 2]
    if case in ("rejected", "bulk_rejected"):
        out.append(first_passes(s, opname))
    elif case == "issuance_rejected":
        rec = _sel(s.pre.catalog, seq.at(z3.IntVal(0)))
        out += [R.is_Rec(rec), R.rec_trust(rec) == zi.TRUST["trusted"]]
    return out


MUTANTS: dict[str, tuple[str, ...]] = {
    "catalog_insert": ("insert_forgets_record", "insert_dup_overwrites"),
    "catalog_upsert": ("upsert_keeps_replaced", "upsert_identical_no_advance"),
    "catalog_remove": ("remove_keeps_record",),
    "catalog_rebase_past": ("rebase_clears_catalog", "rebase_to_prior"),
    "set_new": ("set_new_core_skips_last", "set_new_partial"),
    "set_default_core": ("default_core_includes_unverified",),
    "set_progressive_core": ("progressive_core_is_default",),
    "is_stale": ("stale_off_by_one",),
    "activate": ("activate_keeps_schemagen",),
    "activate_many.rejected": ("batch_partial",),
    "activate_many.applied": ("schema_gen_per_grant",),
    "revoke": ("revoke_checks_activation_first",),
    "rebuild": (
        "rebuild_core_always_default",
        "rebuild_schemagen_always_advances",
        "rebuild_ignores_provenance",
    ),
    "authorize": ("gate_basis_always_core", "gate_untrusted_as_mismatch"),
    "issue_grant": ("issue_grant_next_generation", "issuance_untrusted_as_mismatch"),
    "activate_user": ("user_issuance_as_bulk",),
    "activate_model.refused": ("unauthorized_model_activates",),
    "activate_model.issuance_rejected": ("model_issuance_partial",),
    "activate_model.bulk_rejected": ("batch_partial",),
    "activate_model.applied": ("schema_gen_per_grant",),
    "route": ("route_fallback_progressive", "route_fresh_when_retained"),
}
"""The mutants each ``functional.`` obligation must refute (keyed by the name after
``functional.``)."""


def names() -> list[tuple[str, str, str | None]]:
    """(name after ``functional.``, op, case) of every functional obligation, in table order."""
    out: list[tuple[str, str, str | None]] = []
    for op in SPECS:
        cases = SPLITS.get(op)
        if cases is None:
            out.append((op, op, None))
        else:
            out += [(f"{op}.{c}", op, c) for c in cases]
    return out


CASES: dict[str, str] = {
    "catalog_insert": "a successful insert",
    "catalog_upsert": "an upsert that drops another, present record",
    "catalog_remove": "a record actually removed",
    "catalog_rebase_past": "a rebase past a prior above the current generation",
    "set_new": "a new set with at least two core ids",
    "set_default_core": "a non-empty default core",
    "set_progressive_core": "a non-empty progressive core",
    "is_stale": "a stale set",
    "activate": "a successful activation from schema_generation >= 1",
    "activate_many": "a successful batch of at least two",
    "revoke": "a successful revocation from schema_generation >= 1",
    "rebuild": "a carry-forward rebuild into another name that carries and drops something",
    "authorize": "an authorized activated (not core) tool",
    "issue_grant": "a grant issued",
    "activate_user": "a successful user activation",
    "activate_model": "a confirmed model-initiated batch of at least two",
    "route": "a stale retained set routed into another name",
    "activate_model.refused": "an unconfirmed request whose first tool would be issued",
    "activate_model.issuance_rejected": "a request rejected at issuance at index 1 or later",
    "activate_model.bulk_rejected": "a request rejected by the batch at index 1 or later",
    "activate_model.applied": "a confirmed model-initiated batch of at least two",
    "activate_many.rejected": "a batch rejected at index 1 or later, the first grant passing",
    "activate_many.applied": "a successful batch of at least two",
}
"""The witness case of each ``functional.`` obligation, in words."""


def equal(opname: str, case: str | None = None) -> Callable[[Variant], Query]:
    """``functional.<opname>``: the model's result is the declarative one (in the declarative
    side's ``case`` only, for a transition proved case by case)."""
    spec = SPECS[opname]

    def build(v: Variant) -> Query:
        s = step(opname, v)
        token = BOUND.set(SEARCH_BOUND.get())
        try:
            e = spec(s.pre, s.args)
        finally:
            BOUND.reset(token)
        premises = list(e.defs)
        witness = _case(s, opname)
        if case is not None:
            premises.append(e.cases[case])
            witness = _split_case(s, opname, case)
        post, x = s.post, s.res.extras
        goal = z3.And(
            s.res.code == e.code,
            post.catalog == e.post.catalog,
            post.gen == e.post.gen,
            post.calls == e.post.calls,
            matches(post.sets, e.post.sets),
            *(z3.Implies(when, matches(x[key], value)) for when, key, value in e.payload),
        )
        return s.query(goal, premises, witness=witness)

    return build
