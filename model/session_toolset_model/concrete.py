"""The concrete interpretation: terms are plain, immutable Python values.

Tools, sessions, digests, set names are ``str``; provenances are any hashable value (the oracle
uses `values.Provenance`); generations are ``int``; outcome codes, trust values and drop reasons
are ``str``.  Records are the frozen dataclasses below; a map is a `CMap` (a frozen dict with a
default, normalised so equal maps compare equal).  Junk (fields of an absent record) is ``None``
and never raises, mirroring Z3's unspecified accessors (see `algebra`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .algebra import Cands, Term
from .outcomes import ALL_CODES, DROP_REASONS, TRUST_VALUES


@dataclass(frozen=True)
class Rec:
    """A catalog record as the model sees it: digest, provenance and source trust."""

    digest: Any
    prov: Any
    trust: Any


@dataclass(frozen=True)
class Pin:
    """A core pin: the record's digest and provenance when the set was built."""

    digest: Any
    prov: Any


@dataclass(frozen=True)
class Act:
    """An exact activation: its grant (session, generation, digest) and pinned provenance."""

    session: Any
    gen: Any
    digest: Any
    prov: Any


@dataclass(frozen=True)
class Grant:
    """A SessionActivationGrant (session, tool, catalog generation, schema digest)."""

    session: Any
    tool: Any
    gen: Any
    digest: Any


@dataclass(frozen=True)
class CMap:
    """An immutable map with a default value; entries equal to the default are never stored."""

    default: Any = None
    items: tuple[tuple[Any, Any], ...] = ()
    _index: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        self._index.update(self.items)

    @staticmethod
    def of(default: Any, data: dict[Any, Any]) -> CMap:
        kept = tuple(sorted(((k, v) for k, v in data.items() if v != default), key=_sort_key))
        return CMap(default, kept)

    def __getitem__(self, k: Any) -> Any:
        return self._index.get(k, self.default)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._index)

    def as_dict(self) -> dict[Any, Any]:
        return dict(self._index)

    def set(self, k: Any, v: Any) -> CMap:
        data = dict(self._index)
        data[k] = v
        return CMap.of(self.default, data)


@dataclass(frozen=True)
class SetRec:
    """A SessionToolSet: session, generations, core pins and exact activations (ToolId maps)."""

    session: Any
    catgen: Any
    schemagen: Any
    core: CMap
    acts: CMap


KINDS: dict[str, type] = {"rec": Rec, "pin": Pin, "act": Act, "grant": Grant, "set": SetRec}


def _sort_key(item: tuple[Any, Any]) -> str:
    return repr(item[0])


def _truth(x: Any) -> bool:
    return bool(x) if isinstance(x, bool) else False


class ConcreteAlgebra:
    """Plain-Python interpretation of `algebra.Algebra` (the oracle's engine)."""

    def __init__(
        self,
        unverified: Callable[[Any], bool],
        progressive: Callable[[Any], bool],
    ) -> None:
        self._unverified = unverified
        self._progressive = progressive

    def bool_(self, value: bool) -> Term:
        return value

    def int_(self, value: int) -> Term:
        return value

    def code(self, name: str) -> Term:
        if name not in ALL_CODES:
            raise ValueError(f"unknown outcome code {name}")
        return name

    def trust(self, name: str) -> Term:
        assert name in TRUST_VALUES
        return name

    def reason(self, name: str) -> Term:
        assert name in DROP_REASONS
        return name

    def and_(self, *xs: Term) -> Term:
        return all(_truth(x) for x in xs)

    def or_(self, *xs: Term) -> Term:
        return any(_truth(x) for x in xs)

    def not_(self, x: Term) -> Term:
        return not _truth(x)

    def implies(self, a: Term, b: Term) -> Term:
        return (not _truth(a)) or _truth(b)

    def ite(self, c: Term, a: Term, b: Term) -> Term:
        return a if _truth(c) else b

    def eq(self, a: Term, b: Term) -> Term:
        return a is not None and b is not None and bool(a == b)

    def add(self, a: Term, b: Term) -> Term:
        return None if a is None or b is None else a + b

    def sub(self, a: Term, b: Term) -> Term:
        return None if a is None or b is None else a - b

    def lt(self, a: Term, b: Term) -> Term:
        return a is not None and b is not None and bool(a < b)

    def le(self, a: Term, b: Term) -> Term:
        return a is not None and b is not None and bool(a <= b)

    def none(self, kind: str) -> Term:
        return None

    def some(self, kind: str, **fields: Term) -> Term:
        return KINDS[kind](**fields)

    def is_some(self, o: Term) -> Term:
        return o is not None

    def get(self, o: Term, field: str) -> Term:
        return None if o is None else getattr(o, field)

    def empty_map(self, kind: str) -> Term:
        return CMap({"int": 0, "reason": "none"}.get(kind))

    def select(self, m: Term, k: Term) -> Term:
        return None if m is None else m[k]

    def store(self, m: Term, k: Term, v: Term) -> Term:
        return m.set(k, v)

    def update_map(self, m: Term, cands: Cands, fn: Callable[[Term, Term], Term]) -> Term:
        data = m.as_dict()
        for k in cands:
            data[k] = fn(k, m[k])
        return CMap.of(m.default, data)

    def keys(self, m: Term) -> Cands:
        return set(m)

    def seq_keys(self, s: Term, key: str) -> Cands:
        return {_key(e, key) for e in s}

    def union(self, *cands: Cands) -> Cands:
        out: set[Hashable] = set()
        for c in cands:
            out |= c
        return out

    def exists_key(self, cands: Cands, sort: str, pred: Callable[[Term], Term]) -> Term:
        return any(_truth(pred(k)) for k in cands)

    def exists(self, cands: Cands, sort: str, pred: Callable[[Term], Term]) -> Term:
        return self.exists_key(cands, sort, pred)

    def unverified(self, prov: Term) -> Term:
        return prov is not None and self._unverified(prov)

    def progressive(self, tool: Term) -> Term:
        return tool is not None and self._progressive(tool)

    def seq_len(self, s: Term) -> Term:
        return len(s)

    def seq_at(self, s: Term, i: Term) -> Term:
        return s[i] if isinstance(i, int) and 0 <= i < len(s) else None

    def seq_map(self, s: Term, fn: Callable[[Term], Term]) -> Term:
        return tuple(fn(e) for e in s)

    def seq_first_index(self, s: Term, key: str, k: Term) -> Term:
        return next((i for i, e in enumerate(s) if _key(e, key) == k), len(s))

    def first_index(self, n: Term, pred: Callable[[Term], Term]) -> Term:
        return next((i for i in range(n) if _truth(pred(i))), n)

    def seq_const(self, elems: tuple[Term, ...]) -> Term:
        return tuple(elems)

    def seq_prefix(self, s: Term, n: Term) -> Term:
        return tuple(s[:n])


def _key(e: Any, key: str) -> Any:
    return e if key == "self" else getattr(e, key)


def tuple_of(xs: Iterable[Any]) -> tuple[Any, ...]:
    """A concrete sequence term."""
    return tuple(xs)
