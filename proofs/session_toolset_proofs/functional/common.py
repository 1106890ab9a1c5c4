"""The vocabulary the declarative specification is written in: Z3 terms, nothing from the model.

A clause of the specification is a relation over (pre-state, arguments, result), built only from
the Z3 sorts and datatypes of the interpretation (`z3_interp`'s sorts, record constructors and
outcome constants) and Z3's own primitives (select, store, if-then-else, equality, quantifiers).
It never calls a transition or a helper of the model, so it is a second formalization of SPEC.md,
written from its sentences, that the `functional.*` obligations show equal to the first.

Loops SPEC.md describes in words ("the first id not in the catalog", "a tool id seen earlier in
the batch", "anything was dropped") are named by fresh symbols with *definitions*: universally
quantified, positive facts that every state satisfies for exactly one value of the symbol (or, for a
choice witness, for some value), so adding them as premises is sound.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi

Tool = zi.Tool
SetName = zi.SetName
IntS = zi.IntS
R = zi.RecOpt
P = zi.PinOpt
A = zi.ActOpt
S = zi.SetOpt
G = zi.GrantS
CODE = zi.OUTCOME
TRUST = zi.TRUST
REASON = zi.REASON
NO_PIN = z3.K(Tool, P.NoPin)
NO_ACTS = z3.K(Tool, A.NoAct)
NO_DROPS = z3.K(Tool, zi.REASON["none"])

BOUND: ContextVar[int | None] = ContextVar("BOUND", default=None)
"""When set, every sequence the clauses read has at most this many elements (a bounded search
for a model, never a proof): "the least index" and "the first occurrence" are then written as
ground if-chains over the indices below it, which Z3 builds models for far more easily."""

U64_MAX = 2**64 - 1
"""SPEC.md §1.3: "An unsigned 64-bit counter ... `CatalogGenerationOverflow` at 2^64-1"."""


class World(Protocol):
    """A world as SPEC.md §2-§5 describe it: the catalog (``Tool -> record``), its generation,
    each record's factory call count (``Tool -> Int``) and the named sets (``SetName -> set``)."""

    @property
    def catalog(self) -> Any: ...
    @property
    def gen(self) -> Any: ...
    @property
    def calls(self) -> Any: ...
    @property
    def sets(self) -> Any: ...


@dataclass(frozen=True)
class Post:
    catalog: Any
    gen: Any
    calls: Any
    sets: Any


@dataclass
class Expected:
    """What SPEC.md says a transition returns: the outcome code, the whole post-world, the
    payload (``(when, field, value)``: the result's ``field`` is ``value`` whenever ``when``),
    and the definitions of the symbols the clauses introduced."""

    code: Any
    post: Post
    payload: list[tuple[Any, str, Any]] = field(default_factory=list)
    defs: list[Any] = field(default_factory=list)
    cases: dict[str, Any] = field(default_factory=dict)
    """A partition of the pre-states by the outcome SPEC.md names (e.g. refused / rejected at
    issuance / rejected by the batch / applied), when the equality is proved case by case."""


def unchanged(w: World, **parts: Any) -> Post:
    """The pre-world with the named parts replaced."""
    return Post(
        parts.get("catalog", w.catalog),
        parts.get("gen", w.gen),
        parts.get("calls", w.calls),
        parts.get("sets", w.sets),
    )


def first_of(checks: list[tuple[Any, str]], ok: Any | None = None) -> Any:
    """ "Checks in order": the code of the first check whose condition holds, else ``ok``."""
    code = CODE["ok"] if ok is None else ok
    for cond, name in reversed(checks):
        code = z3.If(cond, CODE[name], code)
    return code


def in_range(i: Any, n: Any) -> Any:
    return z3.And(i >= 0, i < n)


def least(name: str, n: Any, holds: Callable[[Any], Any], defs: list[Any]) -> Any:
    """The least index ``i`` in ``[0, n)`` with ``holds(i)``, or ``n`` when there is none."""
    bound = BOUND.get()
    if bound is not None:
        return _chain(n, bound, holds)
    k = zi.fresh(name, IntS)
    j = z3.FreshConst(IntS, "j")
    defs += [
        k >= 0,
        k <= z3.If(n >= 0, n, 0),
        z3.ForAll([j], z3.Implies(z3.And(j >= 0, j < k), z3.Not(holds(j)))),
        z3.Implies(k < n, holds(k)),
    ]
    return k


def _chain(n: Any, bound: int, holds: Callable[[Any], Any]) -> Any:
    out = n
    for i in reversed(range(bound)):
        out = z3.If(z3.And(i < n, holds(z3.IntVal(i))), z3.IntVal(i), out)
    return out


@dataclass(frozen=True)
class Occurrence:
    """Where each tool first occurs in a sequence (``at(i)`` is its ``i``-th tool, ``n`` its
    length): ``first(t)`` is the least index holding ``t`` whenever ``t`` occurs."""

    first: Callable[[Any], Any]
    at: Callable[[Any], Any]
    n: Any

    def contains(self, t: Any) -> Any:
        """Some element of the sequence is ``t``."""
        i = self.first(t)
        return z3.And(in_range(i, self.n), self.at(i) == t)


def occurrence(name: str, at: Callable[[Any], Any], n: Any, defs: list[Any]) -> Occurrence:
    """Define ``first``: for every index ``i``, ``first(at(i))`` is an index holding ``at(i)``,
    no later than ``i`` (so no later than any index holding it: the first one)."""
    bound = BOUND.get()
    if bound is not None:
        return Occurrence(lambda t: _chain(n, bound, lambda i: at(i) == t), at, n)
    f = z3.Function(f"{name}!{zi.fresh(name, IntS)}", Tool, IntS)
    i = z3.FreshConst(IntS, "i")
    t = at(i)
    defs.append(
        z3.ForAll(
            [i],
            z3.Implies(in_range(i, n), z3.And(f(t) >= 0, f(t) <= i, at(f(t)) == t)),
        )
    )
    return Occurrence(f, at, n)


@dataclass(frozen=True)
class Fn:
    """A map given by its entry at every key (``at(k)``): compared with the model's map key by
    key (`matches`), so no array needs defining."""

    dom: Any
    at: Callable[[Any], Any]


@dataclass(frozen=True)
class SetValue:
    """A tool set by its fields (core and activations may be `Fn`s or `Choice`s of them)."""

    session: Any
    catgen: Any
    schemagen: Any
    core: Any
    acts: Any


@dataclass(frozen=True)
class Choice:
    """``a`` when ``cond``, else ``b`` (values of any of the shapes `matches` compares)."""

    cond: Any
    a: Any
    b: Any


@dataclass(frozen=True)
class Written:
    """The sets ``base`` with ``value`` stored under ``name`` when ``when``."""

    base: Any
    when: Any
    name: Any
    value: Any


def at(m: Any, k: Any) -> Any:
    """Entry ``k`` of a map given as an array term, a `Fn` or a `Choice` of them."""
    if isinstance(m, Fn):
        return m.at(k)
    if isinstance(m, Choice):
        return z3.If(m.cond, at(m.a, k), at(m.b, k))
    return z3.Select(m, k)


def matches(term: Any, value: Any) -> Any:
    """The model's ``term`` is the declarative ``value`` (maps key by key, sets field by
    field, written sets as "that set, every other name as before")."""
    if isinstance(value, Choice):
        return z3.If(value.cond, matches(term, value.a), matches(term, value.b))
    if isinstance(value, Fn):
        k = z3.FreshConst(value.dom, "k")
        return z3.ForAll([k], z3.Select(term, k) == value.at(k))
    if isinstance(value, SetValue):
        return z3.And(
            S.is_TSet(term),
            S.set_session(term) == value.session,
            S.set_catgen(term) == value.catgen,
            S.set_schemagen(term) == value.schemagen,
            matches(S.set_core(term), value.core),
            matches(S.set_acts(term), value.acts),
        )
    if isinstance(value, Written):
        n = z3.FreshConst(SetName, "n")
        own = z3.Select(term, value.name)
        return z3.And(
            z3.ForAll(
                [n], z3.Implies(n != value.name, z3.Select(term, n) == z3.Select(value.base, n))
            ),
            z3.If(value.when, matches(own, value.value), own == z3.Select(value.base, value.name)),
        )
    return term == value


def pointwise(name: str, dom: Any, value: Callable[[Any], Any]) -> Fn:
    """The map whose entry at every key ``k`` is ``value(k)``."""
    return Fn(dom, value)


def some_key(name: str, dom: Any, holds: Callable[[Any], Any], defs: list[Any]) -> Any:
    """ "Some key satisfies ``holds``": a chosen key that satisfies it if any key does."""
    w = zi.fresh(name, dom)
    k = z3.FreshConst(dom, "k")
    defs.append(z3.ForAll([k], z3.Implies(holds(k), holds(w))))
    return holds(w)


def fresh_set(session: Any, catgen: Any, core: Any) -> SetValue:
    """SPEC.md §3: a new set "inherits nothing": zero activations, `schema_generation` "starts at
    0", pinned to the catalog generation it was built against."""
    return SetValue(session, catgen, z3.IntVal(0), core, NO_ACTS)


def pin_of(rec: Any) -> Any:
    """SPEC.md §3 `new`: "pinned with its record's current digest AND provenance"."""
    return P.Pin(R.rec_digest(rec), R.rec_prov(rec))


def default_core(w: World) -> Fn:
    """SPEC.md §3 `default_core_for_catalog`: "core = every record whose provenance is not
    `Unverified`" (pinned with the record's digest and provenance)."""

    def pin(t: Any) -> Any:
        rec = z3.Select(w.catalog, t)
        keep = z3.And(R.is_Rec(rec), z3.Not(zi.UNVERIFIED(R.rec_prov(rec))))
        return z3.If(keep, pin_of(rec), P.NoPin)

    return pointwise("spec_default_core", Tool, pin)


def progressive_core(w: World) -> Fn:
    """SPEC.md §3 `progressive_core_for_catalog`: "core = those of `builtin:bash read write ...`
    present in the catalog" (the fixed list is the predicate ``progressive``)."""

    def pin(t: Any) -> Any:
        rec = z3.Select(w.catalog, t)
        return z3.If(z3.And(R.is_Rec(rec), zi.PROGRESSIVE(t)), pin_of(rec), P.NoPin)

    return pointwise("spec_progressive_core", Tool, pin)


def put(w: World, when: Any, name: Any, value: Any) -> Written:
    """The sets with ``value`` stored under ``name`` when ``when`` (every other set as before)."""
    return Written(w.sets, when, name, value)


def trust_checks(rec: Any) -> list[tuple[Any, str]]:
    """SPEC.md's "source trust → `UntrustedSource(id)` / `SourceProvenanceMismatch(id)`": the
    record's trust (untrusted, or provenance mismatch) as two failing conditions, in order,
    named by the variant of the error they raise."""
    trust = R.rec_trust(rec)
    return [
        (trust == TRUST["untrusted"], "UntrustedSource"),
        (trust == TRUST["mismatch"], "SourceProvenanceMismatch"),
    ]
