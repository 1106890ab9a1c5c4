"""The abstract world of SPEC.md sections 2-5 and the shape of a transition's result.

One `State` holds the catalog (``Tool -> record option``: digest, provenance, source trust), the
catalog generation (u64), the per-tool factory call counters (the gate is the only caller), and
every named session tool set (``SetName -> set option``).  A set holds its session, the catalog
generation it was built against, its schema_generation, core pins (``Tool -> pin option``) and
exact activations (``Tool -> activation option``: grant session, generation, digest and the
provenance recorded when activated).  Leases are always NotAcquired and are not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .algebra import Algebra, Term
from .profiles import DEFAULT, Variant, seam


@dataclass(frozen=True)
class State:
    """One world: catalog, generation, factory counters and tool sets (terms of one algebra)."""

    catalog: Term
    gen: Term
    calls: Term
    sets: Term


@dataclass(frozen=True)
class Result:
    """A transition's outcome code, post-state, and payload terms (read per code/op)."""

    code: Term
    state: State
    extras: dict[str, Term] = field(default_factory=dict)


def initial(alg: Algebra, v: Variant = DEFAULT) -> State:
    """The start of the world (PROTOCOL.md ``reset``): empty catalog at generation 0, no sets."""
    return State(alg.empty_map("rec"), alg.int_(0), alg.empty_map("int"), alg.empty_map("set"))


def choose(alg: Algebra, cond: Term, a: State, b: State) -> State:
    """Field-wise ``if cond then a else b``."""
    return State(
        alg.ite(cond, a.catalog, b.catalog),
        alg.ite(cond, a.gen, b.gen),
        alg.ite(cond, a.calls, b.calls),
        alg.ite(cond, a.sets, b.sets),
    )


def same(alg: Algebra, a: State, b: State) -> Term:
    """Every part of the two worlds is equal (the "no partial mutation" relation)."""
    return alg.and_(
        alg.eq(a.catalog, b.catalog),
        alg.eq(a.gen, b.gen),
        alg.eq(a.calls, b.calls),
        alg.eq(a.sets, b.sets),
    )


def is_ok(alg: Algebra, code: Term) -> Term:
    return alg.eq(code, alg.code("ok"))


# The helpers a variant may replace (`profiles.seam`).
initial = seam(initial)
