"""The Z3 interpretation: terms over uninterpreted sorts, so proofs hold for any number of them.

Sorts: `Tool`, `Session`, `Digest`, `Prov`, `SetName` are uninterpreted; `Trust`, `DropReason`
and `Outcome` are enumerations; generations are mathematical integers with the u64 bound
`MAX_GENERATION` written into the transitions (checked_next fails at exactly 2^64-1).  Records
are algebraic datatypes with a "none" constructor (`NoRec`, `NoPin`, `NoAct`, `NoSet`), maps are
arrays, so "post-state = pre-state" is plain (extensional) equality.

Batches and core-id lists are unbounded: a sequence is an array ``Int -> elem`` plus a length.
Bulk map updates are fresh arrays defined pointwise by a universal side definition (not
lambdas: Z3's array theory cannot build models through lambdas, so refutations would come back
`unknown`).  Functions that a loop would compute (first failing index, first occurrence of a
tool, "some tool was dropped") are fresh constants/functions constrained by *side definitions*
(`Z3Algebra.defs`): universally quantified, positive, and uniquely determining the value, so
adding them to any query is sound.  Every query must assert ``defs``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]

from .algebra import MAX_GENERATION, Cands, Term
from .outcomes import ALL_CODES, DROP_REASONS, TRUST_VALUES
from .profiles import DEFAULT, Variant, seam

Tool = z3.DeclareSort("Tool")
Session = z3.DeclareSort("Session")
Digest = z3.DeclareSort("Digest")
Prov = z3.DeclareSort("Prov")
SetName = z3.DeclareSort("SetName")
IntS = z3.IntSort()

TrustSort, _trust_consts = z3.EnumSort("Trust", list(TRUST_VALUES))
ReasonSort, _reason_consts = z3.EnumSort("DropReason", list(DROP_REASONS))
OutcomeSort, _outcome_consts = z3.EnumSort("Outcome", list(ALL_CODES))
TRUST = dict(zip(TRUST_VALUES, _trust_consts, strict=True))
REASON = dict(zip(DROP_REASONS, _reason_consts, strict=True))
OUTCOME = dict(zip(ALL_CODES, _outcome_consts, strict=True))

_rec = z3.Datatype("RecOpt")
_rec.declare("NoRec")
_rec.declare("Rec", ("rec_digest", Digest), ("rec_prov", Prov), ("rec_trust", TrustSort))
RecOpt = _rec.create()
_pin = z3.Datatype("PinOpt")
_pin.declare("NoPin")
_pin.declare("Pin", ("pin_digest", Digest), ("pin_prov", Prov))
PinOpt = _pin.create()
_act = z3.Datatype("ActOpt")
_act.declare("NoAct")
_act.declare(
    "Act", ("act_session", Session), ("act_gen", IntS), ("act_digest", Digest), ("act_prov", Prov)
)
ActOpt = _act.create()
_grant = z3.Datatype("Grant")
_grant.declare(
    "MkGrant", ("g_session", Session), ("g_tool", Tool), ("g_gen", IntS), ("g_digest", Digest)
)
GrantS = _grant.create()
_set = z3.Datatype("SetOpt")
_set.declare("NoSet")
_set.declare(
    "TSet",
    ("set_session", Session),
    ("set_catgen", IntS),
    ("set_schemagen", IntS),
    ("set_core", z3.ArraySort(Tool, PinOpt)),
    ("set_acts", z3.ArraySort(Tool, ActOpt)),
)
SetOpt = _set.create()

# kind -> (datatype, index of the "some" constructor or None, field prefix)
_KIND: dict[str, tuple[Any, int, str]] = {
    "rec": (RecOpt, 1, "rec_"),
    "pin": (PinOpt, 1, "pin_"),
    "act": (ActOpt, 1, "act_"),
    "grant": (GrantS, 0, "g_"),
    "set": (SetOpt, 1, "set_"),
}
_BY_SORT = {dt.name(): kind for kind, (dt, _, _) in _KIND.items()}
_MAP_OF: dict[str, tuple[Any, Any]] = {
    "rec": (Tool, RecOpt.NoRec),
    "pin": (Tool, PinOpt.NoPin),
    "act": (Tool, ActOpt.NoAct),
    "set": (SetName, SetOpt.NoSet),
    "int": (Tool, z3.IntVal(0)),
    "reason": (Tool, REASON["none"]),
}
SORTS: dict[str, Any] = {
    "tool": Tool,
    "session": Session,
    "digest": Digest,
    "prov": Prov,
    "setname": SetName,
    "int": IntS,
    "bool": z3.BoolSort(),
    "trust": TrustSort,
    "grant": GrantS,
}

UNVERIFIED = z3.Function("unverified", Prov, z3.BoolSort())
PROGRESSIVE = z3.Function("progressive", Tool, z3.BoolSort())

_fresh = itertools.count()


@dataclass(frozen=True)
class Z3Seq:
    """A sequence term: ``arr`` is ``Int -> elem``, ``length`` an Int term; ``view`` (if any)
    maps each stored element to the element seen (`seq_map` without a new array)."""

    arr: Any
    length: Any
    view: Callable[[Any], Any] | None = None

    def at(self, i: Any) -> Any:
        e = z3.Select(self.arr, i)
        return e if self.view is None else self.view(e)


def fresh(prefix: str, sort: Any) -> Any:
    """A fresh Z3 constant (globally unique name)."""
    return z3.Const(f"{prefix}!{next(_fresh)}", sort)


class Z3Algebra:
    """Z3 interpretation of `algebra.Algebra`; collects side definitions in ``defs``.

    With ``bound`` set (search mode, used only to *find* witnesses and counterexamples) every
    fresh sequence has at most ``bound`` elements and the loop functions (`first_index`,
    `seq_first_index`) are ground if-chains instead of quantified definitions, which Z3 models
    far more easily.  Proofs always use the unbounded mode.
    """

    def __init__(self, bound: int | None = None, variant: Variant = DEFAULT) -> None:
        self.bound = bound
        self.variant = variant
        """Read only for the interpretation's own side definitions (their `seam` overrides)."""
        self.read_over_write = False
        self.share_loops = False
        """Read a store at its own key as the stored value, syntactically (an exact identity).
        Two-run queries switch it on: the second run's world is the first one's target set
        stored into an arbitrary map, so both runs read the same terms."""
        self.defs: list[Any] = []
        self.seqs: list[Z3Seq] = []
        self._first_occ: dict[Any, Any] = {}
        self._first_idx: list[tuple[Any, Any, Any]] = []

    def seq(self, prefix: str, elem: str) -> Z3Seq:
        """A fresh, arbitrary sequence of ``elem`` (sort key in `SORTS`) of length >= 0."""
        s = Z3Seq(fresh(prefix, z3.ArraySort(IntS, SORTS[elem])), fresh(prefix + "_len", IntS))
        self.defs.append(s.length >= 0)
        if self.bound is not None:
            self.defs.append(s.length <= self.bound)
        self.seqs.append(s)
        return s

    def bool_(self, value: bool) -> Term:
        return z3.BoolVal(value)

    def int_(self, value: int) -> Term:
        return z3.IntVal(value)

    def code(self, name: str) -> Term:
        return OUTCOME[name]

    def trust(self, name: str) -> Term:
        return TRUST[name]

    def reason(self, name: str) -> Term:
        return REASON[name]

    def and_(self, *xs: Term) -> Term:
        return z3.And(*xs) if xs else z3.BoolVal(True)

    def or_(self, *xs: Term) -> Term:
        return z3.Or(*xs) if xs else z3.BoolVal(False)

    def not_(self, x: Term) -> Term:
        return z3.Not(x)

    def implies(self, a: Term, b: Term) -> Term:
        return z3.Implies(a, b)

    def ite(self, c: Term, a: Term, b: Term) -> Term:
        return z3.If(c, a, b)

    def eq(self, a: Term, b: Term) -> Term:
        return a == b

    def add(self, a: Term, b: Term) -> Term:
        return a + b

    def sub(self, a: Term, b: Term) -> Term:
        return a - b

    def lt(self, a: Term, b: Term) -> Term:
        return a < b

    def le(self, a: Term, b: Term) -> Term:
        return a <= b

    def none(self, kind: str) -> Term:
        dt, idx, _ = _KIND[kind]
        assert idx == 1
        return dt.constructor(0)()

    def some(self, kind: str, **fields: Term) -> Term:
        dt, idx, prefix = _KIND[kind]
        ctor = dt.constructor(idx)
        names = [dt.accessor(idx, i).name() for i in range(ctor.arity())]
        return ctor(*(fields[n[len(prefix) :]] for n in names))

    def is_some(self, o: Term) -> Term:
        dt, idx, _ = _KIND[_BY_SORT[o.sort().name()]]
        return z3.BoolVal(True) if idx == 0 else dt.recognizer(idx)(o)

    def get(self, o: Term, field: str) -> Term:
        dt, idx, prefix = _KIND[_BY_SORT[o.sort().name()]]
        ctor = dt.constructor(idx)
        for i in range(ctor.arity()):
            acc = dt.accessor(idx, i)
            if acc.name() == prefix + field:
                return acc(o)
        raise KeyError(field)

    def empty_map(self, kind: str) -> Term:
        dom, default = _MAP_OF[kind]
        return z3.K(dom, default)

    def select(self, m: Term, k: Term) -> Term:
        if self.read_over_write and z3.is_store(m) and m.arg(1).eq(k):
            return m.arg(2)
        return z3.Select(m, k)

    def store(self, m: Term, k: Term, v: Term) -> Term:
        return z3.Store(m, k, v)

    def update_map(self, m: Term, cands: Cands, fn: Callable[[Term, Term], Term]) -> Term:
        k = z3.FreshConst(m.sort().domain(), "k")
        out = fresh("map", m.sort())
        self.defs.append(z3.ForAll([k], z3.Select(out, k) == fn(k, z3.Select(m, k))))
        return out

    def keys(self, m: Term) -> Cands:
        return None

    def seq_keys(self, s: Term, key: str) -> Cands:
        return None

    def union(self, *cands: Cands) -> Cands:
        return None

    def exists_key(self, cands: Cands, sort: str, pred: Callable[[Term], Term]) -> Term:
        w = fresh("witness", SORTS[sort])
        k = z3.FreshConst(SORTS[sort], "k")
        self.defs.append(z3.ForAll([k], z3.Implies(pred(k), pred(w))))
        return pred(w)

    def exists(self, cands: Cands, sort: str, pred: Callable[[Term], Term]) -> Term:
        k = z3.FreshConst(SORTS[sort], "k")
        return z3.Exists([k], pred(k))

    def unverified(self, prov: Term) -> Term:
        return UNVERIFIED(prov)

    def progressive(self, tool: Term) -> Term:
        return PROGRESSIVE(tool)

    def seq_len(self, s: Term) -> Term:
        return s.length

    def seq_at(self, s: Term, i: Term) -> Term:
        return s.at(i)

    def seq_map(self, s: Term, fn: Callable[[Term], Term]) -> Term:
        view = s.view
        return Z3Seq(s.arr, s.length, fn if view is None else (lambda e: fn(view(e))))

    def _chain(self, n: Term, hit: Callable[[int], Term]) -> Term:
        assert self.bound is not None
        out = n
        for i in reversed(range(self.bound)):
            out = z3.If(z3.And(i < n, hit(i)), z3.IntVal(i), out)
        return out

    def seq_first_index(self, s: Term, key: str, k: Term) -> Term:
        if self.bound is not None:
            return self._chain(s.length, lambda i: _key(s.at(z3.IntVal(i)), key) == k)
        memo: Any = (id(s), key)
        if self.read_over_write:  # two runs reading the same terms share the symbol
            element = z3.Const("seq!element", s.arr.sort().range())
            seen = element if s.view is None else s.view(element)
            memo = (s.arr.sexpr(), s.length.sexpr(), seen.sexpr(), key)
        if memo not in self._first_occ:
            f = z3.Function(f"first_occ!{next(_fresh)}", Tool, IntS)
            self.defs.append(first_occ_definition(self.variant, f, s, key))
            self._first_occ[memo] = (f, s)
        return self._first_occ[memo][0](k)

    def first_index(self, n: Term, pred: Callable[[Term], Term]) -> Term:
        if self.bound is not None:
            return self._chain(n, lambda i: pred(z3.IntVal(i)))
        shape = pred(z3.Int("first_index!j"))
        if self.share_loops:  # the same loop over the same terms: the same symbol
            for n0, shape0, k0 in self._first_idx:
                if n0.eq(n) and shape0.eq(shape):
                    return k0
        k = fresh("first", IntS)
        self.defs.extend(first_index_definition(self.variant, k, n, pred))
        self._first_idx.append((n, shape, k))
        return k

    def seq_const(self, elems: tuple[Term, ...]) -> Term:
        arr = z3.K(IntS, elems[0])
        for i, e in enumerate(elems):
            arr = z3.Store(arr, i, e)
        return Z3Seq(arr, z3.IntVal(len(elems)))

    def seq_prefix(self, s: Term, n: Term) -> Term:
        return Z3Seq(s.arr, n, s.view)


def first_index_definition(v: Variant, k: Any, n: Any, pred: Callable[[Any], Any]) -> list[Any]:
    """The side definition of ``k = first_index(n, pred)``: the least ``i`` in ``[0, n)`` with
    ``pred(i)``, else ``n``.  One function, so the interpretation and the obligation that checks
    it against the loop (`interp.first_index_exact`) read the same formula."""
    j = z3.FreshConst(IntS, "j")
    return [
        k >= 0,
        k <= n,
        z3.ForAll([j], z3.Implies(z3.And(j >= 0, j < k), z3.Not(pred(j)))),
        z3.Implies(k < n, pred(k)),
    ]


def first_occ_definition(v: Variant, f: Callable[[Any], Any], s: Z3Seq, key: str) -> Any:
    """The side definition of ``f(t) = seq_first_index(s, key, t)`` for every ``t`` occurring in
    ``s``: an occurrence of ``t`` (index in range, element has key ``t``) no later than any
    other.  Tools that do not occur are left unconstrained: `algebra.seq_contains` guards every
    use, exactly as the concrete ``len(s)`` is only compared, never indexed."""
    i = z3.FreshConst(IntS, "i")
    ki = _key(s.at(i), key)
    return z3.ForAll(
        [i],
        z3.Implies(
            z3.And(i >= 0, i < s.length),
            z3.And(
                f(ki) >= 0,
                f(ki) < s.length,
                first_occ_least(v, f(ki), i),
                _key(s.at(f(ki)), key) == ki,
            ),
        ),
    )


def first_occ_least(v: Variant, picked: Any, i: Any) -> Any:
    """The occurrence `first_occ_definition` picks is no later than occurrence ``i``."""
    return picked <= i


def _key(e: Any, key: str) -> Any:
    return e if key == "self" else GrantS.g_tool(e) if key == "tool" else None


MAX = z3.IntVal(MAX_GENERATION)


# The side definitions a variant may replace (`profiles.seam`; the variant is the first
# argument).
first_index_definition = seam(first_index_definition, variant_at=0)
first_occ_least = seam(first_occ_least, variant_at=0)
