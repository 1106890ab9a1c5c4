"""The hazards' candidate properties as Z3 queries over the model's one definition.

Each builder states a property a careful reader might expect, over an ARBITRARY state
satisfying the inductive invariant and arbitrary arguments, exactly as an obligation does
(`obligations.step`, `obligations.Query`): premises, goal, witness hints.  A query with more
than one step chains the transitions (the second step's pre-state is the first one's
post-state), so "activate, then authorize the same tool" is one formula.  ``Query.steps`` lists
the chained steps in order; `check` pins them to the last steps of a concrete trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.profiles import Variant

from ..obligations import Query, Step, sel, step

S, A, P, R, G = zi.SetOpt, zi.ActOpt, zi.PinOpt, zi.RecOpt, zi.GrantS

Builder = Callable[[Variant], Query]


def _query(steps: list[Step], goal: Any, extra: list[Any], witness: list[Any]) -> Query:
    premises = [p for s in steps for p in s.premises] + extra
    trace = {f"{i}:outcome": s.res.code for i, s in enumerate(steps)}
    return Query(steps[0].alg, premises, goal, witness, trace, steps)


def _then(first: Step, opname: str, v: Variant, prefix: str, args: dict[str, Any]) -> Step:
    return step(opname, v, prefix, alg=first.alg, pre=first.post, args=args)


def activate_then_authorize(v: Variant) -> Query:
    """A successful `activate` is followed by an authorized call of the same tool."""
    s1 = step("activate", v, "h1")
    s2 = _then(
        s1, "authorize", v, "h2", {"name": s1.args["name"], "tool": G.g_tool(s1.args["grant"])}
    )
    return _query([s1, s2], z3.Implies(s1.ok, s2.ok), [], [s1.ok])


def _core_then_authorize(opname: str) -> Builder:
    def build(v: Variant) -> Query:
        s1 = step(opname, v, "h1")
        tool = zi.fresh("h_tool", zi.Tool)
        s2 = _then(s1, "authorize", v, "h2", {"name": s1.args["name"], "tool": tool})
        core = S.set_core(sel(s1.post.sets, s1.args["name"]))
        return _query([s1, s2], z3.Implies(P.is_Pin(sel(core, tool)), s2.ok), [], [])

    return build


default_core_then_authorize = _core_then_authorize("set_default_core")
progressive_core_then_authorize = _core_then_authorize("set_progressive_core")


def reinsertion_then_authorize(v: Variant) -> Query:
    """After an activated tool's record is removed and an identical one inserted, the old
    activation no longer authorizes a call."""
    s1 = step("catalog_remove", v, "h1")
    tool = s1.args["tool"]
    rec = sel(s1.pre.catalog, tool)
    s2 = _then(
        s1,
        "catalog_insert",
        v,
        "h2",
        {
            "tool": tool,
            "digest": R.rec_digest(rec),
            "prov": R.rec_prov(rec),
            "trust": R.rec_trust(rec),
        },
    )
    name = zi.fresh("h_name", zi.SetName)
    s3 = _then(s2, "authorize", v, "h3", {"name": name, "tool": tool})
    activated = A.is_Act(sel(S.set_acts(sel(s1.pre.sets, name)), tool))
    extra = [R.is_Rec(rec), s2.ok, activated]
    return _query([s1, s2, s3], z3.Not(s3.ok), extra, [])


def route_fresh(v: Variant) -> Query:
    """`route` with a retained set hands out a set that is not stale."""
    s = step("route", v, "h1")
    return _query([s], z3.Not(s.res.extras["stale"]), [s.args["has_retained"]], [])


def stale_grant_refused(v: Variant) -> Query:
    """A grant issued at an earlier catalog generation (so before a successful catalog
    mutation: generations strictly increase) is refused by `activate`."""
    s = step("activate", v, "h1")
    g = s.args["grant"]
    hint = [s.res.code == zi.OUTCOME["ActivationError.StaleGeneration"]]
    return _query([s], z3.Not(s.ok), [G.g_gen(g) < s.pre.gen], hint)


def stale_set_denied(v: Variant) -> Query:
    """A set whose pinned generation differs from the catalog's authorizes nothing."""
    s = step("authorize", v, "h1")
    st = sel(s.pre.sets, s.args["name"])
    return _query([s], z3.Not(s.ok), [S.set_catgen(st) != s.pre.gen], [])


def grant_single_use(v: Variant) -> Query:
    """One grant activates in at most one set."""
    s1 = step("activate", v, "h1")
    other = zi.fresh("h_other", zi.SetName)
    s2 = _then(s1, "activate", v, "h2", {"name": other, "grant": s1.args["grant"]})
    return _query([s1, s2], z3.Not(s2.ok), [s1.ok, other != s1.args["name"]], [])


def _rebuild_sets(s: Step) -> tuple[Any, Any]:
    return sel(s.pre.sets, s.args["name"]), sel(s.post.sets, s.args["into"])


def rebuild_core_change_advances(v: Variant) -> Query:
    """A carry-forward rebuild whose core differs from the old core advances
    schema_generation."""
    s = step("rebuild", v, "h1")
    old, new = _rebuild_sets(s)
    goal = z3.Implies(
        S.set_core(new) != S.set_core(old), S.set_schemagen(new) != S.set_schemagen(old)
    )
    return _query([s], goal, [s.args["carry_forward"]], [])


def zero_inherit_rebuild_monotone(v: Variant) -> Query:
    """A zero-inheritance rebuild into the same name does not lower schema_generation."""
    s = step("rebuild", v, "h1")
    old, new = _rebuild_sets(s)
    extra = [z3.Not(s.args["carry_forward"]), s.args["into"] == s.args["name"]]
    return _query([s], S.set_schemagen(new) >= S.set_schemagen(old), extra, [])


def drifted_then_rebuilt_denied(v: Variant) -> Query:
    """After an activated tool's record is replaced by one whose digest or provenance differs
    from the activation's pins, a carry-forward rebuild of the set does not make the call
    authorized again."""
    s1 = step("catalog_upsert", v, "h1")
    tool, name = s1.args["tool"], zi.fresh("h_name", zi.SetName)
    act = sel(S.set_acts(sel(s1.pre.sets, name)), tool)
    rec = sel(s1.post.catalog, tool)
    s2 = _then(
        s1,
        "rebuild",
        v,
        "h2",
        {
            "name": name,
            "into": name,
            "progressive": zi.fresh("h_progressive", z3.BoolSort()),
            "carry_forward": z3.BoolVal(True),
        },
    )
    s3 = _then(s2, "authorize", v, "h3", {"name": name, "tool": tool})
    drifted = z3.Or(R.rec_digest(rec) != A.act_digest(act), R.rec_prov(rec) != A.act_prov(act))
    extra = [A.is_Act(act), s1.ok, drifted]
    return _query([s1, s2, s3], z3.Not(s3.ok), extra, [])
