"""Checking a hazard: a minimal concrete trace, confirmed in Z3; or a proof with its witness and
mutant.

Refuted (``expect="refuted"``): `search.shortest` finds the minimal violating trace; when the
hazard has a Z3 query, the query's steps are pinned to the trace's last steps (`pin.pin_step`)
and premises plus the NEGATED goal must be ``sat`` - the trace is then a genuine Z3
counterexample of the candidate property that is also reachable from ``reset``.  ``unsat``
there means the concrete predicate and the query disagree (reported ``unconfirmed``, a
failure); ``unknown`` is a failure too.

Proved (``expect="proved"``): the query's negated goal is ``unsat`` over arbitrary invariant
states (seeded solver, rlimit, `solve.check`); the witness (premises plus hints) is ``sat``,
pinned to a minimal concrete trace that shows the interesting case; the named mutant refutes
it with a minimal trace confirmed the same way; and the search under the default profile finds
no violation within `search.MAX_DEPTH` (a bounded cross-check of the proof).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model.profiles import DEFAULT, Variant

from .. import mutants
from ..obligations import FINITE_STATES, SEARCH_BOUND
from ..pin import Encoder, pin_step
from ..search import CONFIRM_BOUND, CONFIRM_RLIMIT
from ..solve import _solver, check
from .definitions import Hazard
from .queries import Builder
from .search import Ran, Trace, shortest


def confirm(build: Builder, v: Variant, steps: tuple[Ran, ...], mode: str) -> str:
    """``sat``/``unsat``/``unknown`` of the query under ``v`` with its steps pinned to the last
    ``steps``: negated goal (``mode="counterexample"``) or witness hints (``"witness"``).
    Batches are tried as bounded if-chains first, then unbounded (as `search.find` does)."""
    status: Any = z3.unknown
    for bound in (CONFIRM_BOUND, None):
        tokens = (SEARCH_BOUND.set(bound), FINITE_STATES.set(False))
        try:
            q = build(v)
        finally:
            FINITE_STATES.reset(tokens[1])
            SEARCH_BOUND.reset(tokens[0])
        tail = steps[len(steps) - len(q.steps) :]
        enc = Encoder()
        pins = []
        for zstep, ran in zip(q.steps, tail, strict=True):
            pins += pin_step(enc, ran.action.op, zstep.pre, zstep.args, ran.pre, ran.action.kwargs)
        goal = q.witness if mode == "witness" else [z3.Not(q.goal)]
        solver = _solver()
        solver.set("rlimit", CONFIRM_RLIMIT)
        solver.add(*q.premises, *q.alg.defs, *goal, *pins, *enc.facts())
        status = solver.check()
        if status != z3.unknown:
            break
    return str(status)


@dataclass
class Found:
    """A minimal trace and the Z3 status of its pinned confirmation (``None``: no query)."""

    trace: Trace | None
    z3: str | None

    @property
    def confirmed(self) -> bool:
        return self.trace is not None and self.z3 in (None, "sat")


def _found(h: Hazard, v: Variant, mode: str) -> Found:
    pred = h.witness if mode == "witness" else h.violates
    assert pred is not None
    trace = shortest(h.probe, pred, h.domain, v)
    if trace is None or h.query is None:
        return Found(trace, None)
    return Found(trace, confirm(h.query, v, trace.probe, mode))


@dataclass
class Result:
    hazard: Hazard
    result: str
    """``refuted``, ``proved``, or why neither: ``not found``, ``unconfirmed``, ``unknown``,
    ``witness missing``, ``mutant survives``, ``bounded counterexample``."""
    seconds: float
    trace: Trace | None
    """The hazard's trace: the counterexample (refuted) or the witness (proved)."""
    z3: str
    mutant_trace: Trace | None = None

    @property
    def passed(self) -> bool:
        return self.result == self.hazard.expect


def _status(found: Found) -> str:
    if found.trace is None:
        return "not found"
    if found.z3 == "unknown":
        return "unknown"
    return "unconfirmed" if found.z3 == "unsat" else ""


def check_hazard(h: Hazard) -> Result:
    start = time.perf_counter()
    if h.expect == "refuted":
        cex = _found(h, DEFAULT, "counterexample")
        z3_note = "none (concrete only)" if h.query is None else f"{cex.z3} (pinned)"
        result = _status(cex) or "refuted"
        return Result(h, result, time.perf_counter() - start, cex.trace, z3_note)
    assert h.query is not None and h.mutant is not None
    query = h.query
    proof = check(lambda: query(DEFAULT), True).status
    if proof != "unsat":
        result = "unknown" if proof == "unknown" else "refuted"
        return Result(h, result, time.perf_counter() - start, None, proof)
    wit = _found(h, DEFAULT, "witness") if h.witness is not None else Found(None, None)
    mut = _found(h, mutants.variant(h.mutant), "counterexample")
    bounded = shortest(h.probe, h.violates, h.domain, DEFAULT)
    if not wit.confirmed:
        result = "witness missing"
    elif not mut.confirmed:
        result = "mutant survives"
    elif bounded is not None:
        result = "bounded counterexample"
    else:
        result = "proved"
    note = f"{proof}; witness {wit.z3} (pinned); mutant {h.mutant}: {mut.z3} (pinned)"
    return Result(h, result, time.perf_counter() - start, wit.trace, note, mut.trace)


@dataclass
class UnderProfile:
    """A hazard re-checked under another drift-rule profile (informational for spec authors:
    which hazards a proposed rule closes or opens).

    ``result``: ``refuted`` (minimal trace under the profile, pinned confirmation ``sat``),
    ``proved`` (negated goal ``unsat`` under the profile and its premises satisfiable; the
    default profile's confirmed trace is the variant that refutes it), ``not found`` (no trace
    within the search depth and no query), or ``unknown``/``unconfirmed`` (failures)."""

    profile: str
    result: str
    trace: Trace | None
    z3: str

    @property
    def sound(self) -> bool:
        """Settled (``unknown``, ``unconfirmed`` and ``vacuous`` fail the run)."""
        return self.result in ("refuted", "proved", "not found")


def check_under(h: Hazard, profile: str) -> UnderProfile:
    v = Variant(profile)
    found = Found(shortest(h.probe, h.violates, h.domain, v), None)
    if found.trace is not None:
        if h.query is not None:
            found.z3 = confirm(h.query, v, found.trace.probe, "counterexample")
        status = _status(found) or "refuted"
        note = "none (concrete only)" if found.z3 is None else f"{found.z3} (pinned)"
        return UnderProfile(profile, status, found.trace, note)
    if h.query is None:
        return UnderProfile(profile, "not found", None, "none (concrete only)")
    query = h.query
    proof = check(lambda: query(v), True).status
    if proof != "unsat":
        return UnderProfile(profile, "unknown" if proof == "unknown" else "refuted", None, proof)
    premises = check(lambda: query(v), False).status
    result = "proved" if premises == "sat" else "vacuous"
    return UnderProfile(profile, result, None, f"unsat; premises {premises}")
