"""Pinning the Z3 symbols of an obligation to one concrete instance.

A witness or counterexample is found over concrete values (see `search`); it is *confirmed* by
asking Z3 the obligation's own query plus equalities that pin every symbol of the query's
transition(s) - pre-state and arguments - to the Z3 encoding of that concrete instance.  Pinning
only adds constraints, so ``sat`` of the pinned query is ``sat`` of the obligation's query: the
confirmation is a genuine model of the obligation (a real Z3 witness / counterexample), and
because the formula is then essentially ground Z3 answers quickly.

Concrete values are encoded as distinct constants of the uninterpreted sorts (two different
tools are different `Tool` elements, ...), with the interpreted predicates `unverified` and
`progressive` fixed on them as the concrete oracle defines them.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.concrete import CMap, Grant, SetRec
from session_toolset_model.ops import OPS
from session_toolset_model.state import State
from session_toolset_model.values import is_progressive, is_unverified
from session_toolset_model.z3_interp import Z3Seq

_SORT = {
    "tool": zi.Tool,
    "session": zi.Session,
    "digest": zi.Digest,
    "prov": zi.Prov,
    "setname": zi.SetName,
}


class Encoder:
    """Concrete values -> Z3 terms: one distinct constant per (sort, value)."""

    def __init__(self, tag: str = "c") -> None:
        self.tag = tag
        self.consts: dict[tuple[str, Any], Any] = {}

    def c(self, sort: str, v: Any) -> Any:
        key = (sort, v)
        if key not in self.consts:
            self.consts[key] = z3.Const(f"{self.tag}:{sort}:{v!r}", _SORT[sort])
        return self.consts[key]

    def facts(self) -> list[Any]:
        """Distinctness per sort and the interpreted predicates on every encoded value."""
        out: list[Any] = []
        for sort in _SORT:
            vals = [c for (s, _), c in self.consts.items() if s == sort]
            if len(vals) > 1:
                out.append(z3.Distinct(*vals))
        for (s, v), c in self.consts.items():
            if s == "tool":
                out.append(zi.PROGRESSIVE(c) == is_progressive(v))
            elif s == "prov":
                out.append(zi.UNVERIFIED(c) == is_unverified(v))
        return out

    def choices(self, consts: list[Any], limit: int) -> list[list[Any]]:
        """Up to ``limit`` assignments of ``consts`` to values encoded so far of their sorts,
        as equalities.  A witness case's existential constant ("some tool is pinned in the new
        core", "another set exists") is then ground: Z3 decides the pinned query at once where
        its quantifier instantiation may give up.  Pinning only adds constraints, so a sat
        answer is a model of the query without them."""
        domains = [[c for c in self.consts.values() if c.sort() == k.sort()] for k in consts]
        if not consts or not all(domains):
            return []
        out = [[k == c for k, c in zip(consts, pick, strict=True)] for pick in product(*domains)]
        return out[:limit]

    def cmap(self, m: CMap, dom: str, default: Any, val: Any) -> Any:
        arr = z3.K(_SORT[dom], default)
        for k, v in m.as_dict().items():
            arr = z3.Store(arr, self.c(dom, k), val(v))
        return arr

    def rec(self, r: Any) -> Any:
        return zi.RecOpt.Rec(self.c("digest", r.digest), self.c("prov", r.prov), zi.TRUST[r.trust])

    def set_(self, s: SetRec) -> Any:
        def pin(p: Any) -> Any:
            return zi.PinOpt.Pin(self.c("digest", p.digest), self.c("prov", p.prov))

        def act(a: Any) -> Any:
            return zi.ActOpt.Act(
                self.c("session", a.session),
                z3.IntVal(a.gen),
                self.c("digest", a.digest),
                self.c("prov", a.prov),
            )

        return zi.SetOpt.TSet(
            self.c("session", s.session),
            z3.IntVal(s.catgen),
            z3.IntVal(s.schemagen),
            self.cmap(s.core, "tool", zi.PinOpt.NoPin, pin),
            self.cmap(s.acts, "tool", zi.ActOpt.NoAct, act),
        )

    def state(self, st: State) -> State:
        return State(
            self.cmap(st.catalog, "tool", zi.RecOpt.NoRec, self.rec),
            z3.IntVal(st.gen),
            self.cmap(st.calls, "tool", z3.IntVal(0), z3.IntVal),
            self.cmap(st.sets, "setname", zi.SetOpt.NoSet, self.set_),
        )

    def grant(self, g: Grant) -> Any:
        return zi.GrantS.MkGrant(
            self.c("session", g.session), self.c("tool", g.tool), g.gen, self.c("digest", g.digest)
        )

    def scalar(self, sort: str, v: Any) -> Any:
        if sort == "bool":
            return z3.BoolVal(bool(v))
        if sort == "int":
            return z3.IntVal(v)
        if sort == "trust":
            return zi.TRUST[v]
        if sort == "grant":
            return self.grant(v)
        return self.c(sort, v)


def pin_step(
    enc: Encoder, opname: str, pre: State, args: dict[str, Any], st: State, cargs: dict[str, Any]
) -> list[Any]:
    """Equalities pinning a step's pre-state ``pre`` and arguments ``args`` (Z3) to ``st`` and
    ``cargs`` (concrete).  An argument whose concrete value is ``None`` (junk, e.g. the
    ``replaced`` tool of an upsert without one) is left free."""
    e = enc.state(st)
    out = [
        pre.catalog == e.catalog,
        pre.gen == e.gen,
        pre.calls == e.calls,
        pre.sets == e.sets,
    ]
    for name, sort in OPS[opname].args:
        z, v = args[name], cargs[name]
        if sort.startswith("seq_"):
            assert isinstance(z, Z3Seq)
            out.append(z.length == len(v))
            elem = sort[4:]
            for i, x in enumerate(v):
                out.append(z3.Select(z.arr, i) == enc.scalar(elem, x))
        elif v is not None:
            out.append(z == enc.scalar(sort, v))
    return out
