"""The Z3 interpretation agrees with the concrete one on random reachable states and operations.

A random trace drives the oracle; before its last operation the concrete world is encoded as Z3
constants (distinct per value), the Z3 transition is built on it, and the solver must show that
the Z3 outcome and post-state can only be the concrete ones.
"""

# ruff: noqa: E731
from __future__ import annotations

import random
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.concrete import CMap, Grant, SetRec
from session_toolset_model.ops import OPS
from session_toolset_model.oracle import Oracle
from session_toolset_model.profiles import Variant
from session_toolset_model.state import State
from session_toolset_model.values import PROGRESSIVE_CORE, Provenance, Source

pytestmark = pytest.mark.spec("2", "3", "4", "5")

TOOLS = ["builtin:bash", "builtin:read", "mcp.srv-a:t0", "mcp.srv-a:t1"]
SESSIONS = ["s-1", "s-2"]
DIGESTS = ["d0", "d1"]
PROVS = [
    Provenance("builtin_runtime"),
    Provenance("mcp_config", "srv-a"),
    Provenance("mcp_config", "srv-b"),
    Provenance("unverified"),
]
SETS = ["A", "B"]


class Enc:
    def __init__(self) -> None:
        self.consts: dict[tuple[str, Any], Any] = {}
        self.facts: list[Any] = []
        for t in TOOLS:
            self.facts.append(zi.PROGRESSIVE(self.c("tool", t)) == (t in PROGRESSIVE_CORE))
        for p in PROVS:
            self.facts.append(zi.UNVERIFIED(self.c("prov", p)) == (p.kind == "unverified"))
        for sort in ("tool", "session", "digest", "prov", "setname"):
            vals = [v for (s, _), v in self.consts.items() if s == sort]
            if len(vals) > 1:
                self.facts.append(z3.Distinct(*vals))

    def c(self, sort: str, v: Any) -> Any:
        key = (sort, v)
        if key not in self.consts:
            self.consts[key] = z3.Const(f"{sort}:{v!r}", zi.SORTS.get(sort, zi.SetName))
        return self.consts[key]

    def universe(self) -> None:
        for t in TOOLS:
            self.c("tool", t)
        for s in SESSIONS:
            self.c("session", s)
        for d in [*DIGESTS, "junk"]:
            self.c("digest", d)
        for p in PROVS:
            self.c("prov", p)
        for n in SETS:
            self.c("setname", n)

    def cmap(self, m: CMap, dom: str, default: Any, val: Any) -> Any:
        arr = z3.K(zi.SORTS.get(dom, zi.SetName), default)
        for k, v in m.as_dict().items():
            arr = z3.Store(arr, self.c(dom, k), val(v))
        return arr

    def state(self, st: State) -> State:
        rec = lambda r: zi.RecOpt.Rec(
            self.c("digest", r.digest),
            self.c("prov", r.prov),
            zi.TRUST[r.trust],
        )
        pin = lambda p: zi.PinOpt.Pin(self.c("digest", p.digest), self.c("prov", p.prov))
        act = lambda a: zi.ActOpt.Act(
            self.c("session", a.session),
            a.gen,
            self.c("digest", a.digest),
            self.c("prov", a.prov),
        )

        def tset(s: SetRec) -> Any:
            return zi.SetOpt.TSet(
                self.c("session", s.session),
                s.catgen,
                s.schemagen,
                self.cmap(s.core, "tool", zi.PinOpt.NoPin, pin),
                self.cmap(s.acts, "tool", zi.ActOpt.NoAct, act),
            )

        return State(
            self.cmap(st.catalog, "tool", zi.RecOpt.NoRec, rec),
            z3.IntVal(st.gen),
            self.cmap(st.calls, "tool", z3.IntVal(0), z3.IntVal),
            self.cmap(st.sets, "setname", zi.SetOpt.NoSet, tset),
        )

    def arg(self, sort: str, v: Any, alg: zi.Z3Algebra) -> Any:
        if sort == "bool":
            return z3.BoolVal(v)
        if sort == "int":
            return z3.IntVal(v)
        if sort == "trust":
            return zi.TRUST[v]
        if sort == "grant":
            return zi.GrantS.MkGrant(
                self.c("session", v.session),
                self.c("tool", v.tool),
                v.gen,
                self.c("digest", v.digest),
            )
        if sort == "seq_tool":
            return (
                alg.seq_const(tuple(self.c("tool", t) for t in v))
                if v
                else zi.Z3Seq(z3.K(zi.IntS, self.c("tool", TOOLS[0])), z3.IntVal(0))
            )
        if sort == "seq_grant":
            gs = tuple(self.arg("grant", g, alg) for g in v)
            return (
                alg.seq_const(gs)
                if gs
                else zi.Z3Seq(
                    z3.K(zi.IntS, self.arg("grant", Grant("s-1", TOOLS[0], 0, "d0"), alg)),
                    z3.IntVal(0),
                )
            )
        return self.c(sort, v)


def random_args(rng: random.Random, o: Oracle, name: str) -> dict[str, Any] | None:
    gen = o.state.gen
    pick = rng.choice

    def grant() -> Grant:
        return Grant(pick(SESSIONS), pick(TOOLS), pick([gen, gen, max(gen - 1, 0)]), pick(DIGESTS))

    known = [n for n in SETS if o.state.sets[n] is not None]
    a: dict[str, Any] = {}
    for arg, sort in OPS[name].args:
        if sort == "setname":
            if (
                arg in ("name", "retained")
                and name != "set_new"
                and "default" not in name
                and "progressive" not in name
            ):
                if not known:
                    return None
                a[arg] = pick(known)
            else:
                a[arg] = pick(SETS)
        elif sort == "tool":
            a[arg] = pick(TOOLS)
        elif sort == "session":
            a[arg] = pick(SESSIONS)
        elif sort == "digest":
            a[arg] = pick(DIGESTS)
        elif sort == "prov":
            a[arg] = pick(PROVS)
        elif sort == "trust":
            a[arg] = (
                "untrusted"
                if a["prov"].kind == "unverified"
                else pick(["trusted", "trusted", "mismatch", "untrusted"])
            )
        elif sort == "bool":
            a[arg] = rng.random() < 0.6
        elif sort == "int":
            a[arg] = pick([0, gen, gen + 2])
        elif sort == "grant":
            a[arg] = grant()
        elif sort == "seq_tool":
            a[arg] = tuple(pick(TOOLS) for _ in range(rng.randint(0, 3)))
        elif sort == "seq_grant":
            a[arg] = tuple(grant() for _ in range(rng.randint(0, 3)))
    if name == "route" and not a["has_retained"]:
        a["retained"] = pick(SETS)
        if o.state.sets[a["retained"]] is None and known:
            a["retained"] = known[0]
    if name == "catalog_upsert" and not a["has_replaced"]:
        a["replaced"] = TOOLS[0]
    return a


def agree(
    o: Oracle, name: str, args: dict[str, Any], v: Variant, cv: Variant | None = None
) -> None:
    enc = Enc()
    enc.universe()
    pre = enc.state(o.state)
    alg = zi.Z3Algebra()
    zargs = {arg: enc.arg(sort, args[arg], alg) for arg, sort in OPS[name].args}
    zres = OPS[name].run(alg, v, pre, zargs)
    cres = OPS[name].run(o.alg, cv or v, o.state, args)
    post = enc.state(cres.state)
    enc.universe()
    s = z3.Solver()
    s.set("rlimit", 50_000_000)
    s.add(*enc.facts, *Enc().facts, *alg.defs)
    s.add(z3.Distinct(*[c for (so, _), c in enc.consts.items() if so == "digest"]))
    s.add(z3.Distinct(*[c for (so, _), c in enc.consts.items() if so == "prov"]))
    s.add(z3.Distinct(*[c for (so, _), c in enc.consts.items() if so == "tool"]))
    s.add(z3.Distinct(*[c for (so, _), c in enc.consts.items() if so == "session"]))
    s.add(z3.Distinct(*[c for (so, _), c in enc.consts.items() if so == "setname"]))
    same = z3.And(
        zres.code == zi.OUTCOME[cres.code],
        zres.state.gen == post.gen,
        zres.state.catalog == post.catalog,
        zres.state.calls == post.calls,
        zres.state.sets == post.sets,
    )
    s.add(z3.Not(same))
    result = s.check()
    assert result == z3.unsat, (name, args, cres.code, result, s.reason_unknown())


@pytest.mark.parametrize("seed", range(12))
def test_z3_agrees_with_concrete(seed: int) -> None:
    rng = random.Random(seed)
    o = Oracle()
    names = list(OPS)
    checked = 0
    for _ in range(40):
        name = rng.choice(names)
        args = random_args(rng, o, name)
        if args is None:
            continue
        if rng.random() < 0.25:
            agree(o, name, args, Variant())
            checked += 1
        o.state = OPS[name].run(o.alg, Variant(), o.state, args).state
    assert checked > 0


def test_agreement_check_detects_a_disagreement() -> None:
    """The check can fail: a concrete run with a mutant gate disagrees with the Z3 default."""
    o = Oracle()
    o.catalog_insert("builtin:bash", "d0", Source("unknown", "", "x"), Provenance("unverified"))
    o.set_new("A", "s-1", ["builtin:bash"])
    with pytest.raises(AssertionError):
        agree(
            o,
            "authorize",
            {"name": "A", "tool": "builtin:bash"},
            Variant(),
            Variant(mutant="gate_ignores_trust"),
        )
