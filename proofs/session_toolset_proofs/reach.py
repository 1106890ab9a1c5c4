"""Reachability: every (operation, outcome) pair of the model, from the initial state.

Reachable pairs: the concrete exploration (`explore`) gives a trace from the initial state - run
step by step by the concrete oracle, which is the machine check of the trace itself - whose last
operation yields the outcome; the last step is then *confirmed in Z3*: the op's Z3 transition
from the pinned pre-state (which satisfies the inductive invariant) with the pinned arguments can
produce that outcome (``sat``; the transition is functional, so it is the outcome).  Pairs never
seen are *proved unreachable*: the op cannot produce the outcome from ANY state satisfying the
inductive invariant (``unsat`` over arbitrary symbolic states, unbounded batches).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT

from .explore import Action, final_args, nodes
from .obligations import FINITE_STATES, SEARCH_BOUND, step
from .pin import Encoder, pin_step
from .search import CONFIRM_BOUND, concrete_trace
from .solve import _solver


@dataclass
class Reach:
    op: str
    outcome: str
    result: str
    """``reachable`` (trace confirmed), ``unreachable`` (proved) or ``unknown``."""
    seconds: float
    concrete: list[dict[str, Any]] = field(default_factory=list)


def _confirm(opname: str, outcome: str, st: Any, args: dict[str, Any]) -> Any:
    for bound in (CONFIRM_BOUND, None):
        tokens = (SEARCH_BOUND.set(bound), FINITE_STATES.set(False))
        try:
            s = step(opname, DEFAULT)
        finally:
            FINITE_STATES.reset(tokens[1])
            SEARCH_BOUND.reset(tokens[0])
        enc = Encoder()
        solver = _solver()
        solver.add(*s.premises, *s.alg.defs, s.res.code == zi.OUTCOME[outcome])
        solver.add(*pin_step(enc, opname, s.pre, s.args, st, args), *enc.facts())
        status = solver.check()
        if status != z3.unknown:
            return status
    return status


def _unreachable(opname: str, outcome: str) -> Any:
    s = step(opname, DEFAULT)
    solver = _solver()
    solver.add(*s.premises, *s.alg.defs, s.res.code == zi.OUTCOME[outcome])
    return solver.check()


def reachability() -> list[Reach]:
    """One entry per (op, outcome) of the op table under the default profile."""
    out: list[Reach] = []
    for opname, op in OPS.items():
        start = time.perf_counter()
        wanted = set(outcomes_for(op, DEFAULT))
        found: dict[str, tuple[Any, Action, str]] = {}
        for node in nodes():
            for args in final_args(opname, node.state):
                act = Action.of(opname, **args)
                code = act.run(DEFAULT, node.state).code
                if code in wanted and code not in found:
                    found[code] = (node, act, code)
            if len(found) == len(wanted):
                break
        for outcome in outcomes_for(op, DEFAULT):
            t0 = time.perf_counter() if outcome != outcomes_for(op, DEFAULT)[0] else start
            if outcome in found:
                node, act, code = found[outcome]
                status = _confirm(opname, outcome, node.state, act.kwargs)
                result = {"sat": "reachable", "unsat": "unconfirmed"}.get(str(status), "unknown")
                trace = concrete_trace(node, act, code)
            else:
                status = _unreachable(opname, outcome)
                result = {"unsat": "unreachable", "sat": "not found"}.get(str(status), "unknown")
                trace = []
            out.append(Reach(opname, outcome, result, time.perf_counter() - t0, trace))
    return out


def unreachable_codes(entries: list[Reach]) -> set[str]:
    """Outcomes no operation can produce (every op that lists them proved it unreachable)."""
    reachable = {e.outcome for e in entries if e.result == "reachable"}
    return {e.outcome for e in entries if e.result == "unreachable"} - reachable
