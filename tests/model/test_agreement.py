"""The Z3 interpretation agrees with the concrete one on random reachable states and operations.

A random trace drives the oracle; before an operation the concrete world is encoded as Z3
constants (distinct per value), the Z3 transition is built on it, and two checks must pass:

* the concrete result, encoded, *satisfies* the Z3 transition (``sat``): outcome, post-state
  and payload (stale, drop reasons, gate basis, removed, generation) - this is what fails when
  the Z3 side is inconsistent (a wrong side definition makes the transition unsatisfiable, and
  an unsatisfiable transition would pass the next check vacuously);
* no other outcome or post-state is possible (``unsat`` of "differ").

Every profile runs, and traces start from states at the u64 seam (generation 2^64-2, 2^64-1).
"""

# ruff: noqa: E731
from __future__ import annotations

import random
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from session_toolset_model import z3_interp as zi
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.concrete import CMap, Grant, SetRec
from session_toolset_model.ops import OPS
from session_toolset_model.oracle import Oracle
from session_toolset_model.profiles import PROFILES, Variant
from session_toolset_model.state import State
from session_toolset_model.values import PROGRESSIVE_CORE, Provenance, Source
from session_toolset_proofs.mutants import variant as mutant_variant

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

    def payload(self, key: str, v: Any) -> Any:
        """A concrete payload value as a Z3 term (None: junk, not compared)."""
        if v is None:
            return None
        if isinstance(v, bool):
            return z3.BoolVal(v)
        if isinstance(v, int):
            return z3.IntVal(v)
        if isinstance(v, CMap):
            return self.cmap(v, "tool", zi.REASON["none"], lambda r: zi.REASON[r])
        return None

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
            a[arg] = pick([0, gen, gen + 2, MAX_GENERATION - 1, MAX_GENERATION])
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


PAYLOAD = ("stale", "dropped", "basis_core", "basis_gen", "removed", "generation")
"""Payload fields compared (PROTOCOL.md reply fields the model computes)."""


def agree(
    o: Oracle,
    name: str,
    args: dict[str, Any],
    v: Variant,
    cv: Variant | None = None,
    zv: Variant | None = None,
) -> None:
    """``cv``/``zv``: the variant of the concrete / Z3 side when they differ from ``v``."""
    enc = Enc()
    enc.universe()
    pre = enc.state(o.state)
    alg = zi.Z3Algebra(None, zv or v)
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
    payload = []
    for key in PAYLOAD:
        if key not in cres.extras or key not in zres.extras:
            continue
        if key.startswith("basis") and cres.code != "ok":
            continue  # the basis is only reported for an authorized call
        want = enc.payload(key, cres.extras[key])
        if want is not None:
            payload.append(zres.extras[key] == want)
    # a fresh solver (incremental push/pop gives up more often on quantified models)
    sat_side = z3.Solver()
    sat_side.set("rlimit", 50_000_000)
    sat_side.add(*s.assertions(), same, *payload)
    consistent = sat_side.check()
    assert consistent == z3.sat, ("Z3 side rejects the concrete result", name, args, cres.code)
    s.add(z3.Not(same))
    result = s.check()
    assert result == z3.unsat, (name, args, cres.code, result, s.reason_unknown())


def _seam(o: Oracle, seed: int) -> None:
    """Every third trace starts at the u64 seam: the generation at 2^64-2 or 2^64-1."""
    if seed % 3 == 0:
        return
    prior = MAX_GENERATION - (3 if seed % 3 == 1 else 2)
    o.state = OPS["catalog_rebase_past"].run(o.alg, Variant(), o.state, {"prior": prior}).state
    assert o.state.gen in (MAX_GENERATION - 2, MAX_GENERATION - 1)


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("seed", range(8))
def test_z3_agrees_with_concrete(seed: int, profile: str) -> None:
    rng = random.Random(seed)
    v = Variant(profile)
    o = Oracle()
    _seam(o, seed)
    names = list(OPS)
    checked = 0
    for _ in range(40):
        name = rng.choice(names)
        args = random_args(rng, o, name)
        if args is None:
            continue
        if rng.random() < 0.25:
            agree(o, name, args, v)
            checked += 1
        o.state = OPS[name].run(o.alg, v, o.state, args).state
    assert checked > 0


def test_agreement_at_the_seam_reaches_exhaustion() -> None:
    """At 2^64-1 an insert must fail GenerationExhausted on both sides (and agree on it)."""
    o = Oracle()
    o.state = (
        OPS["catalog_rebase_past"]
        .run(o.alg, Variant(), o.state, {"prior": MAX_GENERATION - 1})
        .state
    )
    args = {"tool": TOOLS[2], "digest": "d0", "prov": PROVS[1], "trust": "trusted"}
    assert OPS["catalog_insert"].run(o.alg, Variant(), o.state, args).code == (
        "CatalogError.GenerationExhausted"
    )
    agree(o, "catalog_insert", args, Variant())


def test_agreement_catches_a_wrong_z3_side_definition() -> None:
    """The first-index side definition with ``<`` for ``<=`` makes every successful batch
    unsatisfiable on the Z3 side; "differ" is then unsat too (vacuously), but the concrete
    result no longer satisfies the Z3 transition, and the check fails."""
    o = Oracle()
    o.catalog_insert("mcp.srv-a:t0", "d0", Source("mcp", "srv-a", "t0"), PROVS[1])
    o.catalog_insert("mcp.srv-a:t1", "d0", Source("mcp", "srv-a", "t1"), PROVS[1])
    o.set_new("A", "s-1", [])
    gen = o.state.gen
    grants = tuple(Grant("s-1", t, gen, "d0") for t in ("mcp.srv-a:t0", "mcp.srv-a:t1"))
    args = {"name": "A", "grants": grants}
    assert OPS["activate_many"].run(o.alg, Variant(), o.state, args).code == "ok"
    agree(o, "activate_many", args, Variant())
    with pytest.raises(AssertionError, match="Z3 side rejects"):
        agree(o, "activate_many", args, Variant(), zv=mutant_variant("z3_first_index_strict"))


def test_agreement_compares_payloads() -> None:
    """A concrete run whose stale flag is wrong (the `stale_off_by_one` mutant) disagrees with
    the Z3 default on the payload alone: outcome and post-state are the same."""
    o = Oracle()
    o.set_new("A", "s-1", [])
    o.catalog_insert("mcp.srv-a:t0", "d0", Source("mcp", "srv-a", "t0"), PROVS[1])
    args = {"name": "A"}
    with pytest.raises(AssertionError, match="Z3 side rejects"):
        agree(o, "is_stale", args, Variant(), mutant_variant("stale_off_by_one"))


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
            mutant_variant("gate_ignores_trust"),
        )
