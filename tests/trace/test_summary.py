"""`window.reachable`, the summary of any run of hidden catalog operations, is exact.

On a bounded domain (two tools, a few records, generations near 0 and near 2^64-1), every
catalog and generation the model's own concrete transitions reach from a start state by some
sequence of successful hidden operations is admitted by the summary, and every one the summary
admits is reached by some sequence: both directions, so the summary neither loses an
explanation nor invents one there.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.concrete import CMap, Rec
from session_toolset_model.ops import OPS
from session_toolset_model.oracle import concrete_algebra
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.state import State, initial
from session_toolset_model.z3_interp import TRUST, UNVERIFIED, Digest, Prov, RecOpt

from session_toolset_harness.trace.window import SUMMARISED, reachable

pytestmark = pytest.mark.spec("1.3", "2")

TOOLS = ("t0", "t1")
GOOD = (  # well-formed records: an Unverified provenance is untrusted
    Rec("d0", "p", "trusted"),
    Rec("d1", "p", "trusted"),
    Rec("d0", "p", "mismatch"),
    Rec("d0", "u", "untrusted"),
)
BAD = Rec("d1", "u", "trusted")  # no request carries it: never reached
RECORDS = (*GOOD, BAD)
DEPTH = 4
"""Longest sequence enumerated: two tools need at most two mutations, then one rebase."""

ALG = concrete_algebra()
ALG._unverified = lambda prov: prov == "u"


def _gens(g: int) -> list[int]:
    """The generations looked at from ``g``: near it, and at the u64 limit (2^64 itself
    included: no u64 holds it, so nothing may reach it)."""
    near = [g + k for k in range(DEPTH + 1)] + [MAX_GENERATION - 1, MAX_GENERATION]
    return sorted({x for x in near if g <= x <= MAX_GENERATION + 1})


def _ops(st: State, priors: list[int]) -> Iterator[tuple[str, dict[str, Any]]]:
    for tool, rec in product(TOOLS, GOOD):
        record = {"tool": tool, "digest": rec.digest, "prov": rec.prov, "trust": rec.trust}
        yield "catalog_insert", record
        yield "catalog_upsert", {**record, "has_replaced": False, "replaced": None}
        for replaced in TOOLS:
            yield "catalog_upsert", {**record, "has_replaced": True, "replaced": replaced}
    for tool in TOOLS:
        yield "catalog_remove", {"tool": tool}
    for prior in priors:
        yield "catalog_rebase_past", {"prior": prior}


def _key(st: State) -> tuple[tuple[Any, ...], int]:
    return tuple(st.catalog[t] for t in TOOLS), st.gen


def enumerated(start: State) -> set[tuple[tuple[Any, ...], int]]:
    """Every (records, generation) some sequence of at most `DEPTH` successful hidden
    operations reaches, run by the model's concrete transitions."""
    priors = sorted({min(MAX_GENERATION, max(0, x - 1)) for x in _gens(start.gen)})
    seen = {_key(start)}
    frontier = [start]
    for _ in range(DEPTH):
        nxt = []
        for st in frontier:
            for name, args in _ops(st, priors):
                op = OPS[name]
                if not op.pre(ALG, st, args):
                    continue
                result = op.run(ALG, DEFAULT, st, args)
                if result.code != "ok" or _key(result.state) in seen:
                    continue  # a failure changes nothing: it reaches nothing new
                seen.add(_key(result.state))
                nxt.append(result.state)
        frontier = nxt
    return seen


class _Summary:
    """The summary's verdict on concrete catalogs, asked of Z3 with the values distinct."""

    def __init__(self, start: State) -> None:
        self.digests = {d: z3.Const(f"digest.{d}", Digest) for d in ("d0", "d1")}
        self.provs = {p: z3.Const(f"prov.{p}", Prov) for p in ("p", "u")}
        self.solver = z3.Solver()
        self.solver.add(z3.Distinct(*self.digests.values()), z3.Distinct(*self.provs.values()))
        for p, c in self.provs.items():
            self.solver.add(UNVERIFIED(c) == (p == "u"))
        self.start = start

    def rec(self, r: Rec | None) -> Any:
        if r is None:
            return RecOpt.NoRec
        return RecOpt.Rec(self.digests[r.digest], self.provs[r.prov], TRUST[r.trust])

    def admits(self, records: tuple[Rec | None, ...], gen: int) -> bool:
        def well_formed(a: Any) -> Any:
            unverified = UNVERIFIED(RecOpt.rec_prov(a))
            return z3.Implies(unverified, RecOpt.rec_trust(a) == TRUST["untrusted"])

        before = [self.rec(self.start.catalog[t]) for t in TOOLS]
        pairs = list(zip(before, [self.rec(r) for r in records], strict=True))
        claim = reachable(pairs, self.start.gen, z3.IntVal(gen), SUMMARISED, well_formed)
        self.solver.push()
        self.solver.add(claim)
        verdict = self.solver.check()
        self.solver.pop()
        assert verdict in (z3.sat, z3.unsat)
        return bool(verdict == z3.sat)


def _start(records: dict[str, Rec], gen: int) -> State:
    st = initial(ALG)
    return State(CMap.of(None, records), gen, st.calls, st.sets)


STARTS = [
    _start({}, 0),
    _start({"t0": GOOD[0]}, 1),
    _start({"t0": GOOD[0], "t1": GOOD[3]}, MAX_GENERATION - 2),
    _start({"t1": GOOD[2]}, MAX_GENERATION - 1),
    _start({"t0": GOOD[1]}, MAX_GENERATION),
]


@pytest.mark.parametrize("start", STARTS, ids=lambda s: f"gen{s.gen}-{len(s.catalog.as_dict())}")
def test_summary_is_exactly_what_hidden_catalog_operations_reach(start: State) -> None:
    reached = enumerated(start)
    summary = _Summary(start)
    options = [None, *RECORDS]
    admitted = {
        (records, gen)
        for records in product(options, repeat=len(TOOLS))
        for gen in _gens(start.gen)
        if summary.admits(records, gen)
    }
    in_domain = {(r, g) for r, g in reached if g in _gens(start.gen)}
    assert in_domain - admitted == set(), "reached by the model but refused by the summary"
    assert admitted - in_domain == set(), "admitted by the summary but reached by nothing"
    assert len(in_domain) > 1 or start.gen == MAX_GENERATION  # the domain is not trivial
