"""Condition outcomes no state can produce, proved with Z3.

The concrete interpretation records which condition outcomes of the model's decisions a run saw
(`session_toolset_model.conditions`).  For an outcome a run never saw, this module asks Z3
whether *any* state satisfying the inductive invariant (`encode.invariant`) and the operation's
precondition can produce it: every operation's transition is interpreted once over arbitrary Z3
terms with a recording algebra, each decision instance at the outcome's site gives a formula
(a check list: the earlier checks pass and this one has the wanted value; a conjunction or
disjunction: the operand vector MC/DC needs), and the outcome is *proved unreachable* when every
instance is `unsat`.  An outcome Z3 can produce is not claimed: it stays missing (the concrete
interpretation may still never produce it, e.g. a condition on a junk value or a key outside an
update's candidate set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]
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


class _RecordingZ3(Z3Algebra):
    def __init__(self) -> None:
        super().__init__(None)
        self.instances: list[tuple[str, str, tuple[Any, ...]]] = []

    def and_(self, *xs: Any) -> Any:
        if len(xs) >= 2:
            self.instances.append((_site(), "and", tuple(xs)))
        return super().and_(*xs)

    def or_(self, *xs: Any) -> Any:
        if len(xs) >= 2:
            self.instances.append((_site(), "or", tuple(xs)))
        return super().or_(*xs)

    def note_checks(self, conds: tuple[Any, ...], labels: tuple[str, ...]) -> None:
        self.instances.append((_site(), "checks", tuple(conds)))


def instances(v: Variant = DEFAULT, ops: tuple[str, ...] | None = None) -> list[Instance]:
    """Every decision instance of every operation (or of ``ops``), with its premises."""
    found: list[Instance] = []
    for name, op in OPS.items():
        if ops is not None and name not in ops:
            continue
        alg = _RecordingZ3()
        st = fresh_state(f"c_{name}")
        args = fresh_args(alg, op, f"c_{name}")
        op.run(alg, v, st, args)
        premises = (invariant(st), op.pre(alg, st, args), *alg.defs)
        found += [Instance(site, kind, conds, premises) for site, kind, conds in alg.instances]
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
    table: ConditionTable, timeout_ms: int = 5000, ops: tuple[str, ...] | None = None
) -> dict[str, str]:
    """For each condition outcome ``table`` is missing: ``"unsat"`` when Z3 proves that no
    invariant state reaches it, else Z3's answer (``sat``/``unknown``) or ``no Z3 instance``;
    keyed by `conditions.outcome_key`."""
    by_site: dict[tuple[str, str, int], list[Instance]] = {}
    for inst in instances(ops=ops):
        by_site.setdefault((inst.site, inst.kind, len(inst.conds)), []).append(inst)
    verdicts: dict[str, str] = {}
    for d, index, outcome, covered in table.outcomes():
        if covered:
            continue
        found = by_site.get((d.site, d.kind, len(d.labels)), [])
        verdict = "no Z3 instance" if not found else "unsat"
        for inst in found:
            answers = [_sat(f, inst.premises, timeout_ms) for f in _formulas(inst, index, outcome)]
            if "unsat" not in answers:
                verdict = "sat" if all(a == "sat" for a in answers) else "unknown"
                break
        verdicts[outcome_key(d, index, outcome)] = verdict
    return verdicts
