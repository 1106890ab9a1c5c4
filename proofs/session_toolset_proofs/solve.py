"""One deterministic Z3 run: a fresh solver, fixed seeds, an rlimit budget (no wall clock).

`unknown` (budget exhausted or incompleteness) is reported as such and counts as failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from . import cache
from .obligations import SEARCH_BOUND, Query

SEED = 20240601
RLIMIT = 20_000_000


@dataclass
class Outcome:
    """``status`` is ``unsat``/``sat``/``unknown``; ``trace`` holds model values when sat."""

    status: str
    seconds: float
    trace: dict[str, str] = field(default_factory=dict)


def _solver() -> Any:
    z3.set_param("smt.random_seed", SEED)
    z3.set_param("sat.random_seed", SEED)
    s = z3.Solver()
    s.set("random_seed", SEED)
    s.set("rlimit", RLIMIT)  # read at call time: tests may lower it
    return s


_STATUS = {"sat": z3.sat, "unsat": z3.unsat, "unknown": z3.unknown}


def answer(
    assertions: list[Any], rlimit: int | None = None, reads: dict[str, Any] | None = None
) -> tuple[Any, dict[str, str]]:
    """Z3's answer to ``assertions`` in a fresh `_solver` with budget ``rlimit`` (default
    `RLIMIT`), and when ``sat`` the model's value of each term of ``reads`` (by name).  Every
    check of `prove` goes through here, so the cache (`cache.ACTIVE`) sees each one."""
    budget = RLIMIT if rlimit is None else rlimit
    s = _solver()
    s.set("rlimit", budget)
    s.add(*assertions)
    store = cache.ACTIVE
    key = ""
    if store is not None:
        key = store.key(s.to_smt2(), budget, SEED, reads)
        hit = store.get(key)
        if hit is not None:
            cache.COUNTS.reused += 1
            return _STATUS[hit[0]], hit[1]
    status = s.check()
    cache.COUNTS.solved += 1
    values: dict[str, str] = {}
    if status == z3.sat and reads:
        model = s.model()
        values = {k: str(model.eval(t, model_completion=True)) for k, t in reads.items()}
    if store is not None:
        store.put(key, str(status), values)
    return status, values


BOUND = 3
"""Batch length bound used first when *searching* for a model (witness or counterexample)."""


def check(build: Callable[[], Query], negate_goal: bool, search: bool = False) -> Outcome:
    """Premises (and side definitions) with the negated goal, or with the witness hints.

    With ``search`` (looking for a counterexample or witness) the query is first built in the
    model's bounded search mode (`bounded`); only if that finds none is the unbounded query
    asked.  Proofs (``unsat``) are never bounded.
    """
    start = time.perf_counter()
    if search:
        found = bounded(build, negate_goal)
        if found.status == "sat":
            return found
    query = build()
    result, trace = _run(query, negate_goal, [])
    return Outcome(str(result), time.perf_counter() - start, trace)


def bounded(build: Callable[[], Query], negate_goal: bool) -> Outcome:
    """The query built in the model's bounded search mode: every batch at most `BOUND` long,
    loops as ground if-chains, pre-states of finite support.  Only ``sat`` means something: a
    model of it is a model of the unbounded query (the side definitions say what the loops
    compute: `interp`); ``unsat`` proves nothing about longer batches."""
    start = time.perf_counter()
    token = SEARCH_BOUND.set(BOUND)
    try:
        query = build()
    finally:
        SEARCH_BOUND.reset(token)
    result, trace = _run(query, negate_goal, [], BOUNDED_RLIMIT)
    return Outcome(str(result), time.perf_counter() - start, trace)


BOUNDED_RLIMIT = RLIMIT
"""Budget of `bounded` (its own constant: a test starves the proofs alone)."""


def construction(build: Callable[[], Query]) -> str:
    """Why a proved goal holds.  By construction: ``simplify`` (the goal rewrites to true
    before any premise is added) or ``no premises`` (its negation is unsat with only the side
    definitions that define its terms).  From premises: ``hypothesis`` (its negation is *sat*
    with no premises, so it needs some, and unsat without the inductive invariant of its
    pre-state(s): the obligation's own hypothesis - precondition, "the operation succeeded",
    ... - and the side definitions suffice) or ``invariant`` (a model exists without the
    invariant: the proof needs it).  ``undetermined`` when a check that decides between these
    comes back ``unknown`` within its budget: never guessed as either side (a goal that holds
    from its hypothesis may still hold with no premises at all)."""
    query = build()
    if z3.is_true(z3.simplify(query.goal)):
        return "simplify"
    inv = [st.premises[0] for st in query.steps]  # `steps.Step`: the invariant comes first
    own = [p for p in query.premises if not any(p.eq(i) for i in inv)]
    status = _unsat([*own, *query.alg.defs], query.goal, INVARIANT_RLIMIT)
    if status == z3.sat:
        return "invariant"  # and so the query with no premises at all is sat too
    free = _unsat(query.alg.defs, query.goal, CONSTRUCTION_RLIMIT)
    if free == z3.unsat:
        return "no premises"
    if status == z3.unsat and free == z3.sat:
        return "hypothesis"
    return "undetermined"


def _unsat(premises: list[Any], goal: Any, rlimit: int) -> Any:
    return answer([*premises, z3.Not(goal)], rlimit)[0]


CONSTRUCTION_RLIMIT = 1_000_000
"""Budget of the "holds with no premises" check (asked unless the goal is already shown to need
the invariant).  ``unsat`` in it is ``no premises``; ``sat`` shows the goal needs premises;
``unknown`` leaves the goal ``undetermined`` (it is not counted on either side)."""

INVARIANT_RLIMIT = 500_000
"""Budget of the "holds without the invariant" check: ``unknown`` in it is reported as
``undetermined``, never as either side."""


def _run(
    query: Query, negate_goal: bool, bounds: list[Any], rlimit: int | None = None
) -> tuple[Any, dict[str, str]]:
    """The query's answer and, when sat, its trace terms' values."""
    asked = [z3.Not(query.goal)] if negate_goal else list(query.witness)
    return answer([*query.premises, *query.alg.defs, *bounds, *asked], rlimit, query.trace)
