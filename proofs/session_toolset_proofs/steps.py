"""One transition from an arbitrary Z3 world, and the query an obligation asks about it.

`Query` (premises, goal, witness case, counterexample terms) and `Step` (pre-state, arguments,
result, premises of one transition) are what every obligation module builds on (`obligations`,
`postconditions`, `interp`).
"""

from __future__ import annotations

import copy
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import Variant
from session_toolset_model.state import Result, State
from session_toolset_model.z3_interp import Z3Algebra, Z3Seq

from .encode import fresh_args, fresh_state, invariant_premise


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
    alg._first_idx = list(s.alg._first_idx)
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
    alg = alg or Z3Algebra(SEARCH_BOUND.get(), v)
    op = OPS[opname]
    st = pre or fresh_state(prefix, search=SEARCH_BOUND.get() is not None and FINITE_STATES.get())
    a = args if args is not None else fresh_args(alg, op, prefix)
    res = op.run(alg, v, st, a)
    return Step(alg, st, a, res, [invariant_premise(st), op.pre(alg, st, a)])


def sel(m: Any, k: Any) -> Any:
    return z3.Select(m, k)
