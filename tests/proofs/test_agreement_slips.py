"""A slip on the Z3 side alone fails `prove` through its agreement rows.

Each slip below is a one-line change to `z3_interp` (monkeypatched, so the forked proof jobs
inherit it) that leaves the concrete interpretation - and so every test, vector and
exploration - untouched, while the proofs would speak about another machine.  Each must make an
``agree.<op>`` row of `prove` disagree (and the run fail), on the case named.  The first two
passed every agreement row while the cases came from the exploration alone (batches of at most
two, no initial state).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_proofs.report import run

Patch = Callable[[pytest.MonkeyPatch], None]


def _sequences_of_two(mp: pytest.MonkeyPatch) -> None:
    """`Z3Algebra.seq` bounds every batch to two elements."""
    seq = zi.Z3Algebra.seq

    def bounded(self: zi.Z3Algebra, prefix: str, elem: str) -> zi.Z3Seq:
        s = seq(self, prefix, elem)
        self.defs.append(s.length <= 2)
        return s

    mp.setattr(zi.Z3Algebra, "seq", bounded)


def _counters_start_at_one(mp: pytest.MonkeyPatch) -> None:
    """The empty factory-counter map reads 1, not 0 (an off-by-one in a counter)."""
    mp.setitem(zi._MAP_OF, "int", (zi.Tool, z3.IntVal(1)))


def _bound_is_two_to_the_64(mp: pytest.MonkeyPatch) -> None:
    """The u64 bound written as 2^64 on the Z3 side (a wrong bound on generations)."""
    int_ = zi.Z3Algebra.int_

    def wrong(self: zi.Z3Algebra, value: int) -> Any:
        return z3.IntVal(2**64) if value == MAX_GENERATION else int_(self, value)

    mp.setattr(zi.Z3Algebra, "int_", wrong)


def _update_only_present_keys(mp: pytest.MonkeyPatch) -> None:
    """A bulk map update defined only at the keys the old map holds (a dropped field: the new
    set's core and carried activations say nothing about other tools)."""

    def update_map(self: zi.Z3Algebra, m: Any, cands: Any, fn: Any) -> Any:
        k = z3.FreshConst(m.sort().domain(), "k")
        out = zi.fresh("map", m.sort())
        rng = m.sort().range()
        held = z3.BoolVal(True)
        if isinstance(rng, z3.DatatypeSortRef) and rng.num_constructors() > 1:
            held = rng.recognizer(1)(z3.Select(m, k))
        self.defs.append(z3.ForAll([k], z3.Implies(held, z3.Select(out, k) == fn(k, m[k]))))
        return out

    mp.setattr(zi.Z3Algebra, "update_map", update_map)


def _first_index_may_be_negative(mp: pytest.MonkeyPatch) -> None:
    """The side definition of "first index where" loses ``k >= 0``."""
    definition = zi.first_index_definition
    mp.setattr(zi, "first_index_definition", lambda v, k, n, p: definition(v, k, n, p)[1:])


def _first_occurrence_skips_the_last(mp: pytest.MonkeyPatch) -> None:
    """The side definition of "first occurrence" ranges over all but the last element."""

    def definition(v: Any, f: Any, s: zi.Z3Seq, key: str) -> Any:
        i = z3.FreshConst(zi.IntS, "i")
        ki = zi._key(s.at(i), key)
        return z3.ForAll(
            [i],
            z3.Implies(
                z3.And(i >= 0, i < s.length - 1),
                z3.And(f(ki) >= 0, f(ki) < s.length, f(ki) <= i, zi._key(s.at(f(ki)), key) == ki),
            ),
        )

    mp.setattr(zi, "first_occ_definition", definition)


SLIPS: list[tuple[Patch, str, str]] = [
    (_sequences_of_two, "activate_many", "a successful batch of three"),
    (_counters_start_at_one, "initial", "the initial state"),
    (_bound_is_two_to_the_64, "catalog_insert", "an insert at 2^64-1"),
    (_update_only_present_keys, "set_new", "success"),
    (_first_index_may_be_negative, "activate_many", "success"),
    (_first_occurrence_skips_the_last, "activate_many", "success"),
]


@pytest.mark.parametrize(("slip", "op", "case"), SLIPS, ids=[s[0].__name__[1:] for s in SLIPS])
def test_a_z3_side_slip_fails_prove(
    monkeypatch: pytest.MonkeyPatch, slip: Patch, op: str, case: str
) -> None:
    slip(monkeypatch)
    report = run(["per-tool-pinned"], re.compile(rf"^agree\.{op}$"))
    (row,) = [r for r in report.rows if r.check == "agreement"]
    assert (row.result, row.trace.get("case")) == ("disagrees", case)
    assert not report.ok


def test_the_slips_leave_the_correct_definition_agreeing() -> None:
    """Without a slip the same rows agree (the checks above do not fail for another reason)."""
    ops = "|".join(sorted({op for _, op, _ in SLIPS}))
    report = run(["per-tool-pinned"], re.compile(rf"^agree\.({ops})$"))
    rows = [r for r in report.rows if r.check == "agreement"]
    assert len(rows) == 4 and all(r.result == "agrees" for r in rows) and report.ok
