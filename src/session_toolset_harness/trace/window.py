"""A window of recorded lines with hidden catalog steps, as one query over the model's Z3 terms.

Every transition is the model's own (`session_toolset_model.ops.OPS` run over `Z3Algebra`); this
module only supplies the arguments and states what each recorded reply says about the result:

- concrete values (tool ids, digests, provenances, sessions, set names) become pairwise distinct
  constants of the model's uninterpreted sorts (`Universe`), with the two predicates the model
  leaves open (`unverified`, `progressive`) fixed to their concrete meaning;
- before each recorded line, either one *summary* (`Summary`, ``max_hidden=None``: what any
  number of unrecorded catalog operations can reach, stated exactly by `reachable`), or
  ``max_hidden`` slots each running one unrecorded catalog operation with fresh arguments (tool,
  digest, provenance, trust, prior...) or nothing; a hidden step must meet the operation's
  precondition and succeed (a failed catalog operation changes nothing, so it never explains
  anything);
- the window starts either from a concrete world (`exact_start`: every record, set, counter and
  grant as constants) or from an arbitrary one (`free_start`: fresh arrays and grants), which
  over-approximates every state any history can reach there;
- a recorded line asserts that its observed reply is the world's reply, field by field, as
  `world.World` builds it from the oracle's ``(code, payload)``, by complete mode's rule
  (`complete.agrees`): every field the world's reply has, with its value; other keys
  (``message``, hello's ``implementation``, diagnostics) are allowed.

`Window.solve` answers sat (with a model to read hidden steps from), unsat, or unknown.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model.algebra import MAX_GENERATION, Term
from session_toolset_model.concrete import CMap, Grant, Rec, SetRec
from session_toolset_model.ops import OPS
from session_toolset_model.oracle import error_payload
from session_toolset_model.profiles import DEFAULT
from session_toolset_model.state import Result, State, initial
from session_toolset_model.values import PROGRESSIVE_CORE, Provenance, Source, source_trust
from session_toolset_model.world.fields import Fields, ProtocolFault
from session_toolset_model.world.identity import IdentityError, parse_tool_id
from session_toolset_model.z3_interp import (
    OUTCOME,
    PROGRESSIVE,
    REASON,
    TRUST,
    UNVERIFIED,
    ActOpt,
    Digest,
    GrantS,
    PinOpt,
    Prov,
    RecOpt,
    Session,
    SetName,
    SetOpt,
    Tool,
    Z3Algebra,
    Z3Seq,
)

from .complete import agrees
from .logline import RecordedLine
from .plan import GrantRef, Unsupported, plan

Reply = dict[str, Any]
HIDDEN_KINDS = (
    "catalog_insert",
    "catalog_upsert",
    "catalog_remove",
    "catalog_rebase_past",
    "catalog_set_generation",
)
"""The operations partial mode can solve for: they write the catalog and its generation only."""

SUMMARISED = frozenset(HIDDEN_KINDS[:4])
"""Hidden kinds whose any-length runs `reachable` summarises exactly: a declared set of hidden
kinds that includes these (``--partial catalog``) is summarised, any other is enumerated."""

RLIMIT = 20_000_000
"""Z3's deterministic resource limit per query (never a wall-clock timeout)."""

FEWEST_CHECKS = 3
"""Checks spent making a model's explanation shorter: a heuristic (any model that replays is
a witness), so it is kept cheap."""

UNVERIFIED_PROV = Provenance("unverified")


PROTOCOL_REPLY: Reply = {"ok": False, "error": "Protocol"}


def _has(v: Any, keys: set[str]) -> bool:
    """``v`` is an object with (at least) ``keys``: the subset rule of `complete.agrees`, for
    the replies whose fields the window reads itself."""
    return isinstance(v, dict) and keys <= v.keys()


class Universe:
    """Distinct constants for the concrete values a query mentions."""

    def __init__(self, progressive: bool) -> None:
        """``progressive``: whether the query builds a progressive core (reads `progressive`);
        only then are the fixed list's ids named."""
        self.progressive = progressive
        self.consts: dict[str, dict[Any, Any]] = {
            "tool": {},
            "digest": {},
            "prov": {},
            "session": {},
            "setname": {},
        }
        self._sorts = {
            "tool": Tool,
            "digest": Digest,
            "prov": Prov,
            "session": Session,
            "setname": SetName,
        }
        self._n = itertools.count()
        if progressive:
            for t in sorted(PROGRESSIVE_CORE):
                self.tool(t)
        self.prov(UNVERIFIED_PROV)

    def _const(self, sort: str, value: Any) -> Any:
        table = self.consts[sort]
        if value not in table:
            table[value] = z3.Const(f"{sort}#{next(self._n)}", self._sorts[sort])
        return table[value]

    def tool(self, t: str) -> Any:
        return self._const("tool", t)

    def digest(self, d: str) -> Any:
        return self._const("digest", d)

    def prov(self, p: Provenance) -> Any:
        return self._const("prov", p)

    def session(self, s: str) -> Any:
        return self._const("session", s)

    def setname(self, n: str) -> Any:
        return self._const("setname", n)

    def axioms(self) -> list[Any]:
        out = [z3.Distinct(*t.values()) for t in self.consts.values() if len(t) > 1]
        for p, c in self.consts["prov"].items():
            out.append(UNVERIFIED(c) == (p.kind == "unverified"))
        for t, c in self.consts["tool"].items():
            out.append(PROGRESSIVE(c) == (t in PROGRESSIVE_CORE))
        return out

    def progressive_of(self, h: Any) -> Any:
        """`progressive` of an arbitrary tool: one of the fixed list's ids (unconstrained
        when no line reads it)."""
        if not self.progressive:
            return z3.BoolVal(True)
        return PROGRESSIVE(h) == z3.Or(*(self.tool(t) == h for t in sorted(PROGRESSIVE_CORE)))

    def unverified_of(self, h: Any) -> Any:
        """`unverified` of an arbitrary provenance: it is the one Unverified value."""
        return UNVERIFIED(h) == (h == self.prov(UNVERIFIED_PROV))


class FiniteAlgebra(Z3Algebra):
    """`Z3Algebra` with maps over tools updated, and tools searched, over the tools a query
    names (`Window.domain`) instead of through quantified side definitions.

    Exact for every explanation restricted to named tools (see `Window.domain`): a key outside
    the domain keeps the map's old value, which is what the transition computes there when no
    record, pin or activation is held at an unnamed tool."""

    def __init__(self, domain: Callable[[], list[Any]]) -> None:
        super().__init__(bound=1)
        self.domain = domain

    def update_map(self, m: Term, cands: Any, fn: Callable[[Term, Term], Term]) -> Term:
        if m.sort().domain() != Tool:
            return super().update_map(m, cands, fn)
        out = m
        for c in self.domain():
            out = z3.Store(out, c, fn(c, z3.Select(m, c)))
        return out

    def exists_key(self, cands: Any, sort: str, pred: Callable[[Term], Term]) -> Term:
        if sort != "tool":
            return super().exists_key(cands, sort, pred)
        return z3.Or(*(pred(c) for c in self.domain()))


@dataclass
class Slot:
    """One hidden slot: which kind ran (0 = none, i = ``kinds[i-1]``) and its argument terms."""

    gap: int
    choice: Any
    args: dict[str, dict[str, Any]]


@dataclass
class Summary:
    """Any number of hidden catalog operations in one gap, as their net effect (`reachable`):
    the catalog's value at each key of the domain before and after, and the generation."""

    gap: int
    keys: list[Any]
    first: list[Any]
    """Whether each key is the first of the list for its tool (keys may alias)."""
    before: list[Any]
    after: list[Any]
    gen: Any
    gen_after: Any


def reachable(
    pairs: Sequence[tuple[Any, Any]],
    gen: Any,
    gen_after: Any,
    kinds: Iterable[str],
    well_formed: Callable[[Any], Any],
    first: Sequence[Any] | None = None,
) -> Any:
    """Whether some sequence of successful ``kinds`` operations (any number, none included)
    takes a catalog whose records are ``before`` at generation ``gen`` to ``after`` at
    ``gen_after``, for ``(before, after)`` in ``pairs`` (`RecOpt` terms, one per tool; a tool
    not listed keeps its record).  For ``kinds`` including `SUMMARISED`, from SPEC.md 2:

    - "Every successful mutation advances the generation by exactly one (checked); a failed
      mutation changes nothing", and ``remove`` of an absent id is "no change": only successful
      changes count, each costs one generation, and ``checked_next`` fails at 2^64-1 (1.3), so
      ``m`` mutations from ``gen`` need ``gen + m <= 2^64-1``.
    - ``insert`` adds an absent id, ``remove`` drops a present one, ``upsert`` with ``replaced``
      the record's own id rewrites a present record (possibly identically), and ``upsert`` with
      another ``replaced`` drops it and stores an absent id: each mutation changes one record, or
      drops one and adds one.  So the fewest mutations from ``before`` to ``after`` is
      ``d = changed + max(added, removed)`` (pair each removal with an addition), and any record
      a mutation stores is one a request can carry: an Unverified provenance is untrusted
      (``well_formed``; the source-trust table's first row).
    - ``rebase_past(prior)``: "generation becomes max(current, prior)+1, or
      CatalogGenerationOverflow (unchanged)": any value above the current one, records kept.

    Hence reachable: nothing changed, or ``gen < gen_after <= 2^64-1`` and
    ``gen_after - gen >= d`` (the ``d`` mutations, then one rebase to the rest).  With the test
    seam ``catalog_set_generation`` also hidden, any generation of 0..2^64-1 with any records
    (set the generation low, mutate, set it).  `tests/trace/test_summary.py` checks both
    directions against the model's concrete transitions on a bounded domain."""
    is_rec, no_rec = RecOpt.is_Rec, RecOpt.is_NoRec
    firsts = [z3.BoolVal(True)] * len(pairs) if first is None else list(first)
    same = z3.And(gen_after == gen, *(b == a for b, a in pairs))
    stored = [z3.Implies(z3.And(is_rec(a), a != b), well_formed(a)) for b, a in pairs]
    if "catalog_set_generation" in kinds:
        return z3.Or(same, z3.And(gen_after >= 0, gen_after <= MAX_GENERATION, *stored))

    def count(conds: list[Any]) -> Any:
        return z3.Sum(*(z3.If(c, 1, 0) for c in conds)) if conds else z3.IntVal(0)

    marked = list(zip(firsts, pairs, strict=True))
    changed = count([z3.And(f, is_rec(b), is_rec(a), b != a) for f, (b, a) in marked])
    added = count([z3.And(f, no_rec(b), is_rec(a)) for f, (b, a) in marked])
    removed = count([z3.And(f, is_rec(b), no_rec(a)) for f, (b, a) in marked])
    d = changed + z3.If(added >= removed, added, removed)
    return z3.Or(
        same,
        z3.And(gen < gen_after, gen_after <= MAX_GENERATION, gen_after - gen >= d, *stored),
    )


def _cmap(m: CMap, key: Callable[[Any], Any], val: Callable[[Any], Any], base: Any) -> Any:
    out = base
    for k, v in sorted(m.as_dict().items(), key=lambda kv: repr(kv[0])):
        out = z3.Store(out, key(k), val(v))
    return out


class Window:
    """One query: a start state, then recorded lines each preceded by hidden slots."""

    def __init__(
        self, kinds: Sequence[str], max_hidden: int | None, lines: Sequence[RecordedLine]
    ) -> None:
        """``lines``: the window's recorded lines (their tool ids are named up front);
        ``max_hidden``: None for any number of hidden operations per gap (`Summary`)."""
        self.kinds_declared = frozenset(kinds)
        self.kinds = tuple(kinds)
        if max_hidden is None and not self.kinds_declared >= SUMMARISED:
            raise ValueError(f"only {sorted(SUMMARISED)} together are summarised")
        if "catalog_upsert" in self.kinds:  # an upsert replacing nothing is an insert
            self.kinds = tuple(k for k in self.kinds if k != "catalog_insert")
        """The kinds a slot chooses among (``Slot.choice`` indexes them)."""
        self.max_hidden = max_hidden
        tools, progressive = names_in(lines)
        self.u = Universe(progressive)
        for t in sorted(tools):
            self.u.tool(t)
        self.alg = FiniteAlgebra(self.domain)
        self.facts: list[Any] = []
        self.slots: list[Slot] = []
        self.summaries: list[Summary] = []
        self.free_grants = False
        self.grants: dict[str, tuple[Any, Any]] = {}
        self.state: State = initial(self.alg)
        self.last: Result | None = None
        self.tool_terms: list[Any] = []
        """Tool terms that may name a tool outside the universe (hidden arguments, grants)."""

    # -- start states ----------------------------------------------------------------------
    def exact_start(self, saved: tuple[Any, dict[str, Grant], Any]) -> None:
        """Start from a concrete world (`World.save()`)."""
        st, grants, _records = saved
        u = self.u
        catalog = _cmap(st.catalog, u.tool, self._rec, z3.K(Tool, RecOpt.NoRec))
        calls = _cmap(st.calls, u.tool, z3.IntVal, z3.K(Tool, z3.IntVal(0)))
        sets = _cmap(st.sets, u.setname, self._set, z3.K(SetName, SetOpt.NoSet))
        self.state = State(catalog, z3.IntVal(st.gen), calls, sets)
        self.grants = {n: (z3.BoolVal(True), self._grant(g)) for n, g in grants.items()}
        self.free_grants = False

    def free_start(self) -> None:
        """Start from an arbitrary world (every reachable one is among them)."""
        n = next(self.u._n)
        gen = z3.Int(f"gen0#{n}")
        self.facts += [gen >= 0, gen <= MAX_GENERATION]
        self.state = State(
            z3.Const(f"catalog0#{n}", z3.ArraySort(Tool, RecOpt)),
            gen,
            z3.Const(f"calls0#{n}", z3.ArraySort(Tool, z3.IntSort())),
            z3.Const(f"sets0#{n}", z3.ArraySort(SetName, SetOpt)),
        )
        self.grants = {}
        self.free_grants = True

    def _rec(self, r: Rec) -> Any:
        return RecOpt.Rec(self.u.digest(r.digest), self.u.prov(r.prov), TRUST[r.trust])

    def _set(self, s: SetRec) -> Any:
        u = self.u
        core = _cmap(
            s.core,
            u.tool,
            lambda p: PinOpt.Pin(u.digest(p.digest), u.prov(p.prov)),
            z3.K(Tool, PinOpt.NoPin),
        )
        acts = _cmap(
            s.acts,
            u.tool,
            lambda a: ActOpt.Act(u.session(a.session), a.gen, u.digest(a.digest), u.prov(a.prov)),
            z3.K(Tool, ActOpt.NoAct),
        )
        return SetOpt.TSet(u.session(s.session), s.catgen, s.schemagen, core, acts)

    def _grant(self, g: Grant) -> Any:
        u = self.u
        return GrantS.MkGrant(u.session(g.session), u.tool(g.tool), g.gen, u.digest(g.digest))

    def _named_grant(self, name: str) -> tuple[Any, Any]:
        if name not in self.grants:
            n = next(self.u._n)
            exists = z3.Bool(f"grant?{n}") if self.free_grants else z3.BoolVal(False)
            grant = z3.Const(f"grant#{n}", GrantS)
            self.grants[name] = (exists, grant)
            self.tool_terms.append(GrantS.g_tool(grant))
            self.facts.append(self.u.progressive_of(GrantS.g_tool(grant)))
        return self.grants[name]

    # -- hidden steps ----------------------------------------------------------------------
    def hidden(self, gap: int) -> None:
        """Hidden operations before the recorded line ``gap`` (an index in the window): a
        `Summary` of any number when ``max_hidden`` is None, else ``max_hidden`` slots."""
        if self.max_hidden is None:
            self._summary(gap)
            return
        for _ in range(self.max_hidden):
            self._slot(gap)

    def _summary(self, gap: int) -> None:
        """The catalog after any run of hidden operations (`reachable`), over the tools named
        so far; every other tool keeps its record (see `Window.domain`)."""
        u, st = self.u, self.state
        n = next(u._n)
        keys = self.domain()
        before = [z3.Select(st.catalog, k) for k in keys]
        after = [z3.Const(f"rec#{n}.{i}", RecOpt) for i in range(len(keys))]
        catalog = st.catalog
        for k, a in zip(keys, after, strict=True):
            catalog = z3.Store(catalog, k, a)
            self.facts.append(u.unverified_of(RecOpt.rec_prov(a)))
        gen = z3.Int(f"gen#{n}")

        def well_formed(a: Any) -> Any:
            return z3.Implies(
                UNVERIFIED(RecOpt.rec_prov(a)), RecOpt.rec_trust(a) == TRUST["untrusted"]
            )

        first = []
        for i, k in enumerate(keys):  # a grant's tool term may be a named tool
            same = [k == keys[j] for j in range(i) if not (z3.is_const(k) and z3.is_const(keys[j]))]
            self.facts += [
                z3.Implies(k == keys[j], after[i] == after[j])
                for j in range(i)
                if not (z3.is_const(k) and z3.is_const(keys[j]))
            ]
            first.append(z3.Not(z3.Or(*same)) if same else z3.BoolVal(True))
        pairs = list(zip(before, after, strict=True))
        self.facts.append(reachable(pairs, st.gen, gen, self.kinds_declared, well_formed, first))
        self.summaries.append(Summary(gap, keys, first, before, after, st.gen, gen))
        self.state = State(catalog, gen, st.calls, st.sets)

    def block(self, model: Any) -> None:
        """Ask for another model: one whose hidden steps differ somewhere."""
        terms = [slot.choice for slot in self.slots]
        for summary in self.summaries:
            terms += [summary.gen_after, *summary.after]
        self.facts.append(z3.Or(*(t != model.eval(t, True) for t in terms)))

    def _slot(self, gap: int) -> None:
        alg, u, st = self.alg, self.u, self.state
        n = next(u._n)
        choice = z3.Int(f"choice#{n}")
        self.facts += [choice >= 0, choice <= len(self.kinds)]
        if self.slots and self.slots[-1].gap == gap:  # a gap's used slots come first
            self.facts.append(z3.Implies(self.slots[-1].choice == 0, choice == 0))
        catalog, gen = st.catalog, st.gen
        all_args: dict[str, dict[str, Any]] = {}
        for i, kind in enumerate(self.kinds, start=1):
            args = self._fresh_args(kind, n)
            all_args[kind] = args
            on = choice == i
            if kind == "catalog_set_generation":
                value = args["value"]
                self.facts.append(z3.Implies(on, z3.And(value >= 0, value <= MAX_GENERATION)))
                post_catalog, post_gen = st.catalog, value
            else:
                op = OPS[kind]
                result = op.run(alg, DEFAULT, st, args)
                self.facts.append(z3.Implies(on, op.pre(alg, st, args)))
                self.facts.append(z3.Implies(on, result.code == OUTCOME["ok"]))
                post_catalog, post_gen = result.state.catalog, result.state.gen
            catalog = z3.If(on, post_catalog, catalog)
            gen = z3.If(on, post_gen, gen)
        self.slots.append(Slot(gap, choice, all_args))
        self.state = State(catalog, gen, st.calls, st.sets)

    def _fresh_args(self, kind: str, n: int) -> dict[str, Any]:
        def c(name: str, sort: Any) -> Any:  # one argument of a name per slot, shared by kinds
            return z3.Const(f"{name}#{n}", sort)

        if kind == "catalog_set_generation":
            return {"value": c("value", z3.IntSort())}
        if kind == "catalog_rebase_past":
            return {"prior": c("prior", z3.IntSort())}
        if kind == "catalog_remove":
            return {"tool": c("tool", Tool)}
        args = {
            "tool": c("tool", Tool),
            "digest": c("digest", Digest),
            "prov": c("prov", Prov),
            "trust": c("trust", TRUST["trusted"].sort()),
        }
        if kind == "catalog_upsert":
            args["has_replaced"] = c("has_replaced", z3.BoolSort())
            args["replaced"] = c("replaced", Tool)
        for term in args.values():
            if term.sort() == Tool and not any(term.eq(t) for t in self.tool_terms):
                self.facts.append(self.u.progressive_of(term))
                self.tool_terms.append(term)
            elif term.sort() == Prov:
                self.facts.append(self.u.unverified_of(term))
        return args

    # -- recorded lines --------------------------------------------------------------------
    def recorded(self, line: RecordedLine) -> None:
        """Assert that the line's observed reply is the world's reply; advance the state."""
        observed = line.reply
        p = plan(line.request)
        exists = [self._exists(kind, name) for kind, name in p.lookups]
        all_exist = z3.And(*exists) if exists else z3.BoolVal(True)
        protocol = agrees(PROTOCOL_REPLY, observed)
        if p.call is None:
            assert p.reply is not None
            fault_is_protocol = p.reply == PROTOCOL_REPLY
            if protocol:
                self.facts.append(z3.Or(z3.Not(all_exist), z3.BoolVal(fault_is_protocol)))
            else:
                self.facts.append(z3.And(all_exist, z3.BoolVal(agrees(p.reply, observed))))
                if p.forged is not None:
                    name, grant = p.forged
                    self.grants[name] = (z3.BoolVal(True), self._grant(grant))
            return
        method, args = p.call
        if method == "wire":
            resolved = _wire_tool(line.request, observed)
            if resolved is None:  # the reply depends on runtime names only
                found = _resolved_tool(line.request, observed)
                if found is not None:  # the registry is the catalog's records
                    self.facts.append(
                        RecOpt.is_Rec(z3.Select(self.state.catalog, self.u.tool(found)))
                    )
                if line.request.get("op") == "authorize_wire":  # it may have called a factory
                    st = self.state
                    calls = z3.Const(f"calls#{next(self.u._n)}", st.calls.sort())
                    self.state = State(st.catalog, st.gen, calls, st.sets)
                return
            method, args = "authorize", (line.request["set"], resolved)
        if protocol:  # the model never answers Protocol: a lookup failed, nothing changed
            self.facts.append(z3.Not(all_exist))
            return
        self.facts.append(all_exist)
        self.facts.append(self._call(method, args, observed))
        if method == "issue_grant" and observed.get("ok") is True:
            assert self.last is not None
            self.grants[line.request["name"]] = (z3.BoolVal(True), self.last.extras["grant"])

    def _exists(self, kind: str, name: str) -> Any:
        if kind == "set":
            return self.alg.is_some(z3.Select(self.state.sets, self.u.setname(name)))
        return self._named_grant(name)[0]

    def _grant_term(self, g: Any) -> Any:
        assert isinstance(g, GrantRef)
        return self._named_grant(g.name)[1]

    def _call(self, method: str, args: tuple[Any, ...], observed: Reply) -> Any:
        """The constraint that the call's reply is ``observed``; the state advances."""
        u, alg, st = self.u, self.alg, self.state
        if method == "reset":
            self.state = initial(alg)
            self.grants = {}
            self.free_grants = False
            return z3.BoolVal(agrees({"ok": True}, observed))
        if method == "snapshot":
            return self._snapshot(args[0], observed)
        if method == "catalog_state":
            return self._catalog_state(observed)
        if method == "factory_calls":
            calls = z3.Select(st.calls, u.tool(args[0]))
            return self._fields(observed, {"calls": lambda v: _int(v, calls)})
        if method == "catalog_set_generation":
            (value,) = args
            self.state = State(st.catalog, z3.IntVal(value), st.calls, st.sets)
            return self._fields(observed, {"generation": lambda v: _int(v, z3.IntVal(value))})
        run: dict[str, Callable[[], tuple[Result, dict[str, Callable[[Any], Any]]]]] = {
            "catalog_insert": lambda: self._record("catalog_insert", None, *args),
            "catalog_upsert": lambda: self._record("catalog_upsert", *args),
            "catalog_remove": lambda: self._op_fields(
                "catalog_remove",
                {"tool": u.tool(args[0])},
                lambda r: {
                    "removed": lambda v: _bool(v, r.extras["removed"]),
                    "generation": lambda v: _int(v, r.state.gen),
                },
            ),
            "catalog_rebase_past": lambda: self._op_fields(
                "catalog_rebase_past",
                {"prior": z3.IntVal(args[0])},
                lambda r: {"generation": lambda v: _int(v, r.state.gen)},
            ),
            "set_new": lambda: self._op_fields(
                "set_new",
                {
                    "name": u.setname(args[0]),
                    "session": u.session(args[1]),
                    "core_ids": self._seq([u.tool(t) for t in args[2]], Tool),
                },
            ),
            "set_default_core": lambda: self._op_fields(
                "set_default_core", {"name": u.setname(args[0]), "session": u.session(args[1])}
            ),
            "set_progressive_core": lambda: self._op_fields(
                "set_progressive_core",
                {"name": u.setname(args[0]), "session": u.session(args[1])},
            ),
            "is_stale": lambda: self._op_fields(
                "is_stale",
                {"name": u.setname(args[0])},
                lambda r: {"stale": lambda v: _bool(v, r.extras["stale"])},
            ),
            "activate": lambda: self._op_fields(
                "activate", {"name": u.setname(args[0]), "grant": self._grant_term(args[1])}
            ),
            "activate_many": lambda: self._op_fields(
                "activate_many",
                {
                    "name": u.setname(args[0]),
                    "grants": self._seq([self._grant_term(g) for g in args[1]], GrantS),
                },
                lambda r: {"applied": lambda v: _int(v, r.extras["applied"])},
            ),
            "revoke": lambda: self._op_fields(
                "revoke", {"name": u.setname(args[0]), "tool": u.tool(args[1])}
            ),
            "rebuild": lambda: self._op_fields(
                "rebuild",
                {
                    "name": u.setname(args[0]),
                    "into": u.setname(args[1]),
                    "progressive": z3.BoolVal(args[2]),
                    "carry_forward": z3.BoolVal(args[3]),
                },
                lambda r: {"dropped": lambda v: self._dropped(v, r.extras["dropped"])},
            ),
            "authorize": lambda: self._op_fields(
                "authorize",
                {"name": u.setname(args[0]), "tool": u.tool(args[1])},
                lambda r: {
                    "tool": lambda v: _tool(u, v, u.tool(args[1])),
                    "basis": lambda v: _basis(v, r.extras),
                },
            ),
            "issue_grant": lambda: self._op_fields(
                "issue_grant",
                {"session": u.session(args[0]), "tool": u.tool(args[1])},
                lambda r: {"grant": lambda v: self._grant_json(v, r.extras["grant"])},
            ),
            "activate_user": lambda: self._op_fields(
                "activate_user", {"name": u.setname(args[0]), "tool": u.tool(args[1])}
            ),
            "activate_model": lambda: self._op_fields(
                "activate_model",
                {
                    "confirmed": z3.BoolVal(args[1] == "model_confirmed"),
                    "name": u.setname(args[0]),
                    "tools": self._seq([u.tool(t) for t in args[2]], Tool),
                },
                lambda r: {"applied": lambda v: _int(v, r.extras["applied"])},
            ),
            "route": lambda: self._op_fields(
                "route",
                {
                    "has_retained": z3.BoolVal(args[0] is not None),
                    "retained": u.setname(args[0]) if args[0] is not None else _no_set(),
                    "into": u.setname(args[1]),
                    "fallback_session": u.session(args[2]),
                },
                lambda r: {"stale": lambda v: _bool(v, r.extras["stale"])},
            ),
        }
        if method not in run:
            raise Unsupported(f"no symbolic form for {method}")
        result, ok_fields = run[method]()
        self.state = result.state
        self.last = result
        code = result.code
        if observed.get("ok") is True:
            return z3.And(code == OUTCOME["ok"], self._fields(observed, ok_fields))
        error = observed.get("error")
        if observed.get("ok") is not False or not isinstance(error, str) or error not in OUTCOME:
            return z3.BoolVal(False)
        payload = error_payload(error, {"tool": None, "grant": None, "catalog": None, "set": None})
        terms = {
            "tool": result.extras.get("tool"),
            "grant": result.extras.get("grant"),
            "catalog": result.extras.get("catalog"),
            "set": result.extras.get("set"),
        }
        checks: dict[str, Callable[[Any], Any]] = {}
        for key in payload:
            term = terms[key]
            if term is None:
                return z3.BoolVal(False)
            checks[key] = partial(_tool, u, t=term) if key == "tool" else partial(_int, term=term)
        return z3.And(code == OUTCOME[error], self._fields(observed, checks, error=True))

    def _record(
        self,
        kind: str,
        replaced: str | None,
        tool: str,
        digest: str,
        source: Source,
        prov: Provenance,
    ) -> tuple[Result, dict[str, Callable[[Any], Any]]]:
        u = self.u
        args = {
            "tool": u.tool(tool),
            "digest": u.digest(digest),
            "prov": u.prov(prov),
            "trust": TRUST[source_trust(source, prov)],
        }
        if kind == "catalog_upsert":
            args["has_replaced"] = z3.BoolVal(replaced is not None)
            args["replaced"] = u.tool(replaced if replaced is not None else tool)
        return self._op_fields(
            kind,
            args,
            lambda r: {
                "id": lambda v: _tool(u, v, u.tool(tool)),
                "generation": lambda v: _int(v, r.state.gen),
            },
        )

    def _op_fields(
        self,
        kind: str,
        args: dict[str, Any],
        ok: Callable[[Result], dict[str, Callable[[Any], Any]]] | None = None,
    ) -> tuple[Result, dict[str, Callable[[Any], Any]]]:
        lengths = [a.length for a in args.values() if hasattr(a, "length")]
        self.alg.bound = max([1, *(z3.simplify(n).as_long() for n in lengths)])
        result = OPS[kind].run(self.alg, DEFAULT, self.state, args)
        self.facts.extend(self.alg.defs)
        self.alg.defs.clear()
        return result, ({} if ok is None else ok(result))

    def _seq(self, elems: list[Any], sort: Any) -> Any:
        if not elems:
            return Z3Seq(z3.K(z3.IntSort(), z3.FreshConst(sort, "pad")), z3.IntVal(0))
        return self.alg.seq_const(tuple(elems))

    def _fields(
        self, observed: Reply, checks: dict[str, Callable[[Any], Any]], error: bool = False
    ) -> Any:
        base = {"ok", "error"} if error else {"ok"}
        if not _has(observed, base | set(checks)):
            return z3.BoolVal(False)
        return z3.And(*(check(observed[k]) for k, check in checks.items()))

    def _grant_json(self, v: Any, g: Any) -> Any:
        if not _has(v, {"session", "tool", "generation", "digest"}):
            return z3.BoolVal(False)
        if not all(isinstance(v[k], str) for k in ("session", "tool", "digest")):
            return z3.BoolVal(False)
        return z3.And(
            GrantS.g_session(g) == self.u.session(v["session"]),
            _tool(self.u, v["tool"], GrantS.g_tool(g)),
            _int(v["generation"], GrantS.g_gen(g)),
            GrantS.g_digest(g) == self.u.digest(v["digest"]),
        )

    def _dropped(self, v: Any, dropped: Any) -> Any:
        if not isinstance(v, list) or not all(
            _has(e, {"tool", "reason"})
            and isinstance(e["tool"], str)
            and e["reason"] in ("removed", "drifted")
            for e in v
        ):
            return z3.BoolVal(False)
        tools = [e["tool"] for e in v]
        if tools != sorted(set(tools)):
            return z3.BoolVal(False)
        return z3.And(
            *(z3.Select(dropped, self.u.tool(e["tool"])) == REASON[e["reason"]] for e in v),
            _others(dropped, [self.u.tool(t) for t in tools], REASON["none"], self.domain()),
        )

    def _snapshot(self, name: str, observed: Reply) -> Any:
        u = self.u
        s = z3.Select(self.state.sets, u.setname(name))
        keys = {"ok", "session", "catalog_generation", "schema_generation", "core", "activated"}
        if not _has(observed, keys) or observed["ok"] is not True:
            return z3.BoolVal(False)
        if not isinstance(observed["session"], str):
            return z3.BoolVal(False)
        core, acts = observed["core"], observed["activated"]
        pins = _entries(core, {"tool", "digest", "provenance"})
        activations = _entries(acts, {"tool", "generation", "digest", "provenance", "lease"})
        if pins is None or activations is None:
            return z3.BoolVal(False)
        out = [
            SetOpt.set_session(s) == u.session(observed["session"]),
            _int(observed["catalog_generation"], SetOpt.set_catgen(s)),
            _int(observed["schema_generation"], SetOpt.set_schemagen(s)),
        ]
        core_map, acts_map = SetOpt.set_core(s), SetOpt.set_acts(s)
        for e in pins:
            prov = _prov(e["provenance"])
            if prov is None or not isinstance(e["digest"], str):
                return z3.BoolVal(False)
            pin = PinOpt.Pin(u.digest(e["digest"]), u.prov(prov))
            out.append(z3.Select(core_map, u.tool(e["tool"])) == pin)
        for e in activations:
            prov = _prov(e["provenance"])
            if prov is None or not isinstance(e["digest"], str) or e["lease"] != "not_acquired":
                return z3.BoolVal(False)
            a = z3.Select(acts_map, u.tool(e["tool"]))
            out += [
                ActOpt.is_Act(a),
                _int(e["generation"], ActOpt.act_gen(a)),
                ActOpt.act_digest(a) == u.digest(e["digest"]),
                ActOpt.act_prov(a) == u.prov(prov),
            ]
        domain = self.domain()
        out.append(_others(core_map, [u.tool(e["tool"]) for e in pins], PinOpt.NoPin, domain))
        out.append(
            _others(acts_map, [u.tool(e["tool"]) for e in activations], ActOpt.NoAct, domain)
        )
        return z3.And(*out)

    def _catalog_state(self, observed: Reply) -> Any:
        u, st = self.u, self.state
        if not _has(observed, {"ok", "generation", "records"}) or observed["ok"] is not True:
            return z3.BoolVal(False)
        records = _entries(observed["records"], {"id", "digest", "source", "provenance"}, "id")
        if records is None:
            return z3.BoolVal(False)
        out = [_int(observed["generation"], st.gen)]
        for e in records:
            prov, source = _prov(e["provenance"]), _source(e["source"])
            if prov is None or source is None or not isinstance(e["digest"], str):
                return z3.BoolVal(False)
            rec = RecOpt.Rec(u.digest(e["digest"]), u.prov(prov), TRUST[source_trust(source, prov)])
            out.append(z3.Select(st.catalog, u.tool(e["id"])) == rec)
        out.append(
            _others(st.catalog, [u.tool(e["id"]) for e in records], RecOpt.NoRec, self.domain())
        )
        return z3.And(*out)

    # -- solving ---------------------------------------------------------------------------
    def _fewest(self, solver: Any, model: Any) -> Any:
        """A model with as few hidden steps as the solver finds, bisecting the count (with
        summaries: in `FEWEST_CHECKS` more checks, each with a twentieth of the resource
        limit): fewer gratuitous catalog changes leave the concrete replay closer to the
        recorded world."""
        used = _used(self.slots, self.summaries)
        low, high = -1, model.eval(used, model_completion=True).as_long()
        checks = high.bit_length() + 1  # enough to bisect to the fewest
        if self.summaries:  # many keys: cheap and approximate
            solver.set("rlimit", RLIMIT // 20)  # past it: keep the model found (`unknown`)
            checks = FEWEST_CHECKS
        for _ in range(checks):  # a model with ``used <= high`` is known; none below ``low + 1``
            if high - low <= 1:
                break
            mid = (low + high) // 2
            solver.push()
            solver.add(used <= mid)
            verdict = solver.check()
            if verdict == z3.sat:
                model = solver.model()
                high = model.eval(used, model_completion=True).as_long()
            solver.pop()
            if verdict == z3.unsat:
                low = mid
            elif verdict != z3.sat:
                break
        return model

    def domain(self) -> list[Any]:
        """The tools the query names so far: the window's own ids (registered up front), the
        start world's, and every hidden step's or free grant's tool term.

        An explanation holds nothing observable at a tool outside this list: every reply that
        lists tools (snapshot, catalog_state, rebuild) is asserted complete and names what it
        lists, every request names the tool it reads, and a tool a hidden step introduces is
        that step's term.  Restricting any explaining world to the named tools therefore keeps
        every reply, so maps updated over the named tools only (`FiniteAlgebra`) lose no
        explanation, and the queries are quantifier-free."""
        return [*self.u.consts["tool"].values(), *self.tool_terms]

    def solve(self) -> tuple[str, Any]:
        """``("sat", model)``, ``("unsat", None)`` or ``("unknown", reason)``."""
        solver = z3.SimpleSolver()
        solver.set("random_seed", 0)
        solver.set("rlimit", RLIMIT)
        solver.set("smt.relevancy", 0)  # measured: ten times faster on the slot-heavy queries
        solver.add(*self.u.axioms(), *self.facts, *self.alg.defs)
        verdict = solver.check()
        if verdict == z3.sat:
            return "sat", self._fewest(solver, solver.model())
        if verdict == z3.unsat:
            return "unsat", None
        return "unknown", solver.reason_unknown()


def _used(slots: list[Slot], summaries: list[Summary]) -> Any:
    """How many hidden operations a model's explanation has (a summary's: its records that
    changed, and one rebase if the generation moved further)."""
    used = [z3.If(slot.choice == 0, 0, 1) for slot in slots]
    for s in summaries:
        changed = [z3.If(b == a, 0, 1) for b, a in zip(s.before, s.after, strict=True)]
        used += [*changed, z3.If(s.gen_after - s.gen > z3.Sum(0, 0, *changed), 1, 0)]
    return z3.Sum(*used) if used else z3.IntVal(0)


def _int(v: Any, term: Any) -> Any:
    """``term`` equals the JSON integer ``v`` (false for any other JSON value)."""
    if isinstance(v, bool) or not isinstance(v, int):
        return z3.BoolVal(False)
    return term == v


def _bool(v: Any, term: Any) -> Any:
    return term == v if isinstance(v, bool) else z3.BoolVal(False)


def _tool(u: Universe, v: Any, t: Any) -> Any:
    return t == u.tool(v) if isinstance(v, str) else z3.BoolVal(False)


def _basis(v: Any, extras: dict[str, Any]) -> Any:
    if agrees({"kind": "core"}, v):
        return extras["basis_core"]
    if _has(v, {"kind", "catalog_generation"}) and v["kind"] == "exact":
        return z3.And(
            z3.Not(extras["basis_core"]), _int(v["catalog_generation"], extras["basis_gen"])
        )
    return z3.BoolVal(False)


def _others(m: Any, listed: list[Any], default: Any, domain: list[Any]) -> Any:
    """Every named key of ``m`` outside ``listed`` holds ``default``."""
    return z3.And(
        *(
            z3.Implies(z3.And(*(k != t for t in listed)), z3.Select(m, k) == default)
            for k in domain
            if not any(k.eq(t) for t in listed)
        )
    )


def _entries(v: Any, keys: set[str], key: str = "tool") -> list[dict[str, Any]] | None:
    """A reply list of objects with ``keys``, in strictly increasing ToolId byte order."""
    if not isinstance(v, list) or not all(_has(e, keys) for e in v):
        return None
    ids = [e[key] for e in v]
    if not all(isinstance(t, str) for t in ids):
        return None
    encoded = [t.encode() for t in ids]
    if any(a >= b for a, b in itertools.pairwise(encoded)):
        return None
    return v


def _prov(v: Any) -> Provenance | None:
    try:
        return Fields({"p": v}).provenance("p")
    except (ProtocolFault, IdentityError):
        return None


def _source(v: Any) -> Source | None:
    if agrees({"kind": "builtin"}, v):
        return Source("builtin")
    try:
        return Fields({"s": v}).source("s")
    except (ProtocolFault, IdentityError):
        return None


def _no_set() -> Any:
    return z3.FreshConst(SetName, "none")


def _wire_tool(request: Reply, observed: Reply) -> str | None:
    """The tool an ``authorize_wire`` reply says its wire name resolved to, or None.

    Once the wire name resolves to a record (which depends on runtime names, not modelled),
    PROTOCOL.md answers ``authorize_wire`` as ``authorize`` of that record's id, and every
    reply but a failed resolution (``UnknownTool``, ``Protocol``) names it in ``tool``.  So a
    reply naming a tool is asserted to be ``authorize``'s reply for that tool, which constrains
    the state as an ``authorize`` line does; the runtime names themselves are left to the
    concrete replay of the explanation, as for ``resolve``."""
    if request.get("op") != "authorize_wire" or not isinstance(request.get("set"), str):
        return None
    tool, error = observed.get("tool"), observed.get("error")
    if not isinstance(tool, str) or error in ("ToolAuthorizationError.UnknownTool", "Protocol"):
        return None
    try:
        return parse_tool_id(tool)
    except IdentityError:
        return None


def _resolved_tool(request: Reply, observed: Reply) -> str | None:
    """The tool a successful ``resolve`` reply names: SPEC.md 4's registry holds live tools,
    PROTOCOL.md's every cataloged record, so that tool has a record."""
    if request.get("op") != "resolve" or observed.get("ok") is not True:
        return None
    tool = observed.get("tool")
    if not isinstance(tool, str):
        return None
    try:
        return parse_tool_id(tool)
    except IdentityError:
        return None


def names_in(lines: Iterable[RecordedLine]) -> tuple[set[str], bool]:
    """Every string of the lines' requests and replies that parses as a ToolId (a string that
    is not one only widens the domain), and whether a line builds a progressive core."""
    out: set[str] = set()
    progressive = False

    def walk(v: Any) -> None:
        if isinstance(v, str):
            with contextlib.suppress(IdentityError):
                out.add(parse_tool_id(v))
        elif isinstance(v, dict):
            for key, x in v.items():
                if key != "message":
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for line in lines:
        walk(line.request)
        walk(line.reply)
        op = line.request.get("op")
        progressive |= op == "set_progressive_core" or (
            op == "rebuild" and line.request.get("progressive") is not False
        )
    return out, progressive
