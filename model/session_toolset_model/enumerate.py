"""The bounded enumerator: reachable states, shortest traces and the small argument alphabet of
every operation, shared by the proofs' witnesses, reachability traces and counterexamples and by
the conformance corpus's model vectors.

Scope: tools ``mcp.srv-a:t0 .. t2`` (and ``builtin:read``), sessions ``s-1``, ``s-2``, digest
labels ``d0``, ``d1`` (and ``junk``, matching no record), sets ``A``, ``B``, ``C``, four record
kinds over two MCP servers chosen so every source-trust outcome and the coherent imposter exist
(`KINDS`), and generations at the seams 1 and 2^64-1.

Pre-states (`nodes`) are every state of a *phased product* of setup actions, each run from the
initial state by the definition (so every pre-state is reachable by construction and satisfies
the inductive invariant): a catalog phase, a set-building phase, an activation phase and a drift
phase (digest change, imposter, untrusted, mismatch, removal, unrelated insertion, generation
pushed to 2^64-1).  A plain breadth-first search over the same alphabet would need depth 6-7 for
drift-after-activation scenarios and explodes combinatorially; the phases are exactly the orders
the SPEC.md scenarios need (build, activate, then drift).  Nodes are ordered shortest trace
first, and a candidate *final* operation ranges over the op's small alphabet (`final_args`), so
the first (node, candidate) producing an outcome (`shortest`) is a shortest sequence to it, and
the first whose run covers a condition outcome (`covering`, MC/DC as `conditions` records it)
is one to that.

`trace_requests` renders a trace as PROTOCOL.md requests: the proofs' counterexample vectors
and the corpus's model vectors are traces of this enumerator in that form.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .algebra import MAX_GENERATION
from .concrete import Grant
from .conditions import ConditionTable, RecordingAlgebra, outcome_key
from .ops import OPS
from .oracle import concrete_algebra
from .profiles import DEFAULT, Variant
from .state import Result, State, initial
from .values import Provenance, Source
from .world.digest import schema_digest

T0, T1, T2 = "mcp.srv-a:t0", "mcp.srv-a:t1", "mcp.srv-a:t2"
BUILTIN = "builtin:read"
"""Inserted only in the drift phase, so a progressive core can be non-empty."""
TOOLS = (T0, T1, T2)
SESSIONS = ("s-1", "s-2")
DIGESTS = ("d0", "d1")
JUNK = "junk"
SET_NAMES = ("A", "B", "C")

P_A = Provenance("mcp_config", "srv-a")
P_B = Provenance("mcp_config", "srv-b")
P_U = Provenance("unverified")

KINDS: dict[str, tuple[Provenance, str]] = {
    "trusted": (P_A, "trusted"),
    "imposter": (P_B, "trusted"),
    "untrusted": (P_U, "untrusted"),
    "mismatch": (P_B, "mismatch"),
}
"""Record kinds as (provenance, source trust); `source_of` gives the matching source."""
BUILTIN_KIND = (Provenance("builtin_runtime"), "trusted")
"""The record of `BUILTIN` (not one of `KINDS`: the MCP tools never get it)."""


def source_of(tool: str, prov: Any, trust: str) -> Source:
    """The capability source of a record of the exploration domain (inverse of `KINDS`)."""
    name = tool.split(":", 1)[1]
    if prov == BUILTIN_KIND[0]:  # only `BUILTIN` is given the builtin runtime provenance
        return Source("builtin", "", name)
    server = "srv-b" if (prov == P_B and trust == "trusted") else "srv-a"
    return Source("mcp", server, name)


ALG = concrete_algebra()


@dataclass(frozen=True)
class Action:
    """One model operation with concrete arguments (keyword arguments of the transition)."""

    op: str
    args: tuple[tuple[str, Any], ...]

    @staticmethod
    def of(op: str, **args: Any) -> Action:
        return Action(op, tuple(args.items()))

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.args)

    def run(self, v: Variant, st: State) -> Result:
        return OPS[self.op].run(ALG, v, st, self.kwargs)

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "args": {k: jsonable(x) for k, x in self.args}}


def jsonable(x: Any) -> Any:
    """Concrete model values as plain JSON (grants and provenances as objects)."""
    if isinstance(x, Grant):
        return {"session": x.session, "tool": x.tool, "generation": x.gen, "digest": x.digest}
    if isinstance(x, Provenance):
        return x.to_json()
    if isinstance(x, tuple):
        return [jsonable(e) for e in x]
    return x


def insert(tool: str, digest: str, kind: str) -> Action:
    prov, trust = KINDS[kind]
    return Action.of("catalog_insert", tool=tool, digest=digest, prov=prov, trust=trust)


def upsert(replaced: str | None, tool: str, digest: str, kind: str) -> Action:
    prov, trust = KINDS[kind]
    return Action.of(
        "catalog_upsert",
        has_replaced=replaced is not None,
        replaced=replaced,
        tool=tool,
        digest=digest,
        prov=prov,
        trust=trust,
    )


def new_set(name: str, session: str, core: tuple[str, ...]) -> Action:
    return Action.of("set_new", name=name, session=session, core_ids=core)


def user(name: str, tool: str) -> Action:
    return Action.of("activate_user", name=name, tool=tool)


def model(name: str, *tools: str) -> Action:
    return Action.of("activate_model", confirmed=True, name=name, tools=tools)


PHASES: tuple[tuple[tuple[Action, ...], ...], ...] = (
    (
        (),
        (insert(T0, "d0", "trusted"),),
        (insert(T0, "d0", "trusted"), insert(T1, "d0", "trusted")),
        (insert(T0, "d0", "untrusted"),),
        (insert(T0, "d0", "mismatch"),),
    ),
    (
        (),
        (new_set("A", "s-1", ()),),
        (new_set("A", "s-1", (T0,)),),
        (new_set("A", "s-1", ()), new_set("B", "s-1", ())),
        (new_set("A", "s-1", ()), new_set("B", "s-1", (T0,))),
        (Action.of("set_default_core", name="A", session="s-1"),),
    ),
    (
        (),
        (user("A", T0),),
        (user("A", T1),),
        (user("A", T0), user("A", T1)),
        (user("A", T0), user("A", T1), Action.of("revoke", name="A", tool=T1)),
        (model("A", T0, T1), Action.of("revoke", name="A", tool=T0)),
    ),
    (
        (),
        (upsert(T0, T0, "d1", "trusted"),),
        (upsert(T0, T0, "d0", "imposter"),),
        (upsert(T0, T0, "d0", "untrusted"),),
        (upsert(T0, T0, "d0", "mismatch"),),
        (Action.of("catalog_remove", tool=T0),),
        (insert(T2, "d0", "trusted"),),
        (
            Action.of(
                "catalog_insert",
                tool=BUILTIN,
                digest="d0",
                prov=BUILTIN_KIND[0],
                trust=BUILTIN_KIND[1],
            ),
        ),
        (Action.of("catalog_rebase_past", prior=MAX_GENERATION - 1),),
        (Action.of("catalog_rebase_past", prior=MAX_GENERATION - 2),),
    ),
)


@dataclass(frozen=True)
class Node:
    """A reachable state and the shortest known trace (actions, their outcomes) reaching it."""

    state: State
    trace: tuple[Action, ...]
    outcomes: tuple[str, ...]


_NODES: dict[Variant, list[Node]] = {}


def nodes(v: Variant = DEFAULT) -> list[Node]:
    """Every state of the phased product run under ``v`` (each step succeeded), shortest trace
    first.  Under a mutant some states are reachable only through the mutant's own behaviour
    (e.g. a schema_generation decremented by revocations); those are used, when they satisfy the
    invariant, only after every default-reachable one."""
    if v in _NODES:
        return _NODES[v]
    seen: dict[Any, Node] = {}
    start = Node(initial(ALG), (), ())

    def walk(node: Node, phase: int) -> None:
        if phase == len(PHASES):
            key = _key(node.state)
            if key not in seen or len(seen[key].trace) > len(node.trace):
                seen[key] = node
            return
        for chunk in PHASES[phase]:
            cur = node
            for act in chunk:
                if not OPS[act.op].pre(ALG, cur.state, act.kwargs):
                    break
                res = act.run(v, cur.state)
                if res.code != "ok" or (res.state == cur.state and act.op != "set_new"):
                    break
                cur = Node(res.state, (*cur.trace, act), (*cur.outcomes, res.code))
            else:
                walk(cur, phase + 1)

    walk(start, 0)
    _NODES[v] = sorted(seen.values(), key=lambda n: (len(n.trace), repr(n.trace)))
    return _NODES[v]


_CANDIDATES: dict[tuple[str, int], list[Action]] = {}
_RESULTS: dict[tuple[Variant, str, int], list[Result | None]] = {}


def candidates(opname: str, node: Node) -> list[Action]:
    """`final_args` of ``node``'s state as actions, computed once per (op, node)."""
    key = (opname, id(node))
    if key not in _CANDIDATES:
        _CANDIDATES[key] = [Action.of(opname, **a) for a in final_args(opname, node.state)]
    return _CANDIDATES[key]


def outcome(v: Variant, opname: str, node: Node, i: int) -> Result:
    """The result of candidate ``i`` of (``opname``, ``node``) under ``v``, computed once.

    Nodes live for the whole process (`nodes` caches them), so ``id(node)`` is a stable key."""
    key = (v, opname, id(node))
    row = _RESULTS.get(key)
    if row is None:
        row = _RESULTS[key] = [None] * len(candidates(opname, node))
    res = row[i]
    if res is None:
        res = row[i] = candidates(opname, node)[i].run(v, node.state)
    return res


def shortest(
    opname: str, outcomes: Iterable[str], v: Variant = DEFAULT
) -> dict[str, tuple[Node, Action]]:
    """Each of ``outcomes`` of ``opname`` that the enumeration reaches under ``v``: the first
    (pre-state, final action) producing it, nodes in shortest-trace order.  Stops once every
    outcome asked for is found (an outcome never reached costs a scan of every node)."""
    wanted = set(outcomes)
    found: dict[str, tuple[Node, Action]] = {}
    for node in nodes(v):
        if wanted <= set(found):
            break
        for i, act in enumerate(candidates(opname, node)):
            code = outcome(v, opname, node, i).code
            if code in wanted and code not in found:
                found[code] = (node, act)
    return found


def covering(
    table: ConditionTable, unreachable: Iterable[str], v: Variant = DEFAULT, depth: int = 4
) -> dict[str, tuple[Node, Action]]:
    """The condition outcomes ``table`` has not covered, each with the first (pre-state, final
    action) of the enumeration whose run covers it: nodes in shortest-trace order up to traces
    of ``depth`` actions, then the op table's order, then each op's alphabet; the runs that
    cover something are recorded into ``table``. Stops once nothing but ``unreachable`` is
    missing. An op is not run at a node once no missing outcome is of a decision its earlier
    runs took (the decisions an op takes are the same at every state: both branches of every
    choice are evaluated), which spares the batch ops' large alphabets."""
    missing = set(table.missing(unreachable))
    found: dict[str, tuple[Node, Action]] = {}
    sites: dict[str, set[str]] = {}
    for node in nodes(v):
        if len(node.trace) > depth:
            break
        for opname in OPS:
            open_sites = {key.split(" | ", 1)[0] for key in missing}
            if not missing:
                return found
            if opname in sites and not sites[opname] & open_sites:
                continue
            if not candidates(opname, node):
                continue
            batch = ConditionTable()
            for act in candidates(opname, node):
                OPS[opname].run(RecordingAlgebra(batch), v, node.state, act.kwargs)
            sites.setdefault(opname, set()).update(d.site for d in batch.decisions.values())
            trial = copy.deepcopy(table)
            trial.merge(batch)
            if _covered(trial) <= _covered(table):
                continue
            alg = RecordingAlgebra(table)  # again one by one: which run covered what first
            for act in candidates(opname, node):
                before = _covered(table)
                OPS[opname].run(alg, v, node.state, act.kwargs)
                found.update({key: (node, act) for key in _covered(table) - before})
            missing = set(table.missing(unreachable))
    return found


def _covered(table: ConditionTable) -> set[str]:
    return {outcome_key(d, i, o) for d, i, o, c in table.outcomes() if c}


Mark = tuple[dict[tuple[Variant, str, int], int], set[tuple[str, int]]]
Computed = tuple[
    dict[tuple[Variant, str, int], list[Result | None]], dict[tuple[str, int], list[Action]]
]


def mark() -> Mark:
    """What the caches of `candidates` and `outcome` hold now (see `computed_since`)."""
    return {k: sum(r is not None for r in row) for k, row in _RESULTS.items()}, set(_CANDIDATES)


def computed_since(before: Mark) -> Computed:
    """The cache entries computed after `mark` returned ``before``: a job run in a child process
    hands them back so the next job of its group need not compute them again."""
    counts, keys = before
    results = {
        k: row
        for k, row in _RESULTS.items()
        if counts.get(k, -1) != sum(r is not None for r in row)
    }
    return results, {k: v for k, v in _CANDIDATES.items() if k not in keys}


def merge(done: Computed) -> None:
    """Add what a child computed (`computed_since`) to this process's caches.  The entries
    are pure functions of their keys (concrete runs, no Z3 state), so merging changes no
    result, only the time the next job spends."""
    results, cands = done
    _CANDIDATES.update(cands)
    for k, row in results.items():
        mine = _RESULTS.setdefault(k, [None] * len(row))
        for i, r in enumerate(row):
            if mine[i] is None:
                mine[i] = r


def _key(st: State) -> Any:
    return (st.catalog, st.gen, st.calls, st.sets)


def _grants(st: State) -> list[Grant]:
    gens = [st.gen] + ([st.gen - 1] if st.gen > 0 else [])
    return [
        Grant(s, t, g, d)
        for s, t, g, d in itertools.product(SESSIONS, TOOLS, gens, (*DIGESTS, JUNK))
    ]


def _good_grants(st: State, name: str) -> list[Grant]:
    s = st.sets[name]
    out = []
    for t in TOOLS:
        rec = st.catalog[t]
        if rec is not None and s is not None:
            out.append(Grant(s.session, t, st.gen, rec.digest))
    return out


def _existing(st: State) -> list[str]:
    return [n for n in SET_NAMES if st.sets[n] is not None]


def _seqs(tools: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [
        (),
        *((t,) for t in tools),
        *itertools.permutations(tools, 2),
        *((t, t) for t in tools),
    ]


SCHEMAS: dict[str, Any] = {"d0": {"type": "object", "x-v": 0}, "d1": {"type": "object", "x-v": 1}}
JUNK_DIGEST = "00"
"""The forged digest string of the label ``junk``: not a SHA-256 hex, so it matches no record."""

DIGEST_HEX: dict[str, str] = {label: schema_digest(s) for label, s in SCHEMAS.items()}


def digest_hex(label: Any) -> str:
    return DIGEST_HEX.get(label, JUNK_DIGEST)


class _Namer:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"g{self.n}"


def _forge(g: Grant, name: str) -> dict[str, Any]:
    return {
        "op": "forge_grant",
        "name": name,
        "session": g.session,
        "tool": g.tool,
        "generation": g.gen,
        "digest": digest_hex(g.digest),
    }


def _record(op: str, a: dict[str, Any]) -> dict[str, Any]:
    req: dict[str, Any] = {"op": op}
    if op == "catalog_upsert":
        req["replaced"] = a["replaced"] if a["has_replaced"] else None
    req.update(
        {
            "id": a["tool"],
            "source": source_of(a["tool"], a["prov"], a["trust"]).to_json(),
            "provenance": a["prov"].to_json(),
            "schema": SCHEMAS[a["digest"]],
        }
    )
    return req


def requests(act: Action, name: _Namer) -> list[dict[str, Any]]:
    """The PROTOCOL.md requests performing one model action (grant setup first)."""
    op, a = act.op, act.kwargs
    if op in ("catalog_insert", "catalog_upsert"):
        return [_record(op, a)]
    if op == "catalog_remove":
        return [{"op": op, "id": a["tool"]}]
    if op == "catalog_rebase_past":
        return [{"op": op, "prior": a["prior"]}]
    if op == "set_new":
        return [{"op": op, "name": a["name"], "session": a["session"], "core": list(a["core_ids"])}]
    if op in ("set_default_core", "set_progressive_core"):
        return [{"op": op, "name": a["name"], "session": a["session"]}]
    if op == "is_stale":
        return [{"op": op, "set": a["name"]}]
    if op == "activate":
        g = name()
        return [_forge(a["grant"], g), {"op": op, "set": a["name"], "grant": g}]
    if op == "activate_many":
        names = [name() for _ in a["grants"]]
        forged = [_forge(g, n) for g, n in zip(a["grants"], names, strict=True)]
        return [*forged, {"op": op, "set": a["name"], "grants": names}]
    if op in ("revoke", "authorize", "activate_user"):
        return [{"op": op, "set": a["name"], "tool": a["tool"]}]
    if op == "rebuild":
        return [
            {
                "op": op,
                "set": a["name"],
                "into": a["into"],
                "progressive": a["progressive"],
                "carry_forward": a["carry_forward"],
            }
        ]
    if op == "issue_grant":
        return [{"op": op, "name": name(), "session": a["session"], "tool": a["tool"]}]
    if op == "activate_model":
        authority = "model_confirmed" if a["confirmed"] else "unauthorized"
        return [{"op": op, "set": a["name"], "authority": authority, "tools": list(a["tools"])}]
    if op == "route":
        return [
            {
                "op": op,
                "set": a["retained"] if a["has_retained"] else None,
                "into": a["into"],
                "fallback_session": a["fallback_session"],
            }
        ]
    raise KeyError(op)


def observations() -> list[dict[str, Any]]:
    """What the vector looks at after the final action: every set name, the catalog, and the
    factory counter of every tool of the domain."""
    return [
        *({"op": "snapshot", "set": n} for n in SET_NAMES),
        {"op": "catalog_state"},
        *({"op": "factory_calls", "tool": t} for t in TOOLS),
    ]


def trace_requests(actions: Iterable[Action], observe: bool = False) -> list[dict[str, Any]]:
    """The PROTOCOL.md requests performing ``actions`` from a reset adapter (grants named
    ``g1``, ``g2``, ... in order), then with ``observe`` every `observations` request."""
    name = _Namer()
    out = [r for act in actions for r in requests(act, name)]
    return out + (observations() if observe else [])


def final_args(opname: str, st: State) -> Iterator[dict[str, Any]]:
    """Every argument tuple of the op's small alphabet that satisfies the op's precondition."""
    existing = _existing(st)
    if opname in ("catalog_insert", "catalog_upsert"):
        for replaced in (None, *TOOLS) if opname == "catalog_upsert" else (None,):
            for t, d, kind in itertools.product(TOOLS, DIGESTS, KINDS):
                a = (
                    upsert(replaced, t, d, kind)
                    if opname == "catalog_upsert"
                    else insert(t, d, kind)
                )
                yield a.kwargs
    elif opname == "catalog_remove":
        for t in TOOLS:
            yield {"tool": t}
    elif opname == "catalog_rebase_past":
        for p in sorted({0, st.gen, MAX_GENERATION - 1, MAX_GENERATION}):
            yield {"prior": p}
    elif opname == "set_new":
        for n, s, core in itertools.product(SET_NAMES, SESSIONS, _seqs(TOOLS)):
            yield {"name": n, "session": s, "core_ids": core}
    elif opname in ("set_default_core", "set_progressive_core"):
        for n, s in itertools.product(SET_NAMES, SESSIONS):
            yield {"name": n, "session": s}
    elif opname == "is_stale":
        for n in existing:
            yield {"name": n}
    elif opname == "activate":
        for n in existing:
            for g in _grants(st):
                yield {"name": n, "grant": g}
    elif opname == "activate_many":
        for n in existing:
            good = _good_grants(st, n)
            yield {"name": n, "grants": ()}
            for g in good:
                yield {"name": n, "grants": (g,)}
            for g1, g2 in itertools.permutations(good, 2):
                yield {"name": n, "grants": (g1, g2)}
            for g in _grants(st):
                yield {"name": n, "grants": (g,)}
            for g1, g2 in itertools.product(good, _grants(st)):
                yield {"name": n, "grants": (g1, g2)}
    elif opname in ("revoke", "authorize", "activate_user"):
        for n, t in itertools.product(existing, TOOLS):
            yield {"name": n, "tool": t}
    elif opname == "rebuild":
        for n, into, prog, carry in itertools.product(
            existing, SET_NAMES, (False, True), (True, False)
        ):
            yield {"name": n, "into": into, "progressive": prog, "carry_forward": carry}
    elif opname == "issue_grant":
        for s, t in itertools.product(SESSIONS, TOOLS):
            yield {"session": s, "tool": t}
    elif opname == "activate_model":
        for confirmed, n, tools in itertools.product((True, False), existing, _seqs(TOOLS)):
            yield {"confirmed": confirmed, "name": n, "tools": tools}
    elif opname == "route":
        for into, sess in itertools.product(SET_NAMES, SESSIONS):
            yield {
                "has_retained": False,
                "retained": None,
                "into": into,
                "fallback_session": sess,
            }
            for n in existing:
                yield {"has_retained": True, "retained": n, "into": into, "fallback_session": sess}
    else:  # pragma: no cover - every op of the table is listed above
        raise KeyError(opname)
