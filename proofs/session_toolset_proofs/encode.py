"""Arbitrary Z3 worlds and operation arguments, and the inductive invariant.

An arbitrary state is four fresh constants (catalog, generation, factory counters, sets); nothing
bounds the number of tools, sessions or sets.  The invariant is what consecution needs:

- ``gen_u64``:        0 <= generation <= 2^64-1
- ``record_wf``:      a record with Unverified provenance is untrusted
- ``set_gens``:       every set's catalog_generation is in [0, generation], schema_generation >= 0
- ``disjoint``:       no tool is both core and activated in one set
- ``session_bound``:  every activation was granted for its set's session
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.ops import Op
from session_toolset_model.state import State
from session_toolset_model.z3_interp import Z3Algebra

SUPPORT = 2
"""Entries per map in a search-mode state (see `fresh_state`)."""


_GROUND: dict[int, tuple[State, Any]] = {}
"""Search-mode states: the invariant as a ground formula over their finite support."""


def _finite(
    prefix: str, dom: Any, default: Any, value: Callable[[str], Any]
) -> tuple[Any, list[tuple[Any, Any]]]:
    m = z3.K(dom, default)
    entries = []
    for i in range(SUPPORT):
        k, v = zi.fresh(f"{prefix}_k{i}", dom), value(f"{prefix}_v{i}")
        m = z3.Store(m, k, v)
        entries.append((k, v))
    return m, entries


def invariant_premise(st: State) -> Any:
    """The invariant of a pre-state: ground for search-mode states (defaults satisfy it)."""
    entry = _GROUND.get(id(st))
    return entry[1] if entry is not None and entry[0] is st else invariant(st)


def fresh_state(prefix: str, search: bool = False) -> State:
    """An arbitrary world; in search mode one whose maps have at most `SUPPORT` entries each.

    Search mode only restricts the states a *model search* considers (every such state is an
    arbitrary state too), which lets Z3 build witnesses and counterexamples quickly.
    """
    if search:
        gen = zi.fresh(prefix + "_gen", zi.IntS)
        ground: list[Any] = [gen >= 0, gen <= MAX_GENERATION]

        def a_set(p: str) -> Any:
            session = zi.fresh(p + "_session", zi.Session)
            catgen = zi.fresh(p + "_catgen", zi.IntS)
            schemagen = zi.fresh(p + "_schemagen", zi.IntS)
            core, _ = _finite(
                p + "_core", zi.Tool, zi.PinOpt.NoPin, lambda q: zi.fresh(q, zi.PinOpt)
            )
            acts, act_entries = _finite(
                p + "_acts", zi.Tool, zi.ActOpt.NoAct, lambda q: zi.fresh(q, zi.ActOpt)
            )
            ground.extend([catgen >= 0, catgen <= gen, schemagen >= 0])
            for t, _a in act_entries:
                act = z3.Select(acts, t)
                ground.append(
                    z3.Not(z3.And(zi.PinOpt.is_Pin(z3.Select(core, t)), zi.ActOpt.is_Act(act)))
                )
                ground.append(
                    z3.Implies(zi.ActOpt.is_Act(act), zi.ActOpt.act_session(act) == session)
                )
            return zi.SetOpt.TSet(session, catgen, schemagen, core, acts)

        catalog, recs = _finite(
            prefix + "_catalog", zi.Tool, zi.RecOpt.NoRec, lambda q: zi.fresh(q, zi.RecOpt)
        )
        for t, _r in recs:
            rec = z3.Select(catalog, t)
            ground.append(
                z3.Implies(
                    z3.And(zi.RecOpt.is_Rec(rec), zi.UNVERIFIED(zi.RecOpt.rec_prov(rec))),
                    zi.RecOpt.rec_trust(rec) == zi.TRUST["untrusted"],
                )
            )
        calls, _ = _finite(prefix + "_calls", zi.Tool, z3.IntVal(0), lambda q: zi.fresh(q, zi.IntS))
        sets, _ = _finite(prefix + "_sets", zi.SetName, zi.SetOpt.NoSet, a_set)
        st = State(catalog, gen, calls, sets)
        _GROUND[id(st)] = (st, z3.And(*ground))
        return st
    return State(
        zi.fresh(prefix + "_catalog", z3.ArraySort(zi.Tool, zi.RecOpt)),
        zi.fresh(prefix + "_gen", zi.IntS),
        zi.fresh(prefix + "_calls", z3.ArraySort(zi.Tool, zi.IntS)),
        zi.fresh(prefix + "_sets", z3.ArraySort(zi.SetName, zi.SetOpt)),
    )


def fresh_args(alg: Z3Algebra, op: Op, prefix: str = "a") -> dict[str, Any]:
    args: dict[str, Any] = {}
    for name, sort in op.args:
        if sort.startswith("seq_"):
            args[name] = alg.seq(f"{prefix}_{name}", sort[4:])
        else:
            args[name] = zi.fresh(f"{prefix}_{name}", zi.SORTS[sort])
    return args


def invariant_parts(st: State) -> dict[str, Any]:
    t = z3.FreshConst(zi.Tool, "t")
    n = z3.FreshConst(zi.SetName, "n")
    rec = st.catalog[t]
    s = st.sets[n]
    core = zi.SetOpt.set_core(s)[t]
    act = zi.SetOpt.set_acts(s)[t]
    exists = zi.SetOpt.is_TSet(s)
    return {
        "gen_u64": z3.And(st.gen >= 0, st.gen <= MAX_GENERATION),
        "record_wf": z3.ForAll(
            [t],
            z3.Implies(
                z3.And(zi.RecOpt.is_Rec(rec), zi.UNVERIFIED(zi.RecOpt.rec_prov(rec))),
                zi.RecOpt.rec_trust(rec) == zi.TRUST["untrusted"],
            ),
        ),
        "set_gens": z3.ForAll(
            [n],
            z3.Implies(
                exists,
                z3.And(
                    zi.SetOpt.set_catgen(s) >= 0,
                    zi.SetOpt.set_catgen(s) <= st.gen,
                    zi.SetOpt.set_schemagen(s) >= 0,
                ),
            ),
        ),
        "disjoint": z3.ForAll(
            [n, t],
            z3.Implies(exists, z3.Not(z3.And(zi.PinOpt.is_Pin(core), zi.ActOpt.is_Act(act)))),
        ),
        "session_bound": z3.ForAll(
            [n, t],
            z3.Implies(
                z3.And(exists, zi.ActOpt.is_Act(act)),
                zi.ActOpt.act_session(act) == zi.SetOpt.set_session(s),
            ),
        ),
    }


def invariant(st: State) -> Any:
    return z3.And(*invariant_parts(st).values())
