"""The algebra every transition is written against, once.

A transition is ordinary Python that only combines *terms* through an `Algebra`; it never inspects
a term itself.  Two interpretations implement the interface:

- `concrete.ConcreteAlgebra`: terms are plain Python values (bool, int, str, frozen records,
  `CMap`, tuples).  Running a transition computes its result - the executable oracle.
- `z3_interp.Z3Algebra`: terms are Z3 expressions over uninterpreted sorts (Tool, Session, Digest,
  Prov, SetName), so a proof about the transition holds for any number of tools, sessions, sets...

Contract for writers of transitions (what keeps the two interpretations equal):

- both branches of `ite` are evaluated eagerly; the concrete interpretation tolerates *junk*
  (fields of an absent option are ``None``), exactly as Z3 leaves them unspecified.  A branch
  that is not selected may compute junk but must not raise.  A value that reads fields of an
  option is written `when` (the option is present) rather than as a conjunct beside the
  presence test, or `guarded` when it is only used where the option is present, so no
  decision is recorded on junk (see `guarded`).
- `update_map(m, cands, fn)`: ``fn(k, m[k])`` must equal ``m[k]`` for every key outside the
  candidate keys ``cands``.  Z3 ignores ``cands`` (it builds a lambda over all keys); the concrete
  interpretation only visits ``cands``.  `keys`, `seq_keys` and `union` build candidate sets.
- `first_index(n, pred)` is the least ``i`` in ``[0, n)`` with ``pred(i)``, else ``n``; Z3 defines
  it by a fresh constant and universally quantified side definitions (unbounded batches).
- `seq_first_index(s, key, k)` is the least index whose element has key ``k`` (else ``len``).
- `exists_key(cands, pred)` is "some key satisfies pred"; Z3 uses a choice witness (so it must
  not be used under a quantifier the interpretation introduces, such as a batch loop's
  predicate); `exists` is the same with a plain Z3 existential, usable anywhere.

Records (options) have kinds: ``rec`` (catalog record: digest, prov, trust), ``pin`` (core pin:
digest, prov), ``act`` (exact activation: session, gen, digest, prov), ``set`` (tool set: session,
catgen, schemagen, core, acts) and ``grant`` (session, tool, gen, digest; never absent).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

Term = Any
"""A term of some interpretation: a Python value (concrete) or a ``z3.ExprRef`` (Z3)."""

Cands = Any
"""Candidate keys for `Algebra.update_map`: a Python set (concrete) or ``None`` (Z3)."""

MAX_GENERATION = 2**64 - 1
"""CatalogGeneration is a u64; the model uses the exact bound (Z3 integers with this constant)."""


class Algebra(Protocol):
    """Operations a transition may use.  See the module docstring for the contract."""

    def bool_(self, value: bool) -> Term: ...
    def int_(self, value: int) -> Term: ...
    def code(self, name: str) -> Term: ...
    def trust(self, name: str) -> Term: ...
    def reason(self, name: str) -> Term: ...

    def and_(self, *xs: Term) -> Term: ...
    def or_(self, *xs: Term) -> Term: ...
    def not_(self, x: Term) -> Term: ...
    def implies(self, a: Term, b: Term) -> Term: ...
    def ite(self, c: Term, a: Term, b: Term) -> Term: ...
    def eq(self, a: Term, b: Term) -> Term: ...

    def add(self, a: Term, b: Term) -> Term: ...
    def sub(self, a: Term, b: Term) -> Term: ...
    def lt(self, a: Term, b: Term) -> Term: ...
    def le(self, a: Term, b: Term) -> Term: ...

    def none(self, kind: str) -> Term: ...
    def some(self, kind: str, **fields: Term) -> Term: ...
    def is_some(self, o: Term) -> Term: ...
    def get(self, o: Term, field: str) -> Term: ...

    def empty_map(self, kind: str) -> Term: ...
    def select(self, m: Term, k: Term) -> Term: ...
    def store(self, m: Term, k: Term, v: Term) -> Term: ...
    def update_map(self, m: Term, cands: Cands, fn: Callable[[Term, Term], Term]) -> Term: ...
    def keys(self, m: Term) -> Cands: ...
    def seq_keys(self, s: Term, key: str) -> Cands: ...
    def union(self, *cands: Cands) -> Cands: ...
    def exists_key(self, cands: Cands, sort: str, pred: Callable[[Term], Term]) -> Term: ...
    def exists(self, cands: Cands, sort: str, pred: Callable[[Term], Term]) -> Term: ...

    def unverified(self, prov: Term) -> Term: ...
    def progressive(self, tool: Term) -> Term: ...

    def seq_len(self, s: Term) -> Term: ...
    def seq_at(self, s: Term, i: Term) -> Term: ...
    def seq_map(self, s: Term, fn: Callable[[Term], Term]) -> Term: ...
    def seq_first_index(self, s: Term, key: str, k: Term) -> Term: ...
    def first_index(self, n: Term, pred: Callable[[Term], Term]) -> Term: ...
    def seq_const(self, elems: tuple[Term, ...]) -> Term: ...
    def seq_prefix(self, s: Term, n: Term) -> Term: ...


def chain(
    alg: Algebra,
    checks: Iterable[tuple[Term, Term]],
    ok: Term,
    labels: tuple[str, ...] | None = None,
) -> Term:
    """The outcome term of the first check whose condition holds, else ``ok``.

    An interpretation that records condition coverage (`conditions.RecordingAlgebra`) is told
    the whole check list at once (``note_checks``): a check list is one decision whose
    conditions are its checks, in order."""
    listed = list(checks)
    note = getattr(alg, "note_checks", None)
    if note is not None:
        names = labels or tuple(f"check {i + 1}" for i in range(len(listed)))
        note(tuple(c for c, _ in listed), names)
    result = ok
    for cond, outcome in reversed(listed):
        result = alg.ite(cond, outcome, result)
    return result


def guarded(alg: Algebra, cond: Term, then: Callable[[], Term]) -> Term:
    """``then()``, a value that means something only under ``cond`` (typically: it reads the
    fields of an option ``cond`` says is present) and is only ever used where ``cond`` holds.

    Both interpretations evaluate ``then()`` as usual (eagerly, junk tolerated), but an
    interpretation that records condition coverage is told the guard (``enter_guard`` /
    ``exit_guard``): the concrete recorder counts the decisions inside ``then()`` only when
    ``cond`` holds, and the Z3 recorder gives them ``cond`` as a premise, so both state the same
    thing about them.  Without the guard a conjunct read from an absent option would be a
    condition outcome Z3 can produce (the field is unspecified) and the concrete run cannot."""
    enter = getattr(alg, "enter_guard", None)
    if enter is None:
        return then()
    enter(cond)
    try:
        return then()
    finally:
        alg.exit_guard()  # type: ignore[attr-defined]


def when(alg: Algebra, cond: Term, then: Callable[[], Term], otherwise: Term) -> Term:
    """``ite(cond, then(), otherwise)`` with ``then()`` `guarded` by ``cond``: for a value that
    is also used where ``cond`` is false."""
    return alg.ite(cond, guarded(alg, cond, then), otherwise)


def seq_contains(alg: Algebra, s: Term, key: str, k: Term) -> Term:
    """Whether some element of ``s`` has key ``k`` (exact in both interpretations)."""
    i = alg.seq_first_index(s, key, k)
    at = alg.seq_at(s, i)
    return alg.and_(
        alg.le(alg.int_(0), i),
        alg.lt(i, alg.seq_len(s)),
        alg.eq(at if key == "self" else alg.get(at, key), k),
    )


def first_failure(alg: Algebra, checks: Iterable[tuple[Term, str]], ok: Term | None = None) -> Term:
    """The code of the first check whose condition holds, else ``ok`` (SPEC.md check order)."""
    base = alg.code("ok") if ok is None else ok
    listed = list(checks)
    return chain(
        alg,
        ((cond, alg.code(name)) for cond, name in listed),
        base,
        tuple(name for _, name in listed),
    )
