"""Reachability: every (operation, outcome) pair of the model, from the initial state.

Reachable pairs: the bounded enumerator (`enumerate`) gives a trace from the initial state - run
step by step by the concrete oracle, which is the machine check of the trace itself - whose last
operation yields the outcome; the last step is then *confirmed in Z3*: the op's Z3 transition
from the pinned pre-state (which satisfies the inductive invariant) with the pinned arguments can
produce that outcome (``sat``; the transition is functional, so it is the outcome).  Pairs never
seen are *proved unreachable*: the op cannot produce the outcome from ANY state satisfying the
inductive invariant (``unsat`` over arbitrary symbolic states, unbounded batches).

A reachable pair's trace is also sent as PROTOCOL.md requests (`enumerate.trace_requests`, the
translation every generated vector uses) to the model's expected world (`World`): its reply to
the last request must carry the same outcome, or the row reads ``wire differs``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.enumerate import Action, candidates, nodes, trace_requests
from session_toolset_model.enumerate import outcome as run_candidate
from session_toolset_model.ops import OPS, outcomes_for
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.world import World

from .obligations import FINITE_STATES, SEARCH_BOUND, Step, step
from .pin import Encoder, pin_step
from .search import CONFIRM_BOUND, concrete_trace
from .solve import answer


@dataclass
class Reach:
    op: str
    outcome: str
    result: str
    """``reachable`` (trace confirmed), ``unreachable`` (proved) or ``unknown``."""
    seconds: float
    concrete: list[dict[str, Any]] = field(default_factory=list)


_STEPS: dict[tuple[str, int | None], Step] = {}


def _step(opname: str, bound: int | None) -> Step:
    """The op's Z3 transition from an arbitrary state, built once per (op, bound) and shared by
    the confirmations of its outcomes (each in a fresh solver)."""
    key = (opname, bound)
    if key not in _STEPS:
        tokens = (SEARCH_BOUND.set(bound), FINITE_STATES.set(False))
        try:
            _STEPS[key] = step(opname, DEFAULT)
        finally:
            FINITE_STATES.reset(tokens[1])
            SEARCH_BOUND.reset(tokens[0])
    return _STEPS[key]


def _confirm(opname: str, outcome: str, st: Any, args: dict[str, Any]) -> Any:
    for bound in (CONFIRM_BOUND, None):
        s = _step(opname, bound)
        enc = Encoder()
        pins = pin_step(enc, opname, s.pre, s.args, st, args)
        status = answer(
            [*s.premises, *s.alg.defs, s.res.code == zi.OUTCOME[outcome], *pins, *enc.facts()]
        )[0]
        if status != z3.unknown:
            return status
    return status


def _unreachable(opname: str, outcome: str) -> Any:
    s = _step(opname, None)
    return answer([*s.premises, *s.alg.defs, s.res.code == zi.OUTCOME[outcome]])[0]


def wire_outcome(trace: tuple[Action, ...], final: Action) -> str:
    """The outcome the expected world answers to ``trace`` then ``final`` sent as PROTOCOL.md
    requests from a reset adapter: ``ok`` or the error code of its reply to the last request
    (``untranslatable`` when the actions have no request form)."""
    world = World(DEFAULT)
    world.handle({"op": "hello"})
    world.handle({"op": "reset"})
    try:
        sends = trace_requests([*trace, final])
    except (KeyError, TypeError, ValueError):
        return "untranslatable"
    reply: dict[str, Any] = {}
    for send in sends:
        reply = world.handle(send)
    return "ok" if reply.get("ok") is True else str(reply.get("error"))


FIRST_NODES = 64
"""Outcomes not seen in the first this-many pre-states are asked to Z3 (unreachability proof)
before the rest are scanned; the scan goes on only for those the proof does not settle."""


def reach_op(opname: str) -> list[Reach]:
    """One entry per outcome of ``opname`` under the default profile.

    Every outcome is either found concretely (a trace, confirmed in Z3) or asked to Z3 as
    unreachable from any state satisfying the invariant; an outcome the concrete scan has not met
    in its first `FIRST_NODES` pre-states is asked first, so the scan can stop once every
    outcome is found or proved unreachable (the proofs are the ones asked anyway)."""
    op = OPS[opname]
    outcomes = outcomes_for(op, DEFAULT)
    out: list[Reach] = []
    start = time.perf_counter()
    found: dict[str, tuple[Any, Action, str]] = {}
    proofs: dict[str, tuple[Any, float]] = {}
    wanted = set(outcomes)
    for k, node in enumerate(nodes()):
        if k == FIRST_NODES:
            for outcome in outcomes:
                if outcome not in found:
                    t0 = time.perf_counter()
                    status = _unreachable(opname, outcome)
                    proofs[outcome] = (status, time.perf_counter() - t0)
                    if status == z3.unsat:
                        wanted.discard(outcome)
        if set(found) >= wanted:
            break
        for i, act in enumerate(candidates(opname, node)):
            code = run_candidate(DEFAULT, opname, node, i).code
            if code in wanted and code not in found:
                found[code] = (node, act, code)
    scan = time.perf_counter() - start - sum(sec for _, sec in proofs.values())
    for n, outcome in enumerate(outcomes):
        t0 = time.perf_counter()
        if outcome in found:
            node, act, code = found[outcome]
            status = _confirm(opname, outcome, node.state, act.kwargs)
            result = {"sat": "reachable", "unsat": "unconfirmed"}.get(str(status), "unknown")
            trace = concrete_trace(node, act, code)
            wire = wire_outcome(node.trace, act)
            if result == "reachable" and wire != outcome:
                result = "wire differs"
                trace.append({"wire_outcome": wire})
        else:
            status, earlier = proofs.get(outcome, (None, 0.0))
            if status is None:
                status = _unreachable(opname, outcome)
            result = {"unsat": "unreachable", "sat": "not found"}.get(str(status), "unknown")
            trace = []
            t0 -= earlier
        seconds = time.perf_counter() - t0 + (scan if n == 0 else 0.0)
        out.append(Reach(opname, outcome, result, seconds, trace))
    return out


def reachability() -> list[Reach]:
    """One entry per (op, outcome) of the op table under the default profile."""
    return [e for opname in OPS for e in reach_op(opname)]


def unreachable_codes(entries: list[Reach]) -> set[str]:
    """Outcomes no operation can produce (every op that lists them proved it unreachable)."""
    reachable = {e.outcome for e in entries if e.result == "reachable"}
    return {e.outcome for e in entries if e.result == "unreachable"} - reachable
