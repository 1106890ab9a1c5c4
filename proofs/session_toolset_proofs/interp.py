"""Obligations about the Z3 interpretation itself: its side definitions mean what the loop means.

The Z3 interpretation defines "first index where" and "first occurrence of a tool" by fresh
symbols and universally quantified side definitions (`z3_interp.first_index_definition`,
`z3_interp.first_occ_definition`).  A wrong side definition does not make any proof fail - it
makes premises unsatisfiable, and an unsatisfiable premise proves everything.  So each
definition is checked against the loop it stands for, the concrete interpretation's
``next((i for i in range(n) if pred(i)), n)``, written as a ground if-chain: for every batch of
up to `LENGTH` elements and an *arbitrary* predicate (an uninterpreted function),

* existence - the loop's value satisfies the side definition (a too-strong definition, such as
  ``k < n`` for ``k <= n``, is refuted with the batch on which it has no solution);
* uniqueness - any value satisfying it is the loop's value (a too-weak one is refuted too).

Unbounded existence would need induction over the batch length, which Z3 does not do; the bound
is stated, and the definitions are uniform in the length (one formula for every length).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.profiles import Variant
from session_toolset_model.z3_interp import Z3Algebra, first_index_definition, first_occ_definition

from .steps import Query

LENGTH = 3
"""Batch lengths 0..LENGTH are covered (the search bound of witnesses and counterexamples)."""


def _loop(n: Any, hit: Callable[[int], Any]) -> Any:
    """The least ``i < n`` with ``hit(i)``, else ``n``: the concrete loop as a ground term."""
    out = n
    for i in reversed(range(LENGTH)):
        out = z3.If(z3.And(i < n, hit(i)), z3.IntVal(i), out)
    return out


def first_index_exact(v: Variant) -> Query:
    """`algebra.first_index(n, pred)`: "the least ``i`` in ``[0, n)`` with ``pred(i)``, else
    ``n``" - the side definition holds of exactly that value, for every predicate and every
    ``n <= LENGTH``."""
    alg = Z3Algebra(None, v)
    n = zi.fresh("n", zi.IntS)
    p = z3.FreshFunction(zi.IntS, z3.BoolSort())
    k = zi.fresh("k", zi.IntS)
    loop = _loop(n, lambda i: p(z3.IntVal(i)))
    exists = z3.And(*first_index_definition(v, loop, n, p))
    unique = z3.Implies(z3.And(*first_index_definition(v, k, n, p)), k == loop)
    case = [n == LENGTH, z3.Not(p(z3.IntVal(0))), p(z3.IntVal(1))]
    return Query(alg, [n >= 0, n <= LENGTH], z3.And(exists, unique), case, {"n": n, "k": k})


def seq_first_index_exact(v: Variant) -> Query:
    """`algebra.seq_first_index(s, key, k)`: "the least index whose element has key ``k``" - for
    every tool occurring in a batch of at most `LENGTH` grants, the side definition holds of
    exactly that index."""
    alg = Z3Algebra(None, v)
    seq = zi.Z3Seq(zi.fresh("grants", z3.ArraySort(zi.IntS, zi.GrantS)), zi.fresh("n", zi.IntS))
    n = seq.length
    f = z3.FreshFunction(zi.Tool, zi.IntS)
    t = z3.FreshConst(zi.Tool, "t")

    def loop(tool: Any) -> Any:
        return _loop(n, lambda i: zi.GrantS.g_tool(seq.at(z3.IntVal(i))) == tool)

    exists = first_occ_definition(v, loop, seq, "tool")
    unique = z3.Implies(
        first_occ_definition(v, f, seq, "tool"),
        z3.ForAll([t], z3.Implies(loop(t) < n, f(t) == loop(t))),
    )
    tool = zi.GrantS.g_tool
    case = [
        n == LENGTH,
        tool(seq.at(z3.IntVal(0))) != tool(seq.at(z3.IntVal(1))),
        tool(seq.at(z3.IntVal(1))) == tool(seq.at(z3.IntVal(2))),
    ]
    return Query(alg, [n >= 0, n <= LENGTH], z3.And(exists, unique), case, {"n": n})
