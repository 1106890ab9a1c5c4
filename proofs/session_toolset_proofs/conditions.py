"""Condition outcomes no state can produce, proved with Z3.

The concrete interpretation records which condition outcomes of the model's decisions a run saw
(`session_toolset_model.conditions`).  For an outcome a run never saw, this module asks Z3
whether *any* state satisfying the inductive invariant (`encode.invariant`) and the operation's
precondition can produce it: every operation's transition is interpreted once over arbitrary Z3
terms with a recording algebra, each decision instance at the outcome's site gives a formula
(a check list: the earlier checks pass and this one has the wanted value; a conjunction or
disjunction: each operand vector MC/DC needs), and the outcome is *proved unreachable* when one
of its formulas is `unsat` at every instance.  The premises of an instance are what the
concrete recorder requires before it records: the enclosing `algebra.when` guards and, inside a
map update or a search over candidate keys, that the key is a candidate.  An outcome Z3 can
produce is not claimed: it stays missing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.conditions import ConditionTable, _site, outcome_key
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.z3_interp import Z3Algebra

from .encode import fresh_args, fresh_state, invariant


@dataclass(frozen=True)
class Instance:
    site: str
    kind: str
    conds: tuple[Any, ...]
    premises: tuple[Any, ...]


Guard = Callable[[Any], Any]
"""A candidate-key set, as the predicate "key ``k`` is visited" (see `_RecordingZ3.keys`)."""

_DEFAULT_OF: dict[str, Any] = {
    "RecOpt": zi.RecOpt.NoRec,
    "PinOpt": zi.PinOpt.NoPin,
    "ActOpt": zi.ActOpt.NoAct,
    "SetOpt": zi.SetOpt.NoSet,
    "Int": z3.IntVal(0),
    "DropReason": zi.REASON["none"],
}
"""The default of a map by its range sort: the concrete `CMap` never stores an entry equal to
its default, so its keys are exactly the keys whose value differs from it."""


class _RecordingZ3(Z3Algebra):
    """The Z3 interpretation, recording every decision instance with the premises under which
    the concrete recorder would record it: the enclosing `algebra.when` guards, and "the key is a
    candidate" inside a map update or a search over candidate keys (the concrete interpretation
    visits only those keys; Z3 alone would quantify over every key)."""

    def __init__(self) -> None:
        super().__init__(None)
        self.instances: list[tuple[str, str, tuple[Any, ...], tuple[Any, ...]]] = []
        self._guards: list[Any] = []

    def _record(self, kind: str, conds: tuple[Any, ...]) -> None:
        self.instances.append((_site(), kind, conds, tuple(self._guards)))

    def enter_guard(self, cond: Any) -> None:
        self._guards.append(cond)

    def exit_guard(self) -> None:
        self._guards.pop()

    def and_(self, *xs: Any) -> Any:
        if len(xs) >= 2:
            self._record("and", tuple(xs))
        return super().and_(*xs)

    def or_(self, *xs: Any) -> Any:
        if len(xs) >= 2:
            self._record("or", tuple(xs))
        return super().or_(*xs)

    def note_checks(self, conds: tuple[Any, ...], labels: tuple[str, ...]) -> None:
        self._record("checks", tuple(conds))

    # candidate keys as predicates, exactly the concrete sets (`concrete.ConcreteAlgebra.keys`)
    def keys(self, m: Any) -> Guard:
        default = _DEFAULT_OF[m.sort().range().name()]
        return lambda k: z3.Not(z3.Select(m, k) == default)

    def seq_keys(self, s: Any, key: str) -> Guard:
        def occurs(k: Any) -> Any:  # `algebra.seq_contains`, without recording its conjunction
            i = Z3Algebra.seq_first_index(self, s, key, k)
            at = s.at(i)
            return z3.And(
                i >= 0, i < s.length, (at if key == "self" else zi.GrantS.g_tool(at)) == k
            )

        return occurs

    def union(self, *cands: Any) -> Guard:
        return lambda k: z3.Or(*(c(k) for c in cands))

    def _visiting(self, cands: Guard, k: Any, body: Callable[[], Any]) -> Any:
        self._guards.append(cands(k))
        try:
            return body()
        finally:
            self._guards.pop()

    def update_map(self, m: Any, cands: Guard, fn: Callable[[Any, Any], Any]) -> Any:
        k = z3.FreshConst(m.sort().domain(), "k")
        out = zi.fresh("map", m.sort())
        value = self._visiting(cands, k, lambda: fn(k, z3.Select(m, k)))
        self.defs.append(z3.ForAll([k], z3.Select(out, k) == value))
        return out

    def exists_key(self, cands: Guard, sort: str, pred: Callable[[Any], Any]) -> Any:
        w = zi.fresh("witness", zi.SORTS[sort])
        k = z3.FreshConst(zi.SORTS[sort], "k")
        at_k = self._visiting(cands, k, lambda: pred(k))
        at_w = self._visiting(cands, w, lambda: pred(w))
        self.defs.append(z3.ForAll([k], z3.Implies(at_k, at_w)))
        return at_w

    def exists(self, cands: Guard, sort: str, pred: Callable[[Any], Any]) -> Any:
        k = z3.FreshConst(zi.SORTS[sort], "k")
        return z3.Exists([k], self._visiting(cands, k, lambda: pred(k)))


def instances(
    v: Variant = DEFAULT, ops: tuple[str, ...] | None = None, guards: bool = True
) -> list[Instance]:
    """Every decision instance of every operation (or of ``ops``), with its premises (without
    the recorder's guards and candidate keys when ``guards`` is false: the weaker reading a
    test uses to show those premises are what the proofs rest on)."""
    found: list[Instance] = []
    for name, op in OPS.items():
        if ops is not None and name not in ops:
            continue
        alg = _RecordingZ3()
        st = fresh_state(f"c_{name}")
        args = fresh_args(alg, op, f"c_{name}")
        op.run(alg, v, st, args)
        premises = (invariant(st), op.pre(alg, st, args), *alg.defs)
        found += [
            Instance(site, kind, conds, (*premises, *(held if guards else ())))
            for site, kind, conds, held in alg.instances
        ]
    return found


def _formulas(inst: Instance, index: int, outcome: str) -> list[Any]:
    """The formulas that must all be satisfiable (each alone) for the outcome to occur."""
    c = inst.conds
    if inst.kind == "checks":
        reached = [z3.Not(x) for x in c[:index]]
        return [z3.And(*reached, c[index] if outcome == "true" else z3.Not(c[index]))]
    if outcome in ("true", "false"):
        return [c[index] if outcome == "true" else z3.Not(c[index])]
    base = inst.kind == "and"

    def vector(flip: int | None) -> Any:
        return z3.And(*((x if (j != flip) == base else z3.Not(x)) for j, x in enumerate(c)))

    return [vector(None), vector(index)]


def _sat(formula: Any, premises: tuple[Any, ...], timeout_ms: int) -> str:
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*premises, formula)
    return str(solver.check())


def prove_unreachable(
    table: ConditionTable,
    timeout_ms: int = 5000,
    ops: tuple[str, ...] | None = None,
    guards: bool = True,
) -> dict[str, str]:
    """For each condition outcome ``table`` is missing: ``"unsat"`` when Z3 proves that no
    invariant state reaches it, else Z3's answer (``sat``/``unknown``) or ``no Z3 instance``;
    keyed by `conditions.outcome_key`."""
    by_site: dict[tuple[str, str, int], list[Instance]] = {}
    for inst in instances(ops=ops, guards=guards):
        by_site.setdefault((inst.site, inst.kind, len(inst.conds)), []).append(inst)
    verdicts: dict[str, str] = {}
    for d, index, outcome, covered in table.outcomes():
        if covered:
            continue
        found = by_site.get((d.site, d.kind, len(d.labels)), [])
        verdicts[outcome_key(d, index, outcome)] = (
            _verdict(found, index, outcome, timeout_ms) if found else "no Z3 instance"
        )
    return verdicts


def _verdict(found: list[Instance], index: int, outcome: str, timeout_ms: int) -> str:
    """``unsat`` when one of the outcome's formulas is unsatisfiable at *every* instance of the
    decision.  (MC/DC's "decides" needs two evaluations, which the concrete run may see at two
    different instances - two calls of one helper - so each evaluation is refuted everywhere,
    never one here and the other there.)"""
    answers = []
    # the flipped evaluation first: it is the one a proof usually refutes, and the all-true
    # one is satisfiable (often only after a timeout, under the quantified side definitions)
    for j in reversed(range(len(_formulas(found[0], index, outcome)))):
        answer = "unsat"
        for inst in found:
            answer = _sat(_formulas(inst, index, outcome)[j], inst.premises, timeout_ms)
            if answer != "unsat":
                break
        if answer == "unsat":
            return "unsat"
        answers.append(answer)
    return "sat" if all(a == "sat" for a in answers) else "unknown"
