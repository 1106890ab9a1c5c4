"""One deterministic Z3 run: a fresh solver, fixed seeds, an rlimit budget (no wall clock).

`unknown` (budget exhausted or incompleteness) is reported as such and counts as failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

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
    s.set("rlimit", RLIMIT)
    return s


BOUND = 3
"""Batch length bound used first when *searching* for a model (witness or counterexample)."""


def check(build: Callable[[], Query], negate_goal: bool, search: bool = False) -> Outcome:
    """Premises (and side definitions) with the negated goal, or with the witness hints.

    With ``search`` (looking for a counterexample or witness) the query is first built in the
    model's bounded search mode (every batch at most `BOUND` long, loops as ground if-chains):
    a model found that way is a model of the unbounded query too.  Only if that finds none is
    the unbounded query asked.  Proofs (``unsat``) are never bounded.
    """
    start = time.perf_counter()
    result = None
    if search:
        token = SEARCH_BOUND.set(BOUND)
        try:
            query = build()
        finally:
            SEARCH_BOUND.reset(token)
        result, s = _run(query, negate_goal, [])
    if result != z3.sat:
        query = build()
        result, s = _run(query, negate_goal, [])
    trace: dict[str, str] = {}
    if result == z3.sat:
        model = s.model()
        for name, term in query.trace.items():
            trace[name] = str(model.eval(term, model_completion=True))
    return Outcome(str(result), time.perf_counter() - start, trace)


def construction(build: Callable[[], Query]) -> str:
    """Why a proved goal holds: ``premises`` (not shown without them), or by construction -
    ``simplify`` (the goal rewrites to true before any premise is added) or ``no premises``
    (its negation is unsat with only the side definitions that define its terms)."""
    query = build()
    if z3.is_true(z3.simplify(query.goal)):
        return "simplify"
    s = _solver()
    s.set("rlimit", CONSTRUCTION_RLIMIT)
    s.add(*query.alg.defs, z3.Not(query.goal))
    return "no premises" if s.check() == z3.unsat else "premises"


CONSTRUCTION_RLIMIT = 300_000
"""Budget of the "holds with no premises" check.  A goal the solver cannot show true without
premises in this budget (``sat`` or ``unknown``) is classified ``premises``: "proved from the
premises, not shown to hold without them" - never the other way round."""


def _run(query: Query, negate_goal: bool, bounds: list[Any]) -> tuple[Any, Any]:
    s = _solver()
    s.add(*query.premises, *query.alg.defs, *bounds)
    if negate_goal:
        s.add(z3.Not(query.goal))
    else:
        s.add(*query.witness)
    return s.check(), s
