"""Witnesses and counterexamples: found concretely, confirmed in Z3 by pinning.

For one obligation under one variant, candidates are (reachable pre-state, final-operation
arguments) pairs from the bounded enumerator (`session_toolset_model.enumerate`); the transition
is run concretely under the variant, a cheap concrete filter keeps the promising ones, and each
kept candidate is *confirmed* by the obligation's own unbounded Z3 query (premises, side
definitions, then the witness hints or the negated goal) with the pre-state and arguments pinned
(`pin`). Only a ``sat`` confirmation counts: the result is then a genuine Z3 model of the
obligation's query, and its pre-state is reachable from the initial state by a concrete trace.
``unknown`` from a confirmation is a failure of that confirmation: it never counts as found (the
next candidate is tried, and a row with no ``sat`` confirmation reports ``unknown``, which fails
the run); ``unsat`` means the filter was too generous for that candidate (at most
`MAX_CONFIRMATIONS` are tried).

The filters never decide a result, they only order the work:

- counterexamples: the variant's result must *differ* from the base variant's (the default
  profile proves the obligation, so the base result satisfies it; a candidate on which the two
  agree cannot violate it - the filter is exact), plus the premise shape of the obligation
  (e.g. a rejection for no-partial-mutation, a post-state breaking the invariant for
  consecution);
- witnesses: the hint the obligation asks for (the operation succeeded, it rejected, a batch of
  at least two, a stale set that is still authorized, ...).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]
from session_toolset_model.algebra import MAX_GENERATION
from session_toolset_model.concrete import CMap
from session_toolset_model.enumerate import ALG, Action, Node, candidates, nodes, outcome
from session_toolset_model.ops import OPS
from session_toolset_model.profiles import DEFAULT, Variant
from session_toolset_model.state import Result, State, initial

from . import cache
from .obligations import FINITE_STATES, SEARCH_BOUND, Obligation, Query
from .pin import Encoder, pin_step
from .postconditions import LATER_CHECK
from .solve import answer

MAX_CONFIRMATIONS = 25

CONFIRM_RLIMIT = 1_000_000
"""A confirmation is an essentially ground query: a sat answer needs well under 10% of this
budget, so a smaller budget than the proofs' only makes a hopeless candidate give up sooner."""

FIRST_RLIMIT = 400_000
"""The budget of a candidate's first confirmation.  One that comes back ``unknown`` with it is
set aside and, if no later candidate confirms cheaply, retried with `CONFIRM_RLIMIT` - so the
cheap pass only decides the order of the work, never a result."""

CASE_RLIMIT = 100_000
"""Budget of a confirmation with the witness case's own constants pinned too (a ground query:
a sat answer needs a few thousand); if none is sat the unpinned confirmation follows."""

MAX_CASE_CHOICES = 12
"""At most this many assignments of a witness case's constants are tried per candidate."""

CONFIRM_BOUND: int | None = 3
"""Confirmation queries are first built with loops over batches as ground if-chains up to this
length (every candidate batch is shorter); a model of that query extended by the uniquely
determined values of the unbounded side definitions is a model of the unbounded query.  If that
comes back ``unknown`` the same candidate is confirmed with the unbounded query itself (the
obligation exactly as proved); Z3's quantifier instantiation succeeds on one or the other."""


CERTIFY_BOUNDS: tuple[int | None, ...] = (None,)
"""A witness's certificate is the obligation's exact query - unbounded batches, quantified side
definitions, exactly as proved - with the candidate pinned and the case forced; a bounded
re-encoding never certifies a witness (it would hide a wrong side definition that makes the
premises unsatisfiable).  Counterexamples may be confirmed bounded first: a bounded model
extends to the unbounded query exactly when the side definitions say what the loops compute,
which the `interp.*` obligations prove."""


@dataclass
class Found:
    """A confirmed instance: Z3 status, the concrete trace(s), and the model's scalar trace."""

    status: str
    seconds: float
    trace: dict[str, str] = field(default_factory=dict)
    concrete: list[dict[str, Any]] = field(default_factory=list)
    node: Node | None = None
    final: Action | None = None
    attempts: int = 0


def concrete_trace(node: Node, final: Action | None, code: str | None) -> list[dict[str, Any]]:
    """The trace as JSON: every action with its arguments and outcome (the last one under the
    variant searched)."""
    out = [{**a.to_json(), "outcome": o} for a, o in zip(node.trace, node.outcomes, strict=True)]
    if final is not None:
        out.append({**final.to_json(), "outcome": code, "final": True})
    return out


def second_state(opname: str, st: State, args: dict[str, Any]) -> tuple[State, list[str]]:
    """The other side of a self-composition: the same catalog, generation and counters, and only
    the sets the operation reads (its target, the rebuilt or retained set; dropping sets
    preserves the invariant).
    Returns the state and the names of the sets kept."""
    fresh = opname in ("set_new", "set_default_core", "set_progressive_core")
    keep = [args[a] for a in ("name", "retained") if a in args and not fresh]
    keep = [n for n in keep if n is not None and st.sets[n] is not None]
    sets = CMap.of(None, {n: st.sets[n] for n in keep})
    return State(st.catalog, st.gen, st.calls, sets), keep


def invariant_holds(st: State) -> bool:
    """The inductive invariant of `encode.invariant_parts`, evaluated on a concrete state."""
    if not 0 <= st.gen <= MAX_GENERATION:
        return False
    for r in st.catalog.as_dict().values():
        if getattr(r.prov, "kind", None) == "unverified" and r.trust != "untrusted":
            return False
    for s in st.sets.as_dict().values():
        if not (0 <= s.catgen <= st.gen and s.schemagen >= 0):
            return False
        acts = s.acts.as_dict()
        if set(acts) & set(s.core.as_dict()):
            return False
        if any(a.session != s.session for a in acts.values()):
            return False
    return True


Filter = Callable[[Node, dict[str, Any], Result], bool]


IN_PLACE = ("activate", "activate_many", "revoke", "activate_user", "activate_model")

OK_PREMISE = (
    "gate.soundness",
    "zero_inheritance.granted_for_set_session.",
    "drift_denial.activation_generation_strict.",
    "atomic_batch.activate_",
    "zero_inheritance.fresh_set_empty.",
    "zero_inheritance.self_composition.",
)
"""Obligations whose premises include "the operation succeeded"."""


def _len(args: dict[str, Any]) -> int:
    seq = args.get("grants", args.get("tools", ()))
    return len(seq)


def _stale_set(node: Node, args: dict[str, Any]) -> bool:
    s = node.state.sets[args["name"]]
    return s is not None and bool(s.catgen != node.state.gen)


def _has_acts(node: Node, args: dict[str, Any]) -> bool:
    s = node.state.sets[args["name"]]
    return s is not None and bool(s.acts.as_dict())


def _target(opname: str, a: dict[str, Any]) -> Any:
    return a["into" if opname in ("rebuild", "route") else "name"]


def _acts(st: State, name: Any) -> dict[Any, Any]:
    s = st.sets[name]
    return {} if s is None else s.acts.as_dict()


def _success(opname: str, node: Node, a: dict[str, Any], r: Result) -> bool:
    """Concrete form of `obligations.success_case` (the interesting success of each op)."""
    pre = node.state
    if r.code != "ok":
        return False
    if opname == "catalog_upsert":
        return (
            bool(a["has_replaced"])
            and a["replaced"] != a["tool"]
            and (pre.catalog[a["replaced"]] is not None)
        )
    if opname == "catalog_remove":
        return pre.catalog[a["tool"]] is not None
    if opname == "catalog_rebase_past":
        return bool(a["prior"] > pre.gen)
    if opname == "set_new":
        return len(a["core_ids"]) >= 2
    if opname in ("set_default_core", "set_progressive_core"):
        return bool(r.state.sets[a["name"]].core.as_dict())
    if opname in ("activate_many", "activate_model"):
        return _len(a) >= 2
    if opname == "rebuild":
        return bool(a["carry_forward"]) and _any_drop(r) and a["into"] != a["name"]
    if opname == "route":
        return bool(a["has_retained"]) and a["retained"] != a["into"]
    return True


def _later_rejection(opname: str, node: Node, a: dict[str, Any]) -> bool:
    """Concrete form of `obligations._later_rejection`: a batch (or core-id list) of at least
    two whose first element passes."""
    if opname == "set_new":
        ids = a["core_ids"]
        return len(ids) >= 2 and node.state.catalog[ids[0]] is not None
    if opname in ("activate_many", "activate_model"):
        return _len(a) >= 2 and _first_passes(opname, node, a)
    catalog = node.state.catalog
    if opname in ("authorize", "issue_grant"):
        return catalog[a["tool"]] is not None
    if opname == "activate":
        g = a["grant"]
        return g.session == node.state.sets[a["name"]].session and catalog[g.tool] is not None
    if opname == "activate_user":
        return _issued(node.state, a["tool"])
    return True


def _issued(st: State, tool: Any) -> bool:
    """Concrete form of `obligations._issued`: cataloged and trusted."""
    rec = st.catalog[tool]
    return rec is not None and rec.trust == "trusted"


def _nonempty(opname: str, a: dict[str, Any], r: Result) -> bool:
    """Concrete form of `obligations._nonempty` (on a successful result)."""
    if opname in ("activate_many", "activate_model"):
        return _len(a) >= 2
    if opname in ("set_new", "set_default_core", "set_progressive_core"):
        return bool(r.state.sets[a["name"]].core.as_dict())
    if opname == "route":
        return bool(a["has_retained"]) or bool(r.state.sets[a["into"]].core.as_dict())
    return True


def _any_drop(r: Result) -> bool:
    return any(x != "none" for x in r.extras["dropped"].as_dict().values())


def _first_passes(opname: str, node: Node, a: dict[str, Any]) -> bool:
    """A batch whose first element alone would be accepted (confirmed, for model-initiated
    activation): its rejection is decided by a later element."""
    key = "grants" if opname == "activate_many" else "tools"
    if opname == "activate_model" and not a["confirmed"]:
        return False
    first = Action.of(opname, **{**a, key: a[key][:1]})
    return bool(first.run(DEFAULT, node.state).code == "ok")


def _functional_case(name: str, opname: str, node: Node, a: dict[str, Any], r: Result) -> bool:
    """Concrete form of `functional.obligation`'s witness cases."""
    pre = node.state
    ok = bool(r.code == "ok")
    case = name.split(".")[2] if name.count(".") == 2 else None
    if case is not None:  # activate_many and activate_model, case by case
        code = str(r.code)
        if case == "refused":
            return not a["confirmed"] and _len(a) >= 1 and _issued(pre, a["tools"][0])
        if case == "issuance_rejected":
            first = pre.catalog[a["tools"][0]] if a["tools"] else None
            trusted = first is not None and first.trust == "trusted"
            return code.startswith("HostActivationError.Issuance.") and _len(a) >= 2 and trusted
        if case == "bulk_rejected":
            return code.startswith("HostActivationError.Bulk.") and _later_rejection(
                opname, node, a
            )
        if case == "rejected":
            return not ok and _later_rejection(opname, node, a)
        return ok and _len(a) >= 2
    if opname == "is_stale":
        return bool(r.extras["stale"])
    if opname in ("activate", "revoke"):
        return ok and pre.sets[a["name"]].schemagen >= 1
    if opname == "rebuild":
        return _success(opname, node, a, r) and bool(_acts(r.state, a["into"]))
    if opname == "authorize":
        return ok and pre.sets[a["name"]].core[a["tool"]] is None
    if opname == "route":
        return _success(opname, node, a, r) and bool(r.extras["stale"])
    return _success(opname, node, a, r)


def witness_filter(name: str, opname: str) -> Filter:
    """The concrete shape of an obligation's witness case (premises plus the interesting case
    its builder forces in Z3); it only proposes candidates, the pinned Z3 query decides."""

    def f(node: Node, a: dict[str, Any], r: Result) -> bool:
        pre = node.state
        ok = bool(r.code == "ok")
        schemagen = getattr(pre.sets[a.get("name")], "schemagen", 0) if "name" in a else 0
        if name.startswith("functional."):
            return _functional_case(name, opname, node, a, r)
        if name.startswith("zero_inheritance.reads_only_its_source."):
            src, flag = (
                ("name", "carry_forward") if opname == "rebuild" else ("retained", "has_retained")
            )
            into = a["into"]
            return (
                bool(a[flag])
                and bool(_acts(pre, a[src]))
                and into != a[src]
                and pre.sets[into] is not None
            )
        if name.startswith("invariant.step."):
            return _success(opname, node, a, r)
        if name.startswith("no_partial_mutation."):
            return not ok and _later_rejection(opname, node, a)
        if name.startswith("zero_inheritance.frame."):
            targets = {a[x] for x in OPS[opname].set_args}
            return ok and any(n not in targets for n in pre.sets) and _nonempty(opname, a, r)
        if name.startswith("zero_inheritance.self_composition."):
            if opname in IN_PLACE:
                return ok and len(pre.sets.as_dict()) >= 2 and _nonempty(opname, a, r)
            if opname == "rebuild" and (a["carry_forward"] or len(pre.sets.as_dict()) < 2):
                return False
            if opname == "route" and a["has_retained"]:
                return False
            return ok and bool(_acts(pre, _target(opname, a))) and _nonempty(opname, a, r)
        if name.startswith("zero_inheritance.fresh_set_empty."):
            if (opname == "rebuild" and a["carry_forward"]) or (
                opname == "route" and a["has_retained"]
            ):
                return False
            return ok and bool(_acts(pre, _target(opname, a))) and _nonempty(opname, a, r)
        if name.startswith(("counters.overflow_fails_closed.", "counters.checked_next_exact.")):
            if pre.gen != MAX_GENERATION:
                return False
            if opname == "catalog_insert":
                return pre.catalog[a["tool"]] is None
            if opname == "catalog_upsert":
                return bool(a["has_replaced"]) and a["replaced"] == a["tool"]
            if opname == "catalog_remove":
                return pre.catalog[a["tool"]] is not None
            return True
        if name.startswith("counters.generation_advances_by_one."):
            if opname == "catalog_upsert":
                return ok and pre.catalog[a["tool"]] == r.state.catalog[a["tool"]]
            return _success(opname, node, a, r)
        if name.startswith("counters.generation_never_reused."):
            return _success(opname, node, a, r) and r.state.gen != pre.gen
        if name.startswith("counters.schema_generation_advances_by_one."):
            if opname in ("activate_many", "activate_model"):
                return ok and _len(a) >= 2
            return ok and schemagen >= 1
        if name == "postcondition.route":
            return _success(opname, node, a, r) and bool(r.extras["stale"])
        if name == "postcondition.set_default_core":
            return (
                ok
                and _nonempty(opname, a, r)
                and any(
                    getattr(x.prov, "kind", "") == "unverified"
                    for x in pre.catalog.as_dict().values()
                )
            )
        if name in ("postcondition.activate_many", "postcondition.activate_model"):
            # the forced case names the deciding check (`postconditions.LATER_CHECK`): without
            # it here the first `MAX_CONFIRMATIONS` candidates of `activate_many` are
            # DuplicateRequests and UnknownTools at grant 2, all unsat once
            # that check is forced
            decided = str(r.code).endswith("." + LATER_CHECK)
            return decided and _len(a) >= 2 and _first_passes(opname, node, a)
        if name.startswith("postcondition."):
            return ok and schemagen >= 1
        if name.startswith("counters.schema_generation_never_decreases."):
            if opname == "rebuild":
                return _success(opname, node, a, r)
            return ok and (_len(a) >= 2 or opname not in ("activate_many", "activate_model"))
        if name == "atomic_batch.unauthorized_changes_nothing":
            return not a["confirmed"] and _len(a) >= 1 and _issued(pre, a["tools"][0])
        if name.startswith("atomic_batch."):
            return ok and _len(a) >= 2
        if name == "gate.exactness":
            return ok and _stale_set(node, a)
        if name == "gate.soundness":
            return ok and pre.sets[a["name"]].core[a["tool"]] is None
        if name in ("drift_denial.stale_iff_generations_differ.is_stale", "is_stale.pure"):
            return bool(r.extras["stale"])
        if name == "drift_denial.stale_iff_generations_differ.route":
            return bool(r.extras["stale"]) and _success(opname, node, a, r)
        if name == "drift_denial.rebuild_carries_only_matching":
            return _success(opname, node, a, r) and bool(_acts(r.state, a["into"]))
        if name == "drift_denial.rebuild_exact_drop_reasons":
            return _success(opname, node, a, r)
        if name.endswith(".activate_many") and name.startswith(
            ("drift_denial.activation_generation_strict", "zero_inheritance.granted_for")
        ):
            return ok and _len(a) >= 2
        return ok

    return f


def premise_filter(name: str, mode: str, opname: str = "") -> Filter:
    """The concrete shape of the obligation's premises (and, for witnesses, its case)."""
    w = mode == "witness"
    if w:
        return witness_filter(name, opname)

    def f(node: Node, a: dict[str, Any], r: Result) -> bool:
        ok = bool(r.code == "ok")
        pre = node.state
        if name.startswith("zero_inheritance.self_composition.") and name.endswith(IN_PLACE):
            return ok or not w  # the in-place form has no "succeeded" premise
        if name.startswith(OK_PREMISE) and not ok:
            return False
        if name.startswith("no_partial_mutation."):
            return not ok and (w or r.state != pre)
        if name.startswith("invariant.step."):
            return ok if w else not invariant_holds(r.state)
        if name.startswith("counters.overflow_fails_closed."):
            return bool(pre.gen == MAX_GENERATION)
        if name == "atomic_batch.unauthorized_changes_nothing":
            return not a["confirmed"]
        if name.startswith("atomic_batch."):
            return ok and (_len(a) >= 2 or not w)
        if name == "gate.exactness":
            return (ok and _stale_set(node, a)) if w else True
        if name.startswith("drift_denial.stale_iff"):
            return bool(r.extras["stale"]) if w else True
        if name.startswith("drift_denial.rebuild_"):
            return bool(a["carry_forward"]) and (_has_acts(node, a) or not w)
        if name == "counters.schema_generation_never_decreases.rebuild":
            return bool(a["carry_forward"])
        if name.endswith((".activate_many",)) and name.startswith(
            ("drift_denial.activation_generation_strict", "zero_inheritance.granted_for")
        ):
            return ok and _len(a) > 0
        if name.startswith(("zero_inheritance.fresh_set_empty", "zero_inheritance.self_comp")):
            if name.endswith(".rebuild") and bool(a["carry_forward"]):
                return False
            if name.endswith(".route") and bool(a["has_retained"]):
                return False
            return ok
        if name == "gate.soundness":
            return ok
        if name.startswith("counters.generation_never_reused"):
            return ok and (w or bool(r.state.gen != pre.gen))
        return ok if w else True

    return f


def _instances(opname: str, v: Variant) -> Iterator[tuple[Node, int]]:
    """Default-reachable pre-states first, then states reachable only under ``v`` that satisfy
    the invariant (the obligation's premise); each with the index of a candidate action."""
    known = set()
    for node in nodes():
        known.add(node.state)
        for i in range(len(candidates(opname, node))):
            yield node, i
    if v == DEFAULT:
        return
    for node in nodes(v):
        if node.state in known or not invariant_holds(node.state):
            continue
        for i in range(len(candidates(opname, node))):
            yield node, i


def _named_consts(terms: list[Any], prefix: str) -> list[Any]:
    """The uninterpreted constants of ``terms`` whose names start with ``prefix`` (each shared
    subterm visited once)."""
    seen: set[int] = set()
    found: dict[str, Any] = {}
    todo = list(terms)
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if t.decl().name().startswith(prefix):
                found[t.decl().name()] = t
        elif z3.is_app(t):
            todo.extend(t.children())
    return [found[k] for k in sorted(found)]


def find(
    ob: Obligation, build: Callable[[], Query], v: Variant, mode: str, base: Variant | None
) -> Found:
    """A witness (``mode="witness"``) or counterexample of ``ob`` under ``v``, confirmed in Z3.

    ``base`` (counterexamples only) is the variant whose results are known to satisfy ``ob``.
    """
    start = time.perf_counter()
    queries: dict[int | None, tuple[Query, list[Any]]] = {}

    def query(bound: int | None) -> tuple[Query, list[Any]]:
        if bound not in queries:
            tokens = (SEARCH_BOUND.set(bound), FINITE_STATES.set(False))
            try:
                q = build()
            finally:
                FINITE_STATES.reset(tokens[1])
                SEARCH_BOUND.reset(tokens[0])
            goal = q.witness if mode == "witness" else [z3.Not(q.goal)]
            queries[bound] = (q, [*q.premises, *q.alg.defs, *goal])
        return queries[bound]

    if ob.op is None:  # initiation: no transition, the query is ground
        q, asked = query(None)
        result, trace = answer(asked, None, q.trace)
        status = str(result)
        if status != "sat":
            return Found(status, time.perf_counter() - start)
        if ob.kind == "interpretation":
            # its model is a Z3 batch and predicate, not a concrete trace: no vector
            return Found(status, time.perf_counter() - start, trace)
        # The instance is the initial state itself: the trace from it is empty, so its vector is
        # a `reset` followed by the observations.
        start_node = Node(initial(ALG, v), (), ())
        reset = [{"op": "reset", "args": {}, "outcome": "ok"}]
        return Found(status, time.perf_counter() - start, {}, reset, start_node, None)
    opname = ob.op
    keep = premise_filter(ob.name, mode, opname)

    def confirm(
        node: Node, args: dict[str, Any], second: State | None, budget: int, first_pass: bool
    ) -> Any:
        """Pinned confirmation: the bounded query first, the unbounded one if that is unknown.
        In the ``first_pass`` a witness whose case constants, pinned, come back ``unknown`` is
        set aside without asking the unpinned query.  Returns (status, the trace terms' values
        when sat)."""
        status: Any = z3.unknown
        values: dict[str, str] = {}
        for bound in CERTIFY_BOUNDS if mode == "witness" else (CONFIRM_BOUND, None):
            q, base_query = query(bound)
            enc = Encoder()
            pins = pin_step(enc, opname, q.steps[0].pre, q.steps[0].args, node.state, args)
            if second is not None:
                pins += pin_step(enc, opname, q.steps[1].pre, q.steps[1].args, second, args)
            # a fresh solver per confirmation (incremental push/pop mode gives up more often)
            asked = [*base_query, *pins, *enc.facts()]
            tried = [z3.unsat]
            for choice in enc.choices(case_consts(q), MAX_CASE_CHOICES):
                # the case's own constants pinned to the instance's values first
                status, values = answer([*asked, *choice], CASE_RLIMIT, q.trace)
                if status == z3.sat:
                    return status, values
                tried.append(status)
            if z3.unknown in tried and first_pass:
                return z3.unknown, {}  # set aside: the unpinned query with the full budget later
            status, values = answer(asked, budget, q.trace)
            if status != z3.unknown:
                break
        return status, values

    def case_consts(q: Query) -> list[Any]:
        """The witness case's own existential constants (`zi.fresh` ``case_*`` symbols)."""
        if mode != "witness":
            return []
        if id(q) not in consts:
            consts[id(q)] = _named_consts(q.witness, "case_")
        return consts[id(q)]

    consts: dict[int, list[Any]] = {}

    def found(
        trace: dict[str, str], node: Node, act: Action, code: str, second: State | None, kept: Any
    ) -> Found:
        concrete = concrete_trace(node, act, code)
        if second is not None:
            concrete.append({"second_pre_state": f"the pre-state with only sets {kept} kept"})
        return Found("sat", time.perf_counter() - start, trace, concrete, node, act, attempts)

    Candidate = tuple[Node, Action, str, State | None, list[str]]

    def candidate(node: Node, i: int) -> Candidate | None:
        """Candidate ``i`` of ``node`` if it passes the filters (see the module docstring)."""
        act = candidates(opname, node)[i]
        args = act.kwargs
        res = outcome(v, opname, node, i)
        second: State | None = None
        kept: list[str] = []
        if ob.kind == "hyperproperty":
            second, kept = second_state(opname, node.state, args)
        if base is not None:
            same = _same(outcome(base, opname, node, i), res)
            if second is not None:
                same = same and _same(act.run(base, second), act.run(v, second))
            if same:
                return None
        if second is not None and mode != "witness":
            # the violation itself, concretely: the two runs disagree on outcome or target set
            other = act.run(v, second)
            target = _target(opname, args)
            if other.code == res.code and other.state.sets[target] == res.state.sets[target]:
                return None
        if not keep(node, args, res):
            return None
        return node, act, res.code, second, kept

    searched = v if mode != "witness" else DEFAULT
    hint = Hint(ob.name, v, mode, base)
    attempts = 0
    told = hint.get(opname, searched)
    if told is not None:  # where a run with the cache found one: confirmed like any other
        node, i, budget = told
        c = candidate(node, i)
        if c is not None:
            attempts += 1
            status, values = confirm(c[0], c[1].kwargs, c[3], budget, False)
            if status == z3.sat:
                return found(values, *c)
    deferred: list[Candidate] = []
    for node, i in _instances(opname, searched):
        c = candidate(node, i)
        if c is None:
            continue
        attempts += 1
        first = CONFIRM_RLIMIT if c[3] is not None else FIRST_RLIMIT  # two runs: more work
        status, values = confirm(node, c[1].kwargs, c[3], first, True)
        if status == z3.sat:
            hint.put(searched, node, i, first)
            return found(values, *c)
        if status == z3.unknown:
            deferred.append(c)
        if attempts >= MAX_CONFIRMATIONS:
            break
    # candidates whose cheap confirmation gave up get the full budget, in the order found
    unknowns = 0
    for c in deferred:
        status, values = confirm(c[0], c[1].kwargs, c[3], CONFIRM_RLIMIT, False)
        if status == z3.sat:
            node = c[0]
            hint.put(searched, node, candidates(opname, node).index(c[1]), CONFIRM_RLIMIT)
            return found(values, *c)
        unknowns += status == z3.unknown
    status_name = "unknown" if unknowns else "exhausted"
    return Found(status_name, time.perf_counter() - start, attempts=attempts)


@dataclass(frozen=True)
class Hint:
    """Where a run with the cache (`cache.ACTIVE`) found the witness or counterexample of one
    row: the pre-state (its place among `explore.nodes`), the candidate and the confirmation
    budget.  The next run tries that candidate first, through the same filters and the same
    confirmation query as any other, so a hint only orders the work: an edit that makes it
    fail its filters or its confirmation sends the search on as without it.  With nothing
    changed it is the first one the search would confirm, so the row is the same."""

    name: str
    variant: Variant
    mode: str
    base: Variant | None

    def _key(self) -> str:
        return cache.doc_key("hint", self.name, repr(self.variant), self.mode, repr(self.base))

    def get(self, opname: str, v: Variant) -> tuple[Node, int, int] | None:
        store = cache.ACTIVE
        doc = store.get_doc(self._key()) if store is not None else None
        if not isinstance(doc, dict):
            return None
        try:
            default = doc["from"] == "default"
            node = (nodes() if default else nodes(v))[int(doc["node"])]
            i, rlimit = int(doc["action"]), int(doc["rlimit"])
        except (KeyError, IndexError, TypeError, ValueError):
            return None
        if not default and (node.state in _default_states() or not invariant_holds(node.state)):
            return None  # `_instances` would not offer it
        if not 0 <= i < len(candidates(opname, node)):
            return None
        return node, i, rlimit

    def put(self, v: Variant, node: Node, i: int, rlimit: int) -> None:
        store = cache.ACTIVE
        if store is None:
            return
        default = nodes()
        index = next((k for k, n in enumerate(default) if n is node), None)
        where = "default"
        if index is None:
            where, index = "variant", next(k for k, n in enumerate(nodes(v)) if n is node)
        store.put_doc(self._key(), {"from": where, "node": index, "action": i, "rlimit": rlimit})


def _default_states() -> set[State]:
    return {n.state for n in nodes()}


def _same(a: Result, b: Result) -> bool:
    return bool(a.code == b.code and a.state == b.state and a.extras == b.extras)


__all__ = ["OPS", "Found", "find", "invariant_holds"]
